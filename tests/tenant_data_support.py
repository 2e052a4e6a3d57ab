"""Shared by the tenant-data tests of families without OpenSearch documents (records' documents are the index
adapter's to erase; checkpoints have none): an empty document store and an in-memory export sink."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any


class NoDocuments:
    """The OpenSearch part of the tenant stores, empty: records' documents are the index adapter's to erase."""

    def scan(self, tenant: str) -> Iterator[tuple[str, dict[str, Any]]]:
        return iter(())

    def count(self, tenant: str) -> int:
        return 0

    def put(self, docs: Sequence[tuple[str, dict[str, Any]]]) -> None:
        raise AssertionError("nothing to put")

    def delete(self, tenant: str) -> int:
        return 0

    def delete_ids(self, tenant: str, ids: Sequence[str]) -> int:
        return 0


class Sink:
    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def write_file(self, name: str, data: bytes, content_type: str) -> None:
        self.files[name] = data

    def url(self, name: str) -> str | None:
        return None
