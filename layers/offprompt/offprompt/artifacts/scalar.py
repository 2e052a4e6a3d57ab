"""Artifacts holding a JSON value: Json, Boolean, Generic (and Griptape's ModelArtifact)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ValidationInfo, field_validator

from .base import BaseArtifact, dumps, is_wire


class JsonArtifact(BaseArtifact):
    """JSON data. Python construction parses strings (Griptape's converter); the wire value is kept as is."""

    @field_validator("value", mode="before")
    @classmethod
    def _to_json(cls, value: Any, info: ValidationInfo) -> Any:
        if is_wire(info):
            return value
        try:
            return json.loads(value) if isinstance(value, str) else json.loads(dumps(value))
        except ValueError as exc:
            raise ValueError(f"not JSON: {exc}") from None

    def to_text(self) -> str:
        return json.dumps(self.value)


def parse_bool(value: Any) -> bool:
    """`True`/`False` or the strings "true"/"false" (any case); anything else is an error."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise ValueError(f"Cannot convert '{value}' to BooleanArtifact")


class BooleanArtifact(BaseArtifact):
    """A boolean. Unlike Griptape, `BooleanArtifact("false")` is False (strings are parsed, not truth-tested)."""

    value: bool

    @field_validator("value", mode="before")
    @classmethod
    def _to_bool(cls, value: Any, info: ValidationInfo) -> bool:
        if is_wire(info) or isinstance(value, str):
            return parse_bool(value)
        return bool(value)

    @classmethod
    def parse_bool(cls, value: Any) -> BooleanArtifact:
        return cls(value=parse_bool(value))

    def __add__(self, other: BaseArtifact) -> BooleanArtifact:
        raise ValueError("Cannot add BooleanArtifact with other artifacts")

    def __eq__(self, other: object) -> bool:
        return bool(self.value == other)

    __hash__ = None  # type: ignore[assignment]

    def to_text(self) -> str:
        return str(self.value).lower()


class GenericArtifact(BaseArtifact):
    """Any JSON value. `to_text()` is Python's `str()` of it, as in Griptape."""

    def to_text(self) -> str:
        return str(self.value)


class ModelArtifact(GenericArtifact):
    """A pydantic model's data. Loaded back as a plain dict (Griptape loads a `RootModel(dict)`)."""

    def value_to_dict(self) -> Any:
        return self.value.model_dump() if isinstance(self.value, BaseModel) else self.value

    def to_text(self) -> str:
        if isinstance(self.value, BaseModel):
            return self.value.model_dump_json()
        return json.dumps(self.value, separators=(",", ":"), ensure_ascii=False)
