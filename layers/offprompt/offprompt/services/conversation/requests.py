"""The conversation API's request bodies (pydantic boundary models) and their validation."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from offprompt.limits import (
    DEFAULT_RUNS_LIMIT,
    DEFAULT_THREAD_SEARCH_LIMIT,
    IDENTIFIER_MAX_CHARS,
    MAX_APPEND_ITEMS,
    MAX_CURSOR_CHARS,
    MAX_ITEMS_LIMIT,
    MAX_LAST_N,
    MAX_LIST_LIMIT,
    MAX_NAME_CHARS,
    MAX_PROMPT_TOKENS,
    MAX_RETENTION_DAYS,
    MAX_SEARCH_CONTEXT,
    MAX_SEARCH_THREAD_IDS,
    MAX_SUMMARY_OFFSET,
    MAX_THREAD_RUNS,
    MAX_THREAD_SEARCH_LIMIT,
    MAX_THREAD_SEARCH_QUERY_CHARS,
)
from offprompt.validation import validate


class PromptStackRequest(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    system: str | dict[str, Any] | None = None
    input: str | dict[str, Any] | None = None
    max_tokens: int | None = Field(default=None, ge=1, le=MAX_PROMPT_TOKENS)
    last_n: int | None = Field(default=None, ge=1, le=MAX_LAST_N)
    # where the memory goes among the system and input messages; past them is a 400 (a rule on the request)
    memory_index: int | None = Field(default=None, ge=0)
    # Count as Griptape would for this model (e.g. "gpt-4o" → o200k_base, "anthropic.claude-3-5-sonnet..." →
    # ceil(chars / 4)), or with this tokenizer: "cl100k_base", "o200k_base", "chars_per_token:N" (ADR 0013).
    model: str | None = Field(default=None, min_length=1, max_length=MAX_NAME_CHARS)
    tokenizer: str | None = Field(default=None, min_length=1, max_length=64)
    # Time travel (docs/adr/0037): the thread as it was right after this run (on a fork, also an ancestor's run).
    as_of_run: str | None = Field(default=None, min_length=1, max_length=MAX_NAME_CHARS)


class ForkRequest(BaseModel):
    """`POST /threads/{thread_id}/fork`: fork after `after_run_id` (default: the newest run) into `thread_id`
    (default: an id derived from `request_id`, or a new one). A retry with the same `request_id` (or the same
    `thread_id` and `after_run_id`) answers the fork made first."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    after_run_id: str | None = Field(default=None, min_length=1, max_length=MAX_NAME_CHARS)
    thread_id: str | None = Field(default=None, min_length=1, max_length=MAX_NAME_CHARS)
    request_id: str | None = Field(default=None, min_length=1, max_length=MAX_NAME_CHARS)


class ThreadConfigRequest(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    max_runs: int | None = Field(default=None, ge=1, le=MAX_THREAD_RUNS)
    memory_type: Literal["buffer", "summary"] | None = None
    offset: int | None = Field(default=None, ge=1, le=MAX_SUMMARY_OFFSET)
    retention_days: int | None = Field(default=None, ge=1, le=MAX_RETENTION_DAYS)
    # Who the conversation is with: extraction strategies' `{actor_id}` (docs/adr/0051); null removes it.
    actor_id: str | None = Field(default=None, min_length=1, max_length=MAX_NAME_CHARS)


class ThreadSearchRequest(BaseModel):
    """`POST /threads/search` (direct `search_threads`, MCP `search_conversations`; docs/adr/0049): the tenant's
    runs and session items by meaning and words, in `thread_ids` and/or under `thread_prefix` (both: the named
    threads under the prefix; neither: every thread), created in [`since`, `until`)."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    query: str = Field(min_length=1, max_length=MAX_THREAD_SEARCH_QUERY_CHARS)
    thread_prefix: str | None = Field(default=None, min_length=1, max_length=IDENTIFIER_MAX_CHARS)
    thread_ids: list[Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS)]] | None = Field(
        default=None, min_length=1, max_length=MAX_SEARCH_THREAD_IDS
    )
    limit: int = Field(default=DEFAULT_THREAD_SEARCH_LIMIT, ge=1, le=MAX_THREAD_SEARCH_LIMIT)
    mode: Literal["hybrid", "bm25", "knn"] = "hybrid"
    #: ISO 8601 times with a zone (or epoch seconds as a string).
    since: str | None = Field(default=None, min_length=1, max_length=64)
    until: str | None = Field(default=None, min_length=1, max_length=64)
    #: "search": answer only once every write acknowledged before the request, in the threads searched, is
    #: searchable (a bounded wait; `X-Offprompt-Searchable: false` when it gave up).
    consistency: Literal["search"] | None = None
    #: The runs (items) before and after each hit to answer with, in the thread searched.
    context: int = Field(default=0, ge=0, le=MAX_SEARCH_CONTEXT)


M = TypeVar("M", bound=BaseModel)


class RunsQuery(BaseModel):
    """`GET /threads/{thread_id}/runs` query parameters (and the same fields of a direct `list_runs`)."""

    model_config = ConfigDict(defer_build=True, extra="ignore")

    limit: int = Field(default=DEFAULT_RUNS_LIMIT, ge=1, le=MAX_LIST_LIMIT)
    cursor: str | None = Field(default=None, max_length=MAX_CURSOR_CHARS)
    order: Literal["asc", "desc"] = "asc"
    as_of_run: str | None = Field(default=None, min_length=1, max_length=MAX_NAME_CHARS)


class ThreadsQuery(BaseModel):
    """`GET /threads` query parameters (and the same fields of a direct `list_threads`): a page of the tenant's
    threads, the most recently written first (`order=activity`, the default) or by id (`order=id`), optionally only
    those whose id starts with `prefix`."""

    model_config = ConfigDict(defer_build=True, extra="ignore")

    limit: int = Field(default=DEFAULT_RUNS_LIMIT, ge=1, le=MAX_LIST_LIMIT)
    cursor: str | None = Field(default=None, max_length=MAX_CURSOR_CHARS)
    prefix: str | None = Field(default=None, max_length=IDENTIFIER_MAX_CHARS)
    order: Literal["activity", "id"] = "activity"


class RunIn(BaseModel):
    """Griptape's Run JSON as a client sends it (artifacts are decoded by the service: `invalid_artifact`)."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    type: Literal["Run"] | None = None
    module_name: str | None = None
    id: str | None = None
    meta: dict[str, Any] | None = None
    input: dict[str, Any]
    output: dict[str, Any]


class ItemsIn(BaseModel):
    """`POST /threads/{thread_id}/items`: framework session items (OpenAI Agents SDK input items, Strands messages:
    JSON objects) to append in order. `request_id` makes a retry converge: the same id and items are stored once."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    items: list[dict[str, Any]] = Field(min_length=1, max_length=MAX_APPEND_ITEMS)
    request_id: str | None = Field(default=None, min_length=1, max_length=MAX_NAME_CHARS)


class ItemsQuery(BaseModel):
    """`GET /threads/{thread_id}/items`: the newest `limit` items before seq `before` (all when absent), or the
    newest that fit `max_tokens`."""

    model_config = ConfigDict(defer_build=True, extra="ignore")

    limit: int | None = Field(default=None, ge=1, le=MAX_ITEMS_LIMIT)  # 20, or MAX_ITEMS_LIMIT with max_tokens
    before: int | None = Field(default=None, ge=1)
    # The newest items whose stored counts (cl100k_base over each item's JSON) fit, never a tool result without
    # its call (offprompt.memory.items).
    max_tokens: int | None = Field(default=None, ge=1, le=MAX_PROMPT_TOKENS)


def parse_model(model: type[M], data: Any) -> M:
    """Validate a request: SchemaInvalid (422 `schema_invalid`, `details: [{loc, type, msg}]`) when it does not fit."""
    return validate(model, data)
