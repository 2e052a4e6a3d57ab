"""Message: one turn of a prompt (role + contents + usage), in Griptape's JSON form."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from offprompt.artifacts import BaseArtifact, ListArtifact, TextArtifact
from offprompt.errors import ArtifactError

from .contents import AnyContent, BaseMessageContent, TextMessageContent, content_from_dict


class Usage(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", allow_inf_nan=False)

    input_tokens: float | None = None
    output_tokens: float | None = None

    @property
    def total_tokens(self) -> float:
        return (self.input_tokens or 0) + (self.output_tokens or 0)

    def to_dict(self) -> dict[str, Any]:
        # Griptape dumps counts as floats (5 → 5.0).
        return {
            "type": "Usage",
            "input_tokens": None if self.input_tokens is None else float(self.input_tokens),
            "output_tokens": None if self.output_tokens is None else float(self.output_tokens),
        }


class Message(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", arbitrary_types_allowed=True)

    USER_ROLE: ClassVar[str] = "user"
    ASSISTANT_ROLE: ClassVar[str] = "assistant"
    SYSTEM_ROLE: ClassVar[str] = "system"

    content: list[AnyContent]
    role: str
    usage: Usage = Field(default_factory=Usage)

    def __init__(self, content: str | list[AnyContent], /, **data: Any) -> None:
        if isinstance(content, str):
            content = [TextMessageContent(artifact=TextArtifact(value=content))]
        super().__init__(content=content, **data)

    def is_system(self) -> bool:
        return self.role == self.SYSTEM_ROLE

    def is_user(self) -> bool:
        return self.role == self.USER_ROLE

    def is_assistant(self) -> bool:
        return self.role == self.ASSISTANT_ROLE

    def is_text(self) -> bool:
        return all(isinstance(c, TextMessageContent) for c in self.content)

    def has_any_content_type(self, content_type: type) -> bool:
        return any(isinstance(c, content_type) for c in self.content)

    def has_all_content_type(self, content_type: type) -> bool:
        return all(isinstance(c, content_type) for c in self.content)

    def get_content_type(self, content_type: type) -> list[Any]:
        return [c for c in self.content if isinstance(c, content_type)]

    def to_text(self) -> str:
        """Text contents only, concatenated with no separator (images and actions count for nothing)."""
        return "".join(c.artifact.to_text() for c in self.content if isinstance(c, TextMessageContent))

    def __str__(self) -> str:
        return self.to_text()

    def to_artifact(self, meta: dict[str, Any] | None = None) -> BaseArtifact:
        artifacts = [c.artifact for c in self.content if isinstance(c, BaseMessageContent)]
        artifact = artifacts[0] if len(artifacts) == 1 else ListArtifact(value=artifacts)
        artifact.meta.update(meta or {})
        return artifact

    @property
    def value(self) -> Any:
        return self.to_artifact().value

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "Message",
            "role": self.role,
            "usage": self.usage.to_dict(),
            "content": [c.to_dict() for c in self.content],
        }

    @classmethod
    def from_dict(cls, data: Any) -> Message:
        if not isinstance(data, dict):
            raise ArtifactError("a message must be a JSON object")
        payload = {k: v for k, v in data.items() if k not in ("type", "module_name")}
        if data.get("type", "Message") != "Message":
            raise ArtifactError(f'expected a Message, got "{str(data.get("type"))[:100]}"')
        if unexpected := sorted(set(payload) - {"role", "usage", "content"}):
            raise ArtifactError(f"Message: unexpected key(s) {', '.join(unexpected)[:200]}")
        content = payload.get("content")
        if not isinstance(content, list):
            raise ArtifactError("Message.content must be a list")
        usage = payload.get("usage")
        usage = {} if usage is None else usage
        if not isinstance(usage, dict):
            raise ArtifactError("Message.usage must be an object")
        usage = {k: v for k, v in usage.items() if k != "type"}
        contents = []
        for i, c in enumerate(content):
            try:
                contents.append(content_from_dict(c))
            except ArtifactError as exc:
                raise ArtifactError(f"Message.content[{i}]: {exc.message}") from None
        try:
            return cls(contents, role=payload.get("role"), usage=Usage.model_validate(usage))
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            loc = ".".join(str(p) for p in first["loc"])
            where = "Message" if first["loc"] and first["loc"][0] in ("role", "content") else "Message.usage"
            raise ArtifactError(f"{where}.{loc}: {first['msg']}") from None
