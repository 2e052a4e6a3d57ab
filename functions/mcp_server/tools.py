"""The MCP tools as `tools/list` describes them: each one's arguments (a strict pydantic model, its JSON Schema), title
and description; and the helpers that shape their answers. What each tool calls lives in the handler, one use case
per tool as one per route (so a tool call crosses handler → use case → adapter, tests/infrastructure/test_call_depth):

| tool             | use case                                         | the route it mirrors                           |
| ---------------- | ------------------------------------------------ | ---------------------------------------------- |
| append_turn      | conversation.add_run                             | POST /threads/{thread_id}/runs                 |
| get_context      | conversation.prompt_stack                        | POST /threads/{thread_id}/prompt-stack         |
| get_recent_turns | conversation.thread_admin.list_runs (desc)       | GET /threads/{thread_id}/runs?order=desc       |
| list_threads     | conversation.cloud_threads.find (by alias)       | GET /api/threads?alias=                        |
| search_conversations | conversation.search (search_threads)         | POST /threads/search                           |
| store_output     | task_memory.process_output (.idempotent_output)  | POST /memories/{memory_name}/outputs           |
| load_artifacts   | task_memory.load                                 | GET /memories/{m}/namespaces/{ns}/artifacts    |
| search_memory    | task_memory.search                               | POST /memories/{m}/namespaces/{ns}/search      |
| remember         | records.put (put_record)                         | PUT /records/{namespace}/{key}                 |
| recall           | records.search (search_records)                  | POST /records/search                           |
| forget           | records.delete (delete_record)                   | DELETE /records/{namespace}/{key}              |

Nothing here runs at import: the schemas are built on the first `tools/list`.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from offprompt.limits import (
    DEFAULT_THREAD_SEARCH_LIMIT,
    IDENTIFIER_MAX_CHARS,
    MAX_LAST_N,
    MAX_LIST_LIMIT,
    MAX_NAME_CHARS,
    MAX_PROMPT_TOKENS,
    MAX_QUERY_CHARS,
    MAX_RECORD_SEARCH_LIMIT,
    MAX_SEARCH_CONTEXT,
    MAX_SEARCH_THREAD_IDS,
    MAX_THREAD_SEARCH_LIMIT,
    MAX_THREAD_SEARCH_QUERY_CHARS,
    MAX_TOP_K,
)
from offprompt.metering import Meter
from offprompt.services.audit import Actor

DEFAULT_MEMORY = "TaskMemory"  # Griptape's TaskMemory name: what a Griptape agent's reference lines say
#: load_artifacts answers inline up to this many bytes of ListArtifact JSON (its text goes into the result twice,
#: as content and as structuredContent, under Lambda's 6 MB response); past it, a presigned GET.
MAX_INLINE_LOAD_BYTES = 1_000_000


@dataclass(frozen=True)
class Spec:
    """A tool as a model reads about it."""

    title: str
    description: str
    arguments: type[BaseModel]
    read_only: bool = False


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
    """Who calls: the tenant (from the authorizer) and the request's meter (hosted keys; else None)."""

    tenant: str
    meter: Meter | None = None
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


# ---- conversation ------------------------------------------------------------------------------------------
class AppendTurnArgs(_Args):
    thread_id: str = _thread_id()
    input: str = Field(description="What the user said (the turn's input)")
    output: str = Field(description="What the assistant answered (the turn's output)")
    run_id: str | None = Field(
        default=None, description="An id for the turn: a retry with the same id and text stores nothing twice"
    )


class GetContextArgs(_Args):
    thread_id: str = _thread_id()
    max_tokens: int | None = Field(
        default=None, ge=1, le=MAX_PROMPT_TOKENS, description="Token budget: the newest turns that fit are kept"
    )
    input: str | None = Field(default=None, description="The next user message, counted in the budget")
    system: str | None = Field(default=None, description="A system prompt, counted in the budget")
    last_n: int | None = Field(default=None, ge=1, le=MAX_LAST_N, description="At most this many turns")
    as_of_run: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_NAME_CHARS,
        description="Rebuild the context as it was right after this turn (its run_id): later turns are left out",
    )


class RecentTurnsArgs(_Args):
    thread_id: str = _thread_id()
    limit: int = Field(default=10, ge=1, le=MAX_LIST_LIMIT, description="How many of the newest turns")


class ListThreadsArgs(_Args):
    alias: str = Field(min_length=1, max_length=IDENTIFIER_MAX_CHARS, description="The thread's alias")


class SearchConversationsArgs(_Args):
    """`POST /threads/search`'s fields (docs/adr/0049); the use case checks them as it checks the route's."""

    query: str = Field(
        min_length=1, max_length=MAX_THREAD_SEARCH_QUERY_CHARS, description="What to look for, in the user's words"
    )
    thread_prefix: str | None = Field(
        default=None, description='Only threads whose id starts with this (e.g. one user\'s threads: "user-42-")'
    )
    thread_ids: list[str] | None = Field(
        default=None, min_length=1, max_length=MAX_SEARCH_THREAD_IDS, description="Only these threads"
    )
    limit: int = Field(
        default=DEFAULT_THREAD_SEARCH_LIMIT, ge=1, le=MAX_THREAD_SEARCH_LIMIT, description="How many turns, best first"
    )
    mode: Literal["hybrid", "bm25", "knn"] = Field(
        default="hybrid", description="hybrid: meaning and words; bm25: words; knn: meaning (embeddings)"
    )
    since: str | None = Field(default=None, description="Only turns written at or after this ISO 8601 time")
    until: str | None = Field(default=None, description="Only turns written before this ISO 8601 time")
    context: int = Field(
        default=0, ge=0, le=MAX_SEARCH_CONTEXT, description="Also return this many turns before and after each hit"
    )


def hit_text(hit: dict[str, Any]) -> str:
    """A search hit for the model: where it is, then the turn's text (an item's JSON)."""
    where = f"[{hit['thread_id']} #{hit['seq']}, {hit['created_at']}]"
    if "run" in hit:
        run = hit["run"]
        return f"{where} user: {artifact_text(run.get('input'))}\n  assistant: {artifact_text(run.get('output'))}"
    return f"{where} {json.dumps(hit['item'], ensure_ascii=False)}"


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


class LoadArtifactsArgs(_Args):
    namespace: str = _namespace()
    memory_name: str = _memory()


class SearchMemoryArgs(_Args):
    namespace: str = _namespace()
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What to look for")
    top_k: int = Field(default=5, ge=1, le=MAX_TOP_K, description="How many hits, best first")
    mode: Literal["bm25", "knn", "hybrid"] = Field(
        default="bm25", description="bm25: words; knn: meaning (embeddings); hybrid: both"
    )
    memory_name: str = _memory()


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


class RecallArgs(_Args):
    namespace_prefix: list[str] = Field(
        default_factory=list,
        description='Search the records under these labels, e.g. ["users", "u1"] (default: every record)',
    )
    query: str | None = Field(default=None, description="Text to look for (default: newest records first)")
    filter: dict[str, Any] | None = Field(
        default=None,
        description='Conditions on value fields (a dotted name such as "user.level" reaches into nested objects): '
        '{"field": value} or {"field": {"$eq"|"$ne"|"$gt"|"$gte"|"$lt"|"$lte": value}}, all ANDed',
    )
    limit: int = Field(default=10, ge=1, le=MAX_RECORD_SEARCH_LIMIT, description="How many records at most")
    as_of: str | float | int | None = Field(
        default=None,
        description="Recall what was true at this time (ISO 8601 with a zone, or epoch seconds) instead of now",
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
        ),
        "get_context": Spec(
            "Get the context that fits a budget",
            "The thread's history as chat messages, newest turns kept, trimmed to fit max_tokens (with the system "
            "prompt and the next input counted); summary threads start with their summary.",
            GetContextArgs,
            read_only=True,
        ),
        "get_recent_turns": Spec(
            "Read recent turns",
            "The newest turns of a thread, oldest first, with their input and output text.",
            RecentTurnsArgs,
            read_only=True,
        ),
        "list_threads": Spec(
            "Find threads by alias",
            "The threads with this alias (offprompt keeps no tenant-wide thread list: look a thread up by its alias).",
            ListThreadsArgs,
            read_only=True,
        ),
        "search_conversations": Spec(
            "Search past conversations",
            "Find what was said in any of the tenant's past conversation turns (all threads, a thread id prefix such "
            "as one user's, or named threads), by meaning and words; the best matching turns first, each with its "
            "thread and position (context adds the turns around it).",
            SearchConversationsArgs,
            read_only=True,
        ),
        "store_output": Spec(
            "Store a big output off-prompt",
            "Keep a large tool output out of the prompt: it is stored in task memory and a one-line reference naming "
            "its memory_name and artifact_namespace comes back; load_artifacts or search_memory read it later.",
            StoreOutputArgs,
        ),
        "load_artifacts": Spec(
            "Load stored output",
            "Everything stored in one artifact_namespace, in order (a reference line from store_output names it).",
            LoadArtifactsArgs,
            read_only=True,
        ),
        "search_memory": Spec(
            "Search stored output",
            "Search the text stored in one artifact_namespace; the best matching chunks, best first.",
            SearchMemoryArgs,
            read_only=True,
        ),
        "remember": Spec(
            "Remember a fact",
            "Store a long-term record (a fact, a preference, a summary) under a namespace and key; the same key "
            "replaces it, and the old version stays in its history (recall with as_of reads it).",
            RememberArgs,
        ),
        "recall": Spec(
            "Recall facts",
            "Search long-term records under a namespace prefix by text and/or field filters; the current versions "
            "(or those valid at as_of), best first (newest first without a query).",
            RecallArgs,
            read_only=True,
        ),
        "forget": Spec(
            "Forget a fact",
            "Delete a long-term record (its history keeps the deletion); forgetting nothing is not an error.",
            ForgetArgs,
        ),
    }
