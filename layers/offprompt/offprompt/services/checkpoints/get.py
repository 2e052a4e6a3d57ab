"""Use case: get a checkpoint tuple — the latest of a namespace or one by id (docs/adr/0039). Handler:
functions/checkpoints (`GET /checkpoint-threads/{thread_id}/checkpoint`, direct `get_checkpoint`).

The latest of a thread that is no copy and hides nothing is one Query of one item (newest first: the newest checkpoint,
or a write of it, whose other items a second Query then reads exactly; docs/adr/0053) plus its blob's GetObject when
offloaded. A copy, or a thread with hidden items, keeps a head in each
namespace it holds items in, met first by that Query: its state says which partitions to merge. A namespace without
items of its own (a fresh copy) reads the thread item instead. By id: the thread item, then the checkpoint's items.
"""

from __future__ import annotations

from typing import Any

from offprompt.ports import CheckpointGroup
from offprompt.services.checkpoints.blobs import check_thread
from offprompt.services.checkpoints.context import Checkpoints
from offprompt.services.checkpoints.errors import CheckpointNotFound
from offprompt.services.checkpoints.requests import CheckpointRead
from offprompt.services.checkpoints.views import tuple_view


def latest_group(ck: Checkpoints, tenant: str, thread_id: str, namespace: str) -> CheckpointGroup | None:
    read = ck.store.newest(tenant, thread_id, namespace)
    if read.head is None and read.group is not None and read.group.checkpoint is not None:
        return read.group
    state = read.head or ck.store.thread(tenant, thread_id)
    return None if state is None else ck.store.view_latest(tenant, state, namespace)


def get_checkpoint(ck: Checkpoints, tenant: str, thread_id: str, query: CheckpointRead) -> dict[str, Any]:
    check_thread(thread_id)
    ns = query.checkpoint_ns
    if query.checkpoint_id is None:
        group = latest_group(ck, tenant, thread_id, ns)
    else:
        state = ck.store.thread(tenant, thread_id)
        group = None if state is None else ck.store.view_checkpoint(tenant, state, ns, query.checkpoint_id)
    if group is None:
        raise CheckpointNotFound(thread_id, ns, query.checkpoint_id)
    return tuple_view(thread_id, group, lambda key: ck.blobs.get_blob(key))
