"""`POST /export` and `DELETE /tenant` through the tenant function's HTTP handler (events/tenant_*_http.json), on the
local substrate's moto server and the real OpenSearch node: the caller's tenant comes from its credential."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import requests
from test_export_erase_import import ALICE, BOB, Deployment, _reset_caches, _workload

ROOT = Path(__file__).resolve().parents[3]


def http(name: str, tenant: str, body: Any = None) -> dict[str, Any]:
    from tenant_data.handler import lambda_handler

    event = copy.deepcopy(json.loads((ROOT / "events" / name).read_text()))
    event["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = tenant
    if body is None:
        event.pop("body", None)
    else:
        event["body"] = body if isinstance(body, str) else json.dumps(body)
    out: dict[str, Any] = lambda_handler(event, None)
    return {"status": out["statusCode"], "body": json.loads(out["body"]) if out.get("body") else None}


@pytest.fixture
def stack(moto_server: str, opensearch_url: str, opensearch_client: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    d = Deployment(monkeypatch, moto_server, opensearch_url, opensearch_client, "routes")
    yield d
    opensearch_client.indices.delete(index=d.index, ignore_unavailable=True)
    _reset_caches()  # the process's services hold clients bound to this test's endpoint: later tests need their own


def test_export_hands_out_presigned_files_that_match_the_manifest(stack: Deployment) -> None:
    _workload(stack, ALICE)
    _workload(stack, BOB)
    out = http("tenant_export_http.json", ALICE)
    assert out["status"] == 200, out
    body = out["body"]
    assert body["tenant"] == ALICE and body["expires_in"] > 0
    manifest = requests.get(body["manifest_url"], timeout=30).json()
    assert manifest["tenant"] == ALICE and manifest["counts"] == body["counts"]
    for entry in manifest["files"]:
        data = requests.get(entry["url"], timeout=30).content
        assert hashlib.sha256(data).hexdigest() == entry["sha256"] and len(data) == entry["size"]
    items = [json.loads(line) for line in requests.get(manifest["files"][0]["url"], timeout=30).text.splitlines()]
    assert items and all("alice%231" in i["item"]["pk"]["S"] for i in items)  # only the caller's own data


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (None, 400, "invalid_input"),  # no body
        ({}, 400, "invalid_input"),  # no confirmation
        ({"confirm": BOB}, 400, "invalid_input"),  # another tenant's id
        ({"confirm": "alice"}, 400, "invalid_input"),
        ({"confirm": 5}, 422, "schema_invalid"),
        ({"confirm": ALICE, "all": True}, 422, "schema_invalid"),
    ],
)
def test_erase_needs_the_callers_own_tenant_id(stack: Deployment, body: Any, status: int, code: str) -> None:
    _workload(stack, ALICE)
    before = stack.raw_traces(ALICE)
    out = http("tenant_erase_http.json", ALICE, body)
    assert (out["status"], out["body"]["code"]) == (status, code), out
    assert stack.raw_traces(ALICE) == before  # nothing deleted


def test_erase_deletes_only_the_callers_data_and_verifies(stack: Deployment) -> None:
    _workload(stack, ALICE)
    _workload(stack, BOB)
    bob = stack.raw_traces(BOB)
    out = http("tenant_erase_http.json", ALICE, {"confirm": ALICE})
    assert out["status"] == 200, out
    assert out["body"]["verified"] is True and out["body"]["remaining"] == {"dynamodb": 0, "s3": 0, "opensearch": 0}
    assert stack.raw_traces(ALICE) == {"dynamodb": 0, "s3": 0, "opensearch": 0}
    assert stack.raw_traces(BOB) == bob
    again = http("tenant_erase_http.json", ALICE, {"confirm": ALICE})
    # nothing of the data left to delete: only the first erase's audit entry, which this erase's replaces (ADR 0056)
    assert again["status"] == 200 and again["body"]["deleted"] == {"dynamodb": 1, "opensearch": 0, "s3": 0}


def test_direct_invocation_erase_uses_the_same_model(stack: Deployment) -> None:
    from tenant_data.handler import lambda_handler

    from offprompt.errors import InvalidInput, SchemaInvalid

    with pytest.raises(InvalidInput):
        lambda_handler({"tenant": ALICE, "action": "erase"}, None)
    with pytest.raises(SchemaInvalid):
        lambda_handler({"tenant": ALICE, "action": "erase", "confirm": ALICE, "extra": 1}, None)
    _workload(stack, ALICE)
    assert lambda_handler({"tenant": ALICE, "action": "erase", "confirm": ALICE}, None)["verified"] is True
