"""Tenant export → erase → import into a fresh deployment (issue 14, item 5; docs/adr/0024-tenant-export-erase.md).

Real parts: the local substrate's moto server for DynamoDB/S3, the real OpenSearch node, the functions' own
handlers (direct invocation) for the workload and the reads, and the operator CLI (`python -m offprompt_admin`)
for export, erase and import. The "fresh deployment" is a wiped moto (every table and bucket gone), recreated
under other names, with a new index: nothing of the first deployment survives except the export directory.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from hosted_support import MEMORY, Deployment, all_items, reset_caches

from offprompt.adapters.dynamodb_runs import DynamoDbRunStore
from offprompt_admin.__main__ import main as admin


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any, str]:
    """Run the operator CLI; its exit code, its JSON output (None when it printed none) and its stderr."""
    capsys.readouterr()  # the handlers' own log lines, printed before
    code = admin(list(args))
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out.strip() else None, captured.err


ALICE, BOB = "alice#1", "bob"  # a `#` in the tenant: its keys are escaped, and "alice" must not match "alice#1"


_reset_caches = reset_caches


def _workload(d: Deployment, tenant: str) -> tuple[list[str], list[str]]:
    threads = ["t1", "t#2", "t1 fork"]
    for i in range(3):
        d.add_run(tenant, "t1", f"r{i}", f"{tenant} says hello {i} 🦊")
    # a fork (docs/adr/0037) reads t1's r0, r1 in place: export, erase and import carry its ancestry and t1's hold
    from threads.handler import lambda_handler as threads_fn

    fork = {"tenant": tenant, "thread_id": "t1", "action": "fork", "after_run_id": "r1", "new_thread_id": "t1 fork"}
    assert threads_fn(fork, None)["ancestry"] == [{"thread_id": "t1", "through_seq": 2}]
    d.add_run(tenant, "t1 fork", "f1", f"{tenant} forked")
    d.add_run(tenant, "t#2", "big", "x" * 400_000)  # past the inline size: the run's JSON is an S3 object
    from offprompt.composition.conversation import default_cloud_threads

    default_cloud_threads().create(tenant, {"name": "named", "alias": "my-alias"})
    namespaces = [
        d.store(
            tenant,
            {
                "type": "TextArtifact",
                "id": "a" * 32,
                "name": "a" * 32,
                "meta": {"k": 1.50},
                "value": f"text of {tenant} " * 400,
            },
        ),
        d.store(
            tenant,
            {
                "type": "BlobArtifact",
                "id": "b" * 32,
                "name": "b" * 32,
                "meta": {},
                "value": base64.b64encode(b"\x00\x01blob of " + tenant.encode()).decode(),
            },
            idempotency_key="store-blob-1",
        ),
    ]
    return threads, namespaces


def _pending_upload(tenant: str) -> str:
    """An upload made and filled but never consumed by a store: the upload id."""
    import requests
    from process_output.handler import lambda_handler

    upload = lambda_handler({"tenant": tenant, "memory_name": MEMORY, "action": "create_upload"}, None)
    requests.put(upload["url"], data=b"pending bytes", headers=upload["headers"], timeout=30).raise_for_status()
    return str(upload["upload_id"])


@pytest.fixture
def first(
    moto_server: str, opensearch_url: str, opensearch_client: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Deployment]:
    d = Deployment(monkeypatch, moto_server, opensearch_url, opensearch_client, "one")
    yield d
    opensearch_client.indices.delete(index=d.index, ignore_unavailable=True)
    _reset_caches()


def test_export_erase_import_round_trip(
    first: Deployment,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    moto_server: str,
    opensearch_url: str,
    opensearch_client: Any,
) -> None:
    threads, namespaces = _workload(first, ALICE)
    bob_threads, bob_namespaces = _workload(first, BOB)
    alice_before = first.reads(ALICE, threads, namespaces)
    bob_before = first.reads(BOB, bob_threads, bob_namespaces)
    upload_id = _pending_upload(ALICE)
    bob_traces = first.raw_traces(BOB)
    traces = first.raw_traces(ALICE)
    assert all(traces.values()), traces  # the workload reached every store

    # export (to S3: the presigned manifest URL; and to a local directory for the import below)
    code, s3_export, _ = cli(capsys, "export", ALICE)
    assert code == 0
    assert s3_export["manifest_url"].startswith("http") and s3_export["location"].startswith("s3://")
    out = tmp_path / "export"
    code, local_export, _ = cli(capsys, "export", ALICE, "--out", str(out))
    assert code == 0
    assert local_export["counts"] == s3_export["counts"]
    counts = local_export["counts"]
    assert counts["dynamodb.thread"] == 4 and counts["dynamodb.run"] == 5 and counts["dynamodb.alias"] == 1
    assert counts["dynamodb.namespace"] == 2 and counts["dynamodb.meta"] == 2
    assert counts["s3"] >= 2 and counts["opensearch"] >= 2
    lines = (out / "dynamodb.jsonl").read_text(encoding="utf-8").splitlines()
    assert all(
        json.loads(line)["item"]["pk"]["S"].startswith(("T#alice%231#", "TASKMEM#alice%231#", "AUDIT#alice%231"))
        for line in lines
    )  # (not the fork registry's `FORK#alice%231`, which the stores hold: ADR 0064)
    assert DynamoDbRunStore(first.table).forks_under(ALICE, "") == {"t1 fork": (("t1", 2),)}

    # erase: without --yes nothing happens; with it every store is emptied of alice and verified
    traces = first.raw_traces(ALICE)  # now with the S3 export's objects, which the erase removes too
    # + its audit log (not in raw_traces), which the erase deletes too (ADR 0056)
    logged = sum(1 for i in all_items(first.table) if i["pk"]["S"] == "AUDIT#alice%231")
    assert cli(capsys, "erase", ALICE)[0] == 2
    assert first.raw_traces(ALICE) == traces
    code, report, _ = cli(capsys, "erase", ALICE, "--yes")
    assert code == 0
    assert report["verified"] and report["remaining"] == {"dynamodb": 0, "s3": 0, "opensearch": 0}
    # all of it, but for the index marker the export put (the erase's bookkeeping: removed, not counted)
    assert report["deleted"]["dynamodb"] == traces["dynamodb"] - 1 + logged
    assert report["deleted"]["opensearch"] == traces["opensearch"]
    assert report["deleted"]["s3"] == traces["s3"]
    assert first.raw_traces(ALICE) == {"dynamodb": 0, "s3": 0, "opensearch": 0}
    everything = boto3.client("s3").list_objects_v2(Bucket=first.bucket).get("Contents", [])
    assert not [o["Key"] for o in everything if o["Key"].endswith(upload_id)]  # the pending upload too
    # bob is untouched, byte for byte
    assert first.raw_traces(BOB) == bob_traces
    assert first.reads(BOB, bob_threads, bob_namespaces) == bob_before
    # idempotent: a second erase deletes nothing and verifies
    code, again, _ = cli(capsys, "erase", ALICE, "--yes")
    assert code == 0
    assert again["deleted"] == {"dynamodb": 0, "opensearch": 0, "s3": 0} and again["verified"]

    # a fresh deployment: every table and bucket of moto gone, other names, a new index
    from moto.moto_api import _internal

    _internal.moto_api_backend.reset()
    fresh = Deployment(monkeypatch, moto_server, opensearch_url, opensearch_client, "two")
    try:
        code, result, _ = cli(capsys, "import", ALICE, str(out))
        assert code == 0
        imported = result["imported"]
        assert imported["dynamodb"] == counts["dynamodb"] and imported["s3"] == counts["s3"]
        assert fresh.reads(ALICE, threads, namespaces) == alice_before
        # the fork registry is not exported (bookkeeping): the import writes the fork's entry again (ADR 0064)
        assert DynamoDbRunStore(fresh.table).forks_under(ALICE, "t1") == {"t1 fork": (("t1", 2),)}
        # a second import refuses to merge unless asked, and with --merge changes nothing
        code, _, err = cli(capsys, "import", ALICE, str(out))
        assert code == 1 and "already has data" in err
        assert cli(capsys, "import", ALICE, str(out), "--merge")[0] == 0
        assert fresh.reads(ALICE, threads, namespaces) == alice_before
        # the export loads only as its own tenant
        code, _, err = cli(capsys, "import", BOB, str(out))
        assert code == 1 and "another tenant" in err
    finally:
        opensearch_client.indices.delete(index=fresh.index, ignore_unavailable=True)


def test_import_refuses_a_tampered_file(first: Deployment, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _workload(first, ALICE)
    out = tmp_path / "export"
    assert cli(capsys, "export", ALICE, "--out", str(out))[0] == 0
    path = out / "dynamodb.jsonl"
    path.write_bytes(path.read_bytes().replace(b"hello 0", b"hello X"))
    assert cli(capsys, "erase", ALICE, "--yes")[0] == 0
    code, _, err = cli(capsys, "import", ALICE, str(out))
    assert code == 1 and "digest" in err
    assert first.raw_traces(ALICE) == {"dynamodb": 0, "s3": 0, "opensearch": 0}
