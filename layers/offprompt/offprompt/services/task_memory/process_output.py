"""Use case: process-output — Griptape's `TaskMemory.process_output`. Handler: functions/process_output.

Plan (pure, `memory.task.plan`): empty output → "tool output is empty"; a kind with no storage → handed back
unchanged (pass-through); else store it. Text = reserve positions (atomic counter) → index the chunks at those
positions → the batch (its entries inline, or in an S3 manifest: `tm.manifests`) → commit the batch, the namespace
record and the meta entry in one DynamoDB transaction. Blobs (objects keyed by a store id, ADR 0035) = write the
objects → into a name never used, one transaction that creates the record with its positions and commits
(`commit_first`); otherwise reserve, then commit as text does. Readers only ever follow committed batches, so they
never see a reference to data that is not there, nor half a batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from offprompt.artifacts import BaseArtifact
from offprompt.artifacts.action import ToolAction
from offprompt.errors import PayloadTooLarge, QuotaExceeded
from offprompt.identifiers import check_identifier
from offprompt.limits import MAX_META_BYTES
from offprompt.memory import task
from offprompt.memory.meta import ActionSubtaskMetaEntry
from offprompt.metering import Meter
from offprompt.ports import (
    ArtifactStorage,
    Entries,
    NamespaceCommit,
    NamespaceDeleting,
    ReceiptStore,
    Reservation,
    StorageKindTaken,
    StoredBatch,
    TextScope,
    UploadTaken,
)
from offprompt.services.task_memory.cleanup import best_effort
from offprompt.services.task_memory.context import TaskMemory
from offprompt.services.task_memory.errors import NamespaceDeleted, StorageKindConflict, UploadError
from offprompt.services.task_memory.idempotent_output import OnceResult, process_once
from offprompt.services.task_memory.requests import OutputRequest
from offprompt.services.task_memory.results import ProcessResult
from offprompt.services.task_memory.uploads import check_upload_size, checked_upload, fill_upload, upload_shell


def process_output(
    tm: TaskMemory,
    tenant: str,
    memory: str,
    *,
    tool: str,
    activity: str,
    artifact: BaseArtifact | dict[str, Any],
    actions: Sequence[ToolAction] = (),
    thought: str | None = None,
    value_from: Any = None,
    meter: Meter | None = None,
    consistency: str = "load",
) -> ProcessResult:
    """Griptape's process_output. `meter` (hosted mode): what is stored is charged in the commit that stores it,
    under the plan's stored-bytes limit (429: nothing stored); an upload is charged what it really holds."""
    check_identifier("memory_name", memory)
    uploaded: str | None = None
    upload_id: str | None = None
    if value_from is not None:  # the value is an upload (uploads.py): checked, read from S3, then filled in
        uploaded = checked_upload(tm, tenant, memory, artifact, value_from)
        upload_id = uploaded.rsplit("/", 1)[-1]
        check_upload_size(tm, tm.blobs.size(uploaded))
        shell = upload_shell(cast(dict[str, Any], artifact))
        artifact = fill_upload(shell, tm.blobs.get(uploaded))
    elif not isinstance(artifact, BaseArtifact):
        artifact = BaseArtifact.from_dict(artifact)
    decided = task.plan(artifact)
    if decided.answer is not None:
        return ProcessResult(decided.answer, stored=False)
    assert decided.kind is not None and decided.namespace is not None
    namespace = check_identifier("namespace (artifact.name)", decided.namespace)
    kind, items = decided.kind, decided.items
    actions_json = task.actions_to_json(actions)
    meta_bytes = len(actions_json.encode("utf-8", "surrogatepass")) + len(
        (thought or "").encode("utf-8", "surrogatepass")
    )
    if meta_bytes > MAX_META_BYTES:  # checked before a position is reserved or anything is written
        raise PayloadTooLarge(
            f"thought and actions together are {meta_bytes} bytes; at most {MAX_META_BYTES} are kept as "
            "meta memory (store large tool inputs as artifacts instead)"
        )

    scope = TextScope(tenant, memory, namespace)
    storage = tm.storages[kind]
    reservation = None
    if storage.needs_positions:  # text: its documents are addressed by position, reserved before they are written
        reservation = _reserve(tm, tenant, memory, namespace, kind.value, len(items))
    entries, total = storage.store(
        scope, reservation.start if reservation else None, items, searchable=consistency == "search"
    )

    answer = task.stored_answer(tool, activity, memory, namespace)
    meta = ActionSubtaskMetaEntry(actions=actions_json, answer=answer.value, thought=thought).to_dict()
    commit = NamespaceCommit(
        tool=tool, activity=activity, namespace_metadata=actions_json, total_bytes=total, upload_id=upload_id
    )
    # The meta entry's bytes are the tenant's too (meta memory outlives the namespace; the erase removes it).
    charge = meter.charge(stored_bytes=total + meta_bytes) if meter is not None else None
    batch: StoredBatch | None = None
    start = 0
    ref: str | None = None
    try:
        if reservation is None:
            # Blobs, keyed by a store id, are written first; a new namespace's reservation folds into the commit
            # (one PUT + one transaction). A name already in use reserves as text does, then commits.
            batch = tm.manifests.inline_batch(0, kind.value, entries)
            if batch is not None and tm.namespaces.commit_first(
                tenant, memory, namespace, batch, commit, meta, charge=charge
            ):
                ref = storage.reference(entries)  # this store is the whole namespace: loadable without a lookup
            else:
                try:
                    reservation = _reserve(tm, tenant, memory, namespace, kind.value, len(items))
                    _supersede_first(tm, storage, scope)
                except Exception:  # nothing committed names the objects: they go
                    storage.discard(scope, entries, None)
                    raise
        if reservation is not None:
            start = reservation.start
            batch = tm.manifests.batch_for(scope, start, kind.value, entries)
            tm.namespaces.commit(tenant, memory, namespace, batch, commit, meta, reservation.generation, charge=charge)
    except (QuotaExceeded, UploadTaken) as refused:
        _discard(tm, storage, scope, entries, batch, lost_to=None)
        if isinstance(refused, UploadTaken):
            raise UploadError("the upload was already used by another store (an upload fills one store)") from None
        raise
    except StorageKindTaken as lost:
        _discard(tm, storage, scope, entries, batch, lost_to=lost.kind)
        raise StorageKindConflict(namespace, lost.kind, kind.value) from None
    except NamespaceDeleting:
        # Our text documents sit at positions no committed batch names (and none will: positions are never
        # reused), so readers never see them; our blobs and manifest go now.
        _discard(tm, storage, scope, entries, batch, lost_to=None)
        raise NamespaceDeleted(namespace) from None
    if uploaded is not None:
        best_effort(lambda: tm.blobs.delete_prefix(uploaded))
    if meter is not None:
        store = "bytes_stored_opensearch" if kind is task.StorageKind.TEXT else "bytes_stored_s3"
        meter.add(artifacts_stored=len(items), bytes_stored_dynamodb=meta_bytes, **{store: total})
    # committed: a wait for search visibility can only report (a retry would store the output again)
    searchable = storage.wait_searchable(scope, start, entries) if consistency == "search" else None
    return ProcessResult(
        answer, stored=True, namespace=namespace, positions=(start, len(items)), searchable=searchable, ref=ref
    )


def _supersede_first(tm: TaskMemory, storage: ArtifactStorage, scope: TextScope) -> None:
    """Before an append commits: a namespace of one batch may have handed out a reference to it (a store that
    created it); that reference must stop loading, as it does not hold the append (ADR 0053). With two batches or
    more, an earlier append did this already."""
    batches = tm.namespaces.batches(scope.tenant, scope.memory, scope.namespace)
    if len(batches) == 1 and batches[0].kind == storage.kind.value:
        storage.supersede(scope, tm.manifests.entries(batches[0]))


def _reserve(tm: TaskMemory, tenant: str, memory: str, namespace: str, kind: str, count: int) -> Reservation:
    """Positions in the namespace, refused when it is being deleted or holds the other kind."""
    try:
        reservation = tm.namespaces.allocate(tenant, memory, namespace, count)
    except NamespaceDeleting:
        raise NamespaceDeleted(namespace) from None
    if reservation.kind is not None and reservation.kind != kind:
        raise StorageKindConflict(namespace, reservation.kind, kind)
    return reservation


def _discard(
    tm: TaskMemory,
    storage: ArtifactStorage,
    scope: TextScope,
    entries: Entries,
    batch: StoredBatch | None,
    lost_to: str | None,
) -> None:
    """Best-effort removal of data written by a store whose commit lost the storage-kind race (or the namespace)."""
    storage.discard(scope, entries, lost_to)
    if batch is not None:
        tm.manifests.discard(batch)


def store_output(
    tm: TaskMemory, receipts: ReceiptStore, tenant: str, memory: str, request: OutputRequest, meter: Meter | None
) -> OnceResult:
    """process-output of a checked request (`POST /memories/{memory_name}/outputs`, its direct action, the MCP tool
    `store_output`), once per idempotency key (`idempotent_output.process_once`, which calls back into `run`: the
    path stays handler → this use case → adapter)."""

    def run() -> ProcessResult:
        return process_output(
            tm,
            tenant,
            memory,
            tool=request.tool,
            activity=request.activity,
            artifact=request.artifact,
            actions=[a.to_action() for a in request.actions],
            thought=request.thought,
            value_from=request.value_from,
            meter=meter,
            consistency=request.consistency,
        )

    return process_once(receipts, tenant, memory, request, run)
