"""Limits shared by request models, services and adapters: each is defined here once and read everywhere.

A limit a client can hit is checked once, before anything is written; adapters keep their own check only as a
guard for callers that bypass the service, with the same number.
"""

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
SEARCH_MODES = ("bm25", "knn", "hybrid")
# A stored output's thought and actions (JSON) together, in UTF-8 bytes: they are kept in the namespace record
# and the meta entry, DynamoDB items of at most 400 KB each.
MAX_META_BYTES = 100_000

# ---- list routes
#: Runs on one page of `GET /threads/{thread_id}/runs` (default 20).
MAX_LIST_LIMIT = 100
DEFAULT_RUNS_LIMIT = 20
#: Namespaces or meta entries on one page of the task-memory list routes.
MAX_PAGE_LIMIT = 1000
DEFAULT_PAGE_LIMIT = 100
#: Paging cursors are opaque strings of at most this many characters.
MAX_CURSOR_CHARS = 4096

# ---- tenant export and erase
#: Lifetime of the presigned GETs a tenant export hands out (shorter if the signing credentials expire first).
EXPORT_EXPIRES_IN = 3600
