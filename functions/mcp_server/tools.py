"""The MCP tools: each one validates its arguments (its model is its JSON Schema) and calls ONE existing use case
through the composition root, as the HTTP route it mirrors does; never HTTP to itself.

| tool             | use case                                         | the route it mirrors                           |
| ---------------- | ------------------------------------------------ | ---------------------------------------------- |
| append_turn      | conversation.add_run                             | POST /threads/{thread_id}/runs                 |
| get_context      | conversation.prompt_stack                        | POST /threads/{thread_id}/prompt-stack         |
| get_recent_turns | conversation.thread_admin.list_runs (desc)       | GET /threads/{thread_id}/runs?order=desc       |
| list_threads     | conversation.cloud_threads.find (by alias)       | GET /api/threads?alias=                        |
| store_output     | task_memory.process_output (.idempotent_output)  | POST /memories/{memory_name}/outputs           |
| load_artifacts   | task_memory.load                                 | GET /memories/{m}/namespaces/{ns}/artifacts    |
| search_memory    | task_memory.search                               | POST /memories/{m}/namespaces/{ns}/search      |

Writes and searches are charged to the request's meter (hosted keys) exactly as their routes charge them.
Nothing here runs at import: the schemas are built on the first `tools/list`, the services on the first call.
"""

from __future__ import annotations

import functools
import json
import uuid
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from offprompt.composition.conversation import default_cloud_threads
from offprompt.composition.conversation import default_service as conversation
from offprompt.composition.task_memory import default_receipts
from offprompt.composition.task_memory import default_service as task_memory
from offprompt.limits import (
    IDENTIFIER_MAX_CHARS,
    MAX_LAST_N,
    MAX_LIST_LIMIT,
    MAX_NAME_CHARS,
    MAX_PROMPT_TOKENS,
    MAX_QUERY_CHARS,
    MAX_TOP_K,
)
from offprompt.metering import Meter
from offprompt.services.conversation import PromptStackRequest, parse_model, thread_admin
from offprompt.services.conversation.add_run import add_run
from offprompt.services.conversation.prompt_stack import build_prompt_stack
from offprompt.services.task_memory import OutputRequest, hit_to_dict, parse_request, process_once
from offprompt.services.task_memory.load import load_artifacts as load
from offprompt.services.task_memory.process_output import process_output
from offprompt.services.task_memory.search import search

from .protocol import Tool, ToolResult

DEFAULT_MEMORY = "TaskMemory"  # Griptape's TaskMemory name: what a Griptape agent's reference lines say
#: load_artifacts answers inline up to this many bytes of ListArtifact JSON (its text goes into the result twice,
#: as content and as structuredContent, under Lambda's 6 MB response); past it, a presigned GET.
MAX_INLINE_LOAD_BYTES = 1_000_000


@dataclass(frozen=True)
class Call:
    """Who calls: the tenant (from the authorizer) and the request's meter (hosted keys; else None)."""

    tenant: str
    meter: Meter | None = None


class _Args(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)


# Identifiers carry no length bounds in their schemas: the library checks them (`check_identifier`: 400
# invalid_input), so a bad one gets the code its HTTP route gives for the same path segment.
def _thread_id() -> Any:
    return Field(description="The conversation thread's id (any text up to 256 characters without '/')")


def _memory() -> Any:
    return Field(
        default=DEFAULT_MEMORY, description=f'The task memory\'s name (default "{DEFAULT_MEMORY}", as in Griptape)'
    )


def _namespace() -> Any:
    return Field(description="The artifact_namespace a store_output reference line names")


# ---- conversation ------------------------------------------------------------------------------------------
class AppendTurnArgs(_Args):
    thread_id: str = _thread_id()
    input: str = Field(description="What the user said (the turn's input)")
    output: str = Field(description="What the assistant answered (the turn's output)")
    run_id: str | None = Field(
        default=None, description="An id for the turn: a retry with the same id and text stores nothing twice"
    )


def append_turn(call: Call, args: AppendTurnArgs) -> ToolResult:

    run_id = args.run_id or uuid.uuid4().hex
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


class GetContextArgs(_Args):
    thread_id: str = _thread_id()
    max_tokens: int | None = Field(
        default=None, ge=1, le=MAX_PROMPT_TOKENS, description="Token budget: the newest turns that fit are kept"
    )
    input: str | None = Field(default=None, description="The next user message, counted in the budget")
    system: str | None = Field(default=None, description="A system prompt, counted in the budget")
    last_n: int | None = Field(default=None, ge=1, le=MAX_LAST_N, description="At most this many turns")


def get_context(call: Call, args: GetContextArgs) -> ToolResult:

    request = parse_model(PromptStackRequest, args.model_dump(exclude={"thread_id"}, exclude_none=True))
    result = build_prompt_stack(conversation(), call.tenant, args.thread_id, request)
    messages = [{"role": m.role, "content": m.to_text()} for m in result.stack.messages]
    over = request.max_tokens is not None and result.tokens >= request.max_tokens
    structured = {"thread_id": args.thread_id, "messages": messages, "tokens": result.tokens, "over_budget": over}
    text = "\n".join(f"{m['role']}: {m['content']}" for m in messages) or "(the thread has no turns)"
    return ToolResult(text, structured)


class RecentTurnsArgs(_Args):
    thread_id: str = _thread_id()
    limit: int = Field(default=10, ge=1, le=MAX_LIST_LIMIT, description="How many of the newest turns")


def _artifact_text(artifact: Any) -> str:
    value = artifact.get("value") if isinstance(artifact, dict) else None
    return value if isinstance(value, str) else json.dumps(artifact)


def get_recent_turns(call: Call, args: RecentTurnsArgs) -> ToolResult:

    page = thread_admin.list_runs(conversation(), call.tenant, args.thread_id, limit=args.limit, order="desc")
    turns = [
        {
            "seq": entry["seq"],
            "run_id": entry["run"].get("id"),
            "input": _artifact_text(entry["run"].get("input")),
            "output": _artifact_text(entry["run"].get("output")),
            "created_at": entry["created_at"],
        }
        for entry in reversed(page["runs"])  # oldest first, as a transcript reads
    ]
    text = "\n".join(f"user: {t['input']}\nassistant: {t['output']}" for t in turns) or "(the thread has no turns)"
    return ToolResult(text, {"thread_id": args.thread_id, "turns": turns})


class ListThreadsArgs(_Args):
    alias: str = Field(min_length=1, max_length=IDENTIFIER_MAX_CHARS, description="The thread's alias")


def list_threads(call: Call, args: ListThreadsArgs) -> ToolResult:

    found = default_cloud_threads().find(call.tenant, {"alias": args.alias})
    threads = found["threads"]
    text = json.dumps(threads) if threads else f"no thread has the alias {args.alias!r}"
    return ToolResult(text, {"threads": threads})


# ---- task memory -------------------------------------------------------------------------------------------
class StoreOutputArgs(_Args):
    output: str = Field(min_length=1, description="The tool output to keep off-prompt (text)")
    tool: str = Field(min_length=1, max_length=MAX_NAME_CHARS, description="The tool that produced it")
    activity: str = Field(min_length=1, max_length=MAX_NAME_CHARS, description="The tool's activity")
    memory_name: str = _memory()
    idempotency_key: str | None = Field(
        default=None,
        min_length=1,
        max_length=IDENTIFIER_MAX_CHARS,
        description="A retry with the same key and output gets the first answer, nothing stored twice",
    )


def store_output(call: Call, args: StoreOutputArgs) -> ToolResult:

    artifact = {"type": "TextArtifact", "value": args.output}
    request = parse_request(
        OutputRequest,
        {"tool": args.tool, "activity": args.activity, "artifact": artifact, "idempotency_key": args.idempotency_key},
    )

    def run() -> Any:
        return process_output(
            task_memory(),
            call.tenant,
            args.memory_name,
            tool=request.tool,
            activity=request.activity,
            artifact=request.artifact,
            meter=call.meter,
        )

    once = process_once(default_receipts(), call.tenant, args.memory_name, request, run)
    result = once.result
    structured = {
        "memory_name": args.memory_name,
        "namespace": result.namespace,
        "stored": result.stored,
        "replayed": once.replayed,
        "artifact": result.artifact.to_dict(),
    }
    return ToolResult(str(result.artifact.value), structured)


class LoadArtifactsArgs(_Args):
    namespace: str = _namespace()
    memory_name: str = _memory()


def load_artifacts(call: Call, args: LoadArtifactsArgs) -> ToolResult:

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
        structured = {"download_url": loaded.download_url, "expires_in": loaded.expires_in, "size": loaded.size}
        return ToolResult(f"The namespace is {loaded.size} bytes, too large to answer inline: download_url", structured)
    listed = json.loads(loaded.body)
    artifacts = listed.get("value") or []
    text = "\n\n".join(_artifact_text(a) for a in artifacts) or f"(namespace {args.namespace} is empty)"
    return ToolResult(text, {"namespace": args.namespace, "artifacts": artifacts})


class SearchMemoryArgs(_Args):
    namespace: str = _namespace()
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What to look for")
    top_k: int = Field(default=5, ge=1, le=MAX_TOP_K, description="How many hits, best first")
    mode: Literal["bm25", "knn", "hybrid"] = Field(
        default="bm25", description="bm25: words; knn: meaning (embeddings); hybrid: both"
    )
    memory_name: str = _memory()


def search_memory(call: Call, args: SearchMemoryArgs) -> ToolResult:

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


@functools.cache
def tools() -> tuple[Tool, ...]:
    """The tool table, in the order `tools/list` gives it (built on first use)."""
    return (
        Tool(
            "append_turn",
            "Append a turn",
            "Store one finished conversation turn (the user's input and the assistant's output) at the end of a "
            "thread; the thread is created on first use.",
            AppendTurnArgs,
            append_turn,
        ),
        Tool(
            "get_context",
            "Get the context that fits a budget",
            "The thread's history as chat messages, newest turns kept, trimmed to fit max_tokens (with the system "
            "prompt and the next input counted); summary threads start with their summary.",
            GetContextArgs,
            get_context,
            read_only=True,
        ),
        Tool(
            "get_recent_turns",
            "Read recent turns",
            "The newest turns of a thread, oldest first, with their input and output text.",
            RecentTurnsArgs,
            get_recent_turns,
            read_only=True,
        ),
        Tool(
            "list_threads",
            "Find threads by alias",
            "The threads with this alias (offprompt keeps no tenant-wide thread list: look a thread up by its alias).",
            ListThreadsArgs,
            list_threads,
            read_only=True,
        ),
        Tool(
            "store_output",
            "Store a big output off-prompt",
            "Keep a large tool output out of the prompt: it is stored in task memory and a one-line reference naming "
            "its memory_name and artifact_namespace comes back; load_artifacts or search_memory read it later.",
            StoreOutputArgs,
            store_output,
        ),
        Tool(
            "load_artifacts",
            "Load stored output",
            "Everything stored in one artifact_namespace, in order (a reference line from store_output names it).",
            LoadArtifactsArgs,
            load_artifacts,
            read_only=True,
        ),
        Tool(
            "search_memory",
            "Search stored output",
            "Search the text stored in one artifact_namespace; the best matching chunks, best first.",
            SearchMemoryArgs,
            search_memory,
            read_only=True,
        ),
    )
