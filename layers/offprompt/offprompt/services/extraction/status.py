"""Use case: where each extraction strategy stands on a thread (docs/adr/0051). Handler: functions/extraction
(`GET /threads/{thread_id}/extraction`, direct `thread_extraction`).

`{"thread_id", "strategies": {name: {"processed_through_seq", "pending_runs", "records_written", "last_error",
"paused", "enabled", "updated_at"}}}` for every strategy of the tenant (and any a status is kept for): `pending_runs`
the thread's unexpired runs after the processed one; `last_error` why the last attempt wrote nothing (the model down,
a malformed answer, a thread without the `actor_id` its namespace needs), null after a success; `paused` why the plan
holds extraction back (null when it does not). A thread that does not exist is 404 `not_found`.
"""

from __future__ import annotations

from typing import Any

from offprompt.errors import InvalidInput, NotFound
from offprompt.identifiers import check_identifier
from offprompt.memory.extraction import Unresolved, strategy_of
from offprompt.ports import ExtractionStatus
from offprompt.services.extraction.context import Extractions
from offprompt.services.extraction.run import namespace_of


def thread_extraction(ext: Extractions, tenant: str, thread_id: str) -> dict[str, Any]:
    check_identifier("thread_id", thread_id)
    thread = ext.runs.get_thread(tenant, thread_id)
    if thread is None:
        raise NotFound(f'thread "{thread_id[:100]}" does not exist')
    strategies = {s["name"]: strategy_of(s) for s in ext.store.list_strategies(tenant)}
    statuses = ext.store.statuses(tenant, thread_id)
    now = int(ext.clock())
    views: dict[str, Any] = {}
    for name in sorted({*strategies, *statuses}):
        status = statuses.get(name) or ExtractionStatus(thread_id, name)
        strategy = strategies.get(name)
        error = status.last_error
        if strategy is not None:
            try:
                namespace_of(strategy, thread)
            except (Unresolved, InvalidInput) as exc:  # said now, before any run asked
                error = f"skipped: {exc.message if isinstance(exc, InvalidInput) else exc}"
        pending = sum(
            1
            for _ in ext.runs.iter_keys(
                tenant,
                thread_id,
                lo=status.processed_through_seq + 1,
                newest_first=False,
                now_epoch=now,
                ancestry=thread.ancestry,
            )
        )
        views[name] = {
            "processed_through_seq": status.processed_through_seq,
            "pending_runs": pending,
            "records_written": status.records_written,
            "last_error": error,
            "paused": status.paused,
            "enabled": strategy is not None and strategy.enabled,
            "updated_at": status.updated_at,
        }
    return {"thread_id": thread_id, "strategies": views}
