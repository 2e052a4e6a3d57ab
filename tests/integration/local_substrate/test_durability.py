"""State written through the server survives a stop and a start on the same data directory, and a crash
(SIGKILL) loses no acknowledged write; an emptied data directory (`make dev FRESH=1`) starts empty."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from offprompt_local.datadir import DataDir

from .conftest import BUCKET, TABLE, Server, reset_moto

BLOB = bytes(range(256)) * 4096  # 1 MiB, every byte value
MULTIPART = bytes(reversed(range(256))) * (24 * 1024)  # 6 MiB: two parts


def _write(server: Server) -> None:
    from offprompt_local.resources import create_bucket, create_table

    ddb, s3 = server.dynamodb(), server.s3()
    create_table(ddb, TABLE, exist_ok=True)
    create_bucket(s3, BUCKET, exist_ok=True)
    for i in range(30):
        ddb.put_item(TableName=TABLE, Item={"pk": {"S": "t"}, "sk": {"S": f"run#{i:04d}"}, "n": {"N": str(i)}})
    ddb.delete_item(TableName=TABLE, Key={"pk": {"S": "t"}, "sk": {"S": "run#0007"}})
    ddb.update_item(
        TableName=TABLE,
        Key={"pk": {"S": "t"}, "sk": {"S": "meta"}},
        UpdateExpression="ADD run_count :n SET title = :t",
        ExpressionAttributeValues={":n": {"N": "29"}, ":t": {"S": "durable"}},
    )
    ddb.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": TABLE, "Item": {"pk": {"S": "t"}, "sk": {"S": "run#0100"}}}},
            {"Delete": {"TableName": TABLE, "Key": {"pk": {"S": "t"}, "sk": {"S": "run#0008"}}}},
        ]
    )
    s3.put_object(Bucket=BUCKET, Key="blobs/one.bin", Body=BLOB)
    s3.put_object(Bucket=BUCKET, Key="blobs/two.txt", Body=b"two", ContentType="text/plain")
    s3.delete_object(Bucket=BUCKET, Key="blobs/two.txt")
    s3.put_object(Bucket=BUCKET, Key="blobs/three.txt", Body=b"three")
    # A multipart upload: CreateMultipartUpload snapshots (its UploadId is random), the parts are journaled.
    upload = s3.create_multipart_upload(Bucket=BUCKET, Key="blobs/multi.bin")["UploadId"]
    parts = []
    for number, chunk in enumerate((MULTIPART[: 5 * 2**20], MULTIPART[5 * 2**20 :]), start=1):
        etag = s3.upload_part(Bucket=BUCKET, Key="blobs/multi.bin", UploadId=upload, PartNumber=number, Body=chunk)
        parts.append({"ETag": etag["ETag"], "PartNumber": number})
    s3.complete_multipart_upload(
        Bucket=BUCKET, Key="blobs/multi.bin", UploadId=upload, MultipartUpload={"Parts": parts}
    )


def _check(server: Server) -> None:
    ddb, s3 = server.dynamodb(), server.s3()
    keys = [
        item["sk"]["S"]
        for item in ddb.query(
            TableName=TABLE,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :r)",
            ExpressionAttributeValues={":pk": {"S": "t"}, ":r": {"S": "run#"}},
        )["Items"]
    ]
    assert keys == [f"run#{i:04d}" for i in range(30) if i not in (7, 8)] + ["run#0100"]
    meta = ddb.get_item(TableName=TABLE, Key={"pk": {"S": "t"}, "sk": {"S": "meta"}})["Item"]
    assert meta["run_count"] == {"N": "29"} and meta["title"] == {"S": "durable"}
    ttl = ddb.describe_time_to_live(TableName=TABLE)["TimeToLiveDescription"]
    assert ttl["TimeToLiveStatus"] == "ENABLED"
    assert s3.get_object(Bucket=BUCKET, Key="blobs/one.bin")["Body"].read() == BLOB
    assert s3.get_object(Bucket=BUCKET, Key="blobs/three.txt")["Body"].read() == b"three"
    assert s3.get_object(Bucket=BUCKET, Key="blobs/multi.bin")["Body"].read() == MULTIPART
    listed = [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET, Prefix="blobs/")["Contents"]]
    assert listed == ["blobs/multi.bin", "blobs/one.bin", "blobs/three.txt"]
    encryption = s3.get_bucket_encryption(Bucket=BUCKET)["ServerSideEncryptionConfiguration"]
    assert encryption["Rules"]


def test_state_survives_a_stop_and_start_on_the_same_data_dir(
    server_factory: Callable[[Path | None], Server], tmp_path: Path
) -> None:
    first = server_factory(tmp_path / "moto")
    _write(first)
    first.stop()
    reset_moto()  # nothing left in this process's moto: what comes back comes from the directory
    second = server_factory(tmp_path / "moto")
    _check(second)


_CRASHING_WRITER = textwrap.dedent(
    """
    import os, signal, sys
    sys.path[:0] = {paths!r}
    from pathlib import Path
    from offprompt_local.substrate import AtomicMotoServer
    from tests.integration.local_substrate.conftest import Server
    from tests.integration.local_substrate.test_durability import _write

    server = AtomicMotoServer("127.0.0.1", 0, data_dir=Path({data!r}))
    server.start()
    _write(Server("substrate", server.url, server))
    os.kill(os.getpid(), signal.SIGKILL)  # no stop(), no snapshot: only the journal has the writes
    """
)


def _crash_after_writing(data: Path) -> None:
    root = Path(__file__).resolve().parents[3]
    script = _CRASHING_WRITER.format(paths=[str(root)], data=str(data))
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, timeout=120, check=False)
    assert result.returncode == -9, result.stderr.decode()[-2000:]


@pytest.mark.parametrize("server_kind", ["substrate"])
def test_acknowledged_writes_survive_a_kill_9(server_factory: Callable[[Path | None], Server], tmp_path: Path) -> None:
    _crash_after_writing(tmp_path / "moto")
    restarted = server_factory(tmp_path / "moto")
    loaded: Any = restarted.handle.loaded
    assert loaded is not None and loaded.replayed > 0 and not loaded.torn_tail  # back from the journal
    _check(restarted)


@pytest.mark.parametrize("server_kind", ["substrate"])
def test_a_torn_last_journal_record_is_dropped_and_the_rest_kept(
    server_factory: Callable[[Path | None], Server], tmp_path: Path
) -> None:
    _crash_after_writing(tmp_path / "moto")
    with (tmp_path / "moto" / "journal.bin").open("ab") as journal:
        journal.write(b"\x40\x00\x00\x00\x01\x02")  # a crash in the middle of the next append
    restarted = server_factory(tmp_path / "moto")
    loaded: Any = restarted.handle.loaded
    assert loaded is not None and loaded.torn_tail
    _check(restarted)


@pytest.mark.parametrize("server_kind", ["substrate"])
def test_fresh_starts_empty(server_factory: Callable[[Path | None], Server], tmp_path: Path) -> None:
    first = server_factory(tmp_path / "moto")
    _write(first)
    first.stop()
    reset_moto()
    DataDir(tmp_path).wipe()  # what `make dev FRESH=1` / `--fresh` does before starting
    second = server_factory(tmp_path / "moto")
    assert second.dynamodb().list_tables()["TableNames"] == []
    assert second.s3().list_buckets()["Buckets"] == []
