"""Use case: delete a checkpoint thread (docs/adr/0039). Handler: functions/checkpoints (`DELETE
/checkpoint-threads/{thread_id}`, direct `delete_checkpoint_thread`; `prune` with strategy "delete").

Idempotent. What it does to items a copy still shares (ADR 0037's rule, nothing a live copy reads disappears):
- no live copy reads the thread: every item (and its S3 blob) is deleted, their bytes off the gauge, then the thread
  item (conditioned on no hold having appeared meanwhile);
- live copies read it: the thread is hidden instead (a floor past its newest id in each namespace, `deleted`), the
  items no copy reads are deleted, the rest stay until the last copy goes (`collect` when a hold is released).
Either way the thread stops being a copy: its holds on its sources are released and each source collected (a source
deleted earlier goes for good once its last copy is gone).
"""

from __future__ import annotations

import dataclasses

from offprompt.ports import CheckpointThreadState, StoredCheckpoint, StoredCheckpointWrite
from offprompt.services.checkpoints import blobs, merged
from offprompt.services.checkpoints.context import Checkpoints

Item = StoredCheckpoint | StoredCheckpointWrite


def _own_items(ck: Checkpoints, tenant: str, thread_id: str) -> dict[str, list[Item]]:
    """The partition's checkpoints and writes by namespace."""
    found: dict[str, list[Item]] = {}
    for ns in ck.store.namespaces(tenant, thread_id):
        items: list[Item] = []
        for group in ck.store.groups(tenant, thread_id, ns, lower=None, upper=None):
            items.extend(group.writes)
            if group.checkpoint is not None:
                items.append(group.checkpoint)
        found[ns] = items
    return found


def _protected(state: CheckpointThreadState, item: Item) -> bool:
    through = merged.held_through(state, item.namespace)
    return through is not None and item.checkpoint_id <= through


def _remove(ck: Checkpoints, tenant: str, thread_id: str, items: list[Item]) -> None:
    if not items:
        return
    ck.store.delete_items(tenant, thread_id, items)
    for item in items:
        blobs.drop(ck, item.blob)


def delete_thread(ck: Checkpoints, tenant: str, thread_id: str) -> bool:
    """Whether there was a thread to delete."""
    blobs.check_thread(thread_id)
    state = ck.store.thread(tenant, thread_id)
    if state is None:
        return False
    items = _own_items(ck, tenant, thread_id)
    if not state.holds:
        _remove(ck, tenant, thread_id, [i for found in items.values() for i in found])
        if ck.store.delete_thread_item(tenant, thread_id):
            _release_sources(ck, tenant, state)
            return True
        state = ck.store.thread(tenant, thread_id) or state  # a copy was made meanwhile: keep what it reads
    floors = dict(state.floors or {})
    for ns, found in items.items():
        if found:
            top = max(i.checkpoint_id for i in found)
            floors[ns] = max(floors.get(ns, (top, False)), (top, False), key=lambda b: (b[0], not b[1]))
    hidden = dataclasses.replace(state, ancestry=(), floors=floors, deleted=True)
    ck.store.save_state(tenant, hidden, list(items))
    _remove(ck, tenant, thread_id, [i for found in items.values() for i in found if not _protected(hidden, i)])
    _release_sources(ck, tenant, state)
    return True


def _release_sources(ck: Checkpoints, tenant: str, state: CheckpointThreadState) -> None:
    for source, _cuts, _at in state.ancestry:
        ck.store.release_hold(tenant, source, state.thread_id)
        collect(ck, tenant, source)


def collect(ck: Checkpoints, tenant: str, thread_id: str) -> None:
    """Delete what nothing reads any more in a thread's partition: items hidden by its floors that no live copy
    reads; a deleted thread with no copy left goes entirely."""
    state = ck.store.thread(tenant, thread_id)
    if state is None:
        return
    items = [i for found in _own_items(ck, tenant, thread_id).values() for i in found]
    gone = [i for i in items if merged.hidden(state, i.namespace, i.checkpoint_id) and not _protected(state, i)]
    _remove(ck, tenant, thread_id, gone)
    if state.deleted and not state.holds and len(gone) == len(items):
        ck.store.delete_thread_item(tenant, thread_id)
