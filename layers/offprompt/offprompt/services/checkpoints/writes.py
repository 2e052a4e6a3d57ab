"""Use case: store a checkpoint's pending writes (docs/adr/0039). Handler: functions/checkpoints (`PUT
/checkpoint-threads/{thread_id}/checkpoints/{checkpoint_id}/writes`, direct `put_checkpoint_writes`).

LangGraph's rule: a write with idx >= 0 already stored for (checkpoint, task_id, idx) is kept (the first one wins, in
one request too); a write with idx < 0 (a special channel) replaces it — in a checkpoint a live copy reads, the
replacement is stored beside the write it replaces (a versioned key), so the copy keeps reading the old one.
Writes go into the thread's own partition (a copy's writes to a shared checkpoint too) and may arrive before their
checkpoint: LangGraph saves a checkpoint in the background while the next step's tasks run and write, unordered.
Writes to a checkpoint a delete or prune hid are 404 `checkpoint_not_found`. The thread's root item first if it has
none yet, then the writes in transactions, each write conditioned on the stored item and the charge in the same
transaction (the gauge moved by new - old, ADR 0042; a refused charge stores nothing of its transaction). A racing
request's write of the same (task_id, idx ≥ 0) that landed first is kept, and this one is not stored nor charged.
Each transaction checks the thread item is there and not fenced by a delete: writes read before a delete and
written after it are read and stored again into the thread anew; a delete that began and did not finish is finished
first (docs/concurrency.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from offprompt.errors import DependencyUnavailable
from offprompt.metering import Charge, Meter
from offprompt.ports import CheckpointRace, CheckpointThreadState, StoredCheckpointWrite, TypedBlob
from offprompt.services.checkpoints import blobs, delete, rules
from offprompt.services.checkpoints.context import Checkpoints
from offprompt.services.checkpoints.errors import CheckpointNotFound, CheckpointTooLarge
from offprompt.services.checkpoints.requests import WritesPut

#: Tries of writes whose thread a delete removed (or fenced) between their read and their write.
ATTEMPTS = 4


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
    decoded = [(w, blobs.decode(w.value, f"writes[{n}].value")) for n, w in enumerate(request.writes)]
    for _attempt in range(ATTEMPTS):
        try:
            return _put_writes(ck, tenant, thread_id, checkpoint_id, request, decoded, meter)
        except CheckpointRace:
            continue  # a delete came between the read and the write: read again (the thread starts anew)
    raise DependencyUnavailable("the checkpoint thread kept changing while its writes were stored; retry")


def _put_writes(
    ck: Checkpoints,
    tenant: str,
    thread_id: str,
    checkpoint_id: str,
    request: WritesPut,
    decoded: list[tuple[Any, bytes]],
    meter: Meter | None,
) -> dict[str, Any]:
    ns = request.checkpoint_ns
    state = ck.store.thread(tenant, thread_id)
    if state is not None and state.deleting:  # a delete began and did not finish: finish it, then start anew
        delete.delete_thread(ck, tenant, thread_id)
        state = None
    if state is not None and rules.hidden(state, ns, checkpoint_id):
        raise CheckpointNotFound(thread_id, ns, checkpoint_id)
    checkpoint_size, stored = 0, dict[tuple[str, int], int]()
    if state is not None:
        bound = (checkpoint_id, True)
        groups = list(ck.store.view_groups(tenant, state, ns, lower=bound, upper=bound))  # read here: 3 modules deep
        checkpoint_size, stored = rules.tuple_sizes(groups)
    chosen: dict[int, tuple[Any, bytes]] = {}
    for write, data in decoded:
        if write.idx >= 0 and ((request.task_id, write.idx) in stored or write.idx in chosen):
            continue
        chosen[write.idx] = (write, data)
    grown = {**stored, **{(request.task_id, idx): len(data) for idx, (_w, data) in chosen.items()}}
    too_large = rules.fits(checkpoint_size, grown)
    if too_large is not None:  # every tuple stored must fit one answer (ADR 0042)
        raise CheckpointTooLarge(thread_id, ns, checkpoint_id, too_large)
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
        kept = ck.store.put_writes(
            tenant,
            thread_id,
            written,
            head=state if state is not None and state.special else None,
            create=CheckpointThreadState(thread_id, now) if state is None else None,
            pricing=None if meter is None else lambda chunk: _charge(meter, chunk),
        )
    except Exception:
        for key in rules.offloaded(list(written)):
            ck.blobs.drop(key)
        raise
    for key in rules.offloaded([w for w in written if w not in kept]):  # another request's write was first
        ck.blobs.drop(key)
    if meter is not None and kept:
        meter.settle(Charge(tenant, meter.plan, meter.now, day_counters=_counters(kept)))
    return {"stored": len(kept)}


def _charge(meter: Meter, chunk: Sequence[StoredCheckpointWrite]) -> Charge:
    """What writes stored together cost: the day's counters, and their bytes, which the store turns into the
    gauge's new - old of each item (ADR 0042), committed in the writes' own transaction."""
    return meter.charge(stored_bytes=sum(w.blob.size for w in chunk), **_counters(chunk))


def _counters(writes: Sequence[StoredCheckpointWrite]) -> dict[str, int]:
    size = sum(w.blob.size for w in writes)
    offloaded = sum(w.blob.size for w in writes if w.blob.key is not None)
    return {
        "checkpoint_writes_stored": len(writes),
        "bytes_stored_dynamodb": size - offloaded,
        "bytes_stored_s3": offloaded,
    }
