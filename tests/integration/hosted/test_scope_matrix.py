"""Every declared route and every MCP tool, each with a key scoped elsewhere reaches nothing (issue 36; docs/keys.md).

The matrix is generated from the route declarations (`FunctionRoutes` in functions/*/handler.py, as the dev server's
route table reads them) and the MCP tool table: a route or tool added without its scope rule fails
`test_every_route_and_tool_declares_its_scope_rule`, and one whose rule lets a key scoped elsewhere through fails the
matrix. Each request names the victim's resources (`u-42`'s thread, records, memory, checkpoint thread); the answer
must be 403 `scope_denied` (a single resource, the tenant's own business) or a listing holding none of them, and
the victim's stored data must be byte-identical afterwards.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

import pytest
from hosted_support import Deployment
from scope_support import (
    ELSEWHERE,
    MEMORY,
    NAMESPACE,
    TENANT,
    THREAD,
    U42,
    data_items,
    request,
    sample_events,
    scoped_key,
    seed,
    victim_body,
    victim_params,
)


def _routes() -> list[Any]:
    from offprompt_local.routes import ROUTES

    return list(ROUTES)


def _rule(route: Any) -> Any:
    return importlib.import_module(route.module).routes.scope_rule(route.route_key)


def test_every_route_and_tool_declares_its_scope_rule() -> None:
    missing = [r.route_key for r in _routes() if _rule(r) is None]
    assert missing == [], f"routes without a scope rule (api_common/scope_rules.py): {missing}"
    from mcp_server.handler import TOOL_SCOPES, tools

    assert sorted(TOOL_SCOPES) == sorted(t.name for t in tools())


def test_a_route_without_a_rule_refuses_every_scoped_key(stack: Deployment, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail closed: a route declared without `scope=` answers a scoped key 403 (and the test above fails for it)."""
    import dataclasses

    from threads.handler import routes

    monkeypatch.setattr(routes, "specs", [dataclasses.replace(spec, scope=None) for spec in routes.specs])
    status, body = request("GET /threads/{thread_id}", scoped_key(U42), params={"thread_id": THREAD})
    assert (status, body["code"]) == (403, "scope_denied"), body


def _matrix() -> list[Any]:
    return [pytest.param(r.route_key, id=r.route_key) for r in _routes() if r.route_key != "POST /mcp"]


@pytest.mark.parametrize("route_key", _matrix())
def test_a_key_scoped_elsewhere_reaches_nothing(stack: Deployment, route_key: str) -> None:
    seed(stack)
    before = data_items(stack.table)
    from offprompt_local.routes import ROUTES

    route = next(r for r in ROUTES if r.route_key == route_key)
    rule = _rule(route)
    sample = sample_events()[route_key]
    params = victim_params(route.function, route.path, sample.get("pathParameters") or {})
    body = victim_body(json.loads(sample["body"])) if sample.get("body") else None
    query = dict(sample.get("queryStringParameters") or {})
    if "prefix" in query:
        query["prefix"] = "u-42-"
    status, answer = request(route_key, scoped_key(ELSEWHERE), params=params, body=body, query=query or None)
    if rule.kind in ("admin", "resource", "token"):
        assert (status, answer["code"]) == (403, "scope_denied"), (status, answer)
    elif rule.kind == "listing":
        assert status < 300, answer
        assert "u-42" not in json.dumps(answer), answer
    else:
        assert rule.kind == "public", rule
        assert "u-42" not in json.dumps(answer) and status < 500, answer
    assert data_items(stack.table) == before


def _mcp(token: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    status, answer = request("POST /mcp", token, body=message)
    assert status == 200, answer
    return dict(answer["result"])


#: Each tool's arguments naming the victim's resources.
TOOL_ARGUMENTS: dict[str, dict[str, Any]] = {
    "append_turn": {"thread_id": THREAD, "input": "q", "output": "a"},
    "get_context": {"thread_id": THREAD},
    "get_recent_turns": {"thread_id": THREAD},
    "list_threads": {"alias": "alias-u42"},
    "search_conversations": {"query": "victim", "thread_prefix": "u-42-"},
    "store_output": {"memory_name": MEMORY, "output": "x", "tool": "T", "activity": "a"},
    "load_artifacts": {"memory_name": MEMORY, "namespace": "ns1"},
    "search_memory": {"memory_name": MEMORY, "namespace": "ns1", "query": "victim"},
    "remember": {"namespace": NAMESPACE, "key": "k", "text": "v"},
    "recall": {"namespace_prefix": NAMESPACE},
    "forget": {"namespace": NAMESPACE, "key": "k"},
}


def test_every_tool_has_arguments_here() -> None:
    from mcp_server.handler import tools

    assert sorted(TOOL_ARGUMENTS) == sorted(t.name for t in tools())


@pytest.mark.parametrize("tool", sorted(TOOL_ARGUMENTS))
def test_an_mcp_tool_with_a_key_scoped_elsewhere_reaches_nothing(stack: Deployment, tool: str) -> None:
    from mcp_server.handler import TOOL_SCOPES

    seed(stack)
    before = data_items(stack.table)
    result = _mcp(scoped_key(ELSEWHERE), tool, TOOL_ARGUMENTS[tool])
    if TOOL_SCOPES[tool].kind == "listing":
        assert result["isError"] is False, result
        assert "u-42" not in json.dumps(result), result
    else:
        assert result["isError"] is True and result["structuredContent"]["code"] == "scope_denied", result
    assert data_items(stack.table) == before


@pytest.mark.parametrize("tool", ["recall", "get_recent_turns", "forget"])
def test_an_mcp_tool_with_the_victims_own_key_reaches_its_data(stack: Deployment, tool: str) -> None:
    """The matrix is not vacuous: the same calls with a key scoped to `u-42` do reach its data."""
    seed(stack)
    result = _mcp(scoped_key(U42), tool, TOOL_ARGUMENTS[tool])
    assert result["isError"] is False, result
    assert "u-42" in json.dumps(result) or result["structuredContent"].get("deleted") is True, result


@pytest.mark.parametrize(
    ("route_key", "params", "body", "query", "items"),
    [
        ("GET /threads", {}, None, {"prefix": "u-"}, "threads"),
        ("POST /records/search", {}, {"namespace_prefix": ["users"]}, None, "items"),
        ("POST /records/namespaces", {}, {}, None, "namespaces"),
    ],
)
def test_a_listing_keeps_what_the_scope_names(
    stack: Deployment, route_key: str, params: dict[str, str], body: Any, query: Any, items: str
) -> None:
    """A listing is filtered, never refused: the victim's own key sees its data, an unscoped key sees everyone's,
    a key scoped elsewhere sees none of it (the request's wider prefix narrowed to the scope's)."""
    seed(stack)
    from records.handler import lambda_handler as records

    other = {"tenant": TENANT, "action": "put_record", "namespace": ["users", "u-43"], "key": "k", "value": {"v": 2}}
    records(other, None)
    stack.add_run(TENANT, "u-43-t", "r2", "someone else")
    seen = {}
    for who, scope in (("u42", U42), ("all", None), ("u43", ELSEWHERE)):
        status, answer = request(route_key, scoped_key(scope), params=params, body=body, query=query)
        assert status == 200, answer
        seen[who] = json.dumps(answer[items])
    assert "u-42" in seen["u42"] and "u-43" not in seen["u42"], seen
    assert "u-42" in seen["all"] and "u-43" in seen["all"], seen
    assert "u-42" not in seen["u43"] and "u-43" in seen["u43"], seen


def test_the_victims_own_key_reaches_its_resources(stack: Deployment) -> None:
    seed(stack)
    token = scoped_key(U42)
    assert request("GET /threads/{thread_id}", token, params={"thread_id": THREAD})[0] == 200
    path = {"namespace": ".".join(NAMESPACE), "key": "k"}
    assert request("GET /records/{namespace}/{key}", token, params=path, query={})[0] == 200
    status, answer = request("GET /memories/{memory_name}/meta", token, params={"memory_name": MEMORY})
    assert status == 200, answer
    assert TENANT  # the tenant is the key's, never the request's
