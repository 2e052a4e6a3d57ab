"""A canned Griptape prompt driver and a small tool, for e2e tests that run real Griptape Agents offline.

`CannedPromptDriver` answers like a model that uses tools natively: when the prompt's last message carries no
tool result yet, it calls the tool named by `tool_call` (or answers directly when there is none); once a result
is there, it answers `answer to <question>`. It records every prompt stack it is given.
"""

from __future__ import annotations

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

ToolCall = Callable[[str], tuple[str, str, dict[str, Any]] | None]


def question_of(stack: PromptStack) -> str:
    """The text of the newest user message that is not a tool result (the question being answered)."""
    for message in reversed(stack.messages):
        if message.is_user() and not message.has_any_content_type(ActionResultMessageContent):
            return message.to_text()
    return ""


@define
class CannedPromptDriver(BasePromptDriver):
    model: str = field(default="canned", kw_only=True)
    tokenizer: BaseTokenizer = field(
        default=Factory(
            lambda: SimpleTokenizer(characters_per_token=4, max_input_tokens=100_000, max_output_tokens=1000)
        ),
        kw_only=True,
    )
    use_native_tools: bool = field(default=True, kw_only=True)
    tool_call: ToolCall | None = field(default=None, kw_only=True)
    prompts: list[PromptStack] = field(factory=list, kw_only=True)
    calls: int = field(default=0, kw_only=True)

    def try_run(self, prompt_stack: PromptStack) -> Message:
        self.prompts.append(prompt_stack)
        self.calls += 1
        last = prompt_stack.messages[-1]
        question = question_of(prompt_stack)
        call = self.tool_call(question) if self.tool_call is not None else None
        if last.has_any_content_type(ActionResultMessageContent) or call is None:
            content: list[Any] = [TextMessageContent(TextArtifact(f"answer to {question}"))]
        else:
            name, path, values = call
            action = ToolAction(tag=f"call-{self.calls}", name=name, path=path, input=values)
            content = [
                TextMessageContent(TextArtifact(f"calling {name}.{path}")),
                ActionCallMessageContent(ActionArtifact(action)),
            ]
        return Message(
            content=content, role=Message.ASSISTANT_ROLE, usage=Message.Usage(input_tokens=1, output_tokens=1)
        )

    def try_stream(self, prompt_stack: PromptStack) -> Iterator[DeltaMessage]:
        raise NotImplementedError("the canned driver does not stream")


@define
class SummaryPromptDriver(CannedPromptDriver):
    """Answers every prompt with a summary line naming how many prompts it has summarized."""

    def try_run(self, prompt_stack: PromptStack) -> Message:
        self.prompts.append(prompt_stack)
        self.calls += 1
        return Message(f"summary #{self.calls}", role=Message.ASSISTANT_ROLE)


class EchoTool(BaseTool):
    @activity(
        config={
            "description": "Echoes its text",
            "schema": Schema({Literal("text", description="what to echo"): str}),
        }
    )
    def echo(self, params: dict[str, Any]) -> BaseArtifact:
        return TextArtifact(f"echo: {params['values']['text']}")


def echo_call(question: str) -> tuple[str, str, dict[str, Any]]:
    return "EchoTool", "echo", {"text": question}


Step = Callable[[PromptStack, list[str]], tuple[str, str, dict[str, Any]] | str]


@define
class ScriptedPromptDriver(CannedPromptDriver):
    """Follows `script(prompt_stack, tool_results_so_far)`: a (tool, activity, values) call, or the answer text."""

    script: Step | None = field(default=None, kw_only=True)

    def try_run(self, prompt_stack: PromptStack) -> Message:
        self.prompts.append(prompt_stack)
        self.calls += 1
        assert self.script is not None
        results = [
            content.artifact.to_text()
            for message in prompt_stack.messages
            for content in message.get_content_type(ActionResultMessageContent)
        ]
        step = self.script(prompt_stack, results)
        if isinstance(step, str):
            return Message(step, role=Message.ASSISTANT_ROLE, usage=Message.Usage(input_tokens=1, output_tokens=1))
        name, path, values = step
        action = ToolAction(tag=f"call-{self.calls}", name=name, path=path, input=values)
        content = [
            TextMessageContent(TextArtifact(f"thinking about {name}.{path}")),
            ActionCallMessageContent(ActionArtifact(action)),
        ]
        return Message(
            content=content, role=Message.ASSISTANT_ROLE, usage=Message.Usage(input_tokens=1, output_tokens=1)
        )


@define
class Cl100kTokenizer(BaseTokenizer):
    """Griptape's tokenizer interface over offprompt's cl100k_base counter (offline, the bundled BPE file), so
    Griptape's own autoprune and offprompt's prompt-stack count the same tokens."""

    model: str = field(default="cl100k", kw_only=True)

    def count_tokens(self, text: str) -> int:
        from offprompt.adapters.tokenizer import TiktokenTokenizer

        return TiktokenTokenizer("cl100k_base").count_tokens(text)


class BigOutputTool(BaseTool):
    """Returns `size` characters of text: too much for any prompt."""

    @activity(config={"description": "Fetches a large document", "schema": Schema({Literal("size"): int})})
    def fetch(self, params: dict[str, Any]) -> BaseArtifact:
        size = params["values"]["size"]
        line = "offprompt keeps this line out of the prompt. "
        return TextArtifact((line * (size // len(line) + 1))[:size])


class MemoryReaderTool(BaseTool):
    """Reads a task-memory namespace (as Griptape's QueryTool / ExtractionTool do) and reports its size."""

    @activity(
        config={
            "description": "Reads an artifact namespace from task memory",
            "schema": Schema({Literal("memory_name"): str, Literal("artifact_namespace"): str}),
        }
    )
    def read(self, params: dict[str, Any]) -> BaseArtifact:
        import hashlib

        values = params["values"]
        memory = self.find_input_memory(values["memory_name"])
        if memory is None:
            return TextArtifact(f"no memory named {values['memory_name']}")
        artifacts = memory.load_artifacts(values["artifact_namespace"])
        text = "".join(a.to_text() for a in artifacts.value)
        return TextArtifact(f"read {len(text)} characters, sha256 {hashlib.sha256(text.encode()).hexdigest()}")


INVOICES = {"INV-1042": "1,234.56 EUR", "INV-2718": "99.00 USD", "INV-3141": "7,000.00 CHF"}
FILLER = "Lorem ipsum filler that no query is about, repeated to make the report long. "


class ReportTool(BaseTool):
    """Returns a long report (about 200 KB) with three invoice lines buried in filler text."""

    @activity(config={"description": "Fetches a quarterly report", "schema": Schema({Literal("quarter"): str})})
    def fetch(self, params: dict[str, Any]) -> BaseArtifact:
        parts = [f"Report for {params['values']['quarter']}\n"]
        for number, (invoice, total) in enumerate(INVOICES.items()):
            parts.append(FILLER * 800 + "\n")
            parts.append(f"Invoice {invoice} total: {total} (line {number}).\n")
        parts.append(FILLER * 800)
        return TextArtifact("".join(parts))


@define
class RagAnswerDriver(CannedPromptDriver):
    """Answers a RAG prompt (Griptape's QueryTool) with the lines of its system prompt that contain the query."""

    def try_run(self, prompt_stack: PromptStack) -> Message:
        self.prompts.append(prompt_stack)
        self.calls += 1
        system = "\n".join(m.to_text() for m in prompt_stack.messages if m.is_system())
        query = question_of(prompt_stack)
        found = [line.strip() for line in system.splitlines() if query and query in line]
        return Message(" | ".join(found) or "nothing found", role=Message.ASSISTANT_ROLE)


@define
class InvoiceExtractionDriver(CannedPromptDriver):
    """Answers an extraction prompt (Griptape's JsonExtractionEngine) with a JSON list of the invoice lines of the
    text it is given, as a model following the template schema would."""

    def try_run(self, prompt_stack: PromptStack) -> Message:
        import json
        import re

        self.prompts.append(prompt_stack)
        self.calls += 1
        text = "\n".join(m.to_text() for m in prompt_stack.messages if m.is_user())
        rows = [{"invoice": i, "total": t} for i, t in re.findall(r"Invoice (INV-\d+) total: ([^(]+?) \(", text)]
        return Message(f"Here you go:\n{json.dumps(rows)}", role=Message.ASSISTANT_ROLE)
