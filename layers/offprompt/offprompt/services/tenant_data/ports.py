"""What tenant export, import and erase need from the stores.

Adapters: `offprompt.adapters.tenant_items`, `tenant_objects` and `tenant_documents`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class TenantItems(Protocol):
    """Raw DynamoDB items (DynamoDB JSON) of a tenant."""

    #: Read units consumed since the listing began (`inventory.tenant_items` resets it).
    scan_read_units: float

    def query_partition(self, pk: str, *, keys_only: bool = False) -> Iterator[dict[str, Any]]:
        """Every item of one partition (a strongly consistent Query)."""
        ...

    def indexed_partitions(self, tenant: str) -> list[str]:
        """The partition keys the tenant index lists for the tenant (a Query of each of its index shards)."""
        ...

    def set_index_attribute(self, items: Sequence[dict[str, Any]]) -> int:
        """Write the tenant index attribute each item carries onto the stored item, if it is still there."""
        ...

    def scan(
        self, tenant: str, prefixes: Sequence[str], *, exact: Sequence[str] = (), keys_only: bool = False
    ) -> Iterator[dict[str, Any]]: ...

    def put(self, items: Sequence[dict[str, Any]]) -> None: ...

    def delete(self, keys: Sequence[dict[str, Any]]) -> int: ...


class TenantObjects(Protocol):
    """S3 objects by key prefix."""

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


@dataclass(frozen=True)
class TenantStores:
    items: TenantItems
    objects: TenantObjects
    documents: TenantDocuments


class ExportSink(Protocol):
    """Where an export's files go (an S3 prefix, or a local directory for the operator)."""

    def write_file(self, name: str, data: bytes, content_type: str) -> None: ...

    def url(self, name: str) -> str | None:
        """A URL a client can GET the file from (presigned), or None for a local directory."""
        ...


class ExportSource(Protocol):
    """Where an import reads an export's files from."""

    def read(self, name: str) -> bytes: ...
