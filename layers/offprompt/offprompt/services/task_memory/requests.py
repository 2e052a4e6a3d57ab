"""Task memory's request bodies (pydantic models shared by the HTTP and direct adapters) and their validation."""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from offprompt.artifacts.action import ToolAction
from offprompt.errors import SchemaInvalid
from offprompt.limits import MAX_QUERY_CHARS, MAX_TOP_K

_M = TypeVar("_M", bound=BaseModel)


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ActionIn(_Request):
    type: Literal["ToolAction"] | None = None
    tag: str
    name: str
    path: str | None = None
    input: dict[str, Any] = Field(default_factory=dict)

    def to_action(self) -> ToolAction:
        return ToolAction(tag=self.tag, name=self.name, path=self.path, input=self.input)


class OutputRequest(_Request):
    tool: str = Field(min_length=1, max_length=256)
    activity: str = Field(min_length=1, max_length=256)
    artifact: dict[str, Any]
    actions: list[ActionIn] = Field(default_factory=list)
    thought: str | None = None
    value_from: dict[str, Any] | None = None


class SearchRequest(_Request):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    top_k: int = Field(default=5, ge=1, le=MAX_TOP_K, strict=True)
    mode: Literal["bm25", "knn", "hybrid"] = "bm25"


def parse_request(model: type[_M], data: Any) -> _M:
    """Validate a request; SchemaInvalid (with pydantic's error list in `details`) when it does not fit."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = [
            {"loc": [str(p) for p in e["loc"]], "type": e["type"], "msg": e["msg"]}
            for e in exc.errors(include_url=False)[:20]
        ]
        raise SchemaInvalid("request does not match the schema", details={"errors": errors}) from None
