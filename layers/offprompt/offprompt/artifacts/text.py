"""Text-valued artifacts: Text, Info and Error."""

from __future__ import annotations

from typing import Any

from pydantic import Field, ValidationInfo, field_validator

from .base import BaseArtifact, is_wire


class _StrArtifact(BaseArtifact):
    value: str

    @field_validator("value", mode="before")
    @classmethod
    def _to_str(cls, value: Any, info: ValidationInfo) -> Any:
        # Griptape's converter is `str(value)`; on the wire only a string is accepted (marshmallow String).
        return value if is_wire(info) else str(value)

    def to_text(self) -> str:
        return self.value


class TextArtifact(_StrArtifact):
    """Text. Whitespace-only text is *empty* (falsy), as in Griptape: task memory depends on it."""

    def __bool__(self) -> bool:
        return bool(self.value.strip())

    def __add__(self, other: BaseArtifact) -> TextArtifact:
        return TextArtifact(value=self.value + other.value)


class InfoArtifact(_StrArtifact):
    """An informational message to the model (e.g. the off-prompt reference line)."""


class ErrorArtifact(_StrArtifact):
    """An error message; `exception` lives only in process memory and is not serialized."""

    exception: Exception | None = Field(default=None, exclude=True)
