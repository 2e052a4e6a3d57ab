"""mcp: the MCP endpoint, `POST /mcp` (Streamable HTTP, stateless: one JSON-RPC message in, one JSON answer out).

- `POST /mcp` a JSON-RPC 2.0 request → 200 `application/json` (its response); a notification or a response → 202,
  no body. Methods `initialize`, `ping`, `tools/list`, `tools/call` (the protocol: functions/mcp_server/protocol.py).
- The tools (their schemas and descriptions: functions/mcp_server/tools.py) are this module's tool functions, each
  calling ONE use case through the composition root as a route function does, with the request's meter.
- `GET /mcp` → 405: this server offers no SSE stream (Streamable HTTP allows that answer).
No `Mcp-Session-Id` is issued. The tenant comes from the authorizer as on every route; hosted keys are admitted and
metered like every route (`routes.meter()` into the use cases). HTTP only (no direct invocation).

Protocol and tools: functions/mcp_server/{protocol,tools}.py; docs/adr/0032-mcp-endpoint.md.
"""

import functools
import json
import uuid
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

import api_common  # noqa: F401  (first: holds the collector over the init, docs/adr/0065)

# isort: split
from pydantic import BaseModel, ConfigDict

from api_common.audit import http_actor
from api_common.audit import record_audit_entry as record_audit
from api_common.entry import json_body, json_response, observability
from api_common.errors import OriginRefused, UnsupportedMediaType, error_responses, status_for
from api_common.powertools import Response
from api_common.routes import FunctionRoutes
from api_common.scope_rules import PUBLIC, TOOLS, ScopeRule, listing, read, write
from offprompt.composition.conversation import default_cloud_threads, prime_conversation
from offprompt.composition.conversation import default_service as conversation
from offprompt.config import get_settings
from offprompt.errors import InvalidInput, OffpromptError, PayloadTooLarge
from offprompt.services.audit import Actor, AuditEvent
from offprompt.services.conversation import PromptStackRequest, parse_model, thread_admin
from offprompt.services.conversation.add_run import add_run
from offprompt.services.conversation.requests import ThreadSearchRequest
from offprompt.validation import validate

from . import protocol
from .protocol import ToolResult
from .tools import (
    MAX_INLINE_LOAD_BYTES,
    AppendTurnArgs,
    Call,
    ForgetArgs,
    ListThreadsArgs,
    LoadArtifactsArgs,
    RecentTurnsArgs,
    RememberArgs,
    artifact_text,
    hit_text,
    record_line,
    specs,
    transcript,
)

routes = FunctionRoutes("mcp_server", event_prefixes=("mcp",), prime=prime_conversation)
# Each tool imports its use case and composition when first called: a cold start serving `append_turn` loads the
# conversation modules only, not records', task memory's or the conversation index's (issue 34, docs/adr/0063).


def records() -> Any:
    """The process's records service; looked up at call time (as in functions/records), so tests can substitute
    records built on their own adapters."""
    from offprompt.composition.records import default_records

    return default_records()


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


def origin_allowed(headers: dict[str, str], allowed: frozenset[str]) -> bool:
    """Whether a request may go on by its `Origin` (lower-case header names): none (not a browser), the API's own
    origin (`x-forwarded-proto` + `host`: the console it serves; API Gateway and the dev server set both, and the
    dev server refuses a foreign Host first) or one of `allowed` (docs/adr/0044-front-door.md)."""
    origin = headers.get("origin")
    if origin is None:
        return True
    origin = origin.strip().lower().rstrip("/")
    scheme = headers.get("x-forwarded-proto", "https").split(",", 1)[0].strip().lower()
    host = headers.get("host", "").strip().lower()
    return (bool(host) and origin == f"{scheme}://{host}") or origin in allowed


def check_origin() -> None:
    """OriginRefused (403 `origin_refused`) for a browser request from a foreign web page: the MCP specification's
    rule against DNS rebinding and cross-site calls (servers MUST validate Origin)."""
    headers = {k.lower(): v for k, v in (routes.event.headers or {}).items()}
    if not origin_allowed(headers, get_settings().mcp_origins()):
        raise OriginRefused("requests from this web origin are refused (OFFPROMPT_MCP_ALLOWED_ORIGINS lists others)")


@routes.post(
    "/mcp",
    scope=TOOLS,
    audit=False,  # each tool that writes records its own entry (tools())
    summary="MCP endpoint (Model Context Protocol over Streamable HTTP, stateless JSON-RPC 2.0)",
    responses={
        200: {
            "description": "The JSON-RPC response (a tool's failure is a result with isError: true)",
            "content": _JSONRPC,
        },
        202: {"description": "A notification or a response was accepted (no body)", "content": {}},
        **error_responses(403),
        400: {"description": "Not JSON (-32700), not a JSON-RPC 2.0 request (-32600)", "content": _JSONRPC},
        406: {"description": "Accept does not allow application/json (-32600)", "content": _JSONRPC},
        413: {"description": "Too large (-32600)", "content": _JSONRPC},
        415: {"description": "Content-Type is not JSON (-32600)", "content": _JSONRPC},
    },
)
def post_mcp() -> Response[Any]:
    check_origin()  # a foreign web page: 403 before anything else
    tenant = routes.tenant()  # no identity: 401 like every route, before the body is read
    try:
        # NaN and Infinity are refused by the protocol: in a tool's arguments, as that tool's 422 (protocol.handle)
        message = json_body(routes.app(), finite=False)
    except PayloadTooLarge as exc:
        return _send(
            protocol.transport_error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, protocol.INVALID_REQUEST, exc.message)
        )
    except UnsupportedMediaType as exc:
        return _send(
            protocol.transport_error(
                HTTPStatus.UNSUPPORTED_MEDIA_TYPE, protocol.INVALID_REQUEST, exc.message, data={"code": exc.code}
            )
        )
    except InvalidInput as exc:
        return _send(protocol.transport_error(HTTPStatus.BAD_REQUEST, protocol.PARSE_ERROR, exc.message))
    headers = {k.lower(): v for k, v in (routes.event.headers or {}).items()}
    call = Call(tenant, routes.meter(), routes.scope(), http_actor(routes.event.raw_event))
    return _send(protocol.handle(message, headers, tools(), call, on_tool_error=_log_tool_error))


@routes.get(
    "/mcp",
    scope=PUBLIC,
    audit=False,  # each tool that writes records its own entry (tools())
    summary="MCP endpoint: no SSE stream (405, as Streamable HTTP allows)",
    responses={**error_responses(403)},
)
def get_mcp() -> Response[Any]:
    check_origin()
    routes.tenant()
    body = {"code": "method_not_allowed", "message": "this MCP server offers no SSE stream: POST JSON-RPC messages"}
    return json_response(body, HTTPStatus.METHOD_NOT_ALLOWED, headers={"Allow": "POST"})


# ---- the tools: each calls ONE use case, as a route does (functions/mcp_server/tools.py describes them) ------
@functools.cache
def tools() -> tuple[protocol.Tool, ...]:
    """The tool table, in `specs()`'s order, each with what it runs (built on first use)."""
    runs: dict[str, Callable[[Any, Any], ToolResult]] = {
        "append_turn": append_turn,
        "get_context": get_context,
        "get_recent_turns": get_recent_turns,
        "list_threads": list_threads,
        "search_conversations": search_conversations,
        "store_output": store_output,
        "load_artifacts": load_artifacts,
        "search_memory": search_memory,
        "remember": remember,
        "recall": recall,
        "forget": forget,
    }
    return tuple(
        protocol.Tool(
            name,
            s.title,
            s.description,
            s.arguments,
            _scoped(name, runs[name]) if s.read_only else audited_tool(name, _scoped(name, runs[name])),
            read_only=s.read_only,
        )
        for name, s in specs().items()
    )


#: What a scoped key or token may do with each tool: the routes' rules (api_common/scope_rules.py), on the tool's
#: arguments (docs/keys.md). A tool without one is refused to every scoped caller (and fails the scope matrix test).
TOOL_SCOPES: dict[str, ScopeRule] = {
    "append_turn": write("threads", body="thread_id"),
    "get_context": read("threads", body="thread_id"),
    "get_recent_turns": read("threads", body="thread_id"),
    "list_threads": listing("threads", items="threads", key="thread_id"),
    "search_conversations": listing("threads", items="hits", key="thread_id", narrow="thread_prefix"),
    "store_output": write("memories", body="memory_name"),
    "load_artifacts": read("memories", body="memory_name"),
    "search_memory": read("memories", body="memory_name"),
    "remember": write("records", body="namespace"),
    "recall": listing("records", items="records", key="namespace", narrow="namespace_prefix"),
    "forget": write("records", body="namespace"),
}
_NO_RULE = ScopeRule("admin")  # a tool nobody declared a rule for: unscoped callers only


def _scoped(name: str, run: Callable[[Any, Any], ToolResult]) -> Callable[[Any, Any], ToolResult]:
    """`run` behind the tool's scope rule: its arguments checked (403 `scope_denied` as the tool's error) and a
    listing's prefix narrowed to the scope's; the listing tools keep only what the scope reaches (`Call.keep`)."""
    rule = TOOL_SCOPES.get(name, _NO_RULE)

    def scoped(call: Call, args: BaseModel) -> ToolResult:
        if call.scope is None:
            return run(call, args)
        fields = args.model_dump()
        rule.check_fields(call.scope, fields)
        narrowed = rule.narrow_fields(call.scope, fields)
        if narrowed is not fields and rule.narrow is not None:
            args = args.model_copy(update={rule.narrow: narrowed[rule.narrow]})
        return run(call, args)

    return scoped


def _keep(call: Call, tool: str, listed: list[Any]) -> list[Any]:
    return TOOL_SCOPES[tool].keep(call.scope, listed)


#: The arguments of a tool that name what it changes: the audit entry's resource ids (never a value).
AUDITED_IDS = ("thread_id", "memory_name", "namespace", "key")


def audited_tool(name: str, run: Callable[[Any, Any], ToolResult]) -> Callable[[Any, Any], ToolResult]:
    """`run`, writing the tenant's audit entry for each call, its refusal too (docs/adr/0056): the route /mcp itself
    is not audited, each tool that writes is."""

    def audited(call: Call, args: Any) -> ToolResult:
        resources = {}
        for field in AUDITED_IDS:
            value = getattr(args, field, None)
            if isinstance(value, str):
                resources[field] = value
            elif isinstance(value, list):
                resources[field] = json.dumps(value, ensure_ascii=False)
        actor = call.actor or Actor("local")
        days = call.meter.plan.audit_days if call.meter is not None else 0
        try:
            result = run(call, args)
        except OffpromptError as exc:
            entry = AuditEvent(call.tenant, actor, "mcp", name, int(status_for(exc)), exc.code, resources)
            record_audit(entry, retention_days=days)
            raise
        record_audit(AuditEvent(call.tenant, actor, "mcp", name, 200, None, resources), retention_days=days)
        return result

    return audited


def append_turn(call: Call, args: AppendTurnArgs) -> ToolResult:
    # The run as the route's body would carry it: add_run checks it as it checks the route's (RunIn, then the
    # identifiers), so a run id the route refuses ("" included) is refused here with the same code.
    run_id = uuid.uuid4().hex if args.run_id is None else args.run_id
    run = {
        "type": "Run",
        "id": run_id,
        "input": {"type": "TextArtifact", "value": args.input},
        "output": {"type": "TextArtifact", "value": args.output},
    }
    result = add_run(conversation(), call.tenant, args.thread_id, run, meter=call.meter)
    structured = {"thread_id": args.thread_id, "run_id": run_id, "seq": result.seq, "replayed": result.replayed}
    verb = "was already stored" if result.replayed else "stored"
    return ToolResult(f"Turn {run_id} {verb} in thread {args.thread_id} (seq {result.seq}).", structured)


def get_context(call: Call, args: Any) -> ToolResult:
    from offprompt.services.conversation.prompt_stack import build_prompt_stack

    request = parse_model(PromptStackRequest, args.model_dump(exclude={"thread_id"}, exclude_none=True))
    result = build_prompt_stack(conversation(), call.tenant, args.thread_id, request)
    messages = [{"role": m.role, "content": m.to_text()} for m in result.stack.messages]
    over = request.max_tokens is not None and result.tokens >= request.max_tokens
    structured = {"thread_id": args.thread_id, "messages": messages, "tokens": result.tokens, "over_budget": over}
    return ToolResult(transcript(messages), structured)


def get_recent_turns(call: Call, args: RecentTurnsArgs) -> ToolResult:
    page = thread_admin.list_runs(conversation(), call.tenant, args.thread_id, limit=args.limit, order="desc")
    turns = [
        {
            "seq": entry["seq"],
            "run_id": entry["run"].get("id"),
            "input": artifact_text(entry["run"].get("input")),
            "output": artifact_text(entry["run"].get("output")),
            "created_at": entry["created_at"],
        }
        for entry in reversed(page["runs"])  # oldest first, as a transcript reads
    ]
    said = [({"role": "user", "content": t["input"]}, {"role": "assistant", "content": t["output"]}) for t in turns]
    return ToolResult(transcript([m for pair in said for m in pair]), {"thread_id": args.thread_id, "turns": turns})


def list_threads(call: Call, args: ListThreadsArgs) -> ToolResult:
    found = default_cloud_threads().find(call.tenant, {"alias": args.alias})
    threads = _keep(call, "list_threads", found["threads"])
    text = json.dumps(threads) if threads else f"no thread has the alias {args.alias!r}"
    return ToolResult(text, {"threads": threads})


def search_conversations(call: Call, args: Any) -> ToolResult:
    from api_common.conversation_search import run_search

    request = parse_model(ThreadSearchRequest, args.model_dump(exclude_none=True, exclude_defaults=True))
    found = run_search(conversation(), call.tenant, request, call.meter)
    body = found.body()
    body["hits"] = _keep(call, "search_conversations", body["hits"])
    text = "\n".join(hit_text(h) for h in body["hits"]) or "no past turn matches"
    return ToolResult(text, body)


def store_output(call: Call, args: Any) -> ToolResult:
    from offprompt.composition.task_memory import default_receipts
    from offprompt.composition.task_memory import default_service as task_memory
    from offprompt.services.task_memory import OutputRequest, parse_request
    from offprompt.services.task_memory.process_output import store_output as store_output_once

    artifact = {"type": "TextArtifact", "value": args.output}
    fields = {
        "tool": args.tool,
        "activity": args.activity,
        "artifact": artifact,
        "idempotency_key": args.idempotency_key,
    }
    request = parse_request(OutputRequest, fields)
    once = store_output_once(task_memory(), default_receipts(), call.tenant, args.memory_name, request, call.meter)
    result = once.result
    structured = {
        "memory_name": args.memory_name,
        "namespace": result.namespace,
        "stored": result.stored,
        "replayed": once.replayed,
        "artifact": result.artifact.to_dict(),
    }
    return ToolResult(str(result.artifact.value), structured)


def load_artifacts(call: Call, args: LoadArtifactsArgs) -> ToolResult:
    from offprompt.composition.task_memory import default_service as task_memory
    from offprompt.services.task_memory.load import load_artifacts as load

    loaded = load(
        task_memory(),
        call.tenant,
        args.memory_name,
        args.namespace,
        max_inline_bytes=MAX_INLINE_LOAD_BYTES,
        meter=call.meter,
    )
    if loaded.blobs is not None:
        listing = loaded.blob_listing()
        return ToolResult(
            f"{len(listing['artifacts'])} blob artifacts ({loaded.size} bytes): download_url each", listing
        )
    if loaded.body is None:
        text = f"The namespace is {loaded.size} bytes, too large to answer inline: download_url"
        return ToolResult(text, loaded.download())
    listed = json.loads(loaded.body)
    artifacts = listed.get("value") or []
    text = "\n\n".join(artifact_text(a) for a in artifacts) or f"(namespace {args.namespace} is empty)"
    return ToolResult(text, {"namespace": args.namespace, "artifacts": artifacts})


def search_memory(call: Call, args: Any) -> ToolResult:
    from offprompt.composition.task_memory import default_service as task_memory
    from offprompt.services.task_memory import hit_to_dict
    from offprompt.services.task_memory.search import search

    hits = search(
        task_memory(),
        call.tenant,
        args.memory_name,
        args.namespace,
        args.query,
        args.top_k,
        args.mode,
        meter=call.meter,
    )
    found = [hit_to_dict(h) for h in hits]
    text = "\n\n".join(f"[{i + 1}] {h['text']}" for i, h in enumerate(found)) or "no hits"
    return ToolResult(text, {"hits": found})


def remember(call: Call, args: RememberArgs) -> ToolResult:
    from offprompt.services.records.put import put_record
    from offprompt.services.records.requests import RecordPut

    key = args.key if args.key is not None else uuid.uuid4().hex
    request = validate(RecordPut, {"value": args.record_value(), "ttl_minutes": args.ttl_minutes})
    record = put_record(records(), call.tenant, args.namespace, key, request, meter=call.meter)
    return ToolResult(f"Remembered {record_line(record)} (version {record['version']}).", record)


def recall(call: Call, args: Any) -> ToolResult:
    from offprompt.services.records.requests import RecordSearch
    from offprompt.services.records.search import search_records

    request = validate(RecordSearch, args.model_dump(exclude_none=True))
    found = search_records(records(), call.tenant, request, meter=call.meter)
    items = _keep(call, "recall", found["items"])
    return ToolResult("\n".join(record_line(r, value=True) for r in items) or "no records", {"records": items})


def forget(call: Call, args: ForgetArgs) -> ToolResult:
    from offprompt.services.records.delete import delete_record

    deleted = delete_record(records(), call.tenant, args.namespace, args.key)
    where = f"{'.'.join(args.namespace)}/{args.key}"
    text = f"Forgot {where}." if deleted else f"Nothing was stored under {where}."
    return ToolResult(text, {"namespace": args.namespace, "key": args.key, "deleted": deleted})


register = routes.register
lambda_handler = routes.handler()
