"""Use case: prune a checkpoint thread, keeping the latest checkpoint of each namespace (docs/adr/0039). Handler:
functions/checkpoints (`POST /checkpoint-threads/{thread_id}/prune`, direct `prune_checkpoint_thread`; strategy
"delete" is the thread's delete, `delete.delete_thread`).

Only the latest checkpoint of each namespace stays readable, with its writes. A thread no copy reads, that is no
copy and hides nothing deletes its older items and stays as it was. Otherwise the older ones are hidden first (a
floor at the latest id of each namespace, in the thread item and its namespaces' heads), then only those no live
copy reads are deleted: a copy hides its sources' older items, never deletes them. The floor and every sweep check
and bump the thread item's version (docs/concurrency.md): a copy made since the plan sends the prune back to read
and plan again. Idempotent; an unknown thread, or one being deleted, is left alone.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from offprompt.errors import DependencyUnavailable
from offprompt.ports import CheckpointThreadChanged, IdBound
from offprompt.services.checkpoints import rules
from offprompt.services.checkpoints.blobs import check_thread
from offprompt.services.checkpoints.context import Checkpoints
from offprompt.services.checkpoints.delete import ATTEMPTS


def keep_latest(ck: Checkpoints, tenant: str, thread_id: str) -> dict[str, Any]:
    check_thread(thread_id)
    done = {"thread_id": thread_id, "strategy": "keep_latest"}
    for _attempt in range(ATTEMPTS):
        state = ck.store.thread(tenant, thread_id)
        if state is None or state.deleting:
            return done
        floors: dict[str, IdBound] = dict(state.floors or {})
        for ns in ck.store.view_namespaces(tenant, state):
            newest = ck.store.view_latest(tenant, state, ns)
            if newest is not None:
                floors[ns] = (newest.checkpoint_id, True)
        pruned = dataclasses.replace(state, floors=floors)
        items = ck.store.own_items(tenant, thread_id)
        try:
            version = state.version
            if state.holds or state.special:
                version = ck.store.save_state(tenant, pruned, sorted({i.namespace for i in items}))
            gone = [i for i in items if rules.unread(pruned, i)]
            if gone:  # here, not through delete.py: a use case reaches DynamoDB through three modules
                ck.store.delete_items(tenant, thread_id, gone, version=version)
        except CheckpointThreadChanged:
            continue
        for key in rules.offloaded(gone):
            ck.blobs.drop(key)
        return done
    raise DependencyUnavailable("the checkpoint thread kept changing while it was pruned")
