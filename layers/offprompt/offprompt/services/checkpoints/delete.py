"""Use case: delete a checkpoint thread (docs/adr/0039). Handler: functions/checkpoints (`DELETE
/checkpoint-threads/{thread_id}`, direct `delete_checkpoint_thread`; `prune` with strategy "delete").

Idempotent. What it does to items a copy still shares (ADR 0037's rule, nothing a live copy reads disappears):
- no live copy reads the thread: every item (and its S3 blob) is deleted, their bytes off the gauge, then the thread
  item (conditioned on no hold having appeared meanwhile);
- live copies read it: the thread is hidden instead (a floor past its newest id in each namespace, `deleted`), the
  items no copy reads are deleted, the rest stay until the last copy goes.
Either way the thread stops being a copy: its holds on its sources are released and each source collected — what
nothing reads any more goes, and a source deleted earlier goes entirely once its last copy is gone.
"""

from __future__ import annotations

import dataclasses

from offprompt.ports import CheckpointThreadState, IdBound
from offprompt.services.checkpoints import rules
from offprompt.services.checkpoints.blobs import check_thread
from offprompt.services.checkpoints.context import Checkpoints


def _remove(ck: Checkpoints, tenant: str, thread_id: str, items: list[rules.Item]) -> None:
    if items:
        ck.store.delete_items(tenant, thread_id, items)
    for key in rules.offloaded(items):
        ck.blobs.drop(key)


def delete_thread(ck: Checkpoints, tenant: str, thread_id: str) -> bool:
    """Whether there was a thread to delete."""
    check_thread(thread_id)
    state = ck.store.thread(tenant, thread_id)
    if state is None:
        return False
    items = ck.store.own_items(tenant, thread_id)
    if not state.holds:
        _remove(ck, tenant, thread_id, items)
        if ck.store.delete_thread_item(tenant, thread_id):
            _release_sources(ck, tenant, state)
            return True
        state = ck.store.thread(tenant, thread_id) or state  # a copy was made meanwhile: keep what it reads
    floors: dict[str, IdBound] = dict(state.floors or {})
    for item in items:
        past = (item.checkpoint_id, False)  # hides the id itself and everything below
        if item.namespace not in floors or past[0] >= floors[item.namespace][0]:
            floors[item.namespace] = past
    hidden = dataclasses.replace(state, ancestry=(), floors=floors, deleted=True)
    ck.store.save_state(tenant, hidden, sorted({i.namespace for i in items}))
    _remove(ck, tenant, thread_id, [i for i in items if rules.unread(hidden, i)])
    _release_sources(ck, tenant, state)
    return True


def _release_sources(ck: Checkpoints, tenant: str, state: CheckpointThreadState) -> None:
    for source, _cuts, _at in state.ancestry:
        ck.store.release_hold(tenant, source, state.thread_id)
        released = ck.store.thread(tenant, source)
        if released is None:
            continue
        items = ck.store.own_items(tenant, source)
        gone = [i for i in items if rules.unread(released, i)]
        _remove(ck, tenant, source, gone)
        if released.deleted and not released.holds and len(gone) == len(items):
            ck.store.delete_thread_item(tenant, source)
