"""Durable state for the local substrate: a checksummed snapshot of moto's DynamoDB tables and S3 buckets plus a
checksummed write-ahead journal (format 2; docs/adr/0029-local-data-integrity.md).

Layout under the data directory (`<data>/moto/`):

- `snapshot.pickle`: `OPSNAP\\r\\n`, the format (2), a JSON header (the id of the journal that continues it and
  one entry per section: offset, length, SHA-256) with its own SHA-256, then the sections, one pickle each: every
  DynamoDB table (definition + items) and every S3 bucket (objects, versions, settings) of every account/region,
  and each S3 backend's tags. Written to a temporary file, fsync'd and renamed over the old one, so a crash leaves
  either the old or the new snapshot.
- `journal.bin`: frames of (`OPJ2`, CRC-32, sequence number, payload length, pickle); the CRC-32 covers the
  sequence number, the length and the payload. Frame 0 names the journal (the id the snapshot gives). Each later
  frame is one request, appended and fdatasync'd **before the response is sent**: for a DynamoDB item write, the
  final state of every item the request touched (put or absent), so a transaction is replayed whole or not at
  all; for an S3 write, the raw request (method, path, headers, body), replayed through moto at the next start.
  Control-plane changes (CreateTable, UpdateTimeToLive, CreateBucket, PutBucketEncryption, multipart starts...)
  write a new snapshot instead, which starts a new journal.

Start: read and check the snapshot and the journal whose id the snapshot names, then restore, replay and write a
fresh snapshot (compaction). A torn last frame (a crash in the middle of an append: a short header, a short
payload, or a bad checksum on the final frame, with nothing valid after it) is dropped and logged. Any other
damage — a bad frame with more bytes after it, a sequence gap, a snapshot section whose checksum fails, a
snapshot that cannot be read — raises `DataDamaged` before anything is restored or written: the files stay
byte for byte as they were. `load(salvage=True)` (`make dev SALVAGE=1`) copies the damaged files to
`<data>/moto/damaged-<time>/`, keeps every snapshot section that checks out and every journal record before
the first damaged frame, and reports how many records and sections it dropped.

Format 1 (no checksum on the snapshot; a CRC-32 of the payload alone per frame, one frame per item) still loads,
with the same torn-tail rule, and is rewritten as format 2 by the compaction. Stream records are not persisted.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import shutil
import struct
import sys
import threading
import uuid
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from . import moto_patches

FORMAT = 2
#: The formats `Store.load` reads; older ones are rewritten as FORMAT by the compaction at start.
READABLE_FORMATS = (1, 2)
SNAPSHOT_MAGIC = b"OPSNAP\r\n"
_SNAPSHOT_PREFIX = struct.Struct("<8sII")  # magic, format, header length; then the header and its SHA-256
_DIGEST = 32
FRAME_MAGIC = b"OPJ2"
_FRAME = struct.Struct("<4sIQQ")  # magic, CRC-32, sequence number, payload length
_CRC_FIELDS = struct.Struct("<QQ")  # the header fields the CRC-32 covers with the payload: sequence, length
_V1_FRAME = struct.Struct("<II")  # format 1: payload length, CRC-32 of the payload alone
#: Past this size the journal is folded into a new snapshot while the server runs.
JOURNAL_COMPACT_BYTES = 256 * 1024 * 1024
SALVAGE_HINT = "make dev SALVAGE=1 (python -m offprompt_local.stack --salvage)"
FRESH_HINT = "make dev FRESH=1 (deletes all local data)"


class StoreError(RuntimeError):
    """The data directory cannot be read or written; the message says which file and why."""


class DataDamaged(StoreError):
    """A snapshot or journal is damaged in a way a crash cannot cause; nothing was restored or written."""

    def __init__(self, damage: Damage, directory: Path) -> None:
        self.damage = damage
        super().__init__(
            f"{damage.path} is damaged: {damage.where}: {damage.reason}. This is not a torn write from a crash, so "
            f"the stack does not start. Nothing was changed: the files in {directory} are as they were. "
            f"To start with what is still intact: {SALVAGE_HINT} copies snapshot.pickle and journal.bin to "
            f"{directory}/damaged-<time>/ and then {damage.consequence}. To start empty instead: {FRESH_HINT}."
        )


@dataclass
class Damage:
    path: Path
    #: "frame 17 at byte offset 40213", "section 2 (DynamoDB table 't' of 123456789012/us-east-1)", "the header"
    where: str
    reason: str
    #: What a salvage drops, in words ("drops frame 17 and the 3 records after it").
    consequence: str
    #: Journal records a salvage drops (the damaged frame(s) and every record after them).
    dropped_records: int = 0


@dataclass
class LoadReport:
    tables: int = 0
    items: int = 0
    buckets: int = 0
    objects: int = 0
    replayed: int = 0
    torn_tail: bool = False
    #: Where the torn frame began and how many bytes it had (`torn_tail`).
    torn_offset: int = 0
    torn_bytes: int = 0
    #: The format the directory was written in, when it was older than FORMAT (rewritten at this start).
    migrated_from: int | None = None
    #: With salvage: where the damaged files were copied, and what was dropped.
    salvaged_to: Path | None = None
    dropped_records: int = 0
    dropped_sections: list[str] = field(default_factory=list)
    damage: list[str] = field(default_factory=list)
    #: Journaled item states whose table is not there (only after a salvage dropped the table's section).
    skipped_items: int = 0
    #: Journaled S3 requests moto did not accept again (only after a salvage dropped what they depended on).
    failed_requests: int = 0

    def describe(self) -> str:
        text = (
            f"{self.tables} table(s) / {self.items} item(s), {self.buckets} bucket(s) / {self.objects} object(s)"
            f", {self.replayed} journal record(s) replayed"
        )
        if self.torn_tail:
            text += (
                f" (a torn last record from a crash was dropped: {self.torn_bytes} byte(s) at offset "
                f"{self.torn_offset} of journal.bin, never acknowledged)"
            )
        if self.migrated_from is not None:
            text += f"; format {self.migrated_from} data rewritten as format {FORMAT}"
        if self.salvaged_to is not None:
            text += "; " + self.describe_salvage()
        return text

    def describe_salvage(self) -> str:
        if self.salvaged_to is None:
            return "nothing to salvage: the data directory is intact"
        sections = ", ".join(self.dropped_sections) or "none"
        text = (
            f"SALVAGE: copies of the damaged files are in {self.salvaged_to}; dropped {self.dropped_records} journal "
            f"record(s) and {len(self.dropped_sections)} snapshot section(s) ({sections})"
        )
        if self.skipped_items or self.failed_requests:
            text += (
                f"; {self.skipped_items} journaled item state(s) for dropped tables skipped, "
                f"{self.failed_requests} journaled S3 request(s) refused on replay"
            )
        return text + ". Damage: " + "; ".join(self.damage)


# ------------------------------------------------------------------------------------------- moto state


def _backends() -> tuple[Any, Any]:
    from moto.dynamodb.models import dynamodb_backends
    from moto.s3.models import s3_backends

    return dynamodb_backends, s3_backends


@dataclass
class Section:
    """One independently checksummed part of a snapshot: a DynamoDB table, an S3 bucket or an S3 backend's tags."""

    kind: str  # "dynamodb-table" | "s3-bucket" | "s3-tagger"
    account: str
    region: str  # the DynamoDB region or the S3 partition
    name: str = ""
    count: int = 0  # items or objects

    def label(self) -> str:
        if self.kind == "dynamodb-table":
            return f"DynamoDB table {self.name!r} of {self.account}/{self.region} ({self.count} items)"
        if self.kind == "s3-bucket":
            return f"S3 bucket {self.name!r} of {self.account}/{self.region} ({self.count} objects)"
        return f"S3 tags of {self.account}/{self.region}"

    def header(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "account": self.account,
            "region": self.region,
            "name": self.name,
            "count": self.count,
        }


def capture_sections() -> list[tuple[Section, Any]]:
    """The persistent part of moto's DynamoDB and S3 state, one object per section (references: pickle them
    while holding the locks)."""
    dynamodb_backends, s3_backends = _backends()
    sections: list[tuple[Section, Any]] = []
    for account, regions in list(dynamodb_backends.items()):
        for region, backend in list(regions.items()):
            for name, table in list(backend.tables.items()):
                sections.append((Section("dynamodb-table", account, region, name, len(table)), table))
    for account, partitions in list(s3_backends.items()):
        for partition, backend in list(partitions.items()):
            if not backend.buckets:
                continue
            for name, bucket in list(backend.buckets.items()):
                sections.append((Section("s3-bucket", account, partition, name, len(bucket.keys)), bucket))
            sections.append((Section("s3-tagger", account, partition), backend.tagger))
    return sections


def restore_sections(sections: list[tuple[Section, Any]], report: LoadReport) -> None:
    dynamodb_backends, s3_backends = _backends()
    for section, value in sections:
        if section.kind == "dynamodb-table":
            dynamodb_backends[section.account][section.region].tables[section.name] = value
            report.tables += 1
            report.items += len(value)
        elif section.kind == "s3-bucket":
            s3_backends[section.account][section.region].buckets[section.name] = value
            s3_backends.bucket_accounts[section.name] = (section.region, section.account)
            report.buckets += 1
            report.objects += len(value.keys)
        else:
            s3_backends[section.account][section.region].tagger = value


def _sections_from_format1(state: dict[str, Any]) -> list[tuple[Section, Any]]:
    """Format 1's one-pickle state ({"dynamodb": {(account, region): tables}, "s3": {(account, partition): ...}})."""
    sections: list[tuple[Section, Any]] = []
    for (account, region), tables in state["dynamodb"].items():
        for name, table in tables.items():
            sections.append((Section("dynamodb-table", account, region, name, len(table)), table))
    for (account, partition), saved in state["s3"].items():
        for name, bucket in saved["buckets"].items():
            sections.append((Section("s3-bucket", account, partition, name, len(bucket.keys)), bucket))
        sections.append((Section("s3-tagger", account, partition), saved["tagger"]))
    return sections


def apply_item(record: tuple[Any, ...]) -> bool:
    """Replay the final state of one item; False when its table is not there (nothing to restore into)."""
    from moto.dynamodb.models.dynamo_type import DynamoType, Item

    _, account, region, table_name, hash_json, range_json, attrs = record
    dynamodb_backends, _ = _backends()
    table = dynamodb_backends[account][region].tables.get(table_name)
    if table is None:
        return False
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
    moto_patches.mark_changed(table, hash_key, range_key)
    return True


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


# -------------------------------------------------------------------------------------------- snapshot


@dataclass
class SnapshotRead:
    format: int
    journal_id: str | None
    sections: list[tuple[Section, Any]]
    damage: list[Damage] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def encode_snapshot(journal_id: str, sections: list[tuple[Section, Any]]) -> list[bytes]:
    """The snapshot file's bytes, in pieces: prefix + header + header digest, then one pickle per section."""
    payloads = [pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL) for _, value in sections]
    entries = []
    offset = 0
    for (section, _), payload in zip(sections, payloads, strict=True):
        entries.append(
            {
                **section.header(),
                "offset": offset,
                "length": len(payload),
                "sha256": hashlib.sha256(payload).hexdigest(),
            }
        )
        offset += len(payload)
    header = json.dumps(
        {"format": FORMAT, "journal_id": journal_id, "written_at": _now(), "sections": entries},
        separators=(",", ":"),
    ).encode()
    prefix = _SNAPSHOT_PREFIX.pack(SNAPSHOT_MAGIC, FORMAT, len(header)) + header
    return [prefix, hashlib.sha256(prefix).digest(), *payloads]


def read_snapshot(path: Path, *, salvage: bool = False) -> SnapshotRead:
    """Read and check a snapshot (format 1 or 2) without touching moto. Damage raises, or with `salvage` is
    recorded and the damaged sections (or, when its header is unreadable, all of it) are left out."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror}") from exc
    if data[:1] == b"\x80" and not data.startswith(SNAPSHOT_MAGIC):  # a bare pickle: format 1
        return _read_snapshot_format1(path, data, salvage)
    broken = _check_snapshot_header(path, data)
    if isinstance(broken, Damage):
        if not salvage:
            raise DataDamaged(broken, path.parent)
        return SnapshotRead(FORMAT, None, [], [broken], ["all of snapshot.pickle (its header is unreadable)"])
    header, base = broken
    result = SnapshotRead(FORMAT, str(header["journal_id"]), [])
    end = base
    for number, entry in enumerate(header["sections"]):
        section = Section(entry["kind"], entry["account"], entry["region"], entry["name"], int(entry["count"]))
        start, length = base + int(entry["offset"]), int(entry["length"])
        end = max(end, start + length)
        where = f"section {number} ({section.label()}) at byte offset {start}"
        payload = data[start : start + length]
        reason = ""
        if len(payload) < length:
            reason = f"the file ends {start + length - len(data)} byte(s) before the section does (truncated)"
        elif hashlib.sha256(payload).hexdigest() != entry["sha256"]:
            reason = "its SHA-256 does not match the header's"
        else:
            try:
                result.sections.append((section, pickle.loads(payload)))
                continue
            except Exception as exc:
                reason = f"its checksum matches but it cannot be decoded ({type(exc).__name__}: {exc})"
        damage = Damage(path, where, reason, f"leaves out the {section.label()}")
        if not salvage:
            raise DataDamaged(damage, path.parent)
        result.damage.append(damage)
        result.dropped.append(section.label())
    if len(data) > end:
        damage = Damage(
            path, f"byte offset {end}", f"{len(data) - end} byte(s) follow the last section", "ignores them"
        )
        if not salvage:
            raise DataDamaged(damage, path.parent)
        result.damage.append(damage)
    return result


def _check_snapshot_header(path: Path, data: bytes) -> Damage | tuple[dict[str, Any], int]:
    """The parsed header and where the sections begin, or what is wrong with it."""
    consequence = "starts without the snapshot's tables and buckets (its header cannot be trusted)"
    if len(data) < _SNAPSHOT_PREFIX.size or not data.startswith(SNAPSHOT_MAGIC):
        return Damage(path, "the start of the file", "it is not an offprompt snapshot (no OPSNAP marker)", consequence)
    _, version, header_length = _SNAPSHOT_PREFIX.unpack_from(data)
    base = _SNAPSHOT_PREFIX.size + header_length + _DIGEST
    if len(data) < base:
        return Damage(path, "the header", "the file ends inside the header (truncated)", consequence)
    prefix = data[: _SNAPSHOT_PREFIX.size + header_length]
    if hashlib.sha256(prefix).digest() != data[base - _DIGEST : base]:
        return Damage(path, "the header", "its SHA-256 does not match", consequence)
    if version not in READABLE_FORMATS:  # checked after the digest: a flipped bit is damage, not a new version
        raise StoreError(
            f"{path} has format {version}; this offprompt reads formats {', '.join(map(str, READABLE_FORMATS))}. "
            f"It was written by another version of offprompt: run that one, or start empty with {FRESH_HINT}"
        )
    try:
        header = json.loads(prefix[_SNAPSHOT_PREFIX.size :])
        checked = isinstance(header["journal_id"], str) and all(
            isinstance(entry["sha256"], str) and int(entry["offset"]) >= 0 and int(entry["length"]) >= 0
            for entry in header["sections"]
        )
    except (ValueError, KeyError, TypeError) as exc:
        return Damage(path, "the header", f"it cannot be parsed ({type(exc).__name__})", consequence)
    if not checked:
        return Damage(path, "the header", "it does not describe its sections", consequence)
    return header, base


def _read_snapshot_format1(path: Path, data: bytes, salvage: bool) -> SnapshotRead:
    """Format 1 has no checksum: it is accepted when it unpickles into a format-1 snapshot."""
    try:
        snapshot = pickle.loads(data)
        journal_id = snapshot["journal_id"]
        if snapshot.get("format") != 1:
            raise ValueError(f"format {snapshot.get('format')!r}")
        sections = _sections_from_format1(snapshot["state"])
    except Exception as exc:
        damage = Damage(
            path,
            "the format-1 snapshot",
            f"it cannot be read ({type(exc).__name__}: {exc})",
            "starts without the snapshot's tables and buckets",
        )
        if not salvage:
            raise DataDamaged(damage, path.parent) from exc
        return SnapshotRead(1, None, [], [damage], ["all of snapshot.pickle (format 1, unreadable)"])
    return SnapshotRead(1, journal_id, sections)


# --------------------------------------------------------------------------------------------- journal


@dataclass
class JournalRead:
    format: int
    #: The payloads of the intact records before any damage (frame 0, the journal's name, excluded).
    payloads: list[bytes]
    #: The id in frame 0; None when frame 0 itself is unreadable.
    journal_id: str | None
    torn_offset: int | None = None
    torn_bytes: int = 0
    damage: Damage | None = None
    #: How many frames (frame 0 included) were read intact before the end, a torn tail or the damage.
    frames: int = 0


def _frame_crc(sequence: int, payload: bytes | memoryview) -> int:
    return zlib.crc32(payload, zlib.crc32(_CRC_FIELDS.pack(sequence, len(payload))))


def encode_frame(sequence: int, payload: bytes) -> bytes:
    return _FRAME.pack(FRAME_MAGIC, _frame_crc(sequence, payload), sequence, len(payload)) + payload


def _intact_frame(data: bytes, offset: int) -> tuple[int, int] | None:
    """(sequence, end) of an intact format-2 frame starting at `offset`, else None."""
    if offset + _FRAME.size > len(data) or data[offset : offset + 4] != FRAME_MAGIC:
        return None
    _, crc, sequence, length = _FRAME.unpack_from(data, offset)
    end = offset + _FRAME.size + length
    if end > len(data) or _frame_crc(sequence, memoryview(data)[offset + _FRAME.size : end]) != crc:
        return None
    return sequence, end


def _intact_frames_from(data: bytes, offset: int) -> list[int]:
    """The sequence numbers of the intact frames at or after `offset` (found by their marker)."""
    found: list[int] = []
    position = data.find(FRAME_MAGIC, offset)
    while position != -1:
        frame = _intact_frame(data, position)
        if frame is not None:
            found.append(frame[0])
        position = data.find(FRAME_MAGIC, frame[1] if frame is not None else position + 1)
    return found


def _check_frame(data: bytes, position: int, expected: int) -> int | tuple[str, bool]:
    """The end of the frame at `position` when it is intact and the one due; else what is wrong with it and
    whether it can be a torn last frame (a crash in the middle of its append, nothing intact after it)."""
    remaining = len(data) - position
    if remaining < _FRAME.size:
        return f"the file ends {remaining} byte(s) into the frame's {_FRAME.size}-byte header", True
    if data[position : position + 4] != FRAME_MAGIC:
        only_zeros = data.count(b"\x00", position) == remaining  # where a crash left the append unwritten
        return "there is no frame marker (OPJ2) where the frame should begin", only_zeros
    _, crc, sequence, length = _FRAME.unpack_from(data, position)
    end = position + _FRAME.size + length
    if end > len(data):
        # A crash leaves a short last frame; a damaged length field leaves intact frames after it.
        reason = f"its length ({length} bytes) runs {end - len(data)} byte(s) past the end of the file"
        return reason, not _intact_frames_from(data, position + 1)
    if _frame_crc(sequence, memoryview(data)[position + _FRAME.size : end]) != crc:
        return "its CRC-32 does not match", end == len(data)
    if sequence != expected:
        return f"it has sequence number {sequence} where {expected} was due (a frame is missing or repeated)", False
    return end


def read_journal(path: Path, data: bytes) -> JournalRead:
    """Check every frame of a format-2 journal: the intact records, a torn last frame, or the first damage."""
    result = JournalRead(FORMAT, [], None)
    position = 0
    while position < len(data):
        frame = result.frames
        verdict = _check_frame(data, position, frame)
        if isinstance(verdict, tuple):
            reason, torn = verdict
            if torn and frame > 0:  # frame 0 is written whole before the journal is renamed into place
                return _torn(result, position, len(data) - position)
            return _damaged(result, path, position, frame, reason, _intact_frames_from(data, position))
        payload = data[position + _FRAME.size : verdict]
        if frame == 0:
            try:
                result.journal_id = str(pickle.loads(payload)[1])
            except Exception as exc:
                reason = f"it cannot be decoded ({type(exc).__name__})"
                return _damaged(result, path, position, 0, reason, _intact_frames_from(data, verdict))
        else:
            result.payloads.append(payload)
        result.frames += 1
        position = verdict
    return result


def _torn(result: JournalRead, offset: int, size: int) -> JournalRead:
    result.torn_offset, result.torn_bytes = offset, size
    return result


def _damaged(result: JournalRead, path: Path, offset: int, frame: int, reason: str, later: list[int]) -> JournalRead:
    """Record the first damage: at `frame` (its number), with `later` the sequence numbers of intact frames after."""
    if frame == 0:
        dropped = len([sequence for sequence in later if sequence > 0])
        consequence = f"ignores the whole journal ({dropped} intact record(s)): its first frame, its name, is damaged"
    else:
        last = max([sequence for sequence in later if sequence >= frame], default=frame)
        dropped = last - frame + 1
        consequence = (
            f"drops frame {frame} and the {dropped - 1} record(s) after it ({dropped} in all); "
            f"the {frame - 1} record(s) before it are kept"
        )
    result.damage = Damage(path, f"frame {frame} at byte offset {offset}", reason, consequence, dropped)
    return result


def read_journal_format1(path: Path, data: bytes) -> JournalRead:
    """Format 1: (length, CRC-32 of the payload) frames. A bad frame that reaches the end of the file is a torn
    tail; a bad one followed by more bytes is damage. A damaged length field that points past the end cannot be
    told from a torn tail in this format (there is no marker to find the next frame by): format 2 can."""
    result = JournalRead(1, [], None)
    position = 0
    while position < len(data):
        frame = result.frames
        remaining = len(data) - position
        if remaining < _V1_FRAME.size:
            return _torn(result, position, remaining)
        length, crc = _V1_FRAME.unpack_from(data, position)
        end = position + _V1_FRAME.size + length
        payload = data[position + _V1_FRAME.size : end]
        if end >= len(data) and (end > len(data) or zlib.crc32(payload) != crc):
            return _torn(result, position, remaining)
        if zlib.crc32(payload) != crc:
            later = list(range(frame + 1, frame + 1 + _format1_frames_from(data, end)))
            return _damaged(result, path, position, frame, "its CRC-32 does not match", later)
        if frame == 0:
            try:
                result.journal_id = str(pickle.loads(payload)[1])
            except Exception as exc:
                later = list(range(1, 1 + _format1_frames_from(data, end)))
                return _damaged(result, path, position, 0, f"it cannot be decoded ({type(exc).__name__})", later)
        else:
            result.payloads.append(payload)
        result.frames += 1
        position = end
    return result


def _format1_frames_from(data: bytes, position: int) -> int:
    """How many intact format-1 frames follow one another from `position`."""
    count = 0
    while position + _V1_FRAME.size <= len(data):
        length, crc = _V1_FRAME.unpack_from(data, position)
        end = position + _V1_FRAME.size + length
        if end > len(data) or zlib.crc32(data[position + _V1_FRAME.size : end]) != crc:
            break
        count += 1
        position = end
    return count


def iter_frames(path: Path) -> Iterator[tuple[int, int, Any]]:
    """(sequence, offset, record) of every intact frame of a format-2 journal, in order (for tools and tests)."""
    data = path.read_bytes()
    position = 0
    while (frame := _intact_frame(data, position)) is not None:
        sequence, end = frame
        yield sequence, position, pickle.loads(data[position + _FRAME.size : end])
        position = end


# ----------------------------------------------------------------------------------------------- store


class Store:
    """Snapshot + write-ahead journal in one directory. Thread-safe appends; snapshots need the caller's locks."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.snapshot_path = directory / "snapshot.pickle"
        self.journal_path = directory / "journal.bin"
        self._journal: BinaryIO | None = None
        self._journal_bytes = 0
        self._sequence = 0
        self._append_lock = threading.Lock()

    # --- start and stop

    def load(self, replay_request: Callable[[dict[str, Any]], int], *, salvage: bool = False) -> LoadReport:
        """Check the snapshot and the journal, restore them into moto's backends, then compact into a new snapshot.

        Damage raises `DataDamaged` before anything is restored or written. With `salvage`, the damaged files
        are copied aside first and what is intact is restored (see the module docstring)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        report = LoadReport()
        snapshot = (
            read_snapshot(self.snapshot_path, salvage=salvage)
            if self.snapshot_path.exists()
            else SnapshotRead(FORMAT, None, [])
        )
        records, journal = self._read_records(snapshot, salvage)
        damage = [*snapshot.damage, *([journal.damage] if journal is not None and journal.damage else [])]
        if damage:  # only reached with salvage
            report.salvaged_to = self._keep_damaged_files()
            report.dropped_sections = snapshot.dropped
            report.dropped_records = sum(d.dropped_records for d in damage)
            report.damage = [f"{d.path.name}: {d.where}: {d.reason} ({d.consequence})" for d in damage]
        if journal is not None and journal.torn_offset is not None:
            report.torn_tail, report.torn_offset, report.torn_bytes = True, journal.torn_offset, journal.torn_bytes
        if snapshot.format != FORMAT or (journal is not None and journal.format != FORMAT):
            report.migrated_from = min(snapshot.format, journal.format if journal is not None else FORMAT)
        restore_sections(snapshot.sections, report)
        for record in records:
            self._apply(record, replay_request, report)
        self.snapshot()
        if report.salvaged_to is not None:
            (report.salvaged_to / "salvage.txt").write_text(report.describe_salvage() + "\n", encoding="utf-8")
        return report

    def _read_records(self, snapshot: SnapshotRead, salvage: bool) -> tuple[list[Any], JournalRead | None]:
        """The journal's intact records (decoded) when it continues `snapshot`, and how it was read."""
        if not self.journal_path.exists():
            return [], None
        data = self.journal_path.read_bytes()
        reader = read_journal if snapshot.format == FORMAT else read_journal_format1
        journal = reader(self.journal_path, data)
        known = snapshot.journal_id is not None or not snapshot.damage
        if known and journal.journal_id is not None and journal.journal_id != snapshot.journal_id:
            return [], None  # a journal the snapshot already contains (a crash between the two writes)
        if journal.damage is not None and not salvage:
            raise DataDamaged(journal.damage, self.directory)
        if snapshot.journal_id is None and snapshot.damage:
            # The snapshot's header is gone, and with it the tables this journal's records belong to.
            dropped = journal.damage.dropped_records if journal.damage else 0
            journal.damage = Damage(
                self.journal_path,
                "the whole journal",
                "the snapshot it continues is unreadable",
                f"drops its {len(journal.payloads)} intact record(s)",
                len(journal.payloads) + dropped,
            )
            return [], journal
        records: list[Any] = []
        for number, payload in enumerate(journal.payloads, start=1):
            try:
                records.append(pickle.loads(payload))
            except Exception as exc:
                dropped = len(journal.payloads) - number + 1 + (journal.damage.dropped_records if journal.damage else 0)
                damage = Damage(
                    self.journal_path,
                    f"frame {number}",
                    f"its checksum matches but it cannot be decoded ({type(exc).__name__}: {exc})",
                    f"drops frame {number} and every record after it ({dropped} in all)",
                    dropped,
                )
                if not salvage:
                    raise DataDamaged(damage, self.directory) from exc
                journal.damage, journal.torn_offset = damage, None
                break
        return records, journal

    def _apply(self, record: Any, replay_request: Callable[[dict[str, Any]], int], report: LoadReport) -> None:
        kind = record[0]
        if kind == "items":
            for item in record[1]:
                report.skipped_items += not apply_item(item)
        elif kind == "ddb":  # format 1: one item per frame
            report.skipped_items += not apply_item(record)
        elif kind == "request":
            status = replay_request(record[1])
            report.failed_requests += not 200 <= status < 300
        report.replayed += 1

    def _keep_damaged_files(self) -> Path:
        """Copy the snapshot and the journal, as they are, to `damaged-<UTC time>/` before anything changes."""
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        target = self.directory / f"damaged-{stamp}"
        suffix = 1
        while target.exists():
            suffix += 1
            target = self.directory / f"damaged-{stamp}-{suffix}"
        target.mkdir()
        for path in (self.snapshot_path, self.journal_path):
            if path.exists():
                shutil.copy2(path, target / path.name)
        return target

    def close(self) -> None:
        """Fold everything into a snapshot and close the journal (a clean stop)."""
        self.snapshot()
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    # --- journal

    def append(self, record: tuple[Any, ...]) -> None:
        """Append one record (one request's effect) and fsync it: when this returns, the change survives a crash."""
        payload = pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL)
        with self._append_lock:
            journal = self._journal
            if journal is None:
                raise StoreError("the journal is closed")
            frame = encode_frame(self._sequence + 1, payload)
            journal.write(frame)
            journal.flush()
            os.fdatasync(journal.fileno())
            self._sequence += 1
            self._journal_bytes += len(frame)

    def wants_compaction(self) -> bool:
        return self._journal_bytes > JOURNAL_COMPACT_BYTES

    # --- snapshot

    def snapshot(self) -> None:
        """Write a snapshot of the current state and start a new, empty journal. Hold every lock around it."""
        journal_id = uuid.uuid4().hex
        temporary = self.snapshot_path.with_suffix(".tmp")
        buffer = io.BytesIO()
        for piece in encode_snapshot(journal_id, capture_sections()):
            buffer.write(piece)
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
            with fresh.open("wb") as handle:
                handle.write(encode_frame(0, pickle.dumps(("journal", journal_id, FORMAT))))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(fresh, self.journal_path)
            self._fsync_directory()
            self._journal = self.journal_path.open("ab")
            self._journal_bytes = 0
            self._sequence = 0

    def _fsync_directory(self) -> None:
        if sys.platform.startswith("linux"):
            descriptor = os.open(self.directory, os.O_RDONLY)
            try:
                os.fsync(descriptor)
            finally:
                os.close(descriptor)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
