"""The checks, in the order they run (the package docstring lists them; a unit test keeps the two equal)."""

from __future__ import annotations

from typing import Any

from . import checkpoints, cloud, conversation, errors, hosted, records, task_memory
from .runner import Check, Smoke


def griptape(name: str) -> Any:
    """A Griptape check, its module imported when it runs (Griptape takes seconds to import)."""

    def run(smoke: Smoke) -> str:
        from . import drivers

        result: str = getattr(drivers, name)(smoke)
        return result

    return run


def cleanup(smoke: Smoke) -> str:
    return smoke.cleanup.run(smoke)


CHECKS: tuple[Check, ...] = (
    Check("reach", "the API answers as a tenant (an unknown thread is 404 not_found)", hosted.check_reach, always=True),
    Check("conversation.add-runs", "5 runs appended (seq 1-5), listed back identical", conversation.check_add_runs),
    Check(
        "conversation.idempotent-retry",
        "same run id + same body → the first answer again, stored once",
        conversation.check_idempotent_retry,
    ),
    Check("conversation.conflict", "same run id + another body → 409 conflict", conversation.check_conflict),
    Check("conversation.list-runs-cursor", "runs page by cursor; order=desc", conversation.check_list_runs_cursor),
    Check(
        "conversation.prompt-stack-budget",
        "max_tokens keeps the newest runs; X-Offprompt-Prompt-Tokens, X-Offprompt-Over-Budget",
        conversation.check_prompt_stack_budget,
    ),
    Check("conversation.thread-admin", "GET and PUT (configure) a thread", conversation.check_thread_admin),
    Check(
        "conversation.max-runs-pruning",
        "max_runs prunes the oldest runs, visible in the list and the prompt stack",
        conversation.check_max_runs_pruning,
    ),
    Check(
        "conversation.thread-listing",
        "GET /threads newest first and by id, by prefix; the console's page and script (no credentials, a CSP)",
        conversation.check_thread_listing_and_console,
    ),
    Check("conversation.thread-delete", "DELETE → 204, then 404 and empty contents", conversation.check_thread_delete),
    Check(
        "conversation.fork",
        "a fork shares the parent's runs (no copy), keeps its own, travels back by as_of_run; forked parents stay",
        conversation.check_fork,
    ),
    Check(
        "conversation.search",
        "POST /threads/search finds a run at once (consistency search), in a fork too; never a deleted one; 422",
        conversation.check_search,
    ),
    Check(
        "conversation.extraction",
        "extraction strategies: PUT, GET, list, a thread's status, 422, DELETE → 404",
        conversation.check_extraction,
    ),
    Check(
        "cloud-threads.api",
        "/api/threads: alias, find, PATCH diff, messages, delete",
        cloud.check_cloud_threads,
    ),
    Check(
        "griptape.cloud-driver",
        "Griptape's GriptapeCloudConversationMemoryDriver with base_url under an Agent",
        griptape("check_cloud_driver"),
    ),
    Check(
        "griptape.conversation-memory",
        "offprompt_client.griptape.OffpromptConversationMemory: lazy, pruned server-side",
        griptape("check_conversation_memory"),
    ),
    Check(
        "griptape.memory-driver",
        "OffpromptConversationMemoryDriver under Griptape's ConversationMemory",
        griptape("check_memory_driver"),
    ),
    Check(
        "griptape.task-memory",
        "OffpromptTaskMemory: an off_prompt output stored, read back by a tool",
        griptape("check_task_memory"),
    ),
    Check(
        "task-memory.text",
        "process-output text: reference line exact, load exact, namespace, meta entry",
        task_memory.check_text,
    ),
    Check(
        "task-memory.idempotent-output",
        "idempotency_key: a retry is replayed, another body 409",
        task_memory.check_idempotent_output,
    ),
    Check("task-memory.blob", "process-output blob, loaded byte-exact", task_memory.check_blob),
    Check("task-memory.search", "BM25 search, polled until visible (--search-wait)", task_memory.check_search),
    Check(
        "task-memory.upload",
        "presigned upload + value_from, byte-exact; an upload is used once",
        task_memory.check_upload,
    ),
    Check(
        "task-memory.namespaces",
        "namespaces listed by cursor, GET, DELETE (then 404, empty load)",
        task_memory.check_namespaces,
    ),
    Check(
        "task-memory.big-blob",
        "a 6 MB blob: load answers BlobDownloads, bytes equal",
        task_memory.check_big_blob,
        needs=("full",),
    ),
    Check(
        "task-memory.big-text",
        "a ~6 MB (as JSON) text: load answers 303, text equal",
        task_memory.check_big_text,
        needs=("full",),
    ),
    Check("records.put-get", "PUT a record (ttl_minutes), GET it back, an unknown key 404", records.check_put_get),
    Check(
        "records.replace-history",
        "PUT again → v2; GET as_of v1's time → v1; history v2, v1",
        records.check_replace_history,
    ),
    Check(
        "records.search",
        "text search polled until visible (--search-wait): current only; filters; as_of",
        records.check_search,
    ),
    Check(
        "records.namespaces",
        "a namespace's default TTL; namespaces by prefix, max_depth, suffix",
        records.check_namespaces,
    ),
    Check("records.delete", "DELETE → 204, then 404; again 204; history ends in a tombstone", records.check_delete),
    Check(
        "checkpoints.round-trip",
        "LangGraph checkpoints: put, writes, latest, list, copy, prune, delete",
        checkpoints.check_round_trip,
    ),
    Check("errors.400", "not JSON, unknown artifact type → 400 (runs, outputs)", errors.check_400),
    Check("errors.404", "unknown thread, namespace, /api thread, path → 404", errors.check_404),
    Check("errors.405", "a known path with another method → 405 + Allow (deployed: 404)", errors.check_405),
    Check("errors.413", "a thought over 100 KB → 413 payload_too_large", errors.check_413),
    Check("errors.422", "out-of-schema values → 422 schema_invalid with details", errors.check_422),
    Check("errors.slash-in-id", '"/", ".", ".." in names → 400; %2F in a path → 404', errors.check_slash_in_id),
    Check(
        "hosted.usage",
        "GET /usage counts the smoke's requests on each route",
        hosted.check_usage,
        needs=("key",),
    ),
    Check(
        "hosted.keys",
        "POST /keys → the new key works → DELETE → refused at once",
        hosted.check_keys,
        needs=("key",),
    ),
    Check(
        "tenant.export",
        "POST /export: the manifest and a file, SHA-256 checked",
        hosted.check_export,
        needs=("export",),
    ),
    Check("cleanup", "every thread, namespace and key the checks made: deleted, verified gone", cleanup, always=True),
    Check("tenant.erase", "DELETE /tenant: everything of the tenant, verified", hosted.check_erase, needs=("erase",)),
)
