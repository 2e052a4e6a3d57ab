"""The MCP tools as `tools/list` describes them, in one table (`specs()`): each tool's title, description, arguments,
the route it mirrors and the use case it calls; and the helpers that shape their answers. What each tool calls lives
in the handler, one use case per tool as one per route (so a tool call crosses handler → use case → adapter,
tests/infrastructure/test_call_depth).

A tool whose route reads a request model takes its arguments from that model (`route_arguments`: an include list and
a description per field, the route's types, bounds and defaults), plus the route's path parameters; only what the
tool alone has is declared here. docs/mcp.md's tool table is generated from `specs()` (`make routes`).

Nothing here runs at import: the schemas are built on the first `tools/list`.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator
from pydantic.fields import FieldInfo

from offprompt.limits import IDENTIFIER_MAX_CHARS, MAX_LIST_LIMIT
from offprompt.metering import Meter
from offprompt.services.account.scopes import Scope
from offprompt.services.audit import Actor
from offprompt.services.conversation.requests import PromptStackRequest, ThreadSearchRequest
from offprompt.services.records.requests import RecordSearch
from offprompt.services.task_memory.requests import OutputRequest, SearchRequest

DEFAULT_MEMORY = "TaskMemory"  # Griptape's TaskMemory name: what a Griptape agent's reference lines say
#: load_artifacts answers inline up to this many bytes of ListArtifact JSON (its text goes into the result twice,
#: as content and as structuredContent, under Lambda's 6 MB response); past it, a presigned GET.
MAX_INLINE_LOAD_BYTES = 1_000_000


@dataclass(frozen=True)
class Spec:
    """A tool: what a model reads about it, and what it stands for (the route it mirrors, the use case it calls)."""

    title: str
    description: str
    arguments: type[BaseModel]
    route: str  # the route it mirrors, as `METHOD /path` (a query string where the tool fixes one)
    use_case: str  # the use case it calls (a module under offprompt.services, and the function)
    read_only: bool = False
    #: The route's request model its arguments are taken from (None: the route reads path and query parameters).
    request: type[BaseModel] | None = None


def artifact_text(artifact: Any) -> str:
    """An artifact's text for the model: its value when it is a string, else its JSON."""
    value = artifact.get("value") if isinstance(artifact, dict) else None
    return value if isinstance(value, str) else json.dumps(artifact)


def record_line(record: dict[str, Any], *, value: bool = False) -> str:
    """A record for the model: `namespace.path/key`, and with `value` its value's JSON."""
    where = f"{'.'.join(record['namespace'])}/{record['key']}"
    return f"{where}: {json.dumps(record['value'], ensure_ascii=False)}" if value else where


def transcript(turns: list[dict[str, Any]]) -> str:
    return "\n".join(f"{t['role']}: {t['content']}" for t in turns) or "(the thread has no turns)"


@dataclass(frozen=True)
class Call:
    """Who calls: the tenant (from the authorizer), the request's meter (hosted keys; else None) and what the key
    or token may reach (None: the whole tenant)."""

    tenant: str
    meter: Meter | None = None
    scope: Scope | None = None
    #: Who calls (the audit log's actor; docs/adr/0056): None outside a request (tests).
    actor: Actor | None = None


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


def route_arguments(
    name: str, request: type[BaseModel], include: dict[str, str], **own: tuple[Any, Any]
) -> type[BaseModel]:
    """A tool's arguments: `own` fields first (the route's path parameters, what only the tool has), then the fields
    `include` names of the route's request model, each with the model's type, bounds and default and the description
    given (what a model reads). A name the request model does not have is a bug here, said at the first tools/list."""
    fields: dict[str, Any] = dict(own)
    for field, description in include.items():
        info = request.model_fields.get(field)
        if info is None:
            raise TypeError(f"{name}: {request.__name__} has no field {field!r}")
        fields[field] = (info.annotation, FieldInfo.merge_field_infos(info, description=description))
    model: type[BaseModel] = create_model(name, __base__=_Args, **fields)
    return model


# ---- conversation ------------------------------------------------------------------------------------------
class AppendTurnArgs(_Args):
    thread_id: str = _thread_id()
    input: str = Field(description="What the user said (the turn's input)")
    output: str = Field(description="What the assistant answered (the turn's output)")
    run_id: str | None = Field(
        default=None, description="An id for the turn: a retry with the same id and text stores nothing twice"
    )


def get_context_args() -> type[BaseModel]:
    return route_arguments(
        "GetContextArgs",
        PromptStackRequest,
        {
            "max_tokens": "Token budget: the newest turns that fit are kept",
            "input": "The next user message, counted in the budget",
            "system": "A system prompt, counted in the budget",
            "last_n": "At most this many turns",
            "as_of_run": "Rebuild the context as it was right after this turn (its run_id): later turns are left out",
        },
        thread_id=(str, _thread_id()),
    )


class RecentTurnsArgs(_Args):
    thread_id: str = _thread_id()
    limit: int = Field(default=10, ge=1, le=MAX_LIST_LIMIT, description="How many of the newest turns")


class ListThreadsArgs(_Args):
    alias: str = Field(min_length=1, max_length=IDENTIFIER_MAX_CHARS, description="The thread's alias")


def search_conversations_args() -> type[BaseModel]:
    """`POST /threads/search`'s fields (docs/adr/0049) but `consistency`."""
    return route_arguments(
        "SearchConversationsArgs",
        ThreadSearchRequest,
        {
            "query": "What to look for, in the user's words",
            "thread_prefix": 'Only threads whose id starts with this (e.g. one user\'s threads: "user-42-")',
            "thread_ids": "Only these threads",
            "limit": "How many turns, best first",
            "mode": "hybrid: meaning and words; bm25: words; knn: meaning (embeddings)",
            "since": "Only turns written at or after this ISO 8601 time",
            "until": "Only turns written before this ISO 8601 time",
            "context": "Also return this many turns before and after each hit",
        },
    )


def hit_text(hit: dict[str, Any]) -> str:
    """A search hit for the model: where it is, then the turn's text (an item's JSON)."""
    where = f"[{hit['thread_id']} #{hit['seq']}, {hit['created_at']}]"
    if "run" in hit:
        run = hit["run"]
        return f"{where} user: {artifact_text(run.get('input'))}\n  assistant: {artifact_text(run.get('output'))}"
    return f"{where} {json.dumps(hit['item'], ensure_ascii=False)}"


# ---- task memory -------------------------------------------------------------------------------------------
def store_output_args() -> type[BaseModel]:
    """process-output's fields but the artifact (the tool takes text: `output`) and the Griptape-only ones."""
    return route_arguments(
        "StoreOutputArgs",
        OutputRequest,
        {
            "tool": "The tool that produced it",
            "activity": "The tool's activity",
            "idempotency_key": "A retry with the same key and output gets the first answer, nothing stored twice",
        },
        output=(str, Field(min_length=1, description="The tool output to keep off-prompt (text)")),
        memory_name=(str, _memory()),
    )


class LoadArtifactsArgs(_Args):
    namespace: str = _namespace()
    memory_name: str = _memory()


def search_memory_args() -> type[BaseModel]:
    return route_arguments(
        "SearchMemoryArgs",
        SearchRequest,
        {
            "query": "What to look for",
            "top_k": "How many hits, best first",
            "mode": "bm25: words; knn: meaning (embeddings); hybrid: both",
        },
        namespace=(str, _namespace()),
        memory_name=(str, _memory()),
    )


# ---- long-term records (docs/adr/0034) ---------------------------------------------------------------------
# Labels and keys carry no bounds in the schemas either: `check_namespace` / `check_key` give the route's 400.
def _labels(what: str) -> Any:
    return Field(
        description=f'{what}: a list of labels, e.g. ["users", "u1", "facts"] (each an identifier without \'.\')'
    )


class RememberArgs(_Args):
    namespace: list[str] = _labels("Where the record lives")
    key: str | None = Field(
        default=None, description="The record's key in its namespace (default: a new one); an existing key is replaced"
    )
    value: dict[str, Any] | None = Field(default=None, description="The record: a JSON object (or give text)")
    text: str | None = Field(default=None, description='Shorthand for value {"text": text}')
    ttl_minutes: float | int | None = Field(
        default=None, description="Forget it after this many minutes (default: the namespace's TTL, else never)"
    )

    @model_validator(mode="after")
    def _one_value(self) -> RememberArgs:
        if (self.value is None) == (self.text is None):
            raise ValueError("give exactly one of value (a JSON object) and text")
        return self

    def record_value(self) -> dict[str, Any]:
        return self.value if self.value is not None else {"text": self.text}


def recall_args() -> type[BaseModel]:
    """`POST /records/search`'s fields but paging (`offset`) and `refresh_ttl`."""
    return route_arguments(
        "RecallArgs",
        RecordSearch,
        {
            "namespace_prefix": 'Search the records under these labels, e.g. ["users", "u1"] (default: every record)',
            "query": "Text to look for (default: newest records first)",
            "filter": 'Conditions on value fields (a dotted name such as "user.level" reaches into nested objects): '
            '{"field": value} or {"field": {"$eq"|"$ne"|"$gt"|"$gte"|"$lt"|"$lte": value}}, all ANDed',
            "limit": "How many records at most",
            "as_of": "Recall what was true at this time (ISO 8601 with a zone, or epoch seconds) instead of now",
            "mode": "bm25: words; knn: meaning (embeddings); hybrid: both",
        },
    )


class ForgetArgs(_Args):
    namespace: list[str] = _labels("The record's namespace")
    key: str = Field(description="The record's key")


@functools.cache
def specs() -> dict[str, Spec]:
    """What `tools/list` says of each tool, in its order (built on first use); the handler pairs each with its call."""
    return {
        "append_turn": Spec(
            "Append a turn",
            "Store one finished conversation turn (the user's input and the assistant's output) at the end of a "
            "thread; the thread is created on first use.",
            AppendTurnArgs,
            "POST /threads/{thread_id}/runs",
            "conversation.add_run",
        ),
        "get_context": Spec(
            "Get the context that fits a budget",
            "The thread's history as chat messages, newest turns kept, trimmed to fit max_tokens (with the system "
            "prompt and the next input counted); summary threads start with their summary.",
            get_context_args(),
            "POST /threads/{thread_id}/prompt-stack",
            "conversation.prompt_stack",
            read_only=True,
            request=PromptStackRequest,
        ),
        "get_recent_turns": Spec(
            "Read recent turns",
            "The newest turns of a thread, oldest first, with their input and output text.",
            RecentTurnsArgs,
            "GET /threads/{thread_id}/runs?order=desc",
            "conversation.thread_admin.list_runs",
            read_only=True,
        ),
        "list_threads": Spec(
            "Find threads by alias",
            "The threads with this alias (an alias names at most one thread; GET /threads lists all of the tenant's, "
            "the most recently written first).",
            ListThreadsArgs,
            "GET /api/threads?alias=",
            "conversation.cloud_threads.find",
            read_only=True,
        ),
        "search_conversations": Spec(
            "Search past conversations",
            "Find what was said in any of the tenant's past conversation turns (all threads, a thread id prefix such "
            "as one user's, or named threads), by meaning and words; the best matching turns first, each with its "
            "thread and position (context adds the turns around it).",
            search_conversations_args(),
            "POST /threads/search",
            "conversation.search.search_threads",
            read_only=True,
            request=ThreadSearchRequest,
        ),
        "store_output": Spec(
            "Store a big output off-prompt",
            "Keep a large tool output out of the prompt: it is stored in task memory and a one-line reference naming "
            "its memory_name and artifact_namespace comes back; load_artifacts or search_memory read it later.",
            store_output_args(),
            "POST /memories/{memory_name}/outputs",
            "task_memory.process_output.store_output",
            request=OutputRequest,
        ),
        "load_artifacts": Spec(
            "Load stored output",
            "Everything stored in one artifact_namespace, in order (a reference line from store_output names it).",
            LoadArtifactsArgs,
            "GET /memories/{memory_name}/namespaces/{namespace}/artifacts",
            "task_memory.load.load_artifacts",
            read_only=True,
        ),
        "search_memory": Spec(
            "Search stored output",
            "Search the text stored in one artifact_namespace; the best matching chunks, best first.",
            search_memory_args(),
            "POST /memories/{memory_name}/namespaces/{namespace}/search",
            "task_memory.search.search",
            read_only=True,
            request=SearchRequest,
        ),
        "remember": Spec(
            "Remember a fact",
            "Store a long-term record (a fact, a preference, a summary) under a namespace and key; the same key "
            "replaces it, and the old version stays in its history (recall with as_of reads it).",
            RememberArgs,
            "PUT /records/{namespace}/{key}",
            "records.put.put_record",
        ),
        "recall": Spec(
            "Recall facts",
            "Search long-term records under a namespace prefix by text and/or field filters; the current versions "
            "(or those valid at as_of), best first (newest first without a query).",
            recall_args(),
            "POST /records/search",
            "records.search.search_records",
            read_only=True,
            request=RecordSearch,
        ),
        "forget": Spec(
            "Forget a fact",
            "Delete a long-term record (its history keeps the deletion); forgetting nothing is not an error.",
            ForgetArgs,
            "DELETE /records/{namespace}/{key}",
            "records.delete.delete_record",
        ),
    }
