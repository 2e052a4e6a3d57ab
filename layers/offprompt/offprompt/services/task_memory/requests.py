"""Task memory's request bodies (pydantic models shared by the HTTP and direct adapters) and their validation."""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from offprompt.artifacts.action import ToolAction
from offprompt.limits import (
    DEFAULT_PAGE_LIMIT,
    IDENTIFIER_MAX_CHARS,
    MAX_CURSOR_CHARS,
    MAX_NAME_CHARS,
    MAX_PAGE_LIMIT,
    MAX_QUERY_CHARS,
    MAX_TOP_K,
)
from offprompt.validation import validate

_M = TypeVar("_M", bound=BaseModel)


class _Request(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid")


class ActionIn(_Request):
    type: Literal["ToolAction"] | None = None
    tag: str
    name: str
    path: str | None = None
    input: dict[str, Any] = Field(default_factory=dict)

    def to_action(self) -> ToolAction:
        return ToolAction(tag=self.tag, name=self.name, path=self.path, input=self.input)


class OutputRequest(_Request):
    tool: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    activity: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    artifact: dict[str, Any]
    actions: list[ActionIn] = Field(default_factory=list)
    thought: str | None = None
    value_from: dict[str, Any] | None = None
    #: Makes retries safe: the same key and request get the first answer, nothing stored twice (ADR 0026).
    idempotency_key: str | None = Field(default=None, min_length=1, max_length=IDENTIFIER_MAX_CHARS)
    #: ADR 0031: stores do not wait for search unless asked.
    consistency: Literal["load", "search"] = Field(
        default="load",
        description='"load": answer once the output is durable and loadable; a search finds its text within the '
        'index\'s refresh interval (1 s on a domain, 10-60 s on OpenSearch Serverless). "search": answer once a '
        "search finds it too (header X-Offprompt-Searchable).",
    )


class SearchRequest(_Request):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    top_k: int = Field(default=5, ge=1, le=MAX_TOP_K, strict=True)
    mode: Literal["bm25", "knn", "hybrid"] = "bm25"


class PageQuery(BaseModel):
    """`limit` and `cursor` of the list routes (query parameters, or the same fields of a direct event)."""

    model_config = ConfigDict(defer_build=True, extra="ignore")

    limit: int = Field(default=DEFAULT_PAGE_LIMIT, ge=1, le=MAX_PAGE_LIMIT)
    cursor: str | None = Field(default=None, max_length=MAX_CURSOR_CHARS)


def parse_request(model: type[_M], data: Any) -> _M:
    """Validate a request; SchemaInvalid (with `[{loc, type, msg}]` in `details`) when it does not fit."""
    return validate(model, data)
