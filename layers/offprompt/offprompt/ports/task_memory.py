"""Task memory: its S3 keys, the text store (OpenSearch), namespace records, batches, meta entries and
idempotency receipts (DynamoDB)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from offprompt.artifacts import BaseArtifact, TextArtifact
    from offprompt.memory.task import StorageKind
    from offprompt.metering import Charge


class TaskMemoryKeys(Protocol):
    """Task memory's S3 layout (`offprompt.adapters.layout`, handed over by the composition root)."""

    def namespace_objects_prefix(self, tenant: str, memory: str, namespace: str) -> str: ...

    def blob_key(self, tenant: str, memory: str, namespace: str, store_id: str, offset: int) -> str: ...

    def manifest_key(self, tenant: str, memory: str, namespace: str, start: int) -> str: ...

    def upload_prefix(self, tenant: str, memory: str) -> str: ...

    def download_key(self, tenant: str, name: str) -> str: ...


@dataclass(frozen=True)
class TextScope:
    """Where a text lives: one namespace of one memory of one tenant."""

    tenant: str
    memory: str
    namespace: str


@dataclass(frozen=True)
class SearchHit:
    artifact_id: str
    position: int
    chunk: int
    text: str
    score: float


SearchMode = Literal["bm25", "knn", "hybrid"]


class TextStore(Protocol):
    """Text artifacts split into token-bounded chunks, one document per chunk (OpenSearch)."""

    def store(
        self, scope: TextScope, start_position: int, artifacts: Sequence[TextArtifact], *, searchable: bool = False
    ) -> list[int]:
        """Index artifacts at positions start_position, start_position + 1, ...; return each one's chunk count.

        Idempotent: a retry overwrites (or, without custom ids, finds its record) rather than duplicates. Visible to
        `load` as soon as it returns; to `search` within the index's refresh interval, or, with `searchable`, once
        it returns (it waits for the refresh: up to the interval, 1 s on a domain, longer on Serverless).
        """
        ...

    def load(self, scope: TextScope, layout: Sequence[tuple[int, int]]) -> list[TextArtifact]:
        """The artifacts at the given (position, chunk_count) pairs, in that order, byte-exact."""
        ...

    def search(self, scope: TextScope, query: str, top_k: int, mode: SearchMode) -> list[SearchHit]: ...

    def wait_searchable(self, scope: TextScope, start: int, counts: Sequence[int]) -> bool:
        """After the commit of a `searchable` store: whether search now finds its chunks (on Serverless it polls
        for a while; False when the index was slower: the text is stored and loadable all the same)."""
        ...

    def delete(self, scope: TextScope) -> int:
        """Delete every document of the namespace; return how many were deleted."""
        ...


@dataclass(frozen=True)
class NamespaceRecord:
    """A committed namespace of a task memory: what it holds and who wrote it last."""

    memory: str
    namespace: str
    kind: str  # "text" | "blob"
    tool: str
    activity: str
    namespace_metadata: str  # Griptape's actions_to_json() of the last store
    artifact_count: int
    total_bytes: int
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class StoredBatch:
    """One committed store: `count` artifacts at positions start..start+count-1, in order.

    `entries` (one dict per artifact: text `{"chunks": n}`, blob `{"key", "envelope", "size"}`) is kept in the
    item, or in a manifest object at `manifest_key` when too large for a DynamoDB item.
    """

    start: int
    count: int
    kind: str
    entries: list[dict[str, object]] | None = None
    manifest_key: str | None = None


#: One dict per artifact of a batch (text `{"chunks": n}`, blob `{"key", "size", "envelope"}`).
Entries = list[dict[str, object]]
#: Committed batches of a namespace with their entries (read from the batch, or its manifest), in order.
Resolved = list[tuple[StoredBatch, Entries]]


class ArtifactStorage(Protocol):
    """One kind of task-memory storage (Griptape's `artifact_storages: dict[type, storage]` entry); the registry
    `TaskMemory.storages` maps each `StorageKind` to one, built in `offprompt.composition`."""

    kind: StorageKind
    #: Whether what `store` writes is addressed by position (text documents): then positions are reserved before
    #: it writes; otherwise (blob objects, keyed by a store id) `store` takes `start=None` and the reservation can
    #: fold into the commit (`NamespaceStore.commit_first`).
    needs_positions: bool

    def store(
        self, scope: TextScope, start: int | None, items: Sequence[BaseArtifact], *, searchable: bool = False
    ) -> tuple[Entries, int]:
        """Write `items` (at positions `start...` when `needs_positions`); return the batch entries and the bytes
        stored. `searchable`: do not return before a search would find them (text; blobs are never searched)."""
        ...

    def wait_searchable(self, scope: TextScope, start: int, entries: Entries) -> bool:
        """After the commit of a `searchable` store: whether search finds what it stored (always True for kinds
        that are not searched)."""
        ...

    def load(self, scope: TextScope, resolved: Resolved) -> list[str]:
        """Each committed artifact's JSON (Griptape `to_json()` form), in order."""
        ...

    def discard(self, scope: TextScope, entries: Entries, lost_to: str | None) -> None:
        """Best-effort removal of what a store wrote whose commit failed (`lost_to`: the kind that won, if any)."""
        ...

    def reference(self, entries: Entries) -> str | None:
        """What a load needs to read a namespace created by this one store without a lookup (docs/adr/0053), or
        None (this kind, or these entries, cannot be loaded so)."""
        ...

    def load_reference(self, scope: TextScope, reference: str, limit: int) -> list[str] | None:
        """The namespace's artifacts' JSON read by `reference` alone, or None when the reference does not name the
        namespace as it is now (deleted, replaced, appended to, another tenant's, malformed) or the answer would
        pass `limit` bytes: the caller then reads by name."""
        ...

    def supersede(self, scope: TextScope, entries: Entries) -> None:
        """Before a store appends to a namespace: the references to its first batch stop loading (an append is
        not in them)."""
        ...

    def delete(self, scope: TextScope) -> None:
        """Remove all of the namespace's data of this kind (idempotent)."""
        ...


class BatchManifests(Protocol):
    """A batch's entries inline in its DynamoDB item, or (past MAX_INLINE_ENTRIES_BYTES) in an S3 manifest."""

    def batch_for(self, scope: TextScope, start: int, kind: str, entries: Entries) -> StoredBatch:
        """The batch to commit; entries too large for the item are written to a manifest object first."""
        ...

    def inline_batch(self, start: int, kind: str, entries: Entries) -> StoredBatch | None:
        """The batch with its entries inline, or None when they need a manifest (nothing is written)."""
        ...

    def entries(self, batch: StoredBatch) -> Entries:
        """The batch's entries, from the item or its manifest."""
        ...

    def discard(self, batch: StoredBatch) -> None:
        """Best-effort delete of an uncommitted batch's manifest (if it has one)."""
        ...


@dataclass(frozen=True)
class NamespaceCommit:
    """What a store adds to the namespace record when its batch commits."""

    tool: str
    activity: str
    namespace_metadata: str
    total_bytes: int
    #: The upload (`value_from`) this store consumes: committed at most once, by one store (`UploadTaken`).
    upload_id: str | None = None


class NamespaceStore(Protocol):
    """Namespace records, batches and meta entries of task memories, scoped by tenant."""

    def allocate(self, tenant: str, memory: str, namespace: str, count: int) -> Reservation:
        """Reserve `count` positions atomically; `NamespaceDeleting` while a delete of the namespace runs."""
        ...

    def commit(
        self,
        tenant: str,
        memory: str,
        namespace: str,
        batch: StoredBatch,
        update: NamespaceCommit,
        meta_entry: dict[str, object] | None,
        generation: str,
        charge: Charge | None = None,
    ) -> None:
        """Atomically add the batch, update the record and append the meta entry.

        `StorageKindTaken` when the namespace holds another kind; `NamespaceDeleting` when the namespace was
        deleted (or is being deleted) since `allocate` handed out `generation`; `UploadTaken` when another store
        already consumed `update.upload_id`; QuotaExceeded when `charge` (hosted mode, committed in the same
        write) is refused by the plan's limits: nothing is committed then. With a charge, the record's
        `metered_bytes` grows by `update.total_bytes` (what deleting the namespace takes off the gauge).
        """
        ...

    def commit_first(
        self,
        tenant: str,
        memory: str,
        namespace: str,
        batch: StoredBatch,
        update: NamespaceCommit,
        meta_entry: dict[str, object] | None,
        charge: Charge | None = None,
    ) -> bool:
        """`allocate` and `commit` in one write, for a name never used: the record is created with positions
        `0..batch.count-1` and this inline batch at 0. False (nothing written) when a record exists (committed,
        reserved, being deleted, or a bare counter): then reserve and commit. Raises as `commit` does for the
        upload and the charge."""
        ...

    def batches(self, tenant: str, memory: str, namespace: str) -> list[StoredBatch]:
        """The namespace's committed batches in position order (empty when unknown)."""
        ...

    def get(self, tenant: str, memory: str, namespace: str) -> NamespaceRecord | None: ...

    def list_records(
        self, tenant: str, memory: str, limit: int, cursor: str | None
    ) -> tuple[list[NamespaceRecord], str | None]: ...

    def delete(self, tenant: str, memory: str, namespace: str) -> bool:
        """Mark the record deleting (stores in flight can no longer commit, new ones are refused), then delete
        every batch (readers see nothing); return whether a committed record existed. `release` ends it."""
        ...

    def release(self, tenant: str, memory: str, namespace: str) -> None:
        """Clear the mark `delete` set, once the data is gone: the name can be stored into again."""
        ...

    def meta_entries(
        self, tenant: str, memory: str, limit: int, cursor: str | None
    ) -> tuple[list[dict[str, object]], str | None]: ...


@dataclass(frozen=True)
class Reservation:
    """Positions reserved in a namespace by `NamespaceStore.allocate`."""

    start: int
    kind: str | None  # the namespace's committed storage kind, if any
    generation: str  # this incarnation of the namespace: a delete ends it, and `commit` checks it


class NamespaceDeleting(Exception):
    """The namespace is being deleted, or was deleted since positions were reserved in it."""


class UploadTaken(Exception):
    """Raised by `NamespaceStore.commit` when another store already consumed the upload it names."""


class StorageKindTaken(Exception):
    """Raised by `NamespaceStore.commit` when the namespace is committed with another storage kind."""

    def __init__(self, kind: str | None) -> None:
        super().__init__(f"namespace holds {kind} artifacts")
        self.kind = kind


@dataclass(frozen=True)
class Receipt:
    """What an idempotency key has bought: a request (by hash) in progress until `lease_until`, or completed
    with its answer (`result_json`)."""

    request_hash: str
    completed: bool
    lease_until: int  # epoch seconds; an unfinished claim past it may be taken over
    result_json: str | None = None


class ReceiptStore(Protocol):
    """Idempotency keys of process-output (ADR 0026), one item per (tenant, memory, key)."""

    def claim(
        self, tenant: str, memory: str, key: str, request_hash: str, claim_id: str, now: int, lease_until: int
    ) -> Receipt | None:
        """Claim the key for this request; None when claimed, else the receipt that holds it (a live claim or
        a completed request)."""
        ...

    def complete(self, tenant: str, memory: str, key: str, result_json: str, expires_at: int) -> None: ...

    def release(self, tenant: str, memory: str, key: str, claim_id: str) -> None:
        """Drop this request's unfinished claim (it failed, or stored nothing): a retry runs afresh."""
        ...
