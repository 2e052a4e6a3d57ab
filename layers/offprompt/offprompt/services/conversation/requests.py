"""The conversation API's request bodies (pydantic boundary models) and their validation."""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from offprompt.errors import InvalidInput


class PromptStackRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    system: str | dict[str, Any] | None = None
    input: str | dict[str, Any] | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    last_n: int | None = Field(default=None, ge=1)
    memory_index: int | None = Field(default=None, ge=0)
    # Count as Griptape would for this model (e.g. "gpt-4o" → o200k_base, "anthropic.claude-3-5-sonnet..." →
    # ceil(chars / 4)), or with this tokenizer: "cl100k_base", "o200k_base", "chars_per_token:N" (ADR 0013).
    model: str | None = Field(default=None, min_length=1, max_length=256)
    tokenizer: str | None = Field(default=None, min_length=1, max_length=64)


class ThreadConfigRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    max_runs: int | None = Field(default=None, ge=1, le=100_000)
    memory_type: Literal["buffer", "summary"] | None = None
    offset: int | None = Field(default=None, ge=1, le=10_000)
    retention_days: int | None = Field(default=None, ge=1, le=36_500)


M = TypeVar("M", bound=BaseModel)


def parse_model(model: type[M], data: Any) -> M:
    """Validate a direct-invocation payload: InvalidInput (400) naming the first problem."""
    if not isinstance(data, dict):
        raise InvalidInput("expected a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        first = errors[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        details = {"errors": [{"loc": list(e["loc"]), "type": e["type"], "msg": e["msg"]} for e in errors]}
        raise InvalidInput(f"{where}: {first['msg']}", details=details) from None
