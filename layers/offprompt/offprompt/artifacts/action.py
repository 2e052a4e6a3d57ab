"""ToolAction and ActionArtifact: a model's call of a tool (and, in process, its output)."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from .base import BaseArtifact, is_wire


class ToolAction(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", arbitrary_types_allowed=True)

    type: Literal["ToolAction"] = Field(default="ToolAction", exclude=True)
    tag: str
    name: str
    path: str | None = None
    input: dict[str, Any] = Field(default_factory=dict)
    # Not serialized, as in Griptape: the tool's result once the action has run.
    output: BaseArtifact | None = Field(default=None, exclude=True)

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "ToolAction",
            "tag": self.tag,
            "name": self.name,
            "path": self.path,
            "input": self.input,
        }

    def __str__(self) -> str:
        return json.dumps(self.to_dict())

    def to_native_tool_name(self) -> str:
        return self.name if self.path is None else f"{self.name}_{self.path}"

    @staticmethod
    def from_native_tool_name(native_tool_name: str) -> tuple[str, str | None]:
        name, _, path = native_tool_name.partition("_")
        return name, (path if path or native_tool_name.endswith("_") else None)


class ActionArtifact(BaseArtifact):
    value: ToolAction

    @field_validator("value", mode="before")
    @classmethod
    def _to_action(cls, value: Any, info: ValidationInfo) -> Any:
        if is_wire(info) and isinstance(value, dict):
            return ToolAction.model_validate(value)
        return value

    def value_to_dict(self) -> dict[str, Any]:
        return self.value.to_dict()

    def __bool__(self) -> bool:
        return True

    def __len__(self) -> int:
        raise TypeError("object of type 'ActionArtifact' has no len()")

    def to_text(self) -> str:
        return str(self.value)
