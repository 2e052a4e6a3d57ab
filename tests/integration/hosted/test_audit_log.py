"""The per-tenant audit log (issue 36, docs/adr/0056): a write over HTTP, MCP and direct invocation each leaves
exactly one entry naming the operation, the actor and the ids, never a value; a refusal is recorded with its code;
reads are not; `GET /audit` pages newest first within since/until, filters by key, reaches only the caller's tenant;
the export carries the log and the erase removes it but for the erase's own entry."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from hosted_support import ROOT, Deployment, all_items, authorized, call, erase_until_verified, new_key, no_fence_wait

from offprompt.adapters.layout import audit_pk

SECRET = "the-secret-value-0xC0FFEE"


def run(run_id: str) -> dict[str, Any]:
    artifact = {"type": "TextArtifact", "name": "x", "meta": {}, "value": SECRET}
    return {"type": "Run", "id": run_id, "meta": None, "input": {**artifact, "id": f"i{run_id}"},
            "output": {**artifact, "id": f"o{run_id}"}}  # fmt: skip


def add_run_http(token: str, thread: str, body: Any) -> int:
    status, _, _ = call(
        "add_run",
        "add_run_http.json",
        token,
        path=f"/threads/{thread}/runs",
        method="POST",
        body=body,
        thread_id=thread,
    )
    return status


def audit_items(table: str, tenant: str) -> list[dict[str, Any]]:
    """The tenant's audit entries as stored (the raw items: what an export or an erase sees)."""
    return [i for i in all_items(table) if i["pk"]["S"] == audit_pk(tenant)]


def iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat().replace("+00:00", "Z")


def audit(token: str, **query: str) -> tuple[int, Any]:
    status, body, _ = call("account", "audit_http.json", token, path="/audit", method="GET", query=query)
    return status, body


def test_an_http_write_leaves_one_entry_with_ids_and_no_values(stack: Deployment) -> None:
    token = new_key("acme")
    key_id = authorized(token)["key_id"]
    assert add_run_http(token, "t-1", run("r1")) == 201
    (item,) = audit_items(stack.table, "acme")
    assert SECRET not in json.dumps(item)
    status, page = audit(token)
    assert status == 200 and page["cursor"] is None
    (entry,) = page["entries"]
    assert entry["operation"] == "POST /threads/{thread_id}/runs" and entry["via"] == "http"
    assert entry["actor"] == {"type": "key", "id": key_id}
    assert entry["resources"] == {"thread_id": "t-1"} and entry["status"] == 201 and entry["code"] is None
    assert int(item["expires_at"]["N"]) > 0  # DynamoDB's TTL removes it after the plan's retention


def test_reads_leave_no_entry(stack: Deployment) -> None:
    token = new_key("acme")
    assert add_run_http(token, "t-1", run("r1")) == 201
    status, _, _ = call("account", "usage_http.json", token, path="/usage", method="GET")
    assert status == 200
    assert audit(token)[0] == 200  # reading the log is a read too
    assert len(audit_items(stack.table, "acme")) == 1


def test_a_refused_write_is_recorded_with_its_status_and_code(stack: Deployment) -> None:
    token = new_key("acme")
    assert add_run_http(token, "t-1", {"type": "Run", "id": 5}) == 422
    (entry,) = audit(token)[1]["entries"]
    assert (entry["status"], entry["code"], entry["resources"]) == (422, "schema_invalid", {"thread_id": "t-1"})


def test_a_direct_invocation_leaves_one_entry(stack: Deployment) -> None:
    from add_run.handler import lambda_handler as add

    token = new_key("acme")
    add({"tenant": "acme", "action": "add", "thread_id": "t-2", "run": run("r2")}, None)
    (item,) = audit_items(stack.table, "acme")
    assert SECRET not in json.dumps(item)
    (entry,) = audit(token)[1]["entries"]
    assert (entry["via"], entry["operation"], entry["actor"]) == ("direct", "add", {"type": "direct", "id": ""})
    assert entry["resources"] == {"thread_id": "t-2"} and entry["status"] == 200


def test_an_mcp_tool_that_writes_leaves_one_entry_and_a_read_tool_none(stack: Deployment) -> None:
    token = new_key("acme")
    key_id = authorized(token)["key_id"]
    template = json.loads((ROOT / "events" / "mcp_call_http.json").read_text())

    def tool(name: str, arguments: dict[str, Any]) -> int:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        status, _, _ = call("mcp_server", "mcp_call_http.json", token, path="/mcp", method="POST", body=body)
        return status

    assert copy.deepcopy(template)["routeKey"] == "POST /mcp"
    assert tool("append_turn", {"thread_id": "t-3", "input": SECRET, "output": SECRET, "run_id": "m1"}) == 200
    assert tool("get_recent_turns", {"thread_id": "t-3"}) == 200
    (item,) = audit_items(stack.table, "acme")
    assert SECRET not in json.dumps(item)
    (entry,) = audit(token)[1]["entries"]
    assert (entry["via"], entry["operation"], entry["actor"]) == ("mcp", "append_turn", {"type": "key", "id": key_id})
    assert entry["resources"] == {"thread_id": "t-3"} and entry["status"] == 200


def test_another_tenants_log_is_unreachable(stack: Deployment) -> None:
    alice, bob = new_key("alice"), new_key("bob")
    assert add_run_http(alice, "t-a", run("r1")) == 201
    assert audit(bob)[1]["entries"] == []
    # bob's key_id filter or a cursor cannot name alice's partition: the tenant is the authorizer's
    alice_key = authorized(alice)["key_id"]
    assert audit(bob, key_id=alice_key)[1]["entries"] == []


def test_pages_newest_first_with_a_cursor_and_since_until_bounds(
    stack: Deployment, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = new_key("acme")
    import offprompt.services.audit as audit_module

    times = [1_790_000_000 + i * 60 for i in range(7)]  # one a minute, in the past
    for i, at in enumerate(times):
        monkeypatch.setattr(audit_module, "audit_now", lambda at=at: float(at))
        add_run_http(token, f"t-{i}", run(f"r{i}"))
    monkeypatch.undo()
    seen: list[str] = []
    cursor = None
    for _ in range(5):
        status, page = audit(token, limit="3", **({"cursor": cursor} if cursor else {}))
        assert status == 200 and len(page["entries"]) <= 3
        seen += [e["resources"]["thread_id"] for e in page["entries"]]
        cursor = page["cursor"]
        if cursor is None:
            break
    assert seen == [f"t-{i}" for i in reversed(range(7))]
    _, bounded = audit(token, since=iso(times[1]), until=iso(times[4]))  # since <= at < until
    assert [e["resources"]["thread_id"] for e in bounded["entries"]] == ["t-3", "t-2", "t-1"]
    status, body = audit(token, since=iso(times[4]), until=iso(times[1]))
    assert (status, body["code"]) == (400, "invalid_input")
    status, body = audit(token, cursor="not-a-cursor")
    assert status == 400


def test_key_id_filters_the_entries_of_one_key(stack: Deployment) -> None:
    from offprompt.composition.account import default_account

    first = new_key("acme")
    second = str(default_account().create_key("acme")["key"])
    add_run_http(first, "t-1", run("r1"))
    add_run_http(second, "t-2", run("r2"))
    add_run_http(first, "t-3", run("r3"))
    first_id = authorized(first)["key_id"]
    _, page = audit(second, key_id=first_id)
    assert [e["resources"]["thread_id"] for e in page["entries"]] == ["t-3", "t-1"]


def test_the_export_carries_the_log_and_the_erase_removes_it_but_its_own_entry(
    stack: Deployment, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = new_key("acme")
    add_run_http(token, "t-1", run("r1"))
    status, body, _ = call("tenant_data", "tenant_export_http.json", token, path="/export", method="POST")
    assert status == 200 and body["counts"]["dynamodb.audit_entry"] == 1  # the write's entry (not yet the export's)
    assert len(audit_items(stack.table, "acme")) == 2  # + the export's own
    status, report = erase_until_verified(token, "acme", no_fence_wait(monkeypatch))
    assert status == 200, report
    (item,) = audit_items(stack.table, "acme")
    entry = json.loads(item["entry"]["S"])
    assert (entry["operation"], entry["status"]) == ("DELETE /tenant", 200)
    assert {i["pk"]["S"] for i in all_items(stack.table) if "acme" in i["pk"]["S"]} == {audit_pk("acme")}
    assert boto3.client("dynamodb") is not None
