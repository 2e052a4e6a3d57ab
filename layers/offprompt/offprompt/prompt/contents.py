"""Message contents: what a Message holds, each wrapping one artifact (Griptape's `*MessageContent`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from offprompt.artifacts import (
    ActionArtifact,
    AudioArtifact,
    BaseArtifact,
    GenericArtifact,
    ImageArtifact,
    ImageUrlArtifact,
    ToolAction,
    VideoUrlArtifact,
)
from offprompt.artifacts.base import check_json
from offprompt.errors import ArtifactError


class BaseDeltaMessageContent(BaseModel):
    """A streamed fragment of content (kept for JSON compatibility; offprompt stores whole messages)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")
    index: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"type": type(self).__name__, **self.model_dump()}


class TextDeltaMessageContent(BaseDeltaMessageContent):
    text: str


class ActionCallDeltaMessageContent(BaseDeltaMessageContent):
    tag: str | None = None
    name: str | None = None
    path: str | None = None
    partial_input: str | None = None


class AudioDeltaMessageContent(BaseDeltaMessageContent):
    id: str | None = None
    data: str | None = None
    transcript: str | None = None
    expires_at: int | None = None


class BaseMessageContent(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", arbitrary_types_allowed=True)

    artifact: BaseArtifact
    # The artifact kinds this content may wrap (checked on decode and construction).
    accepts: ClassVar[tuple[type[BaseArtifact], ...]] = (BaseArtifact,)

    def __init__(self, *args: BaseArtifact, **data: Any) -> None:
        # Griptape passes the artifact positionally: `TextMessageContent(artifact)`.
        if len(args) > 1:
            raise TypeError(f"{type(self).__name__}() takes the artifact as its only positional argument")
        if args:
            data["artifact"] = args[0]
        artifact = data.get("artifact")
        if not isinstance(artifact, self.accepts):
            allowed = " or ".join(a.__name__ for a in self.accepts)
            raise ArtifactError(f"{type(self).__name__} holds a {allowed}, not a {type(artifact).__name__}")
        super().__init__(**data)

    def to_dict(self) -> dict[str, Any]:
        return {"type": type(self).__name__, "artifact": self.artifact.to_dict()}

    def to_text(self) -> str:
        return self.artifact.to_text()

    def __str__(self) -> str:
        return self.to_text()

    def __bool__(self) -> bool:
        return bool(self.artifact)

    def __len__(self) -> int:
        return len(self.artifact)


class TextMessageContent(BaseMessageContent):
    pass


class ImageMessageContent(BaseMessageContent):
    accepts = (ImageArtifact, ImageUrlArtifact)


class AudioMessageContent(BaseMessageContent):
    accepts = (AudioArtifact,)


class VideoMessageContent(BaseMessageContent):
    accepts = (VideoUrlArtifact,)


class GenericMessageContent(BaseMessageContent):
    accepts = (GenericArtifact,)


class ActionCallMessageContent(BaseMessageContent):
    accepts = (ActionArtifact,)

    @classmethod
    def from_deltas(cls, deltas: Sequence[BaseDeltaMessageContent]) -> ActionCallMessageContent:
        tag = name = path = None
        json_input = ""
        for delta in deltas:
            if isinstance(delta, ActionCallDeltaMessageContent):
                tag = delta.tag if delta.tag is not None else tag
                name = delta.name if delta.name is not None else name
                path = delta.path if delta.path is not None else path
                json_input += delta.partial_input or ""
        if tag is None or name is None or path is None:
            raise ValueError("Missing required fields for ToolAction")
        try:
            parsed = json.loads(json_input or "{}")
        except json.JSONDecodeError as exc:
            raise ValueError("Invalid JSON input for ToolAction") from exc
        return cls(artifact=ActionArtifact(value=ToolAction(tag=tag, name=name, path=path, input=parsed)))


class ActionResultMessageContent(BaseMessageContent):
    action: ToolAction

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "action": self.action.to_dict()}


AnyContent = BaseMessageContent | BaseDeltaMessageContent

_CONTENTS: dict[str, type[BaseMessageContent]] = {
    c.__name__: c
    for c in (
        TextMessageContent,
        ImageMessageContent,
        AudioMessageContent,
        VideoMessageContent,
        GenericMessageContent,
        ActionCallMessageContent,
        ActionResultMessageContent,
    )
}
_DELTAS: dict[str, type[BaseDeltaMessageContent]] = {
    c.__name__: c for c in (TextDeltaMessageContent, ActionCallDeltaMessageContent, AudioDeltaMessageContent)
}


def content_from_dict(data: Any) -> AnyContent:
    """Decode one content object from Griptape's JSON form."""
    if not isinstance(data, dict):
        raise ArtifactError("a message content must be a JSON object")
    payload = dict(data)
    payload.pop("module_name", None)
    type_name = payload.pop("type", None)
    if not isinstance(type_name, str):
        raise ArtifactError(f'a message content needs a string "type", got {str(type_name)[:100]}')
    if type_name in _DELTAS:
        try:
            return _DELTAS[type_name].model_validate(payload)
        except ValueError as exc:
            raise ArtifactError(f"{type_name}: {exc}") from None
    cls = _CONTENTS.get(type_name)
    if cls is None:
        known = ", ".join([*_CONTENTS, *_DELTAS])
        raise ArtifactError(f'unknown message content type "{str(type_name)[:100]}" (known: {known})')
    allowed = {"artifact", "action"} if cls is ActionResultMessageContent else {"artifact"}
    if unexpected := sorted(set(payload) - allowed):
        raise ArtifactError(f"{type_name}: unexpected key(s) {', '.join(unexpected)[:200]}")
    if "artifact" not in payload:
        raise ArtifactError(f"{type_name}.artifact is required")
    artifact = BaseArtifact.from_dict(payload["artifact"])
    if cls is ActionResultMessageContent:
        if not isinstance(payload.get("action"), dict):
            raise ArtifactError("ActionResultMessageContent.action must be a ToolAction object")
        check_json(payload["action"], "ActionResultMessageContent.action")
        try:
            action = ToolAction.model_validate(payload["action"])
        except ValueError as exc:
            raise ArtifactError(f"ActionResultMessageContent.action: {exc}") from None
        return ActionResultMessageContent(artifact=artifact, action=action)
    return cls(artifact=artifact)
