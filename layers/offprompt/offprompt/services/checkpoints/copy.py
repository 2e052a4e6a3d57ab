"""Use case: copy a checkpoint thread — a fork (docs/adr/0039, ADR 0037's rules). Handler: functions/checkpoints
(`POST /checkpoint-threads/{thread_id}/copy`, direct `copy_checkpoint_thread`).

The target's thread item records the ancestry: the source with `through` (its newest visible id in each namespace)
and the copy's time, then the source's own ancestry cut there too; plus a hold on each of those threads. One
transaction of at most MAX_FORK_DEPTH items whatever the history's length: nothing is copied. 404
`checkpoint_thread_not_found` when the source shows no checkpoint; 409 `checkpoint_thread_exists` when the target
exists; 409 `fork_too_deep` past MAX_FORK_DEPTH threads. The holds are conditioned on the source's version as read
(a prune, delete or release committed since the read: read again; 503 after ATTEMPTS) and on no `deleting` fence (a
source being deleted is 404, as if the delete had finished): docs/concurrency.md.
"""

from __future__ import annotations

from typing import Any

from offprompt.errors import DependencyUnavailable
from offprompt.limits import MAX_FORK_DEPTH
from offprompt.ports import CheckpointThreadState
from offprompt.services.checkpoints.blobs import check_thread
from offprompt.services.checkpoints.context import Checkpoints
from offprompt.services.checkpoints.delete import ATTEMPTS
from offprompt.services.checkpoints.errors import CheckpointThreadExists, CheckpointThreadNotFound, CopyTooDeep
from offprompt.services.checkpoints.requests import CheckpointCopy


def copy_thread(ck: Checkpoints, tenant: str, source: str, request: CheckpointCopy) -> dict[str, Any]:
    check_thread(source)
    target = check_thread(request.target_thread_id)
    if target == source:
        raise CheckpointThreadExists(target)
    for _attempt in range(ATTEMPTS):
        state = ck.store.thread(tenant, source)
        if state is None or state.deleting:  # a thread being deleted is copied as if it were gone
            raise CheckpointThreadNotFound(source)
        copied, through = _plan(ck, tenant, state, target)
        if ck.store.copy(
            tenant, copied, [(thread, cuts) for thread, cuts, _at in copied.ancestry], source_version=state.version
        ):
            return {"thread_id": target, "copied_from": source, "through": through}
        if ck.store.thread(tenant, target) is not None:
            raise CheckpointThreadExists(target)
        # the source changed since it was read (a prune, delete, release or another copy): read it again
    raise DependencyUnavailable("the checkpoint thread kept changing while it was copied")


def _plan(
    ck: Checkpoints, tenant: str, state: CheckpointThreadState, target: str
) -> tuple[CheckpointThreadState, dict[str, str]]:
    """The target's thread item: the source's newest visible id in each namespace, its ancestry cut there."""
    source = state.thread_id
    through: dict[str, str] = {}
    for ns in ck.store.view_namespaces(tenant, state):
        newest = ck.store.view_latest(tenant, state, ns)
        if newest is not None:
            through[ns] = newest.checkpoint_id
    if not through:
        raise CheckpointThreadNotFound(source)
    now = ck.clock()
    ancestry: list[tuple[str, dict[str, str], float]] = [(source, through, now)]
    for thread, cuts, at in state.ancestry:
        kept = {ns: min(cut, through[ns]) for ns, cut in cuts.items() if ns in through}
        if kept:
            ancestry.append((thread, kept, at))
    if len(ancestry) + 1 > MAX_FORK_DEPTH:
        raise CopyTooDeep(source)
    floors = {ns: floor for ns, floor in (state.floors or {}).items() if ns in through}
    return CheckpointThreadState(target, now, ancestry=tuple(ancestry), floors=floors or None), through
