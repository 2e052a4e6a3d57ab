"""offprompt-smoke: check a running offprompt API, local (`make dev`) or deployed, and print a table of what held.

    make smoke API=<ApiUrl> KEY=op_...            # the dev venv: .venv/bin/offprompt-smoke <url> (key from the env)
    offprompt-smoke <ApiUrl> --key op_... [--quick] [--with-export] [--erase-tenant] [--only GROUP,...]
    pip install "./clients/python[griptape]" ./tools/offprompt_smoke   # a machine with only the client

With a key it authenticates with `Authorization: Bearer op_...`; without one it sends the local stack's
`X-Offprompt-Tenant` header (`--tenant`, default `local`), which only `make dev` honours. It runs on
`offprompt_client` (standard library HTTP) and real Griptape, never on the server library or the local stack (an
import contract, and tests/e2e/test_smoke.py runs it from a venv holding only those). Every check creates its own data
under the run's prefix `smoke-<12 hex>-` (thread ids, memory names, namespaces, aliases, key names, the first label
of record namespaces); the `cleanup` row deletes all of it, whatever failed, reads it back to verify, and names what
it could not delete and what stays by design (meta entries, which no route deletes; each deleted namespace's position
counter; each deleted record's history, which expires with its TTL; the 303's copy under downloads/ and an export's
files, which expire). Each row: check, held / failed / skipped (with the reason), milliseconds, what was seen. Exit
status 1 when a check failed, 2 for bad arguments. A `429 rate_limited` is retried after a second (counted in the
last line); plan limits (quotas) are never exercised, they need an operator.

The checks, in order (`offprompt-smoke --list`):

    reach                             the API answers as a tenant (an unknown thread is 404 not_found); else the rest
                                      is skipped ("not run: reach failed"): a wrong URL or a refused key is one row
    conversation.add-runs             5 runs appended (seq 1-5), listed back identical
    conversation.idempotent-retry     same run id + same body → the first answer again (server-made ids too), once
    conversation.conflict             same run id + another body → 409 conflict, the first run unchanged
    conversation.list-runs-cursor     pages of 2 by cursor, the last without next_cursor; order=desc
    conversation.prompt-stack-budget  max_tokens keeps the newest runs within it (X-Offprompt-Prompt-Tokens);
                                      max_tokens=1 → X-Offprompt-Over-Budget: true
    conversation.thread-admin         GET a thread; PUT max_runs / retention_days, read back
    conversation.max-runs-pruning     max_runs=3 prunes to the newest 3, in the list and the prompt stack
    conversation.thread-listing       GET /threads?prefix= pages the run's 2 threads newest first and by id; GET
                                      /console and /console/app.js answer with a Content-Security-Policy (the console)
    conversation.thread-delete        DELETE → 204, GET → 404 not_found, runs and history empty, DELETE again → 204
    conversation.fork                 a fork shares the parent's runs (no copy) and keeps its own; as_of_run travels
                                      back; a parent with live forks refuses DELETE (409 thread_has_forks)
    conversation.search               POST /threads/search with consistency "search" finds a run just written, in
                                      its thread and in a fork (shared history); a deleted thread's run is never
                                      a hit; limit=0 → 422 schema_invalid
    conversation.extraction           PUT /extraction/strategies/{name} (a trigger that never fires), GET, list,
                                      GET /threads/{id}/extraction names it with 1 pending run, 422, DELETE → 404
    cloud-threads.api                 /api/threads: create with alias, find by ?alias=, alias conflict 409, PATCH
                                      [m1-m3] then [m2-m4] (a diff), messages view, native runs, DELETE, alias freed
    griptape.cloud-driver             Griptape's own GriptapeCloudConversationMemoryDriver (base_url + key, alias)
                                      under an Agent with max_runs=2; reloaded by a new driver
    griptape.conversation-memory      offprompt_client.griptape.OffpromptConversationMemory: nothing loaded, each
                                      prompt's history from prompt-stack, max_runs pruned server-side
    griptape.memory-driver            OffpromptConversationMemoryDriver under Griptape's ConversationMemory: trims
                                      followed, meta kept, reload
    griptape.task-memory              OffpromptTaskMemory: a 200 KB off_prompt tool output never reaches a prompt,
                                      a tool reads it back (SHA-256 equal), the meta entry keeps the thought
    task-memory.text                  process-output text: Griptape's reference line exact, load key for key,
                                      namespace record and list, meta entry (thought, actions, answer)
    task-memory.idempotent-output     idempotency_key: a retry replayed (X-Offprompt-Replayed), another body 409
    task-memory.blob                  a blob stored inline, loaded back byte-exact
    task-memory.search                BM25 search polled until the text is visible, bounded by --search-wait (default
                                      90 s: OpenSearch Serverless makes a store searchable after 10-60 s); the row
                                      says how long it took
    task-memory.upload                presigned PUT + value_from: byte-exact with its envelope; reuse → 400
    task-memory.namespaces            list by cursor, GET, DELETE → 204 then 404 and an empty load, DELETE again
    task-memory.big-blob              a 6 MB blob (by upload): load answers 200 BlobDownloads, bytes equal (--quick
                                      skips it)
    task-memory.big-text              a text of ~6 MB as JSON (by upload): load answers 303 to a presigned GET, equal
                                      (--quick skips it)
    records.put-get                   PUT /records/{ns}/{key} (ttl_minutes) → the record, GET the same; an unknown
                                      key → 404 record_not_found
    records.replace-history           PUT again → v2 (created_at kept); GET as_of v1's updated_at → v1, valid until
                                      v2; GET .../history → v2, v1
    records.search                    POST /records/search: text polled until visible (bounded by --search-wait),
                                      the current version only; filters; as_of; another prefix finds nothing
    records.namespaces                PUT /record-namespaces/{ns} default TTL taken by a put without one; POST
                                      /records/namespaces by prefix, max_depth, suffix
    records.delete                    DELETE → 204, GET → 404, DELETE again → 204; the history ends in a tombstone
    checkpoints.round-trip            PUT /checkpoint-threads/{id}/checkpoints/{cid} twice + writes; GET the latest
                                      byte-exact; list by metadata; copy; prune; DELETE the source: the copy keeps it
    errors.400                        not JSON / not UTF-8 / empty → 400 invalid_input; unknown artifact type → 400
                                      invalid_artifact (runs, outputs); nothing written
    errors.404                        unknown thread, namespace, /api thread → 404 not_found, their contents empty;
                                      an unknown path → 404 (route_not_found, or API Gateway's own deployed)
    errors.405                        a known path with another method → 405 method_not_allowed + Allow (or API
                                      Gateway's 404 deployed, ADR 0017)
    errors.413                        a thought over 100 KB → 413 payload_too_large, nothing stored
    errors.422                        top_k / max_runs / limit / last_n out of range → 422 schema_invalid with
                                      details [{loc, type, msg}]
    errors.slash-in-id                "/", ".", ".." as a namespace or alias → 400 invalid_input; %2F in a path → 404
    hosted.usage                      (KEY) GET /usage counts at least the smoke's answered requests on each route
    hosted.keys                       (KEY) POST /keys → the new key works as the same tenant, listed without its
                                      secret → DELETE /keys/{id} → refused at once (401) → DELETE again 204
    tenant.export                     (--with-export) POST /export: manifest, a file's size and SHA-256, holds the
                                      smoke's run; counts against the plan's scans_per_day
    cleanup                           everything the checks made (threads, namespaces, records, keys): deleted, then
                                      read back as gone
    tenant.erase                      (--erase-tenant) DELETE /tenant {"confirm": <tenant>}, repeated after
                                      Retry-After while 202, until verified. DANGEROUS: it erases ALL of the tenant's
                                      data, not only the smoke's, and with a key every key of the tenant, KEY included

The last line counts held / failed / skipped, lists the routes no check reached and the rate-limit retries.
Importing this package does nothing.
"""
