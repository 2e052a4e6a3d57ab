"""Use case: delete a checkpoint thread (docs/adr/0039). Handler: functions/checkpoints (`DELETE
/checkpoint-threads/{thread_id}`, direct `delete_checkpoint_thread`; `prune` with strategy "delete").

Idempotent. What it does to items a copy still shares (ADR 0037's rule, nothing a live copy reads disappears):
- no live copy reads the thread: the `deleting` fence is set on the thread item first (conditioned on the version
  read: a copy made meanwhile sends the delete back to read again), so no copy takes a hold from then on (a copy of
  a thread being deleted is 404, as if it were gone); then every item (and its S3 blob) is deleted, their bytes off
  the gauge, then the thread item. A crash leaves the fence: the retried delete finishes;
- live copies read it: the thread is hidden instead (a floor past its newest id in each namespace, `deleted`), the
  items no copy reads are deleted, the rest stay until the last copy goes.
Either way the thread stops being a copy: its holds on its sources are released and each source collected — what
nothing reads any more goes, and a source deleted earlier goes entirely once its last copy is gone. Every sweep
checks and bumps the thread item's version (docs/concurrency.md, docs/adr/0041): a copy, release or prune committed
since the plan makes the delete read and plan again, never delete what a copy reads.
"""

from __future__ import annotations

import dataclasses

from offprompt.errors import DependencyUnavailable
from offprompt.ports import CheckpointThreadChanged, CheckpointThreadState, IdBound
from offprompt.services.checkpoints import rules
from offprompt.services.checkpoints.blobs import check_thread
from offprompt.services.checkpoints.context import Checkpoints

#: Plans a sweep may make before it gives up (503): each retry means another writer changed the thread meanwhile.
ATTEMPTS = 5


def remove(ck: Checkpoints, tenant: str, thread_id: str, items: list[rules.Item], version: int | None) -> int | None:
    """Delete the items (CheckpointThreadChanged when the thread moved since `version`; None: fenced, unchecked),
    then their blobs."""
    if items:
        version = ck.store.delete_items(tenant, thread_id, items, version=version)
    for key in rules.offloaded(items):
        ck.blobs.drop(key)
    return version


def delete_thread(ck: Checkpoints, tenant: str, thread_id: str) -> bool:
    """Whether there was a thread to delete."""
    check_thread(thread_id)
    for _attempt in range(ATTEMPTS):
        state = ck.store.thread(tenant, thread_id)
        if state is None:
            return False
        try:
            if state.holds:
                _hide(ck, tenant, state)
            else:
                _erase(ck, tenant, state)
        except CheckpointThreadChanged:
            continue
        _release_sources(ck, tenant, state)
        return True
    raise DependencyUnavailable("the checkpoint thread kept changing while it was deleted")


def _erase(ck: Checkpoints, tenant: str, state: CheckpointThreadState) -> None:
    """Fence, then sweep: once fenced no copy can hold the thread, so the sweep is not checked against the version
    (two deletes of one thread, or a retry after a crash, sweep side by side and converge)."""
    if not state.deleting:
        ck.store.fence(tenant, state.thread_id, state.version)
    remove(ck, tenant, state.thread_id, ck.store.own_items(tenant, state.thread_id), None)
    if not ck.store.delete_thread_item(tenant, state.thread_id, None):
        raise CheckpointThreadChanged()  # gone meanwhile (another delete finished): read it again


def _hide(ck: Checkpoints, tenant: str, state: CheckpointThreadState) -> None:
    items = ck.store.own_items(tenant, state.thread_id)
    floors: dict[str, IdBound] = dict(state.floors or {})
    for item in items:
        past = (item.checkpoint_id, False)  # hides the id itself and everything below
        if item.namespace not in floors or past[0] >= floors[item.namespace][0]:
            floors[item.namespace] = past
    hidden = dataclasses.replace(state, ancestry=(), floors=floors, deleted=True)
    version = ck.store.save_state(tenant, hidden, sorted({i.namespace for i in items}))
    remove(ck, tenant, state.thread_id, [i for i in items if rules.unread(hidden, i)], version)


def _release_sources(ck: Checkpoints, tenant: str, state: CheckpointThreadState) -> None:
    for source, _cuts, _at in state.ancestry:
        ck.store.release_hold(tenant, source, state.thread_id)
        collect(ck, tenant, source)


def collect(ck: Checkpoints, tenant: str, thread_id: str) -> None:
    """Delete what nothing reads any more in a thread's partition (and the thread, deleted and unheld, when that
    was everything); re-planned when the thread changes meanwhile."""
    for _attempt in range(ATTEMPTS):
        released = ck.store.thread(tenant, thread_id)
        if released is None:
            return
        items = ck.store.own_items(tenant, thread_id)
        gone = [i for i in items if rules.unread(released, i)]
        try:
            version = remove(ck, tenant, thread_id, gone, released.version)
        except CheckpointThreadChanged:
            continue
        everything = released.deleted and not released.holds and len(gone) == len(items)
        if everything and not ck.store.delete_thread_item(tenant, thread_id, version):
            continue
        return
    raise DependencyUnavailable("the checkpoint thread kept changing while it was collected")
