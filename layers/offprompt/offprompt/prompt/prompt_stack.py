"""PromptStack: the ordered messages sent to a model, with Griptape's artifact → content conversion."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from offprompt.artifacts import (
    ActionArtifact,
    AudioArtifact,
    BaseArtifact,
    GenericArtifact,
    ImageArtifact,
    ImageUrlArtifact,
    ListArtifact,
    TextArtifact,
    VideoUrlArtifact,
)
from offprompt.errors import ArtifactError

from .contents import (
    ActionCallMessageContent,
    ActionResultMessageContent,
    AudioMessageContent,
    BaseMessageContent,
    GenericMessageContent,
    ImageMessageContent,
    TextMessageContent,
    VideoMessageContent,
)
from .message import Message


def to_message_content(artifact: str | BaseArtifact) -> list[BaseMessageContent]:
    """Griptape's `PromptStack.__to_message_content`: which content kind each artifact becomes."""
    if isinstance(artifact, str):
        return [TextMessageContent(artifact=TextArtifact(value=artifact))]
    if isinstance(artifact, TextArtifact):
        return [TextMessageContent(artifact=artifact)]
    if isinstance(artifact, ImageArtifact | ImageUrlArtifact):
        return [ImageMessageContent(artifact=artifact)]
    if isinstance(artifact, AudioArtifact):
        return [AudioMessageContent(artifact=artifact)]
    if isinstance(artifact, VideoUrlArtifact):
        return [VideoMessageContent(artifact=artifact)]
    if isinstance(artifact, GenericArtifact):
        return [GenericMessageContent(artifact=artifact)]
    if isinstance(artifact, ActionArtifact):
        output = artifact.value.output
        if output is None:
            return [ActionCallMessageContent(artifact=artifact)]
        return [ActionResultMessageContent(artifact=output, action=artifact.value)]
    if isinstance(artifact, ListArtifact):
        return [content for item in artifact.value for content in to_message_content(item)]
    # Info, Error, Json, Boolean, Blob and the other URL kinds become a *new* TextArtifact of their text.
    try:
        text = artifact.to_text()
    except UnicodeDecodeError as exc:  # a BlobArtifact whose bytes are not text in its encoding
        raise ArtifactError(
            f"{type(artifact).__name__} cannot be a message: its bytes are not {exc.encoding} text "
            f"(byte {exc.start}); store binary data in task memory instead"
        ) from None
    return [TextMessageContent(artifact=TextArtifact(value=text))]


class PromptStack(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", arbitrary_types_allowed=True)

    messages: list[Message] = Field(default_factory=list)

    @property
    def system_messages(self) -> list[Message]:
        return [m for m in self.messages if m.is_system()]

    @property
    def user_messages(self) -> list[Message]:
        return [m for m in self.messages if m.is_user()]

    @property
    def assistant_messages(self) -> list[Message]:
        return [m for m in self.messages if m.is_assistant()]

    def add_message(self, artifact: str | BaseArtifact, role: str) -> Message:
        self.messages.append(Message(list(to_message_content(artifact)), role=role))
        return self.messages[-1]

    def add_system_message(self, artifact: str | BaseArtifact) -> Message:
        return self.add_message(artifact, Message.SYSTEM_ROLE)

    def add_user_message(self, artifact: str | BaseArtifact) -> Message:
        return self.add_message(artifact, Message.USER_ROLE)

    def add_assistant_message(self, artifact: str | BaseArtifact) -> Message:
        return self.add_message(artifact, Message.ASSISTANT_ROLE)

    @classmethod
    def from_artifact(cls, artifact: BaseArtifact) -> PromptStack:
        stack = cls()
        stack.add_user_message(artifact)
        return stack

    def to_dict(self) -> dict[str, Any]:
        return {"type": "PromptStack", "messages": [m.to_dict() for m in self.messages]}

    @classmethod
    def from_dict(cls, data: Any) -> PromptStack:
        if not isinstance(data, dict) or data.get("type", "PromptStack") != "PromptStack":
            raise ArtifactError("a prompt stack must be an object of type PromptStack")
        if unexpected := sorted(set(data) - {"type", "module_name", "messages"}):
            raise ArtifactError(f"PromptStack: unexpected key(s) {', '.join(map(str, unexpected))[:200]}")
        messages = data.get("messages", [])
        if not isinstance(messages, list):
            raise ArtifactError("PromptStack.messages must be a list")
        decoded = []
        for i, m in enumerate(messages):
            try:
                decoded.append(Message.from_dict(m))
            except ArtifactError as exc:
                raise ArtifactError(f"PromptStack.messages[{i}]: {exc.message}") from None
        return cls(messages=decoded)


def prompt_stack_json(messages_json: Iterable[str]) -> str:
    """`json.dumps(stack.to_dict())` from each message's `json.dumps(message.to_dict())`, in order."""
    return '{"type": "PromptStack", "messages": [' + ", ".join(messages_json) + "]}"
