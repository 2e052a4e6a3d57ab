"""Hosted mode (a key the real authorizer admitted) on the moto server and the real OpenSearch node:

- a namespace's bytes (S3 blobs, OpenSearch text) leave the tenant's stored-bytes gauge when it is deleted;
- `DELETE /tenant` leaves nothing of the tenant behind, its own usage counters included
(docs/adr/0021-stored-bytes-and-run-counts.md, 0024-tenant-export-erase.md).
"""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import pytest
from hosted_support import authorized, erase_until_verified
from test_export_erase_import import MEMORY, Deployment, _reset_caches, cli

from offprompt.metering import Plan

ROOT = Path(__file__).resolve().parents[3]
TENANT = "acme"


def call(
    function: str,
    event_name: str,
    token: str,
    *,
    path: str,
    method: str,
    body: Any = None,
    cached: dict[str, Any] | None = None,
    **params: str,
) -> Any:
    """The event API Gateway sends `function` after the real authorizer admitted `token` (or with the authorizer
    answer API Gateway `cached`); its status and JSON body."""
    import importlib

    answer = {"context": cached if cached is not None else authorized(token)}
    event = copy.deepcopy(json.loads((ROOT / "events" / event_name).read_text()))
    event["rawPath"] = path
    event["requestContext"]["http"]["method"] = method
    event["requestContext"]["http"]["path"] = path
    event["requestContext"]["authorizer"] = {"lambda": answer["context"]}
    event["pathParameters"] = params
    event.pop("queryStringParameters", None)
    event["rawQueryString"] = ""
    event["body"] = json.dumps(body) if body is not None else None
    if body is None:
        event.pop("body")
    out = importlib.import_module(f"{function}.handler").lambda_handler(event, None)
    return out["statusCode"], json.loads(out["body"]) if out.get("body") else None


@pytest.fixture
def stack(moto_server: str, opensearch_url: str, opensearch_client: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    d = Deployment(monkeypatch, moto_server, opensearch_url, opensearch_client, "hosted")
    yield d
    opensearch_client.indices.delete(index=d.index, ignore_unavailable=True)
    _reset_caches()


@pytest.fixture
def key(stack: Deployment) -> str:
    from offprompt.composition.account import default_account

    tenancy = default_account()
    tenancy.create_tenant(TENANT, Plan("pro", max_keys=3))
    return str(tenancy.create_key(TENANT)["key"])


def gauge(token: str) -> int:
    status, body = call("account", "usage_http.json", token, path="/usage", method="GET")
    assert status == 200, body
    return int(body["stored_bytes"])


def store(token: str, artifact: dict[str, Any]) -> None:
    body = {"tool": "WebTool", "activity": "fetch", "artifact": artifact, "actions": [], "thought": "t"}
    path = f"/memories/{MEMORY}/outputs"
    status, answer = call(
        "process_output", "process_output_http.json", token, path=path, method="POST", body=body, memory_name=MEMORY
    )
    assert status in (200, 201), answer


def delete_namespace(token: str, namespace: str) -> None:
    path = f"/memories/{MEMORY}/namespaces/{namespace}"
    status, answer = call(
        "memories",
        "memories_delete_namespace_http.json",
        token,
        path=path,
        method="DELETE",
        memory_name=MEMORY,
        namespace=namespace,
    )
    assert status == 204, answer


def test_deleting_namespaces_takes_their_bytes_off_the_gauge(stack: Deployment, key: str) -> None:
    text = {"type": "TextArtifact", "id": "a" * 32, "name": "a" * 32, "meta": {}, "value": "words " * 2_000}
    blob = {
        "type": "BlobArtifact",
        "id": "b" * 32,
        "name": "b" * 32,
        "meta": {},
        "value": base64.b64encode(b"\x00" * 5_000).decode(),
    }
    meta = len("[]") + len("t")  # a meta entry's bytes: its actions JSON and thought (kept: meta memory outlives
    store(key, text)  # namespaces)
    assert gauge(key) == meta + 12_000
    store(key, blob)
    assert gauge(key) == 2 * meta + 12_000 + 5_000
    delete_namespace(key, "b" * 32)
    assert gauge(key) == 2 * meta + 12_000
    delete_namespace(key, "b" * 32)  # a retried delete takes nothing off again
    assert gauge(key) == 2 * meta + 12_000
    delete_namespace(key, "a" * 32)
    assert gauge(key) == 2 * meta
    store(key, text)  # stored again: counted again
    assert gauge(key) == 3 * meta + 12_000


def test_delete_tenant_through_the_handler_leaves_nothing_of_the_tenant(
    stack: Deployment, key: str, fence_clock: Callable[[float], None]
) -> None:
    run = {
        "type": "Run",
        "id": "r1",
        "meta": None,
        "input": {"type": "TextArtifact", "id": "i1", "name": "i", "meta": {}, "value": "hi"},
        "output": {"type": "TextArtifact", "id": "o1", "name": "o", "meta": {}, "value": "hello"},
    }
    status, _ = call(
        "add_run", "add_run_http.json", key, path="/threads/t/runs", method="POST", body=run, thread_id="t"
    )
    assert status == 201
    store(key, {"type": "TextArtifact", "id": "c" * 32, "name": "c" * 32, "meta": {}, "value": "some text"})
    blob = base64.b64encode(b"\x01" * 100).decode()
    store(key, {"type": "BlobArtifact", "id": "d" * 32, "name": "d" * 32, "meta": {}, "value": blob})
    assert gauge(key) > 0
    assert all(stack.raw_traces(TENANT).values())
    status, report = erase_until_verified(key, TENANT, fence_clock)
    assert status == 200 and report["verified"], report
    # after the answer: no usage counters written by the erase request itself, no rate window, nothing
    assert stack.raw_traces(TENANT) == {"dynamodb": 0, "s3": 0, "opensearch": 0}


def test_imported_items_carry_no_gauge_bytes(
    stack: Deployment, key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bytes metered by the exporting deployment are not the importing one's: removing imported data must not take
    them off a gauge that never counted them, so the import drops `metered_bytes` (the data stays byte-identical)."""
    run = {
        "type": "Run",
        "id": "r1",
        "meta": None,
        "input": {"type": "TextArtifact", "id": "i1", "name": "i", "meta": {}, "value": "hi"},
        "output": {"type": "TextArtifact", "id": "o1", "name": "o", "meta": {}, "value": "hello"},
    }
    assert (
        call("add_run", "add_run_http.json", key, path="/threads/t/runs", method="POST", body=run, thread_id="t")[0]
        == 201
    )
    store(key, {"type": "TextArtifact", "id": "c" * 32, "name": "c" * 32, "meta": {}, "value": "some text"})

    def metered_items() -> int:
        pages = boto3.client("dynamodb").get_paginator("scan").paginate(TableName=stack.table)
        return sum(1 for page in pages for item in page["Items"] if "metered_bytes" in item)

    assert metered_items() == 3  # the run, the namespace record and its meta entry (each carries its bytes: ADR 0042)
    out = tmp_path / "export"
    assert cli(capsys, "export", TENANT, "--out", str(out))[0] == 0
    assert cli(capsys, "erase", TENANT, "--yes")[0] == 0
    code, counts, _ = cli(capsys, "import", TENANT, str(out))
    assert code == 0, counts
    assert metered_items() == 0 and stack.raw_traces(TENANT)["dynamodb"] > 0  # imported, without them


def test_self_service_exports_and_erases_are_bounded_per_day(
    stack: Deployment, fence_clock: Callable[[float], None]
) -> None:
    """Each reads the whole table (ADR 0024): at most the plan's scans per UTC day, then 429 before any read."""
    from offprompt.composition.account import default_account

    default_account().create_tenant("tiny", Plan("tiny", scans_per_day=2))
    key = str(default_account().create_key("tiny")["key"])
    store(key, {"type": "TextArtifact", "id": "e" * 32, "name": "e" * 32, "meta": {}, "value": "data"})
    assert call("tenant_data", "tenant_export_http.json", key, path="/export", method="POST")[0] == 200
    status, body = call("tenant_data", "tenant_export_http.json", key, path="/export", method="POST")
    assert status == 200, body
    status, body = call("tenant_data", "tenant_export_http.json", key, path="/export", method="POST")
    assert (status, body["code"], body["details"]["quota"]) == (429, "quota_exceeded", "scans_per_day")
    erase = {"confirm": "tiny"}
    status, body = call("tenant_data", "tenant_erase_http.json", key, path="/tenant", method="DELETE", body=erase)
    assert status == 429, body  # the erase counts too
    # the operator raises the limit; the tenant erases itself
    default_account().set_plan("tiny", Plan("tiny", scans_per_day=5))
    cached = authorized(key)
    status, body = erase_until_verified(key, "tiny", fence_clock)
    assert status == 200 and body["verified"], body
    # deployed, API Gateway may still hold the authorizer's answer for the erased key (300 s): no scan for it
    status, body = call(
        "tenant_data", "tenant_erase_http.json", key, path="/tenant", method="DELETE", body=erase, cached=cached
    )
    assert (status, body["code"]) == (401, "unauthenticated"), body
    assert stack.raw_traces("tiny") == {"dynamodb": 0, "s3": 0, "opensearch": 0}
