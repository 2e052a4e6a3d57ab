"""The records API's request bodies and queries (pydantic boundary models). Domain rules (labels, filters, index
paths, TTL ranges, times) are checked by the use cases with `offprompt.memory.records` (400 `invalid_input`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from offprompt.limits import MAX_QUERY_CHARS, MAX_RECORD_HISTORY, MAX_RECORD_SEARCH_LIMIT, MAX_RECORD_SEARCH_OFFSET
from offprompt.memory.records import MAX_LABELS

Time = str | float | int


class RecordPut(BaseModel):
    """`PUT /records/{namespace}/{key}`: the value (a JSON object), what of it to index (`false`: nothing; a list of
    field paths; default: every string), and its TTL in minutes (default: the namespace's, else none)."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    value: dict[str, Any]
    index: Literal[False] | list[str] | None = None
    ttl_minutes: float | int | None = None


class RecordRead(BaseModel):
    """`GET /records/{namespace}/{key}?as_of=&refresh_ttl=`."""

    model_config = ConfigDict(defer_build=True, extra="ignore")

    as_of: Time | None = None
    refresh_ttl: bool = True


class HistoryQuery(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="ignore")

    limit: int = Field(default=100, ge=1, le=MAX_RECORD_HISTORY)


class RecordSearch(BaseModel):
    """`POST /records/search`."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    namespace_prefix: list[str] = Field(default_factory=list, max_length=MAX_LABELS)
    query: str | None = Field(default=None, max_length=MAX_QUERY_CHARS)
    filter: dict[str, Any] | None = None
    limit: int = Field(default=10, ge=1, le=MAX_RECORD_SEARCH_LIMIT)
    offset: int = Field(default=0, ge=0, le=MAX_RECORD_SEARCH_OFFSET)
    as_of: Time | None = None
    refresh_ttl: bool = True
    mode: Literal["bm25", "knn", "hybrid"] = "bm25"


class NamespacesQuery(BaseModel):
    """`POST /records/namespaces`: LangGraph's list_namespaces (prefix/suffix labels may be "*")."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    prefix: list[str] | None = Field(default=None, max_length=MAX_LABELS)
    suffix: list[str] | None = Field(default=None, max_length=MAX_LABELS)
    max_depth: int | None = Field(default=None, ge=1, le=MAX_LABELS)
    limit: int = Field(default=100, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)


class NamespaceSettings(BaseModel):
    """`PUT /record-namespaces/{namespace}`: the TTL (minutes) of puts that give none; null removes it."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    default_ttl_minutes: float | int | None
