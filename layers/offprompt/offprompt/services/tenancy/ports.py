"""What tenant export, import and erase need from the stores.

Adapters: `offprompt.adapters.tenant_items`, `tenant_objects` and `tenant_documents`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class TenantItems(Protocol):
    """Raw DynamoDB items (DynamoDB JSON) of a tenant."""

    scan_read_units: float

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
