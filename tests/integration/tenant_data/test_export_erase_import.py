"""Tenant export → erase → import into a fresh deployment (issue 14, item 5; docs/adr/0024-tenant-export-erase.md).

Real parts: the local substrate's moto server for DynamoDB/S3, the real OpenSearch node, the functions' own
handlers (direct invocation) for the workload and the reads, and the operator CLI (`python -m offprompt_admin`)
for export, erase and import. The "fresh deployment" is a wiped moto (every table and bucket gone), recreated
under other names, with a new index: nothing of the first deployment survives except the export directory.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from offprompt.identifiers import digest, key
from offprompt_admin.__main__ import main as admin
from offprompt_local.resources import create_bucket, create_table


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any, str]:
    """Run the operator CLI; its exit code, its JSON output (None when it printed none) and its stderr."""
    capsys.readouterr()  # the handlers' own log lines, printed before
    code = admin(list(args))
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out.strip() else None, captured.err


ALICE, BOB = "alice#1", "bob"  # a `#` in the tenant: its keys are escaped, and "alice" must not match "alice#1"
MEMORY = "TaskMemory"


def _reset_caches() -> None:
    """Every per-process cache of clients, settings and services: the next deployment's are built fresh."""
    from offprompt.adapters.clients import reset_clients
    from offprompt.adapters.opensearch_client import reset_opensearch_clients
    from offprompt.composition import account, conversation, task_memory, tenant_data
    from offprompt.config import get_settings

    reset_clients()
    reset_opensearch_clients()
    get_settings.cache_clear()
    for cached in (
        conversation.default_service,
        conversation.default_cloud_threads,
        task_memory.default_service,
        task_memory.default_receipts,
        account.default_account,
        tenant_data.default_stores,
    ):
        cached.cache_clear()


class Deployment:
    def __init__(self, monkeypatch: pytest.MonkeyPatch, moto_url: str, os_url: str, os_client: Any, name: str):
        self.table = f"table-{name}"
        self.bucket = f"bucket-{name}"
        self.index = f"offprompt-test-{name}-{uuid.uuid4().hex[:8]}"
        self.os = os_client
        monkeypatch.setenv("AWS_ENDPOINT_URL", moto_url)
        monkeypatch.setenv("OFFPROMPT_TABLE", self.table)
        monkeypatch.setenv("OFFPROMPT_BUCKET", self.bucket)
        monkeypatch.setenv("OFFPROMPT_OPENSEARCH_URL", os_url)
        monkeypatch.setenv("OFFPROMPT_OPENSEARCH_INDEX", self.index)
        monkeypatch.setenv("OFFPROMPT_SUMMARIZE_MODE", "off")
        monkeypatch.delenv("OFFPROMPT_EMBEDDING_MODEL_ID", raising=False)
        _reset_caches()
        create_table(boto3.client("dynamodb"), self.table)
        create_bucket(boto3.client("s3"), self.bucket)

    # ---- the workload, through the functions' handlers ------------------------------------------------
    def add_run(self, tenant: str, thread: str, run_id: str, text: str) -> None:
        from add_run.handler import lambda_handler

        run = {
            "type": "Run",
            "id": run_id,
            "meta": None,
            "input": {"type": "TextArtifact", "id": f"i-{run_id}", "name": "i", "meta": {}, "value": "Q " + text},
            "output": {"type": "TextArtifact", "id": f"o-{run_id}", "name": "o", "meta": {}, "value": text},
        }
        lambda_handler({"tenant": tenant, "thread_id": thread, "run": run}, None)

    def store(self, tenant: str, artifact: dict[str, Any], idempotency_key: str | None = None) -> str:
        from process_output.handler import lambda_handler

        event: dict[str, Any] = {
            "tenant": tenant,
            "memory_name": MEMORY,
            "tool": "WebTool",
            "activity": "fetch",
            "artifact": artifact,
            "actions": [{"tag": "call_1", "name": "WebTool", "path": "fetch", "input": {"url": "u"}}],
            "thought": "fetching",
        }
        if idempotency_key is not None:  # leaves a receipt item (RECEIPT#{tenant}#...), which the erase must find
            event["idempotency_key"] = idempotency_key
        lambda_handler(event, None)
        return str(artifact["name"])  # Griptape's namespace: the artifact's name

    # ---- the reads whose bytes must survive ----------------------------------------------------------
    def reads(self, tenant: str, threads: list[str], namespaces: list[str]) -> dict[str, bytes]:
        from load_artifacts.handler import lambda_handler as load
        from memories.handler import lambda_handler as memories
        from threads.handler import lambda_handler as thread_fn

        out: dict[str, bytes] = {}
        for t in threads:
            event = {"tenant": tenant, "thread_id": t, "action": "list_runs", "limit": 100, "order": "asc"}
            out[f"runs:{t}"] = json.dumps(thread_fn(event, None)).encode()
            out[f"thread:{t}"] = json.dumps(
                thread_fn({"tenant": tenant, "thread_id": t, "action": "get"}, None)
            ).encode()
        for ns in namespaces:
            loaded = load({"tenant": tenant, "memory_name": MEMORY, "namespace": ns}, None)
            # The ListArtifact around the artifacts is minted per load (Griptape: a fresh id and name each
            # time); everything it holds must be byte-identical.
            assert loaded["value"], loaded
            out[f"load:{ns}"] = json.dumps({k: v for k, v in loaded.items() if k not in ("id", "name")}).encode()
        meta = memories({"tenant": tenant, "memory_name": MEMORY, "action": "list_meta", "limit": 100}, None)
        out["meta"] = json.dumps(meta).encode()
        return out

    # ---- independent inspection of the raw stores -----------------------------------------------------
    def raw_traces(self, tenant: str) -> dict[str, int]:
        items = boto3.client("dynamodb").get_paginator("scan").paginate(TableName=self.table)
        escaped = key(tenant)
        n_items = sum(
            1
            for page in items
            for item in page["Items"]
            if f"#{escaped}#" in item["pk"]["S"] or item.get("tenant", {}).get("S") == tenant
        )
        objects = boto3.client("s3").get_paginator("list_objects_v2").paginate(Bucket=self.bucket)
        n_objects = sum(
            1 for page in objects for obj in page.get("Contents", []) if obj["Key"].split("/")[1:2] == [digest(tenant)]
        )
        self.os.indices.refresh(index=self.index)
        hits = self.os.search(index=self.index, body={"query": {"match_all": {}}, "size": 10000})["hits"]["hits"]
        n_docs = sum(1 for h in hits if h["_source"]["tenant"] == tenant)
        return {"dynamodb": n_items, "s3": n_objects, "opensearch": n_docs}


def _workload(d: Deployment, tenant: str) -> tuple[list[str], list[str]]:
    threads = ["t1", "t#2"]
    for i in range(3):
        d.add_run(tenant, "t1", f"r{i}", f"{tenant} says hello {i} 🦊")
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
    assert counts["dynamodb.thread"] == 3 and counts["dynamodb.run"] == 4 and counts["dynamodb.alias"] == 1
    assert counts["dynamodb.namespace"] == 2 and counts["dynamodb.meta"] == 2
    assert counts["s3"] >= 2 and counts["opensearch"] >= 2
    lines = (out / "dynamodb.jsonl").read_text(encoding="utf-8").splitlines()
    assert all(json.loads(line)["item"]["pk"]["S"].startswith(("T#alice%231#", "TASKMEM#alice%231#")) for line in lines)

    # erase: without --yes nothing happens; with it every store is emptied of alice and verified
    traces = first.raw_traces(ALICE)  # now with the S3 export's objects, which the erase removes too
    assert cli(capsys, "erase", ALICE)[0] == 2
    assert first.raw_traces(ALICE) == traces
    code, report, _ = cli(capsys, "erase", ALICE, "--yes")
    assert code == 0
    assert report["verified"] and report["remaining"] == {"dynamodb": 0, "s3": 0, "opensearch": 0}
    assert report["deleted"]["dynamodb"] == traces["dynamodb"]
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
