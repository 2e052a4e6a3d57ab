"""Opaque bytes by key (S3): the blob store the other domains' S3 ports build on."""

from __future__ import annotations

from typing import Protocol


class BlobStore(Protocol):
    """Opaque bytes by key (S3). Keys are built by the services from digests, never from raw client input."""

    def put(
        self,
        key: str,
        data: bytes,
        *,
        content_type: str = "application/octet-stream",
        metadata: dict[str, str] | None = None,
    ) -> None: ...

    def get(self, key: str) -> bytes: ...

    def get_with_metadata(self, key: str) -> tuple[bytes, dict[str, str]]:
        """The object's bytes and its user metadata; NotFound when it does not exist."""
        ...

    def replace_metadata(self, key: str, metadata: dict[str, str]) -> None:
        """Replace the object's user metadata, its bytes unchanged (NotFound when it does not exist)."""
        ...

    def size(self, key: str) -> int | None:
        """The object's size, or None when it does not exist."""
        ...

    def delete_prefix(self, prefix: str) -> int: ...

    def presign_get(self, key: str, expires_in: int) -> str: ...

    def presign_put(self, key: str, expires_in: int) -> str: ...
