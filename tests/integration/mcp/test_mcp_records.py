"""The MCP record tools (remember, recall, forget) through the real MCP handler, on moto and the real local OpenSearch
node: each answers what its records route answers for the same input (the same record, the same error code and
status), a foreign tenant sees nothing, and a hosted key's puts are charged against its plan (docs/adr/0034, 0032)."""

from __future__ import annotations

import copy
import json
import re
import time
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from hosted_support import ROOT, Deployment, call, new_key
from test_mcp_handler import failed, ok

pytestmark = pytest.mark.opensearch


def record_route(
    sample: str,
    path: str,
    params: dict[str, str] | None = None,
    *,
    body: Any = None,
    query: dict[str, str] | None = None,
    tenant: str = "alice",
) -> tuple[int, Any]:
    """A records route with the same identity as the tool calls: (status, JSON body or None)."""
    from records.handler import lambda_handler

    event = copy.deepcopy(json.loads((ROOT / "events" / sample).read_text()))
    event["rawPath"] = path
    event["requestContext"]["http"]["path"] = path
    event["requestContext"]["authorizer"] = {"jwt": {"claims": {"sub": tenant}, "scopes": None}}
    event["pathParameters"] = params or {}
    event.pop("body", None)
    if body is not None:
        event["body"] = json.dumps(body)
    event.pop("queryStringParameters", None)
    event["rawQueryString"] = urlencode(query or {})
    if query:
        event["queryStringParameters"] = query
    out = lambda_handler(event, None)
    text = out.get("body")
    return out["statusCode"], json.loads(text) if text else None


def get_route(namespace: list[str], key: str, tenant: str = "alice", **query: str) -> tuple[int, Any]:
    ns = ".".join(namespace)
    path = f"/records/{quote(ns, safe='')}/{quote(key, safe='')}"
    return record_route("record_get_http.json", path, {"namespace": ns, "key": key}, query=query, tenant=tenant)


def search_route(body: dict[str, Any], tenant: str = "alice") -> tuple[int, Any]:
    return record_route("record_search_http.json", "/records/search", body=body, tenant=tenant)


def recall_until(tenant: str, found: Any, **arguments: Any) -> dict[str, Any]:
    """recall until `found(records)` (a version is searchable by text within the index's refresh interval)."""
    deadline = time.monotonic() + 20
    while True:
        result = ok("recall", tenant, **arguments)
        if found(result["structuredContent"]["records"]) or time.monotonic() > deadline:
            return result
        time.sleep(0.5)


NS = ["users", "u1", "facts"]


def test_remember_recall_forget_answer_what_the_routes_answer(stack: Deployment) -> None:
    first = ok("remember", namespace=NS, key="food", text="likes sushi")
    record = first["structuredContent"]
    assert (record["namespace"], record["key"], record["value"], record["version"]) == (
        NS,
        "food",
        {"text": "likes sushi"},
        1,
    )
    assert first["content"][0]["text"] == "Remembered users.u1.facts/food (version 1)."
    assert get_route(NS, "food") == (200, record)  # the stored record is the one the tool answered

    time.sleep(0.01)  # the replacement starts a later millisecond than the first version
    second = ok("remember", namespace=NS, key="food", value={"text": "likes ramen now", "since": 2026})
    current = second["structuredContent"]
    assert current["version"] == 2 and current["created_at"] == record["created_at"]
    assert get_route(NS, "food") == (200, current)

    generated = ok("remember", namespace=NS, value={"text": "lives in Lisbon", "since": 2019}, ttl_minutes=60)
    other = generated["structuredContent"]
    assert re.fullmatch(r"[0-9a-f]{32}", other["key"]) and other["expires_at"] is not None

    # without a query: DynamoDB only, newest first; the same items as the route for the same body
    recalled = ok("recall", namespace_prefix=["users", "u1"], filter={"since": {"$gte": 2020}})
    assert [r["key"] for r in recalled["structuredContent"]["records"]] == ["food"]
    assert recalled["content"][0]["text"] == 'users.u1.facts/food: {"text": "likes ramen now", "since": 2026}'
    status, listed = search_route({"namespace_prefix": ["users", "u1"], "filter": {"since": {"$gte": 2020}}})
    assert status == 200 and recalled["structuredContent"]["records"] == listed["items"]

    # as_of the first version's time: what was true then
    then = ok("recall", namespace_prefix=NS, as_of=record["updated_at"], filter={"text": "likes sushi"})
    assert [r["value"] for r in then["structuredContent"]["records"]] == [{"text": "likes sushi"}]
    assert ok("recall", namespace_prefix=NS, filter={"text": "likes sushi"})["structuredContent"]["records"] == []

    # by text (OpenSearch proposes, DynamoDB decides): the current version only, as the route finds it
    found = recall_until("alice", lambda rs: any(r["key"] == "food" for r in rs), namespace_prefix=NS, query="ramen")
    items = found["structuredContent"]["records"]
    assert [(r["key"], r["version"]) for r in items] == [("food", 2)] and items[0]["score"] > 0
    status, searched = search_route({"namespace_prefix": NS, "query": "ramen"})
    assert status == 200 and searched["items"] == items
    sushi = ok("recall", namespace_prefix=NS, query="sushi")["structuredContent"]["records"]
    assert sushi == []  # the replaced version is never a current answer

    assert ok("recall", namespace_prefix=["nobody"])["content"][0]["text"] == "no records"

    forgot = ok("forget", namespace=NS, key="food")
    assert forgot["structuredContent"] == {"namespace": NS, "key": "food", "deleted": True}
    assert forgot["content"][0]["text"] == "Forgot users.u1.facts/food."
    status, body = get_route(NS, "food")
    assert (status, body["code"]) == (404, "record_not_found")
    again = ok("forget", namespace=NS, key="food")  # idempotent, as DELETE's 204
    assert again["structuredContent"]["deleted"] is False
    status, history = record_route(
        "record_history_http.json",
        "/records/users.u1.facts/food/history",
        {"namespace": "users.u1.facts", "key": "food"},
    )
    assert status == 200 and [(v["version"], v["deleted"]) for v in history["versions"]] == [
        (3, True),
        (2, False),
        (1, False),
    ]


def test_a_foreign_tenant_recalls_and_forgets_nothing(stack: Deployment) -> None:
    ok("remember", namespace=NS, key="secret", text="alice's secret plans")
    recall_until("alice", bool, namespace_prefix=NS, query="secret plans")
    assert ok("recall", "bob", namespace_prefix=NS, query="secret plans")["structuredContent"]["records"] == []
    assert ok("recall", "bob")["structuredContent"]["records"] == []
    assert ok("forget", "bob", namespace=NS, key="secret")["structuredContent"]["deleted"] is False
    assert get_route(NS, "secret", tenant="bob")[0] == 404
    assert get_route(NS, "secret")[0] == 200  # bob's forget left alice's record alone


BAD_KEY = "x" * 300


@pytest.mark.parametrize(
    ("name", "arguments", "sample", "path", "params", "body"),
    [
        # a key that is no identifier: 400 invalid_input on both
        (
            "remember",
            {"namespace": NS, "key": BAD_KEY, "text": "t"},
            "record_put_http.json",
            f"/records/users.u1.facts/{BAD_KEY}",
            {"namespace": "users.u1.facts", "key": BAD_KEY},
            {"value": {"text": "t"}},
        ),
        # a label that is no identifier: 400 invalid_input on both
        (
            "remember",
            {"namespace": ["a\u0001b"], "key": "k", "text": "t"},
            "record_put_http.json",
            "/records/a%01b/k",
            {"namespace": "a\u0001b", "key": "k"},
            {"value": {"text": "t"}},
        ),
        # a TTL out of range: 400 invalid_input on both
        (
            "remember",
            {"namespace": NS, "key": "k", "text": "t", "ttl_minutes": -5},
            "record_put_http.json",
            "/records/users.u1.facts/k",
            {"namespace": "users.u1.facts", "key": "k"},
            {"value": {"text": "t"}, "ttl_minutes": -5},
        ),
        # no value: 422 schema_invalid on both
        (
            "remember",
            {"namespace": NS, "key": "k"},
            "record_put_http.json",
            "/records/users.u1.facts/k",
            {"namespace": "users.u1.facts", "key": "k"},
            {},
        ),
        # a limit out of range: 422 schema_invalid on both
        ("recall", {"limit": 0}, "record_search_http.json", "/records/search", None, {"limit": 0}),
        # an unknown filter operator: 400 invalid_input on both
        (
            "recall",
            {"filter": {"since": {"$regex": "x"}}},
            "record_search_http.json",
            "/records/search",
            None,
            {"filter": {"since": {"$regex": "x"}}},
        ),
        # an unknown operator below the top level: 400 invalid_input on both (issue 30 item 7)
        (
            "recall",
            {"filter": {"o": {"p": {"$regex": 5}}}},
            "record_search_http.json",
            "/records/search",
            None,
            {"filter": {"o": {"p": {"$regex": 5}}}},
        ),
        # a time that is no time: 400 invalid_input on both
        ("recall", {"as_of": "yesterday"}, "record_search_http.json", "/records/search", None, {"as_of": "yesterday"}),
        # a bidi control in a key: 400 invalid_input on both (issue 30 item 7)
        (
            "remember",
            {"namespace": NS, "key": "k\u202eb", "text": "t"},
            "record_put_http.json",
            "/records/users.u1.facts/k\u202eb",
            {"namespace": "users.u1.facts", "key": "k\u202eb"},
            {"value": {"text": "t"}},
        ),
        # a bad key to forget: 400 invalid_input on both
        (
            "forget",
            {"namespace": NS, "key": BAD_KEY},
            "record_delete_http.json",
            f"/records/users.u1.facts/{BAD_KEY}",
            {"namespace": "users.u1.facts", "key": BAD_KEY},
            None,
        ),
    ],
)
def test_a_record_tool_error_has_the_code_and_status_its_route_gives(
    stack: Deployment,
    name: str,
    arguments: dict[str, Any],
    sample: str,
    path: str,
    params: dict[str, str] | None,
    body: Any,
) -> None:
    error = failed(name, **arguments)
    status, answer = record_route(sample, path, params, body=body)
    assert (error["status"], error["code"]) == (status, answer["code"]), (error, answer)
    assert status < 500
    assert ok("recall")["structuredContent"]["records"] == []  # nothing was stored


def test_remember_takes_exactly_one_of_value_and_text(stack: Deployment) -> None:
    both = failed("remember", namespace=NS, key="k", value={"a": 1}, text="t")
    assert (both["status"], both["code"]) == (422, "schema_invalid")
    not_an_object = failed("remember", namespace=NS, key="k", value=[1])
    assert (not_an_object["status"], not_an_object["code"]) == (422, "schema_invalid")


def test_a_hosted_keys_puts_are_charged_and_its_quota_is_a_tool_error(stack: Deployment) -> None:
    token = new_key("acme", stored_bytes=200)
    envelope = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}

    def tool(name: str, **arguments: Any) -> dict[str, Any]:
        status, body, _ = call(
            "mcp_server",
            "mcp_call_http.json",
            token,
            path="/mcp",
            method="POST",
            body={**envelope, "params": {"name": name, "arguments": arguments}},
        )
        assert status == 200, body
        return dict(body["result"])

    kept = tool("remember", namespace=["notes"], key="a", text="x" * 100)
    assert kept["isError"] is False, kept
    refused = tool("remember", namespace=["notes"], key="b", text="y" * 100)  # 2 x 111 bytes > 200
    assert refused["isError"] is True, refused
    error = refused["structuredContent"]
    assert (error["code"], error["status"]) == ("quota_exceeded", 429) and error["details"]["quota"] == "stored_bytes"
    recalled = tool("recall", namespace_prefix=["notes"])
    assert [r["key"] for r in recalled["structuredContent"]["records"]] == ["a"]  # b was not stored
    status, usage, _ = call("account", "usage_http.json", token, path="/usage", method="GET")
    assert status == 200, usage
    assert usage["stored_bytes"] == len(json.dumps({"text": "x" * 100}, separators=(",", ":"))), usage
