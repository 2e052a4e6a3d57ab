"""The substrate's format-1 writer, frozen as `store.py` wrote it before format 2 (commit 7d4ef8d): a bare pickle
snapshot without a checksum, and journal frames of (length, CRC-32 of the payload) with one item per frame.

Only the tests use it, to make the data directories a developer's older checkout left behind.
"""

from __future__ import annotations

import io
import os
import pickle
import struct
import threading
import uuid
import zlib
from pathlib import Path
from typing import Any, BinaryIO

HEADER = struct.Struct("<II")  # payload length, CRC-32 of the payload


def capture_state() -> dict[str, Any]:
    from moto.dynamodb.models import dynamodb_backends
    from moto.s3.models import s3_backends

    dynamodb: dict[tuple[str, str], Any] = {}
    for account, regions in list(dynamodb_backends.items()):
        for region, backend in list(regions.items()):
            if backend.tables:
                dynamodb[(account, region)] = backend.tables
    s3: dict[tuple[str, str], Any] = {}
    for account, partitions in list(s3_backends.items()):
        for partition, backend in list(partitions.items()):
            if backend.buckets:
                s3[(account, partition)] = {"buckets": backend.buckets, "tagger": backend.tagger}
    return {"dynamodb": dynamodb, "s3": s3}


def frame(record: Any) -> bytes:
    payload = pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(payload), zlib.crc32(payload)) + payload


class Format1Store:
    """What `SubstrateApp` needs of a store (`append`, `snapshot`, `wants_compaction`), writing format 1."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.snapshot_path = directory / "snapshot.pickle"
        self.journal_path = directory / "journal.bin"
        self._journal: BinaryIO | None = None
        self._lock = threading.Lock()
        directory.mkdir(parents=True, exist_ok=True)

    def append(self, record: tuple[Any, ...]) -> None:
        # Format 1 wrote one frame per item a request touched; today's server hands over one record per request.
        records = list(record[1]) if record[0] == "items" else [record]
        with self._lock:
            assert self._journal is not None
            for one in records:
                self._journal.write(frame(one))
            self._journal.flush()
            os.fdatasync(self._journal.fileno())

    def wants_compaction(self) -> bool:
        return False

    def snapshot(self) -> None:
        journal_id = uuid.uuid4().hex
        buffer = io.BytesIO()
        pickle.dump({"format": 1, "journal_id": journal_id, "state": capture_state()}, buffer, protocol=5)
        self.snapshot_path.write_bytes(buffer.getvalue())
        with self._lock:
            if self._journal is not None:
                self._journal.close()
            self.journal_path.write_bytes(frame(("journal", journal_id)))
            self._journal = self.journal_path.open("ab")

    def abandon(self) -> None:
        """Stop writing without a last snapshot, as a kill -9 would."""
        if self._journal is not None:
            self._journal.close()
            self._journal = None
