"""Damaged local data is never loaded silently (docs/adr/0029-local-data-integrity.md).

A torn last journal frame (a crash in the middle of an append) is dropped and logged. Any other damage — a
flipped bit in the middle of the journal, a frame missing, a flipped bit inside a snapshot — stops the start
with a message naming the file, the frame or section and what to do, and leaves every file byte for byte as it
was. A salvage keeps a copy of the damaged files, restores what is intact and says exactly what it dropped.
Data directories written in format 1 (before checksums covered everything) still load, and are rewritten.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from offprompt_local.resources import create_bucket, create_table
from offprompt_local.substrate import AtomicMotoServer, StoreError

from .conftest import BUCKET, TABLE, Server, reset_moto

RUNS = 40
OBJECTS = ("blobs/a.txt", "blobs/b.txt", "blobs/c.txt")
TRANSACTION = ("txn#x", "txn#y")
#: Journal records the workload writes after its table and bucket exist (each of those writes a snapshot):
#: one per put, one per S3 object, one for the transaction.
RECORDS = RUNS + len(OBJECTS) + 1


def canary(i: int) -> str:
    return f"CANARY-{i:04d}-END"


def many_writes(server: Server) -> None:
    ddb, s3 = server.dynamodb(), server.s3()
    create_table(ddb, TABLE, exist_ok=True)
    create_bucket(s3, BUCKET, exist_ok=True)
    for i in range(RUNS):
        ddb.put_item(TableName=TABLE, Item={"pk": {"S": "t"}, "sk": {"S": f"run#{i:04d}"}, "v": {"S": canary(i)}})
    for name in OBJECTS:
        s3.put_object(Bucket=BUCKET, Key=name, Body=name.encode() * 100)
    ddb.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": TABLE, "Item": {"pk": {"S": "t"}, "sk": {"S": sk}, "v": {"S": sk}}}}
            for sk in TRANSACTION
        ]
    )


_WRITER = textwrap.dedent(
    """
    import os, signal, sys
    sys.path[:0] = {paths!r}
    from pathlib import Path
    from offprompt_local.substrate import AtomicMotoServer
    from tests.integration.local_substrate.conftest import Server
    from tests.integration.local_substrate.test_damage import many_writes

    server = AtomicMotoServer("127.0.0.1", 0, data_dir=Path({data!r}))
    server.start()
    many_writes(Server("substrate", server.url, server))
    os.kill(os.getpid(), signal.SIGKILL)  # no stop(), no snapshot: the journal holds the writes
    """
)


@pytest.fixture(scope="module")
def crashed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory whose writer was killed with -9 after the workload (made once, copied per test)."""
    data = tmp_path_factory.mktemp("crashed") / "moto"
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
    script = _WRITER.format(paths=[str(root)], data=str(data))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, timeout=120, check=False)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()[-2000:]
    return data


@pytest.fixture
def moto(crashed: Path, tmp_path: Path) -> Path:
    """This test's copy of the crashed data directory."""
    target = tmp_path / "moto"
    shutil.copytree(crashed, target)
    return target


def digests(directory: Path) -> dict[str, str]:
    """Every file under `directory` and its SHA-256: equal before and after means byte for byte untouched."""
    return {
        str(path.relative_to(directory)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def flip_bit(path: Path, offset: int, mask: int = 0x04) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= mask
    path.write_bytes(bytes(data))


def offset_of(path: Path, needle: bytes) -> int:
    data = path.read_bytes()
    offset = data.find(needle)
    assert offset != -1 and data.find(needle, offset + 1) == -1, f"{needle!r} is not in {path} exactly once"
    return offset


@pytest.fixture
def start(aws_credentials: None) -> Iterator[Callable[..., AtomicMotoServer]]:
    """Start substrate servers on a data directory (each from an empty moto); all are stopped at the end."""
    started: list[AtomicMotoServer] = []

    def starter(data: Path, *, salvage: bool = False) -> AtomicMotoServer:
        reset_moto()
        server = AtomicMotoServer("127.0.0.1", 0, data_dir=data, **({"salvage": True} if salvage else {}))
        server.start()
        started.append(server)
        return server

    yield starter
    for server in started:
        server.stop()
    reset_moto()


def client(server: AtomicMotoServer) -> Server:
    return Server("substrate", server.url, server)


def run_keys(server: AtomicMotoServer) -> list[str]:
    pages = (
        client(server)
        .dynamodb()
        .get_paginator("query")
        .paginate(
            TableName=TABLE,
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": "t"}},
        )
    )
    return [item["sk"]["S"] for page in pages for item in page["Items"]]


def object_keys(server: AtomicMotoServer) -> list[str]:
    listed = client(server).s3().list_objects_v2(Bucket=BUCKET)
    return [entry["Key"] for entry in listed.get("Contents", [])]


ALL_RUNS = [f"run#{i:04d}" for i in range(RUNS)]


def refused(start: Callable[..., AtomicMotoServer], moto: Path) -> str:
    """Start on a damaged directory: it must refuse, change nothing, and say what to do; returns the message."""
    before = digests(moto)
    with pytest.raises(StoreError) as caught:
        start(moto)
    assert digests(moto) == before, "a refused start changed the data directory"
    message = str(caught.value)
    assert "not a torn write" in message and "Nothing was changed" in message, message
    assert "make dev SALVAGE=1" in message and "--salvage" in message and "make dev FRESH=1" in message, message
    return message


# ------------------------------------------------------------------------------------------------ journal


def test_a_flipped_bit_in_the_middle_of_the_journal_stops_the_start_and_changes_nothing(
    start: Callable[..., AtomicMotoServer], moto: Path
) -> None:
    journal = moto / "journal.bin"
    flip_bit(journal, offset_of(journal, canary(20).encode()) + 3)
    message = refused(start, moto)
    assert str(journal) in message and "frame 21 at byte offset " in message, message
    assert "CRC-32 does not match" in message, message
    assert f"drops frame 21 and the {RECORDS - 21} record(s) after it" in message, message


def test_the_exact_middle_byte_of_the_journal_flipped_is_refused(
    start: Callable[..., AtomicMotoServer], moto: Path
) -> None:
    journal = moto / "journal.bin"
    flip_bit(journal, journal.stat().st_size // 2, 0x01)
    assert "journal.bin is damaged: frame " in refused(start, moto)


def test_a_flipped_bit_in_a_frame_length_is_damage_not_a_torn_tail(
    start: Callable[..., AtomicMotoServer], moto: Path
) -> None:
    """The length is covered by the frame's CRC and, when it points past the end of the file, the intact frames
    after it show that it is not the last frame."""
    from offprompt_local.substrate.store import iter_frames

    journal = moto / "journal.bin"
    frames = list(iter_frames(journal))
    assert [sequence for sequence, _, _ in frames] == list(range(RECORDS + 1))
    _, offset, _ = frames[10]
    flip_bit(journal, offset + 4 + 4 + 8 + 3, 0x40)  # the high byte of the length: it now runs past the end
    message = refused(start, moto)
    assert f"frame 10 at byte offset {offset}" in message and "past the end of the file" in message, message
    flip_bit(journal, offset + 4 + 4 + 8 + 3, 0x40)  # back, and now the lowest bit: a length a few bytes short
    flip_bit(journal, offset + 4 + 4 + 8, 0x01)
    assert f"frame 10 at byte offset {offset}" in refused(start, moto)


def test_a_missing_frame_is_a_sequence_gap(start: Callable[..., AtomicMotoServer], moto: Path) -> None:
    from offprompt_local.substrate.store import iter_frames

    journal = moto / "journal.bin"
    frames = list(iter_frames(journal))
    data = journal.read_bytes()
    journal.write_bytes(data[: frames[7][1]] + data[frames[8][1] :])  # frame 7 cut out whole
    message = refused(start, moto)
    assert "sequence number 8 where 7 was due" in message, message


@pytest.mark.parametrize(
    "tear",
    [
        pytest.param(lambda p: p.write_bytes(p.read_bytes() + b"OPJ2\x00\x01"), id="short-header"),
        pytest.param(lambda p: p.write_bytes(p.read_bytes()[:-7]), id="short-payload"),
        pytest.param(lambda p: flip_bit(p, p.stat().st_size - 1), id="bad-checksum-on-the-final-frame"),
        pytest.param(lambda p: p.write_bytes(p.read_bytes() + bytes(300)), id="zeros-after-the-last-frame"),
    ],
)
def test_a_torn_last_frame_is_dropped_quietly_and_the_rest_kept(
    start: Callable[..., AtomicMotoServer], moto: Path, tear: Callable[[Path], None]
) -> None:
    tear(moto / "journal.bin")
    server = start(moto)
    loaded: Any = server.loaded
    assert loaded.torn_tail and "a torn last record from a crash was dropped" in loaded.describe()
    assert loaded.salvaged_to is None
    keys = run_keys(server)
    assert keys[:RUNS] == ALL_RUNS and object_keys(server) == sorted(OBJECTS)
    assert keys[RUNS:] in ([], list(TRANSACTION))  # the last frame, the transaction, went whole or not at all


def test_a_torn_transaction_is_dropped_whole(start: Callable[..., AtomicMotoServer], moto: Path) -> None:
    """A transaction's items are one frame: a crash in the middle of its append loses all of it or none."""
    journal = moto / "journal.bin"
    journal.write_bytes(journal.read_bytes()[:-1])
    server = start(moto)
    assert server.loaded is not None and server.loaded.torn_tail
    assert run_keys(server) == ALL_RUNS  # neither txn#x nor txn#y


def test_salvage_keeps_a_copy_restores_what_is_before_the_damage_and_counts_what_it_drops(
    start: Callable[..., AtomicMotoServer], moto: Path
) -> None:
    journal = moto / "journal.bin"
    flip_bit(journal, offset_of(journal, canary(20).encode()) + 3)
    damaged = digests(moto)

    server = start(moto, salvage=True)
    loaded: Any = server.loaded
    assert loaded.salvaged_to is not None and loaded.salvaged_to.parent == moto
    assert loaded.salvaged_to.name.startswith("damaged-")
    kept = {name: digest for name, digest in digests(loaded.salvaged_to).items() if name != "salvage.txt"}
    assert kept == damaged  # the damaged files exactly as they were
    assert loaded.replayed == 20 and loaded.dropped_records == RECORDS - 20
    text = loaded.describe()
    assert f"dropped {RECORDS - 20} journal record(s)" in text and "frame 21" in text, text
    assert (loaded.salvaged_to / "salvage.txt").read_text().startswith("SALVAGE: ")
    assert run_keys(server) == ALL_RUNS[:20] and object_keys(server) == []

    # What is left is a clean directory: the next start needs no salvage, and writes go on.
    client(server).dynamodb().put_item(TableName=TABLE, Item={"pk": {"S": "t"}, "sk": {"S": "run#9999"}})
    server.stop()
    again = start(moto)
    assert again.loaded is not None and again.loaded.salvaged_to is None and not again.loaded.damage
    assert run_keys(again) == [*ALL_RUNS[:20], "run#9999"]


def test_salvage_of_an_intact_directory_changes_nothing_it_need_not(
    start: Callable[..., AtomicMotoServer], moto: Path
) -> None:
    server = start(moto, salvage=True)
    assert server.loaded is not None and server.loaded.salvaged_to is None and server.loaded.dropped_records == 0
    assert not [path for path in moto.iterdir() if path.name.startswith("damaged-")]
    assert run_keys(server) == [*ALL_RUNS, *TRANSACTION]


# ----------------------------------------------------------------------------------------------- snapshot


@pytest.fixture
def stopped(start: Callable[..., AtomicMotoServer], tmp_path: Path) -> Path:
    """A data directory after the workload and a clean stop: everything in the snapshot, the journal empty."""
    moto = tmp_path / "moto"
    server = start(moto)
    many_writes(client(server))
    server.stop()
    return moto


def flip_a_stored_item(moto: Path) -> Path:
    snapshot = moto / "snapshot.pickle"
    flip_bit(snapshot, offset_of(snapshot, canary(5).encode()) + 1, 0x01)  # CANARY -> CBNARY
    return snapshot


def test_a_flipped_bit_inside_a_stored_item_of_the_snapshot_stops_the_start(
    start: Callable[..., AtomicMotoServer], stopped: Path
) -> None:
    snapshot = flip_a_stored_item(stopped)
    message = refused(start, stopped)
    assert str(snapshot) in message and f"DynamoDB table '{TABLE}'" in message, message
    assert "SHA-256 does not match" in message, message


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda p: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2]), id="truncated"),
        pytest.param(lambda p: flip_bit(p, 20), id="header"),
        pytest.param(lambda p: p.write_bytes(b"garbage" * 10), id="not-a-snapshot"),
        pytest.param(lambda p: p.write_bytes(p.read_bytes() + b"tail"), id="trailing-bytes"),
    ],
)
def test_an_unreadable_snapshot_stops_the_start(
    start: Callable[..., AtomicMotoServer], stopped: Path, damage: Callable[[Path], None]
) -> None:
    damage(stopped / "snapshot.pickle")
    assert "snapshot.pickle is damaged" in refused(start, stopped)


def test_salvage_of_a_damaged_snapshot_drops_only_the_damaged_section(
    start: Callable[..., AtomicMotoServer], stopped: Path
) -> None:
    flip_a_stored_item(stopped)
    server = start(stopped, salvage=True)
    loaded: Any = server.loaded
    assert loaded.salvaged_to is not None and (loaded.salvaged_to / "snapshot.pickle").exists()
    assert len(loaded.dropped_sections) == 1 and f"DynamoDB table '{TABLE}'" in loaded.dropped_sections[0]
    ddb = client(server).dynamodb()
    assert TABLE not in ddb.list_tables()["TableNames"]  # the local stack creates it again, empty
    assert object_keys(server) == sorted(OBJECTS)  # the bucket's section was intact


# ----------------------------------------------------------------------------------------------- formats


def format1_directory(moto: Path, *, crash: bool) -> None:
    """A data directory as the format-1 substrate left it: a snapshot, then journaled writes (and a kill -9)."""
    from .format1 import Format1Store

    reset_moto()
    server = AtomicMotoServer("127.0.0.1", 0)
    server.start()
    store = Format1Store(moto)
    assert server.app is not None
    server.app.store = store  # type: ignore[assignment]
    try:
        ddb, s3 = client(server).dynamodb(), client(server).s3()
        create_table(ddb, TABLE)
        create_bucket(s3, BUCKET)
        store.snapshot()
        many_writes(client(server))
        if not crash:
            store.snapshot()
    finally:
        store.abandon()
        server.app.store = None
        server.stop()
        reset_moto()


@pytest.mark.parametrize("crash", [True, False], ids=["journal", "snapshot-only"])
def test_a_format_1_directory_loads_and_is_rewritten_as_format_2(
    start: Callable[..., AtomicMotoServer], tmp_path: Path, crash: bool
) -> None:
    moto = tmp_path / "moto"
    format1_directory(moto, crash=crash)
    assert (moto / "snapshot.pickle").read_bytes()[:1] == b"\x80"  # a bare pickle
    server = start(moto)
    loaded: Any = server.loaded
    assert loaded.migrated_from == 1 and "format 1 data rewritten as format 2" in loaded.describe()
    assert loaded.replayed == (RUNS + len(OBJECTS) + len(TRANSACTION) if crash else 0)
    assert run_keys(server) == [*ALL_RUNS, *TRANSACTION] and object_keys(server) == sorted(OBJECTS)
    assert (moto / "snapshot.pickle").read_bytes().startswith(b"OPSNAP\r\n")
    server.stop()
    again = start(moto)
    assert again.loaded is not None and again.loaded.migrated_from is None
    assert run_keys(again) == [*ALL_RUNS, *TRANSACTION]


def test_a_format_1_journal_damaged_in_the_middle_is_refused_and_a_torn_tail_is_not(
    start: Callable[..., AtomicMotoServer], tmp_path: Path
) -> None:
    moto = tmp_path / "moto"
    format1_directory(moto, crash=True)
    journal = moto / "journal.bin"
    pristine = journal.read_bytes()
    flip_bit(journal, offset_of(journal, canary(20).encode()) + 3)
    message = refused(start, moto)
    assert "frame 21 at byte offset" in message and "CRC-32 does not match" in message, message

    journal.write_bytes(pristine[:-5])  # format 1's last frame is txn#y alone
    server = start(moto)
    assert server.loaded is not None and server.loaded.torn_tail and server.loaded.migrated_from == 1
    assert run_keys(server) == [*ALL_RUNS, TRANSACTION[0]]


def test_a_snapshot_of_a_newer_format_is_refused_clearly(start: Callable[..., AtomicMotoServer], stopped: Path) -> None:
    import hashlib as sha

    moto = stopped
    snapshot = moto / "snapshot.pickle"
    data = bytearray(snapshot.read_bytes())
    data[8:12] = (3).to_bytes(4, "little")  # format 3, with a header digest that matches
    header_length = int.from_bytes(data[12:16], "little")
    data[16 + header_length : 16 + header_length + 32] = sha.sha256(bytes(data[: 16 + header_length])).digest()
    snapshot.write_bytes(bytes(data))
    before = digests(moto)
    with pytest.raises(StoreError, match=r"has format 3; this offprompt reads formats 1, 2"):
        start(moto)
    assert digests(moto) == before
