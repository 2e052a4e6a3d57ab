"""Limits shared by request models, services and adapters: each is defined here once and read everywhere.

A limit a client can hit is checked once, before anything is written; adapters keep their own check only as a
guard for callers that bypass the service, with the same number.
"""

# ---- identifiers (tenant, thread, run, memory, namespace, alias): offprompt.identifiers checks them
IDENTIFIER_MAX_CHARS = 256
IDENTIFIER_MAX_UTF8_BYTES = 512

# ---- request bodies and artifacts
#: Lambda's synchronous payload limit is 6 MB; larger values go through presigned S3 URLs.
MAX_BODY_BYTES = 6 * 1024 * 1024
#: Deeper artifact nesting than this in a wire payload is refused (it would otherwise end in a RecursionError).
MAX_ARTIFACT_NESTING = 32
#: JSON containers (objects/arrays, e.g. in `meta` or a JsonArtifact value) nested deeper are refused: writing
#: them back (`to_dict`/`json.dumps`) recurses once per level.
MAX_JSON_DEPTH = 256
#: Tool and activity names of a stored output, model names of a prompt-stack request.
MAX_NAME_CHARS = 256

#: The most hits a search request may ask for.
MAX_TOP_K = 100
#: How deep the service may search internally to skip documents of stores that never committed
#: (they can crowd the top k); the text store accepts this depth from the service.
MAX_SEARCH_DEPTH = 1000
#: Longer queries are refused: with `match`, every analyzed term is a clause, and OpenSearch refuses queries
#: with more than 1024 clauses (a 400 that would otherwise be the client's fault, but opaque).
MAX_QUERY_CHARS = 1000

# ---- task memory
# Batch entries bigger than this go to an S3 manifest (DynamoDB items are capped at 400 KB).
MAX_INLINE_ENTRIES_BYTES = 300_000
# Values given by reference (`value_from`) may be this large.
MAX_UPLOAD_BYTES = 512 * 1024 * 1024
UPLOAD_EXPIRES_IN = 900
DOWNLOAD_EXPIRES_IN = 900
# A ListArtifact JSON larger than this is handed out as a presigned S3 GET (Lambda responses are capped at 6 MB).
MAX_INLINE_RESPONSE_BYTES = 5 * 1024 * 1024
#: The blob bytes one checkpoint tuple may carry: its checkpoint's and its current pending writes' (docs/adr/0042).
#: Base64 makes them 4/3 on the wire (5,592,406 bytes), plus ≤ 64 KB of metadata: under Lambda's 6 MB answer, so
#: every tuple stored can be read; a put or writes past it are refused (413 `checkpoint_too_large`).
MAX_CHECKPOINT_TUPLE_BYTES = 4 * 1024 * 1024
# ... and for direct invocations: a Step Functions state (input or output) is capped at 256 KB.
DIRECT_MAX_INLINE_BYTES = 200 * 1024
SEARCH_MODES = ("bm25", "knn", "hybrid")
# A stored output's thought and actions (JSON) together, in UTF-8 bytes: they are kept in the namespace record
# and the meta entry, DynamoDB items of at most 400 KB each.
MAX_META_BYTES = 100_000

# ---- conversation memory
#: A prompt-stack's token budget (the largest context windows are ~2M tokens) and how many runs it may ask for.
MAX_PROMPT_TOKENS = 10_000_000
MAX_LAST_N = 1_000_000
#: A thread's max_runs, summary offset and retention.
MAX_THREAD_RUNS = 100_000
MAX_SUMMARY_OFFSET = 10_000
MAX_RETENTION_DAYS = 36_500

# ---- conversation search (`POST /threads/search`, docs/adr/0049)
#: The query's length (the issue's bound: a paragraph of a conversation).
MAX_THREAD_SEARCH_QUERY_CHARS = 2000
#: Threads one search names (`thread_ids`) and hits it answers (`limit`, default 10).
MAX_SEARCH_THREAD_IDS = 100
MAX_THREAD_SEARCH_LIMIT = 100
DEFAULT_THREAD_SEARCH_LIMIT = 10
#: Runs before and after each hit a search answers with (`context`).
MAX_SEARCH_CONTEXT = 10
#: Threads a search under a prefix (or over the whole tenant) reads to find forks and, with consistency "search",
#: waits on; past it the wait gives up (header X-Offprompt-Searchable: false).
MAX_SEARCH_SCOPE_THREADS = 2000
#: How long consistency "search" waits for the index at most (within the request's deadline).
SEARCH_CONSISTENCY_WAIT_S = 5.0
#: The optional rerank model (docs/adr/0068): the most candidates of the fused ranking it reorders (Bedrock bills
#: a rerank "query" per 100 document chunks; the API takes 1,000), and the characters of each one's text sent.
RERANK_MAX_TEXTS = 100
RERANK_TEXT_CHARS = 2000

# ---- list routes
#: Runs on one page of `GET /threads/{thread_id}/runs` (default 20).
MAX_LIST_LIMIT = 100
DEFAULT_RUNS_LIMIT = 20
#: Items per `POST /threads/{thread_id}/items` (a framework session's append; docs/adr/0033): one transaction of
#: two items each, the thread's counts and the charge, so an append is all or nothing (unless its inline bodies
#: pass a transaction's 4 MB: then it commits in order, batch by batch, and a retry converges).
MAX_APPEND_ITEMS = 32
#: Items one `GET /threads/{thread_id}/items` reads at most (a page is also cut at MAX_INLINE_RESPONSE_BYTES).
MAX_ITEMS_LIMIT = 1000
#: Namespaces or meta entries on one page of the task-memory list routes.
MAX_PAGE_LIMIT = 1000
DEFAULT_PAGE_LIMIT = 100
#: Paging cursors are opaque strings of at most this many characters.
MAX_CURSOR_CHARS = 4096

# ---- Griptape Cloud's Threads API (`/api/threads`)
#: Messages on one page of `GET /api/threads/{id}/messages`; Griptape's driver asks for no page and gets this many.
MAX_CLOUD_PAGE_SIZE = 1000
DEFAULT_CLOUD_PAGE_SIZE = 1000
#: A thread's metadata (JSON, UTF-8 bytes), kept in the thread item.
MAX_THREAD_METADATA_BYTES = 64_000
MAX_THREAD_NAME_CHARS = 1024
#: Messages in one PATCH (Griptape sends the whole, already trimmed, list).
MAX_PATCH_MESSAGES = 10_000

# ---- hosted plans (docs/adr/0023-usage-metering-and-quotas.md)
#: API keys a tenant may hold when its plan names no other number.
DEFAULT_MAX_KEYS = 5
#: Self-service exports and erases (`POST /export`, `DELETE /tenant`: each reads all of the tenant's data, by
#: Query, or the whole table for a tenant not known to be indexed: ADR 0024, 0028) a tenant may run per UTC day
#: when its plan names no other number (plans and keys older than the field too).
DEFAULT_SCANS_PER_DAY = 2
#: A rate-limit window item takes at most this many admitted requests per second before the window is split into
#: more items (DynamoDB: ~1,000 write units per second per partition; a conditional ADD is one).
RATE_SHARD_CAPACITY = 250
#: Per-day usage counters are spread over this many items per tenant (one is picked at random per request).
USAGE_SHARDS = 4
#: Longest range `GET /usage` answers in one request (days, inclusive).
MAX_USAGE_DAYS = 93
#: Cap on the names of API keys.
MAX_KEY_NAME_CHARS = 100

# ---- tenant export and erase
#: Lifetime of the presigned GETs a tenant export hands out (shorter if the signing credentials expire first).
EXPORT_EXPIRES_IN = 3600

#: How long a request admitted before an erase fenced its tenant may still run (API Gateway ends every request
#: within 30 s; the functions' deadlines end their dependency calls before that): an erase verifies only once its
#: fence is this old, so no write of such a request can land after the verification (docs/adr/0028-hosted-wing.md).
ERASE_FENCE_WINDOW_S = 30
#: The years `GET /usage` answers for (a date outside is a 400, not an overflow past year 9999).
USAGE_FIRST_YEAR = 2000
USAGE_LAST_YEAR = 9998

# ---- long-term records (docs/adr/0034)
#: A record's value (its JSON, UTF-8 bytes): within Lambda's 6 MB request and response.
MAX_RECORD_VALUE_BYTES = 4 * 1024 * 1024
#: Values larger than this go to S3 (DynamoDB items stop at 400 KB; a replace's transaction holds two versions).
INLINE_RECORD_BYTES = 350_000
#: Records per search page, the furthest offset, and the versions one history read returns.
MAX_RECORD_SEARCH_LIMIT = 100
MAX_RECORD_SEARCH_OFFSET = 10_000
MAX_RECORD_HISTORY = 1000

#: The most threads a fork may read through (its ancestry, docs/adr/0037); a deeper fork is a 409 `fork_too_deep`.
MAX_FORK_DEPTH = 8
