"""Durable state for the local substrate: a snapshot of moto's DynamoDB tables and S3 buckets plus a journal.

Layout under the data directory (`<data>/moto/`):

- `snapshot.pickle`: every DynamoDB table (definition + items) and S3 bucket (objects, versions, settings)
  of every account/region, and the id of the journal that continues it. Written to a temporary file, fsync'd
  and renamed over the old one, so a crash leaves either the old or the new snapshot.
- `journal.bin`: frames (length, CRC-32, pickle) appended and fsync'd **before the response is sent**:
  for a DynamoDB item write, the final state of every item the request touched (put or absent); for an S3
  write, the raw request (method, path, headers, body), replayed through moto at the next start. Control-plane
  changes (CreateTable, UpdateTimeToLive, CreateBucket, PutBucketEncryption, multipart starts...) write a new
  snapshot instead, which starts a new journal.

Start: load the snapshot, replay the journal whose id the snapshot names (stopping at a torn last frame), then
write a fresh snapshot (compaction). Clean stop: write a snapshot. Stream records are not persisted.
"""

from __future__ import annotations

import io
import os
import pickle
import struct
import sys
import threading
import uuid
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

FORMAT = 1
_HEADER = struct.Struct("<II")  # payload length, CRC-32 of the payload
#: Past this size the journal is folded into a new snapshot while the server runs.
JOURNAL_COMPACT_BYTES = 256 * 1024 * 1024


class StoreError(RuntimeError):
    """The data directory cannot be read or written; the message says which file and why."""


@dataclass
class LoadReport:
    tables: int = 0
    items: int = 0
    buckets: int = 0
    objects: int = 0
    replayed: int = 0
    torn_tail: bool = False

    def describe(self) -> str:
        text = (
            f"{self.tables} table(s) / {self.items} item(s), {self.buckets} bucket(s) / {self.objects} object(s)"
            f", {self.replayed} journal record(s) replayed"
        )
        return text + (" (a torn last record from a crash was dropped)" if self.torn_tail else "")


def _backends() -> tuple[Any, Any]:
    from moto.dynamodb.models import dynamodb_backends
    from moto.s3.models import s3_backends

    return dynamodb_backends, s3_backends


def capture_state() -> dict[str, Any]:
    """The persistent part of moto's DynamoDB and S3 state (references; pickle it while holding the locks)."""
    dynamodb_backends, s3_backends = _backends()
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


def restore_state(state: dict[str, Any], report: LoadReport) -> None:
    dynamodb_backends, s3_backends = _backends()
    for (account, region), tables in state["dynamodb"].items():
        dynamodb_backends[account][region].tables = tables
        report.tables += len(tables)
        for table in tables.values():
            report.items += len(table)
    for (account, partition), saved in state["s3"].items():
        backend = s3_backends[account][partition]
        backend.buckets = saved["buckets"]
        backend.tagger = saved["tagger"]
        for name in saved["buckets"]:
            s3_backends.bucket_accounts[name] = (partition, account)
        report.buckets += len(saved["buckets"])
        report.objects += sum(len(bucket.keys) for bucket in saved["buckets"].values())


def apply_item(record: tuple[Any, ...]) -> None:
    """Replay one DynamoDB journal record: the final state of one item."""
    from moto.dynamodb.models.dynamo_type import DynamoType, Item

    _, account, region, table_name, hash_json, range_json, attrs = record
    dynamodb_backends, _ = _backends()
    table = dynamodb_backends[account][region].tables.get(table_name)
    if table is None:  # deleted later (a snapshot followed); nothing to restore
        return
    hash_key = DynamoType(hash_json)
    range_key = DynamoType(range_json) if range_json is not None else None
    if attrs is None:
        if range_key is not None:
            table.items[hash_key].pop(range_key, None)
        else:
            table.items.pop(hash_key, None)
    elif range_key is not None:
        table.items[hash_key][range_key] = Item(hash_key, range_key, attrs)
    else:
        table.items[hash_key] = Item(hash_key, None, attrs)


def item_record(table: Any, hash_key: Any, range_key: Any) -> tuple[Any, ...]:
    item = table.get_item(hash_key, range_key)
    attrs = item.to_json()["Attributes"] if item is not None else None
    return (
        "ddb",
        table.account_id,
        table.region_name,
        table.name,
        hash_key.to_json(),
        range_key.to_json() if range_key is not None else None,
        attrs,
    )


class Store:
    """Snapshot + write-ahead journal in one directory. Thread-safe appends; snapshots need the caller's locks."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.snapshot_path = directory / "snapshot.pickle"
        self.journal_path = directory / "journal.bin"
        self._journal: BinaryIO | None = None
        self._journal_bytes = 0
        self._append_lock = threading.Lock()

    # --- start and stop

    def load(self, replay_request: Callable[[dict[str, Any]], int]) -> LoadReport:
        """Restore the snapshot and the journal into moto's backends, then compact into a new snapshot."""
        self.directory.mkdir(parents=True, exist_ok=True)
        report = LoadReport()
        journal_id: str | None = None
        if self.snapshot_path.exists():
            try:
                with self.snapshot_path.open("rb") as handle:
                    snapshot = pickle.load(handle)
            except Exception as exc:
                raise StoreError(
                    f"cannot read {self.snapshot_path} ({type(exc).__name__}: {exc}); "
                    "start empty with `make dev FRESH=1` (this deletes the local data)"
                ) from exc
            if snapshot.get("format") != FORMAT:
                raise StoreError(f"{self.snapshot_path} has format {snapshot.get('format')}, expected {FORMAT}")
            restore_state(snapshot["state"], report)
            journal_id = snapshot["journal_id"]
        if self.journal_path.exists():
            for record in self._read_journal(journal_id, report):
                if record[0] == "ddb":
                    apply_item(record)
                elif record[0] == "request":
                    replay_request(record[1])
                report.replayed += 1
        self.snapshot()
        return report

    def close(self) -> None:
        """Fold everything into a snapshot and close the journal (a clean stop)."""
        self.snapshot()
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    # --- journal

    def _read_journal(self, expected_id: str | None, report: LoadReport) -> Iterator[tuple[Any, ...]]:
        data = self.journal_path.read_bytes()
        position = 0
        first = True
        while position < len(data):
            if position + _HEADER.size > len(data):
                report.torn_tail = True
                return
            length, crc = _HEADER.unpack_from(data, position)
            payload = data[position + _HEADER.size : position + _HEADER.size + length]
            if len(payload) < length or zlib.crc32(payload) != crc:
                report.torn_tail = True
                return
            position += _HEADER.size + length
            record = pickle.loads(payload)
            if first:
                first = False
                if record != ("journal", expected_id):
                    return  # a journal the snapshot already contains (crash between the two writes)
                continue
            yield record

    def append(self, record: tuple[Any, ...]) -> None:
        """Append one record and fsync it: when this returns, the change survives a crash."""
        payload = pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL)
        frame = _HEADER.pack(len(payload), zlib.crc32(payload)) + payload
        with self._append_lock:
            journal = self._journal
            if journal is None:
                raise StoreError("the journal is closed")
            journal.write(frame)
            journal.flush()
            os.fdatasync(journal.fileno())
            self._journal_bytes += len(frame)

    def wants_compaction(self) -> bool:
        return self._journal_bytes > JOURNAL_COMPACT_BYTES

    # --- snapshot

    def snapshot(self) -> None:
        """Write a snapshot of the current state and start a new, empty journal. Hold every lock around it."""
        journal_id = uuid.uuid4().hex
        temporary = self.snapshot_path.with_suffix(".tmp")
        buffer = io.BytesIO()
        pickle.dump(
            {"format": FORMAT, "journal_id": journal_id, "state": capture_state()},
            buffer,
            protocol=pickle.HIGHEST_PROTOCOL,
        )
        with temporary.open("wb") as handle:
            handle.write(buffer.getbuffer())
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.snapshot_path)
        self._fsync_directory()
        # The new journal: written aside, then renamed, so the old one stays until the snapshot is in place.
        with self._append_lock:
            if self._journal is not None:
                self._journal.close()
            fresh = self.journal_path.with_suffix(".new")
            payload = pickle.dumps(("journal", journal_id))
            with fresh.open("wb") as handle:
                handle.write(_HEADER.pack(len(payload), zlib.crc32(payload)) + payload)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(fresh, self.journal_path)
            self._fsync_directory()
            self._journal = self.journal_path.open("ab")
            self._journal_bytes = 0

    def _fsync_directory(self) -> None:
        if sys.platform.startswith("linux"):
            descriptor = os.open(self.directory, os.O_RDONLY)
            try:
                os.fsync(descriptor)
            finally:
                os.close(descriptor)
