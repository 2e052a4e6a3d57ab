"""Use case: prune a checkpoint thread, keeping the latest checkpoint of each namespace (docs/adr/0039). Handler:
functions/checkpoints (`POST /checkpoint-threads/{thread_id}/prune`, direct `prune_checkpoint_thread`; strategy
"delete" is the thread's delete, `delete.delete_thread`).

Only the latest checkpoint of each namespace stays readable, with its writes. A thread no copy reads, that is no
copy and hides nothing deletes its older items and stays as it was. Otherwise the older ones are hidden first (a
floor at the latest id of each namespace, in the thread item and its namespaces' heads), then only those no live
copy reads are deleted: a copy hides its sources' older items, never deletes them. Idempotent; an unknown thread is
left alone.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from offprompt.ports import IdBound
from offprompt.services.checkpoints import rules
from offprompt.services.checkpoints.blobs import check_thread
from offprompt.services.checkpoints.context import Checkpoints


def keep_latest(ck: Checkpoints, tenant: str, thread_id: str) -> dict[str, Any]:
    check_thread(thread_id)
    done = {"thread_id": thread_id, "strategy": "keep_latest"}
    state = ck.store.thread(tenant, thread_id)
    if state is None:
        return done
    floors: dict[str, IdBound] = dict(state.floors or {})
    for ns in ck.store.view_namespaces(tenant, state):
        newest = ck.store.view_latest(tenant, state, ns)
        if newest is not None:
            floors[ns] = (newest.checkpoint_id, True)
    pruned = dataclasses.replace(state, floors=floors)
    items = ck.store.own_items(tenant, thread_id)
    if state.holds or state.special:
        ck.store.save_state(tenant, pruned, sorted({i.namespace for i in items}))
    gone = [i for i in items if rules.unread(pruned, i)]
    if gone:
        ck.store.delete_items(tenant, thread_id, gone)
    for key in rules.offloaded(gone):
        ck.blobs.drop(key)
    return done
