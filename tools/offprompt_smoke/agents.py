"""Real Griptape Agents for the driver checks, offline: a scripted prompt driver (a model that uses tools natively,
recording every prompt it is given) and two tools (one returns a big document, one reads task memory).

Imported only by the Griptape checks (`offprompt_smoke.drivers`), when they run: importing Griptape takes seconds.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from typing import Any

from attrs import Factory, define, field
from griptape.artifacts import ActionArtifact, BaseArtifact, TextArtifact
from griptape.common import (
    ActionCallMessageContent,
    ActionResultMessageContent,
    DeltaMessage,
    Message,
    PromptStack,
    TextMessageContent,
    ToolAction,
)
from griptape.drivers.prompt import BasePromptDriver
from griptape.tokenizers import BaseTokenizer, SimpleTokenizer
from griptape.tools import BaseTool
from griptape.utils.decorators import activity
from schema import Literal, Schema

#: A step: the (tool, activity, input values) to call next, or the answer text.
Step = tuple[str, str, dict[str, Any]] | str
Script = Callable[[str, list[str]], Step]
LINE = "offprompt keeps this line out of the prompt. "


def answer(question: str, results: list[str]) -> Step:
    """The plain script: answer every question directly."""
    return f"answer to {question}"


def question_of(stack: PromptStack) -> str:
    """The newest user message that is not a tool result: the question being answered."""
    for message in reversed(stack.messages):
        if message.is_user() and not message.has_any_content_type(ActionResultMessageContent):
            return message.to_text()
    return ""


@define
class ScriptedPromptDriver(BasePromptDriver):
    """Follows `script(question, tool results so far)`, one step per prompt; keeps every prompt in `prompts`."""

    model: str = field(default="smoke-scripted", kw_only=True)
    tokenizer: BaseTokenizer = field(
        default=Factory(
            lambda: SimpleTokenizer(characters_per_token=4, max_input_tokens=100_000, max_output_tokens=1000)
        ),
        kw_only=True,
    )
    use_native_tools: bool = field(default=True, kw_only=True)
    script: Script = field(default=answer, kw_only=True)
    prompts: list[PromptStack] = field(factory=list, kw_only=True)

    def try_run(self, prompt_stack: PromptStack) -> Message:
        self.prompts.append(prompt_stack)
        results = [
            content.artifact.to_text()
            for message in prompt_stack.messages
            for content in message.get_content_type(ActionResultMessageContent)
        ]
        step = self.script(question_of(prompt_stack), results)
        usage = Message.Usage(input_tokens=1, output_tokens=1)
        if isinstance(step, str):
            return Message(content=[TextMessageContent(TextArtifact(step))], role=Message.ASSISTANT_ROLE, usage=usage)
        name, path, values = step
        action = ToolAction(tag=f"call-{len(self.prompts)}", name=name, path=path, input=values)
        content = [
            TextMessageContent(TextArtifact(f"thinking about {name}.{path}")),
            ActionCallMessageContent(ActionArtifact(action)),
        ]
        return Message(content=content, role=Message.ASSISTANT_ROLE, usage=usage)

    def try_stream(self, prompt_stack: PromptStack) -> Iterator[DeltaMessage]:
        raise NotImplementedError("the scripted driver does not stream")

    def seen(self) -> str:
        """Everything the prompts carried, as text."""
        return "\n".join(str(stack.to_dict()) for stack in self.prompts)


def document(size: int) -> str:
    return (LINE * (size // len(LINE) + 1))[:size]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class BigDocumentTool(BaseTool):
    """Returns `size` characters of text: too much for a prompt (use it with `off_prompt=True`)."""

    @activity(config={"description": "Fetches a large document", "schema": Schema({Literal("size"): int})})
    def fetch(self, params: dict[str, Any]) -> BaseArtifact:
        return TextArtifact(document(params["values"]["size"]))


class MemoryReaderTool(BaseTool):
    """Reads a task-memory namespace, as Griptape's QueryTool does (`find_input_memory` + `load_artifacts`), and
    reports its size and SHA-256."""

    @activity(
        config={
            "description": "Reads an artifact namespace from task memory",
            "schema": Schema({Literal("memory_name"): str, Literal("artifact_namespace"): str}),
        }
    )
    def read(self, params: dict[str, Any]) -> BaseArtifact:
        values = params["values"]
        memory = self.find_input_memory(values["memory_name"])
        if memory is None:
            return TextArtifact(f"no memory named {values['memory_name']}")
        text = "".join(a.to_text() for a in memory.load_artifacts(values["artifact_namespace"]).value)
        return TextArtifact(f"read {len(text)} characters, sha256 {digest(text)}")
