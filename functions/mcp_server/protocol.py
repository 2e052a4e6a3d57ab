"""MCP over Streamable HTTP, stateless: one JSON-RPC 2.0 message per POST, one JSON answer (docs/adr/0032).

Pure protocol: no AWS, no offprompt use case. `handle(message, headers, tools, call)` takes the POST's parsed body
and headers and returns a `Reply` (HTTP status, JSON body or none, headers) for the handler to send.

- Requests: `initialize` (the version negotiated from the client's offer), `ping`, `tools/list`, `tools/call`;
  anything else is `-32601` (so a client's `server/discover` probe of the 2026 revision falls back to `initialize`).
- Notifications (`notifications/initialized`, `notifications/cancelled`, ...) and JSON-RPC responses: 202, no body.
- No session: no `Mcp-Session-Id` is issued, every request stands alone (whatever a client sends in it is ignored).
- JSON-RPC errors: `-32700` (not JSON; HTTP 400), `-32600` (not a JSON-RPC 2.0 request, a batch; HTTP 400, or 406
  when `Accept` takes no JSON), `-32022` (an `MCP-Protocol-Version` header this server does not speak, e.g. the
  2026 revision's probe; HTTP 400, `data.supported` lists the handshake versions), `-32601` (no such method),
  `-32602` (bad params, unknown tool). Other errors of a well-formed request are answered with HTTP 200.
- A tool that fails on the library's terms (`OffpromptError`: invalid input, not found, a plan's limit, ...) is a
  tool result with `isError: true`, and in `structuredContent` the same `code` (and HTTP `status`) the HTTP route
  answers with: the model reads it and can correct itself. Arguments that do not fit the tool's schema are such a
  result too (`schema_invalid`, the route's 422), as the MCP spec asks for input validation errors.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from pydantic import BaseModel

from api_common.errors import status_for
from offprompt.errors import OffpromptError, TooManyRequests
from offprompt.validation import check_finite, non_finite_at, validate

#: Revisions of the initialize handshake this server speaks, oldest to newest (the 2026-07-28 revision's
#: per-request envelope is not implemented: its clients fall back to the handshake, ADR 0032).
PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_VERSION = PROTOCOL_VERSIONS[-1]
#: The version a request without an `MCP-Protocol-Version` header is taken to speak (Streamable HTTP's rule).
DEFAULT_VERSION = "2025-03-26"
SERVER_INFO = {"name": "offprompt", "title": "offprompt memory", "version": "1.0.0"}
INSTRUCTIONS = (
    "Memory for this agent. Conversation: append_turn stores a finished turn in a thread, get_context returns the "
    "thread's history that fits a token budget, get_recent_turns the newest turns, list_threads finds a thread by "
    "alias. Task memory: store_output keeps a big tool output off-prompt and returns a short reference line; "
    "load_artifacts reads it back, search_memory searches it."
)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
#: The 2026-07-28 revision's code for a protocol version the server does not speak (`data: {supported, requested}`):
#: what the official client's `server/discover` probe gets here, so it falls back to `initialize` (ADR 0032).
UNSUPPORTED_PROTOCOL_VERSION = -32022

PROTOCOL_VERSION_HEADER = "mcp-protocol-version"


@dataclass(frozen=True)
class Reply:
    """What to send back: an HTTP status, a JSON body (None: no body) and headers."""

    status: int
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolResult:
    """A tool's answer: `text` for the model, `structured` (an object) for programs."""

    text: str
    structured: dict[str, Any]


@dataclass(frozen=True)
class Tool:
    """One tool: its name, what a model reads about it, its arguments' model and what it runs.

    `run(call, arguments)` gets the request's `call` context (the handler's: tenant, meter) and the validated
    arguments; it raises `OffpromptError` for what the library refuses."""

    name: str
    title: str
    description: str
    arguments: type[BaseModel]
    run: Callable[[Any, Any], ToolResult]
    read_only: bool = False

    def descriptor(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": input_schema(self.arguments),
            "annotations": {"readOnlyHint": self.read_only, "destructiveHint": False, "openWorldHint": False},
        }


@functools.cache
def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema without pydantic's `title`s (built on first use, once)."""
    return _untitled(model.model_json_schema())


def _untitled(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _untitled(v) for k, v in schema.items() if k != "title" or not isinstance(v, str)}
    if isinstance(schema, list):
        return [_untitled(v) for v in schema]
    return schema


# ---- errors -----------------------------------------------------------------------------------------------
def error(request_id: Any, code: int, message: str, status: int = HTTPStatus.OK, data: Any = None) -> Reply:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return Reply(status, {"jsonrpc": "2.0", "id": request_id, "error": err})


def transport_error(status: int, code: int, message: str, data: Any = None) -> Reply:
    """A JSON-RPC error with no id (the request could not be read), at an HTTP error status."""
    return error(None, code, message, status, data)


class _InvalidParams(Exception):
    pass


def tool_error(exc: OffpromptError) -> dict[str, Any]:
    """A library error as a tool result: `isError`, the HTTP route's `code` and `status` (`retry_after` on a 429)."""
    structured: dict[str, Any] = {**exc.to_dict(), "status": int(status_for(exc))}
    if isinstance(exc, TooManyRequests):
        structured["retry_after"] = exc.retry_after
    return {
        "content": [{"type": "text", "text": f"{exc.code}: {exc.message}"}],
        "structuredContent": structured,
        "isError": True,
    }


# ---- the messages -------------------------------------------------------------------------------------------
def accepts_json(headers: Mapping[str, str]) -> bool:
    """Whether the `Accept` header (absent: anything) takes an `application/json` answer."""
    accept = headers.get("accept")
    if accept is None or not accept.strip():
        return True
    types = {part.split(";", 1)[0].strip().lower() for part in accept.split(",")}
    return bool(types & {"application/json", "application/*", "*/*"})


def _valid_id(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def handle(
    message: Any,
    headers: Mapping[str, str],
    tools: Sequence[Tool],
    call: Any,
    *,
    on_tool_error: Callable[[str, OffpromptError], None] | None = None,
) -> Reply:
    """The reply to one POSTed message (`headers`: lower-case names)."""
    if not accepts_json(headers):
        return transport_error(
            HTTPStatus.NOT_ACCEPTABLE, INVALID_REQUEST, "this server answers application/json: Accept must allow it"
        )
    if isinstance(message, list):
        return transport_error(HTTPStatus.BAD_REQUEST, INVALID_REQUEST, "JSON-RPC batches are not supported")
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return transport_error(HTTPStatus.BAD_REQUEST, INVALID_REQUEST, 'not a JSON-RPC 2.0 message ("jsonrpc": "2.0")')
    method = message.get("method")
    if method is None:
        if "id" in message and ("result" in message or "error" in message):
            return Reply(HTTPStatus.ACCEPTED)  # a response to a server request: this server sends none; accepted
        return transport_error(HTTPStatus.BAD_REQUEST, INVALID_REQUEST, 'a JSON-RPC request needs a "method"')
    if not isinstance(method, str):
        return transport_error(HTTPStatus.BAD_REQUEST, INVALID_REQUEST, '"method" must be a string')
    if "id" not in message:
        return Reply(HTTPStatus.ACCEPTED)  # a notification: nothing to answer, no state to change
    request_id = message["id"]
    if not _valid_id(request_id):
        return transport_error(HTTPStatus.BAD_REQUEST, INVALID_REQUEST, '"id" must be a string or an integer')
    version = headers.get(PROTOCOL_VERSION_HEADER)
    if version is not None and method != "initialize" and version not in PROTOCOL_VERSIONS:
        return error(
            request_id,
            UNSUPPORTED_PROTOCOL_VERSION,
            f"unsupported MCP-Protocol-Version {version[:40]!r}; supported: {', '.join(PROTOCOL_VERSIONS)}",
            HTTPStatus.BAD_REQUEST,
            data={"supported": list(PROTOCOL_VERSIONS), "requested": version[:40]},
        )
    params = message.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        return error(request_id, INVALID_PARAMS, '"params" must be an object')
    outside = {k: v for k, v in params.items() if not (method == "tools/call" and k == "arguments")}
    where = non_finite_at(outside)
    if where is not None:  # a tool's arguments get the tool's 422 (_call_tool); elsewhere the params are invalid
        at = ".".join(str(p) for p in ["params", *where])
        return error(request_id, INVALID_PARAMS, f"{at[:200]}: NaN and Infinity are not JSON numbers")
    method_fn = _METHODS.get(method)
    if method_fn is None:
        return error(request_id, METHOD_NOT_FOUND, f"method not found: {method[:100]}")
    try:
        result = method_fn(params, tools, call, on_tool_error)
    except _InvalidParams as exc:
        return error(request_id, INVALID_PARAMS, str(exc))
    return Reply(HTTPStatus.OK, {"jsonrpc": "2.0", "id": request_id, "result": result})


def _initialize(params: dict[str, Any], tools: Sequence[Tool], call: Any, _: Any) -> dict[str, Any]:
    offered = params.get("protocolVersion")
    if not isinstance(offered, str):
        raise _InvalidParams('initialize needs "protocolVersion" (a string)')
    return {
        "protocolVersion": offered if offered in PROTOCOL_VERSIONS else LATEST_VERSION,
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": SERVER_INFO,
        "instructions": INSTRUCTIONS,
    }


def _ping(params: dict[str, Any], tools: Sequence[Tool], call: Any, _: Any) -> dict[str, Any]:
    return {}


def _list_tools(params: dict[str, Any], tools: Sequence[Tool], call: Any, _: Any) -> dict[str, Any]:
    return {"tools": [tool.descriptor() for tool in tools]}  # one page: no nextCursor


def _call_tool(
    params: dict[str, Any],
    tools: Sequence[Tool],
    call: Any,
    on_tool_error: Callable[[str, OffpromptError], None] | None,
) -> dict[str, Any]:
    name = params.get("name")
    if not isinstance(name, str):
        raise _InvalidParams('tools/call needs "name" (a string)')
    tool = next((t for t in tools if t.name == name), None)
    if tool is None:
        raise _InvalidParams(f"unknown tool: {name[:100]}")
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise _InvalidParams('"arguments" must be an object')
    try:
        check_finite(arguments)  # NaN, Infinity, 1e400: schema_invalid (finite_number), the routes' 422
        done = tool.run(call, validate(tool.arguments, arguments))
    except OffpromptError as exc:
        if on_tool_error is not None:
            on_tool_error(name, exc)
        return tool_error(exc)
    return {"content": [{"type": "text", "text": done.text}], "structuredContent": done.structured, "isError": False}


_METHODS: dict[str, Callable[[dict[str, Any], Sequence[Tool], Any, Any], dict[str, Any]]] = {
    "initialize": _initialize,
    "ping": _ping,
    "tools/list": _list_tools,
    "tools/call": _call_tool,
}
