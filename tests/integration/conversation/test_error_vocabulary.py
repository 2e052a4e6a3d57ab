"""One error vocabulary (issue 11, finding 11): the same bad input gets the same (status, code) on every route
that takes it, over HTTP and invoked directly (a direct invocation's error class maps through the same table).

Before: a non-object body was 400 invalid_input on add-run and search but 422 schema_invalid on prompt-stack and
PUT thread; a bad `limit` was 400 on one list route and 422 nowhere; direct invocations raised InvalidInput on
the conversation functions and SchemaInvalid on the task-memory ones for the same mistake.
"""

from __future__ import annotations

import base64
import importlib
import json
from typing import Any
from urllib.parse import quote, urlencode

import pytest

from api_common.errors import status_for
from offprompt.errors import OffpromptError

TENANT = "tenant-a"


def handler(function: str) -> Any:
    return importlib.import_module(f"{function}.handler").lambda_handler


def http_event(method: str, template: str, params: dict[str, str], body: bytes | None, query: dict[str, str]) -> dict:
    path = template
    for name, value in params.items():
        path = path.replace("{" + name + "}", quote(value, safe=""))
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": f"{method} {template}",
        "rawPath": path,
        "rawQueryString": urlencode(query),
        "headers": {"content-type": "application/json"},
        "requestContext": {
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1"},
            "authorizer": {"jwt": {"claims": {"sub": TENANT}}},
            "requestId": "r",
            "stage": "$default",
        },
        "pathParameters": params,
        "isBase64Encoded": False,
    }
    if query:
        event["queryStringParameters"] = query
    if body is not None:
        event["body"] = base64.b64encode(body).decode("ascii")
        event["isBase64Encoded"] = True
    return event


def over_http(route: dict[str, Any], body: bytes | None = None, query: dict[str, str] | None = None) -> tuple[int, str]:
    event = http_event(route["method"], route["path"], route["params"], body, query or {})
    out = handler(route["function"])(event, None)
    return out["statusCode"], json.loads(out["body"])["code"]


def directly(route: dict[str, Any], fields: dict[str, Any]) -> tuple[int, str]:
    event = {"tenant": TENANT, **route.get("direct", {}), **route["params"], **fields}
    try:
        handler(route["function"])(event, None)
    except OffpromptError as exc:
        return int(status_for(exc)), exc.code
    return 200, "ok"


RUN = {"input": {"type": "TextArtifact", "value": "q"}, "output": {"type": "TextArtifact", "value": "a"}}
T = {"thread_id": "t"}
M = {"memory_name": "TaskMemory"}
MN = {"memory_name": "TaskMemory", "namespace": "ns"}

# Every route that takes a JSON body, with a body that is valid for it.
BODY_ROUTES = {
    "add_run": {"function": "add_run", "method": "POST", "path": "/threads/{thread_id}/runs", "params": T,
                "good": RUN, "direct": {}, "wrap": "run"},
    "prompt_stack": {"function": "prompt_stack", "method": "POST", "path": "/threads/{thread_id}/prompt-stack",
                     "params": T, "good": {"input": "hi"}},
    "put_thread": {"function": "threads", "method": "PUT", "path": "/threads/{thread_id}", "params": T,
                   "good": {"max_runs": 3}, "direct": {"action": "configure"}},
    "outputs": {"function": "process_output", "method": "POST", "path": "/memories/{memory_name}/outputs",
                "params": M, "good": {"tool": "T", "activity": "a", "artifact": {"type": "TextArtifact", "value": "x"}},
                "direct": {"action": "process_output"}},
    "thread_search": {"function": "threads", "method": "POST", "path": "/threads/search", "params": {},
                      "good": {"query": "x"}, "direct": {"action": "search_threads"}},
    "search": {"function": "memories", "method": "POST",
               "path": "/memories/{memory_name}/namespaces/{namespace}/search", "params": MN,
               "good": {"query": "x"}, "direct": {"action": "search"}},
}  # fmt: skip

# Bodies that are not UTF-8 JSON: 400 invalid_input on every body route.
NOT_JSON = [b"\xff\xfe{}", "{}".encode("utf-16"), b"{nope", b"", b"   ", b"[" * 100_000]
# JSON that does not fit any route's schema: 422 schema_invalid everywhere (and SchemaInvalid directly).
NOT_FITTING: list[Any] = [[], "a string", 5, None, {"unexpected_field": 1}]


@pytest.mark.parametrize("route", sorted(BODY_ROUTES))
@pytest.mark.parametrize("raw", NOT_JSON, ids=lambda b: repr(b[:8]))
def test_a_body_that_is_not_utf8_json_is_400_invalid_input_on_every_route(aws: Any, route: str, raw: bytes) -> None:
    assert over_http(BODY_ROUTES[route], raw) == (400, "invalid_input")


@pytest.mark.parametrize("route", sorted(BODY_ROUTES))
@pytest.mark.parametrize("body", NOT_FITTING, ids=repr)
def test_json_that_does_not_fit_is_422_schema_invalid_on_every_route(aws: Any, route: str, body: Any) -> None:
    assert over_http(BODY_ROUTES[route], json.dumps(body).encode()) == (422, "schema_invalid")


@pytest.mark.parametrize("route", sorted(BODY_ROUTES))
@pytest.mark.parametrize("mutation", ["extra_field", "field_of_wrong_type"])
def test_the_same_bad_fields_are_the_same_answer_over_http_and_directly(aws: Any, route: str, mutation: str) -> None:
    spec = BODY_ROUTES[route]
    body = dict(spec["good"])
    if mutation == "extra_field":
        body["unexpected_field"] = 1
    else:
        key = next(iter(body))
        body[key] = 12345 if not isinstance(body[key], int) else "12345"
    fields = {spec["wrap"]: body} if "wrap" in spec else body
    http = over_http(spec, json.dumps(body).encode())
    assert http == (422, "schema_invalid")
    assert directly(spec, fields) == http


@pytest.mark.parametrize("route", ["add_run", "prompt_stack", "put_thread"])
def test_a_domain_rule_is_the_same_400_over_http_and_directly(aws: Any, route: str) -> None:
    spec = {**BODY_ROUTES[route], "params": {"thread_id": "bad\x00id"}}
    fields = {spec["wrap"]: spec["good"]} if "wrap" in spec else spec["good"]
    http = over_http(spec, json.dumps(spec["good"]).encode())
    assert http == (400, "invalid_input")
    assert directly(spec, fields) == http


LIST_ROUTES = {
    "runs": {"function": "threads", "method": "GET", "path": "/threads/{thread_id}/runs", "params": T,
             "direct": {"action": "list_runs"}},
    "namespaces": {"function": "memories", "method": "GET", "path": "/memories/{memory_name}/namespaces",
                   "params": M, "direct": {"action": "list_namespaces"}},
    "meta": {"function": "memories", "method": "GET", "path": "/memories/{memory_name}/meta", "params": M,
             "direct": {"action": "list_meta"}},
}  # fmt: skip


@pytest.mark.parametrize("route", sorted(LIST_ROUTES))
@pytest.mark.parametrize("limit", ["x", "\u00b2", "0", "-1", "1e3", "9" * 40])
def test_a_bad_limit_is_422_schema_invalid_on_every_list_route_and_directly(aws: Any, route: str, limit: str) -> None:
    spec = LIST_ROUTES[route]
    assert over_http(spec, query={"limit": limit}) == (422, "schema_invalid")
    direct_limit: Any = int(limit) if limit.lstrip("-").isascii() and limit.lstrip("-").isdigit() else limit
    assert directly(spec, {"limit": direct_limit}) == (422, "schema_invalid")


# ---- finding 10 in the handlers themselves: API Gateway's $default route (or a direct test) reaching a function
# with a wrong method gets 405 and Allow from the function's own routes.


@pytest.mark.parametrize(
    ("function", "method", "path", "params", "allow"),
    [
        ("prompt_stack", "GET", "/threads/{thread_id}/prompt-stack", T, "POST"),
        ("threads", "POST", "/threads/{thread_id}", T, "DELETE, GET, PUT"),
        ("memories", "PUT", "/memories/{memory_name}/namespaces/{namespace}", MN, "DELETE, GET"),
    ],
)
def test_a_handler_answers_405_with_allow(
    aws: Any, function: str, method: str, path: str, params: dict[str, str], allow: str
) -> None:
    out = handler(function)(http_event(method, path, params, None, {}), None)
    assert (out["statusCode"], json.loads(out["body"])["code"]) == (405, "method_not_allowed")
    assert out["headers"]["Allow"] == allow


# ---- finding 11 (second half): prompt-stack says how many tokens it has and whether it went over budget


def test_prompt_stack_reports_tokens_and_over_budget_in_headers(aws: Any) -> None:
    from griptape.common import PromptStack

    route = BODY_ROUTES["prompt_stack"]
    for _ in range(3):
        handler("add_run")(http_event("POST", "/threads/{thread_id}/runs", T, json.dumps(RUN).encode(), {}), None)

    def build(body: dict[str, Any]) -> tuple[int, bool, dict[str, Any]]:
        event = http_event("POST", route["path"], T, json.dumps(body).encode(), {})
        out = handler("prompt_stack")(event, None)
        assert out["statusCode"] == 200, out
        stack = json.loads(out["body"])
        PromptStack.from_dict(stack)  # the body is still Griptape's PromptStack JSON
        return (
            int(out["headers"]["X-Offprompt-Prompt-Tokens"]),
            out["headers"]["X-Offprompt-Over-Budget"] == "true",
            stack,
        )

    tokens, over, stack = build({"system": "You are helpful.", "input": "hello there"})
    assert tokens > 0 and not over and len(stack["messages"]) == 8
    tokens, over, stack = build({"system": "You are helpful.", "input": "hello there", "max_tokens": 5})
    assert over and tokens >= 5 and len(stack["messages"]) == 2
    tokens, over, stack = build({"input": "hello", "max_tokens": 10_000})
    assert not over and tokens < 10_000
