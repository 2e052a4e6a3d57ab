"""Long-term records (docs/adr/0034-records.md): versions in DynamoDB, big values in S3, text in OpenSearch."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterator

    from offprompt.metering import Charge


@dataclass(frozen=True)
class StoredRecord:
    """One version of a record as stored: the current item (`valid_to` None) or a past version; a delete's
    tombstone has `deleted` and no value. Times are epoch seconds."""

    namespace: tuple[str, ...]
    key: str
    version: int
    created_at: float  # when the record's first version (of this life: after a delete it starts anew) was put
    updated_at: float  # when this version was written
    valid_from: float
    valid_to: float | None = None
    value_json: str | None = None  # inline value (JSON object text)
    body_key: str | None = None  # S3 body of a value over the item limit
    size: int = 0  # the value's UTF-8 bytes
    expires_at: int | None = None  # the table's TTL attribute (epoch seconds)
    ttl_minutes: float | None = None  # what `refresh_ttl` moves `expires_at` by
    deleted: bool = False
    doc_id: str | None = None  # the version's document in the record index (None: not indexed)
    metered_bytes: int = 0  # what it added to the tenant's stored-bytes gauge (hosted mode)


class RecordConflict(Exception):
    """Another writer replaced the record first: the version this write replaces is no longer the current one."""


class RecordStore(Protocol):
    """Records in DynamoDB: the current item and one item per past version in the tenant's partition."""

    def current(self, tenant: str, namespace: tuple[str, ...], key: str) -> StoredRecord | None:
        """The current item (consistent read), tombstone or expired included: the caller decides."""
        ...

    def last_version(self, tenant: str, namespace: tuple[str, ...], key: str) -> int:
        """The highest past version stored for the key (0 when none): a record created anew continues after it."""
        ...

    def write(
        self,
        tenant: str,
        new: StoredRecord,
        previous: StoredRecord | None,
        now: float,
        *,
        charge: Charge | None = None,
    ) -> None:
        """One transaction: `previous` (the current item read before) becomes its version item with `valid_to =
        now`, `new` becomes the current item, conditioned on `previous` still being current (none: on no current
        item). RecordConflict when another writer won; the plan's 429 when `charge` is refused."""
        ...

    def versions(self, tenant: str, namespace: tuple[str, ...], key: str, *, limit: int) -> list[StoredRecord]:
        """The record's versions, newest first (the current item first), at most `limit`."""
        ...

    def version_at(self, tenant: str, namespace: tuple[str, ...], key: str, at: float) -> StoredRecord | None:
        """The version with valid_from <= at < valid_to (the current item when it is open), or None."""
        ...

    def query_current(self, tenant: str, prefix: tuple[str, ...], now: float) -> Iterator[StoredRecord]:
        """Every live (unexpired, not deleted) current item under a namespace prefix."""
        ...

    def namespaces(self, tenant: str, prefix: tuple[str, ...], now: float) -> set[tuple[str, ...]]:
        """The namespaces of the live current items under a namespace prefix (keys and namespaces only read)."""
        ...

    def query_at(self, tenant: str, prefix: tuple[str, ...], at: float, now: float) -> Iterator[StoredRecord]:
        """Every unexpired, not deleted version under a namespace prefix that was valid at `at`."""
        ...

    def get_many(
        self, tenant: str, wanted: Sequence[tuple[tuple[str, ...], str, int | None]]
    ) -> dict[tuple[tuple[str, ...], str, int], StoredRecord]:
        """Items by (namespace, key, version): version None → the current item; else that version, current or
        past. Keyed by (namespace, key, the item's version); missing ones are absent."""
        ...

    def default_ttl(self, tenant: str, namespace: tuple[str, ...]) -> float | None:
        """The namespace's default TTL in minutes, else None."""
        ...

    def configure_namespace(
        self, tenant: str, namespace: tuple[str, ...], default_ttl_minutes: float | None
    ) -> None: ...

    def refresh_ttl(self, tenant: str, record: StoredRecord, expires_at: int) -> None:
        """Move the current item's `expires_at` (when it is still that version); best effort."""
        ...

    def release_expired(self, tenant: str, event_id: str, metered_bytes: int) -> bool:
        """Take a TTL-swept version's `metered_bytes` off the tenant's stored-bytes gauge, once per stream record
        (`event_id`: a marker in the same transaction makes a redelivery a no-op). Whether the gauge moved."""
        ...


class RecordBodyStore(Protocol):
    """Where a record version's value too large for its item goes (S3, under the tenant's `records/` root)."""

    def put_body(self, tenant: str, namespace: tuple[str, ...], key: str, version: int, data: bytes) -> str:
        """Store the bytes; returns their key (the item's `body_key`), unique to this writer."""
        ...

    def value(self, record: StoredRecord) -> dict[str, Any] | None:
        """The version's value: inline in its item or its S3 body (`DependencyUnavailable` when gone); None for a
        tombstone."""
        ...

    def drop(self, key: str) -> None:
        """Best-effort delete of a body no committed version references (logged, never raised)."""
        ...

    def delete(self, key: str) -> None:
        """Delete a body (a missing one is fine); `DependencyUnavailable` when the store fails, so the caller can
        retry (the TTL sweep reports its stream record as failed)."""
        ...


@dataclass(frozen=True)
class RecordDoc:
    tenant: str
    namespace: tuple[str, ...]
    key: str
    version: int
    text: str  # the indexed text (strings of the value at the record's index paths), non-empty
    valid_from: float  # epoch seconds
    #: A nonce per put attempt: part of the document id, so racing writers of one version never share a document.
    write_id: str = ""


@dataclass(frozen=True)
class RecordHit:
    namespace: tuple[str, ...]
    key: str
    version: int
    score: float


class RecordIndex(Protocol):
    """Record versions' text in OpenSearch: it proposes candidates, DynamoDB decides (docs/adr/0034)."""

    def index(self, doc: RecordDoc) -> str:
        """Index one version (no refresh wait); returns its document id (on a provisioned domain
        `layout.record_doc_id(tenant, namespace, key, version, write_id)`: indexing the same write again is one
        document; service-assigned on Serverless)."""
        ...

    def supersede(self, tenant: str, doc_id: str, valid_to: float) -> None:
        """Mark a version's document as valid until `valid_to` (a replace or delete closed it)."""
        ...

    def delete(self, tenant: str, doc_ids: Sequence[str]) -> None:
        """Delete documents by id; missing ids are fine."""
        ...

    def search(
        self,
        tenant: str,
        prefix: tuple[str, ...],
        query: str,
        *,
        size: int,
        as_of: float | None = None,
        mode: str = "bm25",
        wait_for_refresh: bool = False,
    ) -> list[RecordHit]:
        """The best `size` candidates under the namespace prefix (a label-wise prefix: ("a","b") matches ("a","b")
        and ("a","b","c"), never ("a","bc")); as_of None → versions not superseded; else versions with
        valid_from <= as_of < valid_to. Candidates only: the caller checks each against DynamoDB."""
        ...
