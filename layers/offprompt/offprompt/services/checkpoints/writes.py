"""Use case: store a checkpoint's pending writes (docs/adr/0039). Handler: functions/checkpoints (`PUT
/checkpoint-threads/{thread_id}/checkpoints/{checkpoint_id}/writes`, direct `put_checkpoint_writes`).

LangGraph's rule: a write with idx >= 0 already stored for (checkpoint, task_id, idx) is kept (the first one wins, in
one request too); a write with idx < 0 (a special channel) replaces it — in a checkpoint a live copy reads, the
replacement is stored beside the write it replaces (a versioned key), so the copy keeps reading the old one.
Writes go into the thread's own partition (a copy's writes to a shared checkpoint too) and may arrive before their
checkpoint: LangGraph saves a checkpoint in the background while the next step's tasks run and write, unordered.
Writes to a checkpoint a delete or prune hid are 404 `checkpoint_not_found`. The charge commits first (nothing is
stored when it is refused), then the thread's root item if it has none yet, then the writes in batches.
"""

from __future__ import annotations

from typing import Any

from offprompt.metering import Meter
from offprompt.ports import CheckpointThreadState, StoredCheckpointWrite, TypedBlob
from offprompt.services.checkpoints import blobs, rules
from offprompt.services.checkpoints.context import Checkpoints
from offprompt.services.checkpoints.errors import CheckpointNotFound
from offprompt.services.checkpoints.requests import WritesPut


def put_writes(
    ck: Checkpoints,
    tenant: str,
    thread_id: str,
    checkpoint_id: str,
    request: WritesPut,
    *,
    meter: Meter | None = None,
) -> dict[str, Any]:
    blobs.check_thread(thread_id)
    blobs.check_checkpoint_id(checkpoint_id)
    blobs.check_names(request.checkpoint_ns, request.task_id)
    ns = request.checkpoint_ns
    decoded = [(w, blobs.decode(w.value, f"writes[{n}].value")) for n, w in enumerate(request.writes)]
    state = ck.store.thread(tenant, thread_id)
    if state is not None and rules.hidden(state, ns, checkpoint_id):
        raise CheckpointNotFound(thread_id, ns, checkpoint_id)
    stored: set[tuple[str, int]] = set()
    if state is not None:
        bound = (checkpoint_id, True)
        for group in ck.store.view_groups(tenant, state, ns, lower=bound, upper=bound):
            stored.update((w.task_id, w.idx) for w in group.writes)
    chosen: dict[int, tuple[Any, bytes]] = {}
    for write, data in decoded:
        if write.idx >= 0 and ((request.task_id, write.idx) in stored or write.idx in chosen):
            continue
        chosen[write.idx] = (write, data)
    now = ck.clock()
    # A special-channel write replacing one a live copy reads is kept beside it (the copy reads the old one).
    version = int(now * 1000) if state is not None and rules.held(state, ns, checkpoint_id) else 0
    written: list[StoredCheckpointWrite] = []
    try:
        for write, data in chosen.values():
            if blobs.inline(ck, len(data), len(write.channel) + len(request.task_path)):
                blob = TypedBlob(type=write.value.type, size=len(data), data=data)
            else:
                name = f"{checkpoint_id}/{request.task_id}/{write.idx}"
                key = ck.blobs.put_blob(tenant, thread_id, ns, name, data)
                blob = TypedBlob(type=write.value.type, size=len(data), key=key)
            written.append(
                StoredCheckpointWrite(
                    namespace=ns,
                    checkpoint_id=checkpoint_id,
                    task_id=request.task_id,
                    task_path=request.task_path,
                    idx=write.idx,
                    channel=write.channel,
                    blob=blob,
                    metered_bytes=len(data) if meter is not None else 0,
                    written_at=now,
                    version=version if write.idx < 0 else 0,
                )
            )
        size = sum(w.blob.size for w in written)
        offloaded = sum(w.blob.size for w in written if w.blob.key is not None)
        charge = None
        if meter is not None and written:
            charge = meter.charge(
                stored_bytes=size,
                checkpoint_writes_stored=len(written),
                bytes_stored_dynamodb=size - offloaded,
                bytes_stored_s3=offloaded,
            )
        ck.store.put_writes(
            tenant,
            thread_id,
            written,
            head=state if state is not None and state.special else None,
            create=CheckpointThreadState(thread_id, now) if state is None else None,
            charge=charge,
        )
    except Exception:
        for key in rules.offloaded(list(written)):
            ck.blobs.drop(key)
        raise
    if meter is not None and charge is not None:
        meter.settle(charge)
    return {"stored": len(written)}
