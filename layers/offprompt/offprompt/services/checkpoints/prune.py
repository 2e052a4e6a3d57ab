"""Use case: prune a checkpoint thread (docs/adr/0039). Handler: functions/checkpoints (`POST
/checkpoint-threads/{thread_id}/prune`, direct `prune_checkpoint_thread`).

`delete`: the thread's delete. `keep_latest`: only the latest checkpoint of each namespace stays readable, with its
writes. A thread no copy reads and that is no copy deletes its older items; otherwise the older ones are hidden (a
floor at the latest id of each namespace, kept in the thread item and its namespaces' heads) and only those no live
copy reads are deleted (a copy hides its sources' older items, never deletes them). Idempotent; an unknown thread
is left alone.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from offprompt.services.checkpoints import blobs, merged
from offprompt.services.checkpoints.context import Checkpoints
from offprompt.services.checkpoints.delete import Item, collect, delete_thread
from offprompt.services.checkpoints.requests import CheckpointPrune


def prune_thread(ck: Checkpoints, tenant: str, thread_id: str, request: CheckpointPrune) -> dict[str, Any]:
    blobs.check_thread(thread_id)
    if request.strategy == "delete":
        delete_thread(ck, tenant, thread_id)
        return {"thread_id": thread_id, "strategy": request.strategy}
    state = ck.store.thread(tenant, thread_id)
    if state is None:
        return {"thread_id": thread_id, "strategy": request.strategy}
    keep: dict[str, str] = {}
    for ns in merged.namespaces(ck, tenant, state):
        newest = merged.latest(ck, tenant, state, ns)
        if newest is not None:
            keep[ns] = newest.checkpoint_id
    if not state.holds and not state.ancestry and not state.floors:
        older: list[Item] = []
        for ns, latest in keep.items():
            for group in ck.store.groups(tenant, thread_id, ns, lower=None, upper=(latest, False)):
                older.extend(group.writes)
                if group.checkpoint is not None:
                    older.append(group.checkpoint)
        if older:
            ck.store.delete_items(tenant, thread_id, older)
            for item in older:
                blobs.drop(ck, item.blob)
        return {"thread_id": thread_id, "strategy": request.strategy}
    floors = dict(state.floors or {})
    floors.update({ns: (latest, True) for ns, latest in keep.items()})
    pruned = dataclasses.replace(state, floors=floors)
    ck.store.save_state(tenant, pruned, ck.store.namespaces(tenant, thread_id))
    collect(ck, tenant, thread_id)
    return {"thread_id": thread_id, "strategy": request.strategy}
