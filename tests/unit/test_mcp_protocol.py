"""The MCP endpoint's JSON-RPC layer (functions/mcp_server/protocol.py), with stand-in tools: every way a client can
misuse the protocol is a JSON-RPC error (never an exception, never a 500), every library error of a tool is a tool
result with `isError` and the HTTP route's code."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp_server import protocol
from mcp_server.protocol import Reply, Tool, ToolResult
from pydantic import BaseModel, ConfigDict, Field

from offprompt.errors import InvalidInput, NotFound, OffpromptError, QuotaExceeded

HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


class EchoArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    text: str = Field(min_length=1, description="what to echo")
    times: int = Field(default=1, ge=1, le=3)


def echo(call: Any, args: EchoArgs) -> ToolResult:
    return ToolResult(args.text * args.times, {"tenant": call, "text": args.text * args.times})


def failing(error: OffpromptError) -> Tool:
    def run(call: Any, args: EchoArgs) -> ToolResult:
        raise error

    return Tool("fail", "Fail", "always fails", EchoArgs, run)


TOOLS = (Tool("echo", "Echo", "echoes text", EchoArgs, echo, read_only=True),)


def send(message: Any, headers: dict[str, str] | None = None, tools: tuple[Tool, ...] = TOOLS) -> Reply:
    reply = protocol.handle(message, HEADERS if headers is None else headers, tools, "tenant-a")
    if reply.body is not None:
        json.dumps(reply.body)  # always serializable
    return reply


def request(method: str, params: Any = None, request_id: Any = 1) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def error_of(reply: Reply) -> tuple[int, int, Any]:
    assert reply.body is not None and "error" in reply.body, reply
    return reply.status, reply.body["error"]["code"], reply.body["id"]


# ---- protocol misuse: JSON-RPC errors ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "message",
    [
        [],
        [request("ping")],  # a batch: not supported (removed from MCP in 2025-06-18)
        "ping",
        42,
        None,
        {"id": 1, "method": "ping"},  # no jsonrpc
        {"jsonrpc": "1.0", "id": 1, "method": "ping"},
        {"jsonrpc": 2.0, "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1},  # neither a request nor a response
        {"jsonrpc": "2.0", "id": 1, "method": 5},
        {"jsonrpc": "2.0", "id": 1, "method": None},
        {"jsonrpc": "2.0", "id": None, "method": "ping"},  # MCP: an id is never null
        {"jsonrpc": "2.0", "id": True, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
        {"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"},
        {"jsonrpc": "2.0", "id": [1], "method": "ping"},
    ],
)
def test_what_is_not_a_json_rpc_2_request_is_invalid_request_400(message: Any) -> None:
    assert error_of(send(message)) == (400, protocol.INVALID_REQUEST, None)


def test_an_unknown_method_is_method_not_found_with_the_request_id() -> None:
    assert error_of(send(request("resources/list", request_id="abc"))) == (200, protocol.METHOD_NOT_FOUND, "abc")
    # the 2026-07-28 revision's probe: method not found, so the official client falls back to initialize
    assert error_of(send(request("server/discover", {}))) == (200, protocol.METHOD_NOT_FOUND, 1)
    assert error_of(send(request("x" * 10_000)))[1] == protocol.METHOD_NOT_FOUND
    assert len(json.dumps(send(request("x" * 10_000)).body)) < 500  # the name is not echoed whole


@pytest.mark.parametrize("params", [[], "x", 5, True, [{"name": "echo"}]])
def test_params_that_are_not_an_object_are_invalid_params(params: Any) -> None:
    assert error_of(send(request("tools/list", params))) == (200, protocol.INVALID_PARAMS, 1)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"name": None},
        {"name": 5},
        {"name": ["echo"]},
        {"name": "nope"},
        {"name": "ECHO"},
        {"name": "echo", "arguments": []},
        {"name": "echo", "arguments": "text=hi"},
        {"name": "echo", "arguments": 1},
    ],
)
def test_a_call_of_no_tool_or_with_arguments_that_are_not_an_object_is_invalid_params(params: Any) -> None:
    assert error_of(send(request("tools/call", params))) == (200, protocol.INVALID_PARAMS, 1)


@pytest.mark.parametrize("params", [{}, {"protocolVersion": 20250618}, {"protocolVersion": None}])
def test_initialize_without_a_version_string_is_invalid_params(params: Any) -> None:
    assert error_of(send(request("initialize", params))) == (200, protocol.INVALID_PARAMS, 1)


def test_an_unsupported_protocol_version_header_is_400_naming_the_supported_ones() -> None:
    for version in ("1999-01-01", "2026-07-28", "x" * 1000):
        reply = send(request("server/discover"), {**HEADERS, "mcp-protocol-version": version})
        assert error_of(reply) == (400, protocol.UNSUPPORTED_PROTOCOL_VERSION, 1)
        data = reply.body["error"]["data"]  # type: ignore[index]
        assert data == {"supported": list(protocol.PROTOCOL_VERSIONS), "requested": version[:40]}
    for version in protocol.PROTOCOL_VERSIONS:
        assert send(request("tools/list"), {**HEADERS, "mcp-protocol-version": version}).status == 200


def test_an_accept_header_without_json_is_406() -> None:
    for accept in ("text/event-stream", "text/html", "application/xml"):
        assert error_of(send(request("ping"), {"accept": accept})) == (406, protocol.INVALID_REQUEST, None)
    for accept in ("application/json", "*/*", "application/*", "text/event-stream, application/json;q=0.5", ""):
        assert send(request("ping"), {"accept": accept}).status == 200
    assert send(request("ping"), {}).status == 200  # no Accept: anything goes (curl)


# ---- notifications and responses: 202, no body ------------------------------------------------------------
@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
        {"jsonrpc": "2.0", "method": "notifications/no-such-thing", "params": "not even an object"},
        {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}},
        {"jsonrpc": "2.0", "id": 9, "result": {}},
        {"jsonrpc": "2.0", "id": 9, "error": {"code": -1, "message": "no"}},
    ],
)
def test_notifications_and_responses_are_accepted_with_no_body(message: Any) -> None:
    calls: list[Any] = []

    def spy(call: Any, args: EchoArgs) -> ToolResult:
        calls.append(args)
        return echo(call, args)

    reply = send(message, tools=(Tool("echo", "Echo", "echoes", EchoArgs, spy),))
    assert (reply.status, reply.body) == (202, None)
    assert calls == []  # a notification runs nothing: there would be no one to tell the result to


# ---- the methods ------------------------------------------------------------------------------------------
def test_initialize_negotiates_the_version_and_issues_no_session() -> None:
    for offered, answered in [
        ("2025-06-18", "2025-06-18"),
        ("2024-11-05", "2024-11-05"),
        ("2026-07-28", "2025-11-25"),  # the modern envelope is not spoken: our latest handshake revision
        ("1.0", "2025-11-25"),
    ]:
        reply = send(request("initialize", {"protocolVersion": offered, "capabilities": {}}))
        assert reply.status == 200 and reply.body is not None
        result = reply.body["result"]
        assert result["protocolVersion"] == answered
        assert result["capabilities"] == {"tools": {"listChanged": False}}
        assert result["serverInfo"]["name"] == "offprompt"
        assert not any(k.lower() == "mcp-session-id" for k in reply.headers)


def test_initialize_ignores_an_unsupported_version_header() -> None:
    reply = send(request("initialize", {"protocolVersion": "2025-06-18"}), {**HEADERS, "mcp-protocol-version": "x"})
    assert reply.status == 200


def test_ping_answers_an_empty_result_whatever_the_id() -> None:
    for request_id in (0, -1, 2**53, "", "a" * 100):
        reply = send(request("ping", request_id=request_id))
        assert reply.body == {"jsonrpc": "2.0", "id": request_id, "result": {}}


def test_tools_list_gives_each_tool_its_schema_without_titles() -> None:
    reply = send(request("tools/list", {"cursor": "ignored"}))
    assert reply.body is not None
    [tool] = reply.body["result"]["tools"]
    assert tool["name"] == "echo" and tool["description"] == "echoes text"
    assert tool["annotations"]["readOnlyHint"] is True
    schema = tool["inputSchema"]
    assert schema["type"] == "object" and schema["required"] == ["text"]
    assert schema["additionalProperties"] is False
    assert schema["properties"]["text"] == {"description": "what to echo", "minLength": 1, "type": "string"}
    assert "title" not in json.dumps(schema)
    assert "nextCursor" not in reply.body["result"]


def test_a_tool_call_answers_text_and_structured_content() -> None:
    reply = send(request("tools/call", {"name": "echo", "arguments": {"text": "ab", "times": 2}}))
    assert reply.body == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "content": [{"type": "text", "text": "abab"}],
            "structuredContent": {"tenant": "tenant-a", "text": "abab"},
            "isError": False,
        },
    }


def test_a_tool_call_without_arguments_validates_the_empty_object() -> None:
    for params in ({"name": "echo"}, {"name": "echo", "arguments": None}):
        result = send(request("tools/call", params)).body["result"]  # type: ignore[index]
        assert result["isError"] is True and result["structuredContent"]["code"] == "schema_invalid"


# ---- tool failures: results with isError and the route's code ----------------------------------------------
@pytest.mark.parametrize(
    "arguments",
    [
        {"text": ""},
        {"text": 5},
        {"text": "x", "times": "2"},  # strict: no coercion of strings to numbers
        {"text": "x", "times": 4},
        {"text": "x", "times": True},
        {"text": "x", "extra": 1},
        {"text": ["x"]},
    ],
)
def test_arguments_that_do_not_fit_the_schema_are_a_schema_invalid_tool_result(arguments: Any) -> None:
    reply = send(request("tools/call", {"name": "echo", "arguments": arguments}))
    assert reply.status == 200 and reply.body is not None
    result = reply.body["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["code"] == "schema_invalid"
    assert result["structuredContent"]["status"] == 422  # what the HTTP route answers for the same body
    assert result["structuredContent"]["details"][0]["loc"]
    assert result["content"][0]["text"].startswith("schema_invalid: ")


@pytest.mark.parametrize(
    ("error", "code", "status"),
    [
        (InvalidInput("bad thread id"), "invalid_input", 400),
        (NotFound("no such namespace"), "not_found", 404),
        (QuotaExceeded("runs per day", retry_after=60), "quota_exceeded", 429),
    ],
)
def test_a_library_error_is_a_tool_result_with_the_routes_code(error: OffpromptError, code: str, status: int) -> None:
    seen: list[tuple[str, str]] = []
    reply = protocol.handle(
        request("tools/call", {"name": "fail", "arguments": {"text": "x"}}),
        HEADERS,
        (failing(error),),
        "tenant-a",
        on_tool_error=lambda name, exc: seen.append((name, exc.code)),
    )
    assert reply.status == 200 and reply.body is not None
    result = reply.body["result"]
    assert result["isError"] is True
    assert result["structuredContent"]["code"] == code and result["structuredContent"]["status"] == status
    assert result["content"] == [{"type": "text", "text": f"{code}: {error.message}"}]
    assert seen == [("fail", code)]
    if status == 429:
        assert result["structuredContent"]["retry_after"] == 60


def test_an_unexpected_exception_is_not_turned_into_a_tool_result() -> None:
    """A bug is not the client's fault: it propagates (the resolver answers 500 and logs it), never hidden as
    `isError` for a model to retry."""

    def broken(call: Any, args: EchoArgs) -> ToolResult:
        raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        send(
            request("tools/call", {"name": "b", "arguments": {"text": "x"}}),
            tools=(Tool("b", "B", "b", EchoArgs, broken),),
        )


def test_list_threads_does_not_say_the_tenant_has_no_thread_list() -> None:
    """Issue 33: the tool said offprompt keeps no tenant-wide thread list; GET /threads lists them (ADR 0054)."""
    from mcp_server import tools

    description = tools.specs()["list_threads"].description
    assert "no tenant-wide" not in description and "GET /threads" in description
