"""The MCP endpoint through its real handler (functions/mcp_server), on moto and the real local OpenSearch node:
each tool does what the route it mirrors does, with the same error codes; tenants see only their own memory; a
hosted key's tool calls are admitted and metered like its routes; no client input is ever a 500."""

from __future__ import annotations

import base64
import copy
import json
import time
from typing import Any

import pytest
from hosted_support import ROOT, Deployment, call, new_key

pytestmark = pytest.mark.opensearch

SAMPLE = json.loads((ROOT / "events" / "mcp_call_http.json").read_text())


def post(body: Any, tenant: str = "alice", *, raw: str | None = None, headers: dict[str, str] | None = None) -> Any:
    """POST /mcp as API Gateway hands it over with a JWT identity `tenant`: (status, JSON body or None, headers)."""
    from mcp_server.handler import lambda_handler

    event = copy.deepcopy(SAMPLE)
    event["requestContext"]["authorizer"] = {"jwt": {"claims": {"sub": tenant}, "scopes": None}}
    event["body"] = raw if raw is not None else json.dumps(body)
    event["headers"].update(headers or {})
    out = lambda_handler(event, None)
    text = out.get("body")
    return out["statusCode"], json.loads(text) if text else None, dict(out.get("headers") or {})


def rpc(method: str, params: dict[str, Any] | None = None, tenant: str = "alice", request_id: int = 1) -> Any:
    status, body, _ = post({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}}, tenant)
    assert status == 200 and body["id"] == request_id, body
    return body


def tool(name: str, tenant: str = "alice", **arguments: Any) -> dict[str, Any]:
    body = rpc("tools/call", {"name": name, "arguments": arguments}, tenant)
    assert "result" in body, body
    result: dict[str, Any] = body["result"]
    assert set(result) == {"content", "structuredContent", "isError"}, result
    return result


def ok(name: str, tenant: str = "alice", **arguments: Any) -> dict[str, Any]:
    result = tool(name, tenant, **arguments)
    assert result["isError"] is False, result
    return result


def failed(name: str, tenant: str = "alice", **arguments: Any) -> dict[str, Any]:
    result = tool(name, tenant, **arguments)
    assert result["isError"] is True, result
    return dict(result["structuredContent"])


def route(function: str, sample: str, tenant: str = "alice", **changes: Any) -> tuple[int, Any]:
    """A route of another function with the same identity, for comparing answers."""
    import importlib

    event = json.loads((ROOT / "events" / sample).read_text())
    event["requestContext"]["authorizer"] = {"jwt": {"claims": {"sub": tenant}, "scopes": None}}
    for key, value in changes.items():
        event[key] = value
    out = importlib.import_module(f"{function}.handler").lambda_handler(event, None)
    return out["statusCode"], json.loads(out["body"]) if out.get("body") else None


def search_until_found(tenant: str, namespace: str, query: str) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while True:
        result = ok("search_memory", tenant, namespace=namespace, query=query)
        if result["structuredContent"]["hits"] or time.monotonic() > deadline:
            return result
        time.sleep(0.5)


def test_conversation_tools(stack: Deployment) -> None:
    for n in range(3):
        added = ok("append_turn", thread_id="t1", input=f"question {n}", output=f"answer {n} " + "word " * 40)
        assert added["structuredContent"]["seq"] == n + 1
    again = ok("append_turn", thread_id="t1", input="q", output="a", run_id="fixed")
    replay = ok("append_turn", thread_id="t1", input="q", output="a", run_id="fixed")
    assert replay["structuredContent"] == {**again["structuredContent"], "replayed": True}

    recent = ok("get_recent_turns", thread_id="t1", limit=2)["structuredContent"]["turns"]
    assert [t["input"] for t in recent] == ["question 2", "q"]  # the newest two, oldest first

    # get_context is prompt-stack: the same messages and tokens as the route for the same budget
    context = ok("get_context", thread_id="t1", max_tokens=120, input="next?")["structuredContent"]
    status, stack_json = route(
        "prompt_stack",
        "prompt_stack_http.json",
        rawPath="/threads/t1/prompt-stack",
        pathParameters={"thread_id": "t1"},
        body=json.dumps({"max_tokens": 120, "input": "next?"}),
    )
    assert status == 200
    from_route = [(m["role"], "".join(c["artifact"]["value"] for c in m["content"])) for m in stack_json["messages"]]
    assert [(m["role"], m["content"]) for m in context["messages"]] == from_route
    assert 1 < len(from_route) < 9  # the budget dropped the oldest turns
    assert context["messages"][-1] == {"role": "user", "content": "next?"}


def test_get_context_rebuilds_the_prompt_as_it_was_after_a_run(stack: Deployment) -> None:
    """`as_of_run` (time travel, ADR 0037), as the prompt-stack route takes it; an unknown run is the route's 404."""
    for n in range(3):
        ok("append_turn", thread_id="tt", input=f"question {n}", output=f"answer {n}", run_id=f"turn-{n}")
    then = ok("get_context", thread_id="tt", as_of_run="turn-1")["structuredContent"]
    assert [m["content"] for m in then["messages"]] == ["question 0", "answer 0", "question 1", "answer 1"]
    now = ok("get_context", thread_id="tt")["structuredContent"]
    assert [m["content"] for m in now["messages"]][-2:] == ["question 2", "answer 2"]
    missing = failed("get_context", thread_id="tt", as_of_run="no-such-turn")
    status, body = route(
        "prompt_stack",
        "prompt_stack_http.json",
        rawPath="/threads/tt/prompt-stack",
        pathParameters={"thread_id": "tt"},
        body=json.dumps({"as_of_run": "no-such-turn"}),
    )
    assert status == 404 and missing["code"] == body["code"], (missing, body)
    assert "bob" not in json.dumps(failed("get_context", "bob", thread_id="tt", as_of_run="turn-1"))


def test_list_threads_finds_a_thread_by_alias(stack: Deployment) -> None:
    status, created = route(
        "cloud_threads",
        "cloud_threads_create_http.json",
        body=json.dumps({"name": "support", "alias": "support-desk"}),
    )
    assert status == 201, created
    found = ok("list_threads", alias="support-desk")["structuredContent"]["threads"]
    assert [t["thread_id"] for t in found] == [created["thread_id"]]
    assert ok("list_threads", "bob", alias="support-desk")["structuredContent"]["threads"] == []


def test_task_memory_tools(stack: Deployment) -> None:
    text = "The quick brown fox jumps over the lazy dog. " * 20
    stored = ok("store_output", output=text, tool="WebTool", activity="fetch")
    namespace = stored["structuredContent"]["namespace"]
    line = stored["content"][0]["text"]
    assert line == (
        f'Output of "WebTool.fetch" was stored in memory with memory_name "TaskMemory" and artifact_namespace '
        f'"{namespace}"'
    )
    assert stored["structuredContent"]["artifact"]["type"] == "InfoArtifact"

    loaded = ok("load_artifacts", namespace=namespace)
    assert loaded["content"][0]["text"] == text
    status, listed = route(
        "load_artifacts",
        "load_artifacts_http.json",
        rawPath=f"/memories/TaskMemory/namespaces/{namespace}/artifacts",
        pathParameters={"memory_name": "TaskMemory", "namespace": namespace},
    )
    assert status == 200 and loaded["structuredContent"]["artifacts"] == listed["value"]

    hits = search_until_found("alice", namespace, "brown fox")["structuredContent"]["hits"]
    assert hits and "brown fox" in hits[0]["text"]

    keyed = ok("store_output", output="once", tool="T", activity="a", idempotency_key="k-1")
    retry = ok("store_output", output="once", tool="T", activity="a", idempotency_key="k-1")
    assert retry["structuredContent"]["namespace"] == keyed["structuredContent"]["namespace"]
    assert retry["structuredContent"]["replayed"] is True


def test_a_foreign_tenant_sees_nothing(stack: Deployment) -> None:
    ok("append_turn", thread_id="private", input="my secret", output="kept")
    namespace = ok("store_output", output="secret plans for alice", tool="T", activity="a")["structuredContent"][
        "namespace"
    ]
    search_until_found("alice", namespace, "secret plans")
    assert ok("get_recent_turns", "bob", thread_id="private")["structuredContent"]["turns"] == []
    assert ok("get_context", "bob", thread_id="private")["structuredContent"]["messages"] == []
    assert ok("load_artifacts", "bob", namespace=namespace)["structuredContent"]["artifacts"] == []
    assert ok("search_memory", "bob", namespace=namespace, query="secret plans")["structuredContent"]["hits"] == []


@pytest.mark.parametrize(
    ("name", "arguments", "sample", "function", "changes"),
    [
        # a bad identifier: 400 invalid_input on both
        (
            "get_recent_turns",
            {"thread_id": "x" * 300},
            "thread_runs_http.json",
            "threads",
            {"rawPath": "/threads/" + "x" * 300 + "/runs", "pathParameters": {"thread_id": "x" * 300}},
        ),
        # a budget out of range: 422 schema_invalid on both
        (
            "get_context",
            {"thread_id": "t", "max_tokens": 0},
            "prompt_stack_http.json",
            "prompt_stack",
            {"body": json.dumps({"max_tokens": 0})},
        ),
        # an empty search: 422 schema_invalid on both
        (
            "search_memory",
            {"namespace": "n", "query": ""},
            "memories_search_http.json",
            "memories",
            {"body": json.dumps({"query": ""})},
        ),
        # an empty run id: 400 invalid_input on both (issue 30 item 7: the tool stored a run under a new id)
        (
            "append_turn",
            {"thread_id": "t", "input": "q", "output": "a", "run_id": ""},
            "add_run_http.json",
            "add_run",
            {"body": json.dumps({"id": "", "input": {"type": "TextArtifact", "value": "q"}, "output": {}})},
        ),
        # a bidi control in a thread id: 400 invalid_input on both (issue 30 item 7)
        (
            "append_turn",
            {"thread_id": "t\u202eb", "input": "q", "output": "a"},
            "add_run_http.json",
            "add_run",
            {"rawPath": "/threads/t\u202eb/runs", "pathParameters": {"thread_id": "t\u202eb"}},
        ),
        # a namespace that is no identifier: 400 invalid_input on both
        (
            "load_artifacts",
            {"namespace": "a\u0001b"},
            "load_artifacts_http.json",
            "load_artifacts",
            {"pathParameters": {"memory_name": "TaskMemory", "namespace": "a\u0001b"}},
        ),
    ],
)
def test_a_tool_error_has_the_code_and_status_its_route_gives(
    stack: Deployment, name: str, arguments: dict[str, Any], sample: str, function: str, changes: dict[str, Any]
) -> None:
    error = failed(name, **arguments)
    status, body = route(function, sample, **changes)
    assert (error["status"], error["code"]) == (status, body["code"]), (error, body)
    assert ok("get_recent_turns", thread_id="t")["structuredContent"]["turns"] == []  # nothing was stored


def test_a_hosted_key_is_admitted_and_metered_and_its_quota_is_a_tool_error(stack: Deployment) -> None:
    token = new_key("acme", runs_per_day=2)
    envelope = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}

    def append(run_id: str) -> Any:
        params = {"name": "append_turn", "arguments": {"thread_id": "t", "input": "q", "output": "a", "run_id": run_id}}
        return call(
            "mcp_server", "mcp_call_http.json", token, path="/mcp", method="POST", body={**envelope, "params": params}
        )

    for run_id in ("r1", "r2"):
        status, body, _ = append(run_id)
        assert status == 200 and body["result"]["isError"] is False, body
    status, body, _ = append("r3")
    assert status == 200, body
    result = body["result"]
    assert result["isError"] is True and result["structuredContent"]["code"] == "quota_exceeded", result
    assert result["structuredContent"]["status"] == 429 and result["structuredContent"]["retry_after"] >= 1
    status, usage, _ = call("account", "usage_http.json", token, path="/usage", method="GET")
    assert status == 200 and usage["totals"]["runs_added"] == 2, usage
    assert usage["totals"]["requests"] >= 3, usage
    listed = call(
        "mcp_server",
        "mcp_call_http.json",
        token,
        path="/mcp",
        method="POST",
        body={**envelope, "params": {"name": "get_recent_turns", "arguments": {"thread_id": "t"}}},
    )[1]
    assert [t["run_id"] for t in listed["result"]["structuredContent"]["turns"]] == ["r1", "r2"]  # r3 not stored


def test_http_level_answers(stack: Deployment) -> None:
    from mcp_server.handler import lambda_handler

    status, body, _ = post(None, raw="{not json")
    assert status == 400 and body["error"]["code"] == -32700 and body["id"] is None
    status, body, _ = post(None, raw="")
    assert status == 400 and body["error"]["code"] == -32700
    status, body, _ = post(None, raw="x" * 11_000_000)
    assert status == 413 and body["error"]["code"] == -32600
    status, body, _ = post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert (status, body) == (202, None)
    status, body, _ = post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers={"accept": "text/html"})
    assert status == 406 and body["error"]["code"] == -32600
    status, body, _ = post({"jsonrpc": "2.0", "id": "\ud800", "method": "ping"})
    assert status == 400 and body["error"]["code"] == -32700  # a lone surrogate is no text

    event = copy.deepcopy(SAMPLE)
    event["body"], event["isBase64Encoded"] = base64.b64encode(b"\xff\xfe").decode(), True
    out = lambda_handler(event, None)
    assert out["statusCode"] == 400 and json.loads(out["body"])["error"]["code"] == -32700

    event = copy.deepcopy(SAMPLE)
    event["requestContext"]["authorizer"] = {}
    out = lambda_handler(event, None)
    assert out["statusCode"] == 401 and json.loads(out["body"])["code"] == "unauthenticated"

    event = json.loads((ROOT / "events" / "mcp_get_http.json").read_text())
    out = lambda_handler(event, None)
    assert out["statusCode"] == 405 and out["headers"]["Allow"] == "POST"


JSON_VALUES: list[Any] = [None, True, 0, -1, 2**63, 1.5, "", "x", "/", "\u0000", [], [1], {}, {"a": 1}, "x" * 5000]


def test_no_argument_value_is_a_500(stack: Deployment) -> None:
    """Every tool, every argument its schema names, every kind of JSON value: a result or a JSON-RPC error."""
    tools = rpc("tools/list")["result"]["tools"]
    for spec in tools:
        base = {
            "thread_id": "t",
            "input": "i",
            "output": "o",
            "alias": "a",
            "tool": "T",
            "activity": "a",
            "namespace": ["n"] if spec["name"] in ("remember", "forget") else "n",  # record namespaces: labels
            "query": "q",
            "key": "k",
        }
        required = {k: base[k] for k in spec["inputSchema"].get("required", [])}
        if spec["name"] == "remember":
            required["text"] = "t"  # one of value and text
        for field in spec["inputSchema"]["properties"]:
            for value in JSON_VALUES:
                status, body, _ = post(
                    {
                        "jsonrpc": "2.0",
                        "id": 1,
                        "method": "tools/call",
                        "params": {"name": spec["name"], "arguments": {**required, field: value}},
                    }
                )
                assert status == 200 and ("result" in body or "error" in body), (spec["name"], field, value, body)
                if "result" in body and body["result"]["isError"]:
                    assert body["result"]["structuredContent"]["status"] < 500, (spec["name"], field, value, body)
