"""What tenant export, import and erase need from the stores, and from the account (the erase's fence).

Adapters: `offprompt.adapters.tenant_items`, `tenant_objects` and `tenant_documents` (over the storage layout,
`offprompt.adapters.layout`: what belongs to a tenant is decided there, never here), `dynamodb_account` (fence).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class TenantItems(Protocol):
    """Raw DynamoDB items (DynamoDB JSON) of a tenant, as the storage layout defines them."""

    #: Read units consumed since the listing began (`items` resets it).
    scan_read_units: float
    #: The kinds an export carries and an import writes back (the others, e.g. credentials, are erased only).
    exported_kinds: tuple[str, ...]
    #: The kinds that let a tenant in (API keys, their listing, the tenant record) and its index marker: erased last.
    credential_kinds: tuple[str, ...]
    #: The kind of the tenant's "indexed" marker (erased last in every erase: a repeat needs no second backfill).
    marker_kind: str

    def kind(self, item: dict[str, Any], tenant: str) -> str | None:
        """The layout's kind of one of the tenant's items; None when the layout does not know it as theirs."""
        ...

    def index_state(self, tenant: str) -> tuple[bool, dict[str, Any] | None]:
        """Whether the tenant index lists every partition of the tenant (its own marker, put only by a complete
        backfill), and where an unfinished backfill of it goes on from (None: not begun)."""
        ...

    def items(self, tenant: str, *, keys_only: bool = False) -> Iterator[dict[str, Any]]:
        """Every item of an indexed tenant, by Queries (of an unindexed one: only what its writers indexed)."""
        ...

    def unindexed_roots_page(
        self, tenant: str, start: dict[str, Any] | None
    ) -> tuple[list[dict[str, Any]], dict[str, Any] | None, int]:
        """One page of the tenant's filtered whole-table Scan from `start`: its partition roots without the index
        attribute (keys + the attribute to set), where the next page begins (None: done), items the page read."""
        ...

    def save_index_progress(self, tenant: str, position: dict[str, Any], now: str) -> None:
        """Keep where the tenant's backfill goes on from."""
        ...

    def unindexed_roots_of_all(self) -> tuple[list[dict[str, Any]], set[str]]:
        """Every tenant's partition roots without the index attribute, and every tenant a root of which it read,
        by one Scan of the table."""
        ...

    def set_index_attribute(self, items: Sequence[dict[str, Any]]) -> int:
        """Write the tenant index attribute each item carries onto the stored item, if it is still there."""
        ...

    def mark_indexed(self, tenant: str, now: str) -> None:
        """Record that every partition of `tenant` is indexed (and drop its backfill position)."""
        ...

    def with_index_attribute(self, item: dict[str, Any], tenant: str) -> dict[str, Any]: ...

    def without_gauge_attributes(self, item: dict[str, Any]) -> dict[str, Any]: ...

    def put(self, items: Sequence[dict[str, Any]]) -> None: ...

    def delete(self, keys: Sequence[dict[str, Any]]) -> int: ...

    def document_ids(self, tenant: str) -> list[str]:
        """The ids of the OpenSearch documents the tenant's items name (its long-term records' `doc_id`s): on
        Serverless a document indexed within the last refresh interval is found only by its id (docs/adr/0034)."""
        ...


class TenantObjects(Protocol):
    """S3 objects by key prefix."""

    def prefixes(self, tenant: str, *, include_transient: bool) -> tuple[str, ...]: ...

    def export_prefix(self, tenant: str, export_id: str) -> str: ...

    def list(self, prefix: str) -> Iterator[tuple[str, int]]: ...

    def get(self, key: str) -> tuple[bytes, str]: ...

    def put(self, key: str, data: bytes, content_type: str) -> None: ...

    def delete_prefix(self, prefix: str) -> int: ...

    def presign_get(self, key: str, expires_in: int) -> str: ...


class TenantDocuments(Protocol):
    """OpenSearch documents of a tenant."""

    def scan(self, tenant: str) -> Iterator[tuple[str, dict[str, Any]]]: ...

    def count(self, tenant: str) -> int: ...

    def put(self, docs: Sequence[tuple[str, dict[str, Any]]]) -> None: ...

    def delete(self, tenant: str) -> int: ...

    def delete_ids(self, tenant: str, ids: Sequence[str]) -> int:
        """Delete the tenant's documents with these ids at once, whether search sees them yet or not (how many
        were there); a later `delete` and `count` leave them out."""
        ...


class TenantFence(Protocol):
    """The account side of an erase: fencing a tenant's keys while its data goes, and removing its credentials last."""

    def fence(self, tenant: str, now: float) -> float | None:
        """Mark the tenant's record and API keys erasing (from now on only `DELETE /tenant` is admitted for them);
        the time it was first fenced (a repeat keeps it). None when the tenant has no API key to fence."""
        ...


@dataclass(frozen=True)
class TenantStores:
    items: TenantItems
    objects: TenantObjects
    documents: TenantDocuments
    fence: TenantFence


class ExportSink(Protocol):
    """Where an export's files go (an S3 prefix, or a local directory for the operator)."""

    def write_file(self, name: str, data: bytes, content_type: str) -> None: ...

    def url(self, name: str) -> str | None:
        """A URL a client can GET the file from (presigned), or None for a local directory."""
        ...


class ExportSource(Protocol):
    """Where an import reads an export's files from."""

    def read(self, name: str) -> bytes: ...
