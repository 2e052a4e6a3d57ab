"""mcp: the MCP endpoint, `POST /mcp` (Streamable HTTP, stateless: one JSON-RPC message in, one JSON answer out).

- `POST /mcp` a JSON-RPC 2.0 request → 200 `application/json` (its response); a notification or a response → 202,
  no body. Methods `initialize`, `ping`, `tools/list`, `tools/call` (functions/mcp_server/protocol.py); the tools
  call the library's use cases (functions/mcp_server/tools.py).
- `GET /mcp` → 405: this server offers no SSE stream (Streamable HTTP allows that answer).
No `Mcp-Session-Id` is issued. The tenant comes from the authorizer as on every route; hosted keys are admitted and
metered like every route (`routes.meter()` into the use cases). HTTP only (no direct invocation).

Protocol and tools: functions/mcp_server/{protocol,tools}.py; docs/adr/0032-mcp-endpoint.md.
"""

from http import HTTPStatus
from typing import Any

from pydantic import BaseModel, ConfigDict

from api_common.entry import json_body, json_response, observability
from api_common.errors import error_responses
from api_common.powertools import Response
from api_common.routes import FunctionRoutes
from offprompt.errors import InvalidInput, OffpromptError, PayloadTooLarge

from . import protocol
from .tools import Call, tools

routes = FunctionRoutes("mcp_server", event_prefixes=("mcp",))


class JsonRpcMessage(BaseModel):
    """A JSON-RPC 2.0 message: a request (`id`, `method`, `params`) or its response (`id`, `result` | `error`)."""

    model_config = ConfigDict(defer_build=True, extra="allow", title="JsonRpcMessage")

    jsonrpc: str
    id: str | int | None = None


def _log_tool_error(tool: str, exc: OffpromptError) -> None:
    logger, _ = observability()
    logger.info("mcp tool error", extra={"tool": tool, "code": exc.code})


def _send(reply: protocol.Reply) -> Response[Any]:
    if reply.body is None:
        return Response(status_code=reply.status, body="", headers=reply.headers or None)
    return json_response(reply.body, reply.status, headers=reply.headers or None)


_JSONRPC = {"application/json": {"model": JsonRpcMessage}}


@routes.post(
    "/mcp",
    summary="MCP endpoint (Model Context Protocol over Streamable HTTP, stateless JSON-RPC 2.0)",
    responses={
        200: {
            "description": "The JSON-RPC response (a tool's failure is a result with isError: true)",
            "content": _JSONRPC,
        },
        202: {"description": "A notification or a response was accepted (no body)", "content": {}},
        **error_responses(),
        400: {"description": "Not JSON (-32700), not a JSON-RPC 2.0 request (-32600)", "content": _JSONRPC},
        406: {"description": "Accept does not allow application/json (-32600)", "content": _JSONRPC},
        413: {"description": "Too large (-32600)", "content": _JSONRPC},
    },
)
def post_mcp() -> Response[Any]:
    tenant = routes.tenant()  # no identity: 401 like every route, before the body is read
    try:
        message = json_body(routes.app())
    except PayloadTooLarge as exc:
        return _send(
            protocol.transport_error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, protocol.INVALID_REQUEST, exc.message)
        )
    except InvalidInput as exc:
        return _send(protocol.transport_error(HTTPStatus.BAD_REQUEST, protocol.PARSE_ERROR, exc.message))
    headers = {k.lower(): v for k, v in (routes.event.headers or {}).items()}
    call = Call(tenant, routes.meter())
    return _send(protocol.handle(message, headers, tools(), call, on_tool_error=_log_tool_error))


@routes.get(
    "/mcp",
    summary="MCP endpoint: no SSE stream (405, as Streamable HTTP allows)",
    responses={**error_responses()},
)
def get_mcp() -> Response[Any]:
    routes.tenant()
    body = {"code": "method_not_allowed", "message": "this MCP server offers no SSE stream: POST JSON-RPC messages"}
    return json_response(body, HTTPStatus.METHOD_NOT_ALLOWED, headers={"Allow": "POST"})


register = routes.register
lambda_handler = routes.handler()
