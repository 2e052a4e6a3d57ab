"""Render a prompt stack to text the way Griptape's prompt drivers do before counting tokens.

`BasePromptDriver.prompt_stack_to_string` (used by the OpenAI, Anthropic and Bedrock drivers): each message as
`User: {text}` / `Assistant: {text}` / `{text}` (system), then `Assistant:`, all joined by blank lines.
Only text contents count (`Message.to_text()`), so images and actions render as nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from .message import Message

SEPARATOR = "\n\n"
TRAILER = "Assistant:"


def render_message(message: Message) -> str:
    text = message.to_text()
    if message.is_user():
        return f"User: {text}"
    if message.is_assistant():
        return f"Assistant: {text}"
    return text


def render_messages(messages: Iterable[Message]) -> str:
    return SEPARATOR.join([*(render_message(m) for m in messages), TRAILER])
