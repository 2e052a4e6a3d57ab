"""Prompt stacks and messages with Griptape's JSON, and their rendering for token counting. No I/O."""

from .contents import (
    ActionCallDeltaMessageContent,
    ActionCallMessageContent,
    ActionResultMessageContent,
    AudioDeltaMessageContent,
    AudioMessageContent,
    BaseDeltaMessageContent,
    BaseMessageContent,
    GenericMessageContent,
    ImageMessageContent,
    TextDeltaMessageContent,
    TextMessageContent,
    VideoMessageContent,
    content_from_dict,
)
from .message import Message, Usage
from .prompt_stack import PromptStack, to_message_content
from .render import render_message, render_messages

__all__ = [
    "ActionCallDeltaMessageContent",
    "ActionCallMessageContent",
    "ActionResultMessageContent",
    "AudioDeltaMessageContent",
    "AudioMessageContent",
    "BaseDeltaMessageContent",
    "BaseMessageContent",
    "GenericMessageContent",
    "ImageMessageContent",
    "Message",
    "PromptStack",
    "TextDeltaMessageContent",
    "TextMessageContent",
    "Usage",
    "VideoMessageContent",
    "content_from_dict",
    "render_message",
    "render_messages",
    "to_message_content",
]
