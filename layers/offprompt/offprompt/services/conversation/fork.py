"""Use case: fork a thread — a new thread that reads the parent's runs up to a point without copying them
(docs/adr/0037). Handler: functions/threads (`POST /threads/{thread_id}/fork`).

The fork's thread item records its ancestry (`ThreadState.ancestry`; the RunStore's reads walk it): the parent's
chain cut at the fork point, at most MAX_FORK_DEPTH threads. One transaction whatever the history's length: the
fork's item (only if the id is free) and the held thread's fork count and hold (only if unchanged since read; a
race re-reads and tries again). Settings (max_runs, memory type, offset, retention) are copied; the parent's
summary too when it covers only runs at or before the fork point. A retry converges: the same `request_id` (which
also names the default target id), or the same target id and `after_run_id`, answers the fork made first.
"""

from __future__ import annotations

import uuid
from typing import Any

from offprompt.errors import DependencyUnavailable, InvalidInput, NotFound
from offprompt.identifiers import check_identifier, digest
from offprompt.limits import MAX_FORK_DEPTH
from offprompt.ports import ForkRaced, ForkSpec, ThreadExists, ThreadState
from offprompt.services.conversation.context import Conversation, now_iso
from offprompt.services.conversation.errors import ForkTooDeep, ThreadExistsConflict, require_run
from offprompt.services.conversation.requests import ForkRequest

#: Reads of the parent before a fork gives up racing with other forks of it (503: safe to retry).
FORK_ATTEMPTS = 5


def fork_thread(conv: Conversation, tenant: str, parent_id: str, request: ForkRequest) -> dict[str, Any]:
    """Fork `parent_id` after `request.after_run_id` (default: its newest run). Returns the fork's view with
    `replayed` (True when a retry found the fork made first)."""
    check_identifier("thread_id", parent_id)
    if request.request_id is not None:
        check_identifier("request_id", request.request_id)
    target = request.thread_id or _default_target(tenant, parent_id, request.request_id)
    check_identifier("thread_id", target)
    if target == parent_id:
        raise InvalidInput("a fork needs a thread id other than its parent's")
    for _attempt in range(FORK_ATTEMPTS):
        parent = conv.runs.get_thread(tenant, parent_id)
        if parent is None:
            raise NotFound(f'thread "{parent_id[:100]}" does not exist')
        through = _fork_point(conv, parent, request.after_run_id)
        ancestry = cut(parent, through)
        if len(ancestry) > MAX_FORK_DEPTH:
            raise ForkTooDeep(parent_id, MAX_FORK_DEPTH)
        if any(thread == target for thread, _ in ancestry):
            raise ThreadExistsConflict(target)  # an ancestor the fork would read (and hold): it exists
        covered = parent.summary is not None and parent.summary_through_seq <= through
        spec = ForkSpec(
            thread_id=target,
            parent=parent,
            through_seq=through,
            ancestry=ancestry,
            now=now_iso(conv.clock()),
            summary=parent.summary if covered else None,
            summary_through_seq=parent.summary_through_seq if covered else 0,
            run_tokens=parent.run_tokens * through // parent.next_seq if parent.next_seq else 0,
            request_id=request.request_id,
        )
        try:
            state = conv.runs.fork_thread(tenant, spec)
        except ForkRaced:
            continue  # the parent changed since it was read (another fork, a fork deleted): read it again
        except ThreadExists:
            existing = conv.runs.get_thread(tenant, target)
            if existing is not None and _same_fork(existing, parent_id, request, through):
                return fork_view(conv, existing, replayed=True)
            raise ThreadExistsConflict(target) from None
        return fork_view(conv, state, replayed=False)
    raise DependencyUnavailable("other forks of this thread kept changing it; retry the fork")


def _default_target(tenant: str, parent_id: str, request_id: str | None) -> str:
    """The fork's id when the request names none: derived from `request_id` (so a retry finds its fork), else new."""
    if request_id is None:
        return f"fork-{uuid.uuid4().hex}"
    return f"fork-{digest(tenant, parent_id, request_id)[:32]}"


def _fork_point(conv: Conversation, parent: ThreadState, after_run_id: str | None) -> int:
    """The seq the fork reads through: `after_run_id`'s (404 `run_not_found`), else the parent's newest run's."""
    if after_run_id is not None:
        seq = conv.runs.run_seq(parent.tenant, parent.thread_id, after_run_id, parent.ancestry)
        return require_run(seq, parent.thread_id, after_run_id)
    hi: int | None = None
    while True:  # the newest stored run (expired ones are stored until TTL deletes them: now_epoch=0)
        runs, after = conv.runs.page_runs(
            parent.tenant,
            parent.thread_id,
            lo=1,
            hi=hi,
            newest_first=True,
            limit=1,
            now_epoch=0,
            keys_only=True,
            ancestry=parent.ancestry,
        )
        if runs:
            return runs[0].seq
        if after is None or after <= 1:
            return 0
        hi = after - 1


def cut(parent: ThreadState, through: int) -> tuple[tuple[str, int], ...]:
    """The fork's ancestry: the parent's chain cut at `through`, without threads it reads nothing of (nearest
    first, through_seq strictly decreasing). Empty when there is nothing to read (a thread with no run)."""
    if through <= 0:
        return ()
    chain = [(parent.thread_id, through), *((a, min(t, through)) for a, t in parent.ancestry)]
    # Entries after the first are strictly decreasing as stored; the cut can make leading ones equal `through`:
    # of those only the last (the oldest thread holding runs up to the fork point) is read.
    leading = sum(1 for _, t in chain if t == through)
    return tuple(chain[leading - 1 :])


def _same_fork(existing: ThreadState, parent_id: str, request: ForkRequest, through: int) -> bool:
    if existing.fork_of != parent_id:
        return False
    if request.request_id is not None:
        return existing.fork_request == request.request_id
    point = existing.ancestry[0][1] if existing.ancestry else 0
    return request.after_run_id is not None and point == through


def fork_view(conv: Conversation, state: ThreadState, *, replayed: bool) -> dict[str, Any]:
    """The fork as `POST /threads/{thread_id}/fork` answers it."""
    through = state.ancestry[0][1] if state.ancestry else 0
    run = conv.runs.get_run(state.tenant, state.thread_id, through, state.ancestry) if through else None
    return {
        "thread_id": state.thread_id,
        "forked_from": state.fork_of,
        "through_seq": through,
        "after_run_id": run.run_id if run is not None else None,
        "ancestry": [{"thread_id": t, "through_seq": n} for t, n in state.ancestry],
        "kind": state.kind,
        "replayed": replayed,
    }
