"""Use case: put a checkpoint (docs/adr/0039). Handler: functions/checkpoints (`PUT /checkpoint-threads/{thread_id}/
checkpoints/{checkpoint_id}`, direct `put_checkpoint`).

Reads top to bottom: check the request (ids, base64, ≤ 4 MiB blob, ≤ 64 KB metadata) → read the thread item and the
checkpoint item (one BatchGetItem) → refuse replacing what a live copy reads or what a prune/delete hid (409
`checkpoint_shared`) → the blob inline, or to S3 past the item budget → one transaction: the checkpoint, the thread
item on the first put, the namespace's head on a copy or a pruned thread, the charge → the replaced blob dropped.
Re-putting an id replaces it (LangGraph does; a retry converges). The transaction checks the thread item is there
and not fenced by a delete: a put read before a delete and written after it reads again (the delete came first, the
put starts the thread anew); a thread whose delete began and did not finish (the fence) has the delete finished
first (docs/concurrency.md).
"""

from __future__ import annotations

import json
from typing import Any

from offprompt.errors import DependencyUnavailable, PayloadTooLarge
from offprompt.metering import Charge, Meter
from offprompt.ports import CheckpointRace, CheckpointThreadState, StoredCheckpoint, TypedBlob
from offprompt.ports import CheckpointShared as SharedInStore
from offprompt.services.checkpoints import blobs, delete, rules
from offprompt.services.checkpoints.context import Checkpoints
from offprompt.services.checkpoints.errors import CheckpointShared, CheckpointTooLarge
from offprompt.services.checkpoints.requests import CheckpointPut

MAX_METADATA_BYTES = 64 * 1024
#: Tries of a put whose read went stale (another put or a delete changed the item or the thread meanwhile).
ATTEMPTS = 4


def metadata_json(metadata: dict[str, Any]) -> str:
    text = json.dumps(metadata, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    if len(text.encode("utf-8", "surrogatepass")) > MAX_METADATA_BYTES:
        raise PayloadTooLarge(
            f"metadata is larger than {MAX_METADATA_BYTES} bytes serialized", details={"limit": MAX_METADATA_BYTES}
        )
    return text


def put_checkpoint(
    ck: Checkpoints,
    tenant: str,
    thread_id: str,
    checkpoint_id: str,
    request: CheckpointPut,
    *,
    meter: Meter | None = None,
) -> dict[str, Any]:
    blobs.check_thread(thread_id)
    blobs.check_checkpoint_id(checkpoint_id)
    blobs.check_names(request.checkpoint_ns)
    ns = request.checkpoint_ns
    data = blobs.decode(request.checkpoint, "checkpoint")
    meta = metadata_json(request.metadata)
    for _attempt in range(ATTEMPTS):
        state, existing = ck.store.thread_and_checkpoint(tenant, thread_id, ns, checkpoint_id)
        if state is not None and state.deleting:  # a delete began and did not finish: finish it, then start anew
            delete.delete_thread(ck, tenant, thread_id)
            continue
        held = state is not None and rules.held(state, ns, checkpoint_id)
        if state is not None and (rules.hidden(state, ns, checkpoint_id) or (held and existing is not None)):
            raise CheckpointShared(thread_id, ns, checkpoint_id)
        if state is not None:  # its pending writes may be there first: the tuple must fit one answer (ADR 0042)
            bound = (checkpoint_id, True)
            _, pending = rules.tuple_sizes(list(ck.store.view_groups(tenant, state, ns, lower=bound, upper=bound)))
            too_large = rules.fits(len(data), pending)
            if too_large is not None:
                raise CheckpointTooLarge(thread_id, ns, checkpoint_id, too_large)
        now = ck.clock()
        type_ = request.checkpoint.type
        if blobs.inline(ck, len(data), len(meta)):
            blob = TypedBlob(type=type_, size=len(data), data=data)
        else:
            blob = TypedBlob(
                type=type_, size=len(data), key=ck.blobs.put_blob(tenant, thread_id, ns, checkpoint_id, data)
            )
        charge = _charge(meter, len(data), blob.key is not None)
        checkpoint = StoredCheckpoint(
            namespace=ns,
            checkpoint_id=checkpoint_id,
            parent_id=request.parent_checkpoint_id,
            metadata_json=meta,
            blob=blob,
            metered_bytes=len(data) if meter is not None else 0,
            written_at=now,
        )
        try:
            ck.store.put_checkpoint(
                tenant,
                thread_id,
                checkpoint,
                create=None if state is not None else CheckpointThreadState(thread_id, now),
                head=state if state is not None and state.special else None,
                must_be_new=held,
                replacing=existing.metered_bytes if existing is not None else None,
                charge=charge,
            )
        except SharedInStore:
            _drop(ck, blob)
            raise CheckpointShared(thread_id, ns, checkpoint_id) from None
        except CheckpointRace:
            _drop(ck, blob)
            continue
        except Exception:
            _drop(ck, blob)
            raise
        if meter is not None and charge is not None:
            meter.settle(charge)
        if existing is not None and existing.blob.key != blob.key:
            _drop(ck, existing.blob)
        return {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}
    raise DependencyUnavailable("the checkpoint kept changing while it was stored; retry")


def _drop(ck: Checkpoints, blob: TypedBlob) -> None:
    if blob.key is not None:
        ck.blobs.drop(blob.key)


def _charge(meter: Meter | None, size: int, big: bool) -> Charge | None:
    """A put stores its blob's bytes and counts one checkpoint stored today; the store moves the gauge by what the
    item holds now less what the item it replaces held (ADR 0042)."""
    if meter is None:
        return None
    where = "bytes_stored_s3" if big else "bytes_stored_dynamodb"
    return meter.charge(stored_bytes=size, checkpoints_stored=1, **{where: size})
