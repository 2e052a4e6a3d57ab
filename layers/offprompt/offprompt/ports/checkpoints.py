"""LangGraph checkpoints (docs/adr/0039): checkpoint threads in DynamoDB, big blobs in S3."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterator

    from offprompt.metering import Charge


@dataclass(frozen=True)
class TypedBlob:
    """LangGraph's `serde.dumps_typed` pair as stored: inline bytes (`data`) or an S3 object (`key`)."""

    type: str
    size: int
    data: bytes | None = None
    key: str | None = None


@dataclass(frozen=True)
class StoredCheckpoint:
    namespace: str
    checkpoint_id: str
    parent_id: str | None
    metadata_json: str
    blob: TypedBlob
    metered_bytes: int = 0
    written_at: float = 0.0  # a copy reads its sources' items written up to its own creation only


@dataclass(frozen=True)
class StoredCheckpointWrite:
    namespace: str
    checkpoint_id: str
    task_id: str
    task_path: str
    idx: int
    channel: str
    blob: TypedBlob
    metered_bytes: int = 0
    written_at: float = 0.0
    #: > 0: an idx < 0 write replacing one a live copy reads, stored beside it (the newest is the thread's)
    version: int = 0


@dataclass(frozen=True)
class CheckpointGroup:
    """One checkpoint id's items in one partition: the checkpoint (None when only writes are stored there, e.g. a
    copy's writes to a checkpoint it shares) and its pending writes."""

    namespace: str
    checkpoint_id: str
    checkpoint: StoredCheckpoint | None
    writes: tuple[StoredCheckpointWrite, ...] = ()


#: A namespace's bound on checkpoint ids: (id, inclusive).
IdBound = tuple[str, bool]


@dataclass(frozen=True)
class CheckpointThreadState:
    """A checkpoint thread's item: `ancestry` [(source thread, {ns: cut id}, copied at)] nearest first (a copy
    reads each source's items at ids <= its cut, written before it was made), `floors` {ns: (id, inclusive)} (ids
    below are hidden: a prune, or a delete that copies still read), `holds` {copy thread: {ns: cut}} (what live
    copies read of this thread's partition), `deleted` (deleted while copies held it: kept for them, hidden),
    `version` (bumped by every hold, release, floor change and sweep; each conditions on the one it planned with:
    docs/concurrency.md), `deleting` (the fence of a whole-thread delete under way: no copy holds it any more)."""

    thread_id: str
    created_at: float
    ancestry: tuple[tuple[str, dict[str, str], float], ...] = ()
    floors: dict[str, IdBound] | None = None
    holds: dict[str, dict[str, str]] | None = None
    deleted: bool = False
    version: int = 0
    deleting: bool = False

    @property
    def special(self) -> bool:
        """Reads need this state (a copy, or hidden items): such a thread keeps a head in each of its namespaces."""
        return bool(self.ancestry or self.floors)


@dataclass(frozen=True)
class NewestRead:
    """A namespace's newest items of one partition (one Query): its head's thread state, if the thread keeps one,
    and the newest checkpoint with its writes."""

    head: CheckpointThreadState | None
    group: CheckpointGroup | None


class CheckpointShared(Exception):
    """A put was refused: the checkpoint id is one a live copy reads (or a prune/delete hid) and is stored."""


class CheckpointThreadChanged(Exception):
    """The thread item's version is not the one a sweep, floor change or copy planned with (a copy, a release, a
    prune or a delete committed meanwhile): read the thread again and plan again (docs/concurrency.md)."""


class CheckpointRace(Exception):
    """Another writer created the same thread (or wrote the same items) at the same time: read again, retry."""


class CheckpointStore(Protocol):
    """LangGraph checkpoint threads in DynamoDB, one partition each (docs/adr/0039)."""

    def thread(self, tenant: str, thread_id: str) -> CheckpointThreadState | None: ...

    def thread_and_checkpoint(
        self, tenant: str, thread_id: str, namespace: str, checkpoint_id: str
    ) -> tuple[CheckpointThreadState | None, StoredCheckpoint | None]:
        """The thread item and one checkpoint item (one BatchGetItem, consistent)."""
        ...

    def newest(self, tenant: str, thread_id: str, namespace: str) -> NewestRead:
        """Newest first in the namespace, until the first checkpoint item (one Query when it holds < 100 writes)."""
        ...

    def groups(
        self, tenant: str, thread_id: str, namespace: str, *, lower: IdBound | None, upper: IdBound | None
    ) -> Iterator[CheckpointGroup]:
        """The partition's checkpoint groups of the namespace within the bounds, newest first, read lazily."""
        ...

    def namespaces(self, tenant: str, thread_id: str) -> list[str]:
        """The namespaces the partition holds items in (one Query per namespace)."""
        ...

    # The merged view: a thread's own items and each source's (ancestry) at ids up to its cut, written before the
    # copy, hidden below the thread's floors; one id found in several partitions is one group (the nearest
    # checkpoint item, the writes of all).
    def view_namespaces(self, tenant: str, state: CheckpointThreadState) -> list[str]: ...

    def view_groups(
        self,
        tenant: str,
        state: CheckpointThreadState,
        namespace: str,
        *,
        lower: IdBound | None = None,
        upper: IdBound | None = None,
    ) -> Iterator[CheckpointGroup]: ...

    def view_all_groups(
        self, tenant: str, state: CheckpointThreadState, *, upper: IdBound | None = None
    ) -> Iterator[CheckpointGroup]:
        """Every namespace's groups, newest first by (checkpoint_id, namespace)."""
        ...

    def view_latest(self, tenant: str, state: CheckpointThreadState, namespace: str) -> CheckpointGroup | None: ...

    def view_checkpoint(
        self, tenant: str, state: CheckpointThreadState, namespace: str, checkpoint_id: str
    ) -> CheckpointGroup | None: ...

    def own_items(self, tenant: str, thread_id: str) -> list[StoredCheckpoint | StoredCheckpointWrite]:
        """Every checkpoint and write of the thread's own partition."""
        ...

    def put_checkpoint(
        self,
        tenant: str,
        thread_id: str,
        checkpoint: StoredCheckpoint,
        *,
        create: CheckpointThreadState | None,
        head: CheckpointThreadState | None,
        must_be_new: bool,
        replacing: int | None = None,
        charge: Charge | None = None,
    ) -> None:
        """One transaction: the checkpoint item, the thread item when `create`, the namespace's head when `head`,
        the charge with the gauge moved by new - old metered bytes (ADR 0042). `must_be_new`: CheckpointShared when
        the item exists. Otherwise conditioned on what the caller read: no item (`replacing` None) or one holding
        `replacing` metered bytes; CheckpointRace when it changed meanwhile (read again and retry)."""
        ...

    def put_writes(
        self,
        tenant: str,
        thread_id: str,
        writes: Sequence[StoredCheckpointWrite],
        *,
        head: CheckpointThreadState | None,
        create: CheckpointThreadState | None = None,
        pricing: Callable[[Sequence[StoredCheckpointWrite]], Charge | None] | None = None,
    ) -> list[StoredCheckpointWrite]:
        """Store the writes, each conditioned on the stored item (ADR 0042): an idx ≥ 0 only where none is stored
        (the first wins), an idx < 0 replacing what is stored; `pricing(writes)` the charge of the writes stored
        together, committed with them (the gauge moved by new - old). `create`: the thread's root item too, unless
        one exists. The writes stored."""
        ...

    def copy(
        self,
        tenant: str,
        target: CheckpointThreadState,
        holds: Sequence[tuple[str, dict[str, str]]],
        *,
        source_version: int,
    ) -> bool:
        """One transaction: the target's thread item (only if absent) and a hold on each ancestor (each must
        exist, none fenced; each one's version bumped), the source (`holds[0]`) still at `source_version`. False
        when the target exists, an ancestor is gone or fenced, or the source changed."""
        ...

    def save_state(self, tenant: str, state: CheckpointThreadState, namespaces: Sequence[str]) -> int:
        """The thread item's ancestry, floors and deleted mark, conditioned on `state.version` and bumping it (the
        new version), and the heads of `namespaces` (removed when the state is not special). CheckpointThreadChanged
        when the version moved or the thread is gone."""
        ...

    def fence(self, tenant: str, thread_id: str, version: int) -> int:
        """Set the `deleting` fence on the thread item at `version` (bumping it; the new version): no copy holds
        it from now on. CheckpointThreadChanged when the version moved or the thread is gone."""
        ...

    def release_hold(self, tenant: str, ancestor: str, holder: str) -> None:
        """Remove `holder`'s hold (bumping the version)."""
        ...

    def delete_items(
        self,
        tenant: str,
        thread_id: str,
        items: Sequence[StoredCheckpoint | StoredCheckpointWrite],
        *,
        version: int | None,
    ) -> int | None:
        """Delete these items (their metered bytes off the gauge, once) in transactions that each check the
        thread item is still at the version planned with and bump it (the final version is returned).
        CheckpointThreadChanged when it moved: nothing of that chunk is deleted. None: a fenced thread's sweep
        (unchecked: no copy can hold it)."""
        ...

    def delete_thread_item(self, tenant: str, thread_id: str, version: int | None) -> bool:
        """Delete the thread item and every head, unless the thread changed since `version` (None: unless the
        fence is gone) or holds it (False)."""
        ...


class CheckpointBlobStore(Protocol):
    """Blobs too large for their item (S3, under the tenant's `checkpoints/` root)."""

    def put_blob(self, tenant: str, thread_id: str, namespace: str, name: str, data: bytes) -> str: ...

    def get_blob(self, key: str) -> bytes: ...

    def drop(self, key: str) -> None: ...
