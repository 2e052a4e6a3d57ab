"""offprompt_client with the `griptape` extra, in a venv holding only `offprompt-client[griptape]` (real
griptape 1.13.0, no server library, no repository), against the real local stack: the client's default answers
decode into Griptape's classes, and Griptape Agents run on the drivers of `offprompt_client.griptape`. Run by
tests/e2e/test_client_standalone.py, once per check (each a test of its own):

    python -I with_griptape.py CHECK API_URL TENANT

Prints `ok` when the isolation check and CHECK passed (a traceback and exit status 1 otherwise).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import logging
import random
import re
import sys
import time
import urllib.parse
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from attrs import Factory, define, field
from griptape.artifacts import ActionArtifact, BaseArtifact, BlobArtifact, InfoArtifact, ListArtifact, TextArtifact
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
from griptape.memory.structure import ConversationMemory, Run
from griptape.structures import Agent
from griptape.tokenizers import BaseTokenizer, SimpleTokenizer
from griptape.tools import BaseTool
from griptape.utils.decorators import activity
from schema import Literal, Schema

from offprompt_client import OffpromptClient
from offprompt_client.griptape import (
    OffpromptConversationMemory,
    OffpromptConversationMemoryDriver,
    OffpromptTaskMemory,
)

BLOB_BYTES = 6 * 1024 * 1024 + 2  # base64 past the 5 MB response limit: BlobDownloads; padded with "="
RESPONSE_LIMIT = 5 * 1024 * 1024
TEXT_CHARS = 1_900_000  # mostly non-ASCII: about 6 MB as JSON, past the response limit (a 303 to a presigned GET)
REFERENCE = re.compile(r'memory_name "([^"]+)" and artifact_namespace "([^"]+)"')
Step = tuple[str, str, dict[str, Any]]


def uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def big_blob() -> bytes:
    return random.Random(7).randbytes(BLOB_BYTES)


def big_text() -> str:
    line = "ünïcödé ✓✓✓ ñandú €uro groß çà øå "
    return (line * (TEXT_CHARS // len(line) + 1))[:TEXT_CHARS]


def artifacts_path(memory: str, namespace: str) -> str:
    return (
        f"/memories/{urllib.parse.quote(memory, safe='')}/namespaces/{urllib.parse.quote(namespace, safe='')}/artifacts"
    )


@define
class ScriptedPromptDriver(BasePromptDriver):
    """A model using tools natively: it calls `steps` in turn, one per prompt, then answers `answer to <question>`."""

    model: str = field(default="scripted", kw_only=True)
    tokenizer: BaseTokenizer = field(
        default=Factory(
            lambda: SimpleTokenizer(characters_per_token=4, max_input_tokens=100_000, max_output_tokens=99)
        ),
        kw_only=True,
    )
    use_native_tools: bool = field(default=True, kw_only=True)
    steps: list[Step] = field(factory=list, kw_only=True)
    prompts: list[PromptStack] = field(factory=list, kw_only=True)

    def try_run(self, prompt_stack: PromptStack) -> Message:
        self.prompts.append(prompt_stack)
        content: list[Any]
        if self.steps:
            name, path, values = self.steps.pop(0)
            action = ToolAction(tag=f"call-{len(self.prompts)}", name=name, path=path, input=values)
            content = [
                TextMessageContent(TextArtifact(f"calling {name}")),
                ActionCallMessageContent(ActionArtifact(action)),
            ]
        else:
            question = next(
                m.to_text()
                for m in reversed(prompt_stack.messages)
                if m.is_user() and not m.has_any_content_type(ActionResultMessageContent)
            )
            content = [TextMessageContent(TextArtifact(f"answer to {question}"))]
        return Message(
            content=content, role=Message.ASSISTANT_ROLE, usage=Message.Usage(input_tokens=1, output_tokens=1)
        )

    def try_stream(self, prompt_stack: PromptStack) -> Iterator[DeltaMessage]:
        raise NotImplementedError

    def texts(self, prompt: int) -> list[str]:
        return [m.to_text() for m in self.prompts[prompt].messages if m.is_text()]

    def tool_results(self) -> list[str]:
        return [
            c.artifact.to_text()
            for m in self.prompts[-1].messages
            for c in m.get_content_type(ActionResultMessageContent)
        ]


class CameraTool(BaseTool):
    @activity(config={"description": "Takes a large picture", "schema": Schema({Literal("iso"): int})})
    def shoot(self, params: dict[str, Any]) -> BaseArtifact:
        return BlobArtifact(big_blob(), meta={"iso": params["values"]["iso"]})


class ReaderTool(BaseTool):
    @activity(config={"description": "Fetches a long document", "schema": Schema({Literal("url"): str})})
    def fetch(self, params: dict[str, Any]) -> BaseArtifact:
        return TextArtifact(big_text(), meta={"url": params["values"]["url"]})


def check_isolation() -> None:
    assert sys.flags.isolated, "run me with python -I"
    for name in ("offprompt", "api_common", "offprompt_local"):
        assert importlib.util.find_spec(name) is None, f"{name} is importable: the venv holds the server side"
    try:
        import offprompt  # noqa: F401  (must not exist here)
    except ModuleNotFoundError as error:
        assert error.name == "offprompt"
    else:
        raise AssertionError("import offprompt succeeded")
    assert importlib.metadata.version("griptape") == "1.13.0"


def check_decoded_answers(url: str, tenant: str) -> None:
    api = OffpromptClient(url, tenant=tenant, timeout=120)
    thread = uid("decoded")
    api.add_run(thread, Run(input=TextArtifact("Hi, I am Ada."), output=TextArtifact("Hello Ada!")))  # a Griptape Run
    stack = api.prompt_stack(thread, system="Be brief.", input="What is my name?")
    assert isinstance(stack, PromptStack)
    assert [(m.role, m.to_text()) for m in stack.messages] == [
        ("system", "Be brief."),
        ("user", "Hi, I am Ada."),
        ("assistant", "Hello Ada!"),
        ("user", "What is my name?"),
    ]

    memory = uid("Memory")
    page = TextArtifact("The secret word is zanzibar.", name="page ü", meta={"source": "venv"})
    reference = api.process_output(memory, "WebScraper", "get_content", page, thought="T")
    assert isinstance(reference, InfoArtifact) and 'artifact_namespace "page ü"' in reference.value
    loaded = api.load_artifacts(memory, "page ü")
    assert isinstance(loaded, ListArtifact) and [a.to_dict() for a in loaded.value] == [page.to_dict()]
    passthrough = InfoArtifact("just info", name="x")  # a kind memory does not store: Griptape's answer is the output
    assert api.process_output(memory, "T", "a", passthrough).to_dict() == passthrough.to_dict()
    photo = bytes(range(256)) + b"\x00"
    answer = api.process_upload(memory, "Camera", "shoot", photo, artifact={"type": "BlobArtifact", "name": "p"})
    assert isinstance(answer, InfoArtifact)
    [blob] = api.load_artifacts(memory, "p").value
    assert isinstance(blob, BlobArtifact) and blob.value == photo


def check_conversation_memory_driver(url: str, tenant: str) -> None:
    """Griptape's own ConversationMemory on OffpromptConversationMemoryDriver: new runs posted, trims followed."""
    thread = uid("driver")
    driver = OffpromptConversationMemoryDriver(base_url=url, thread_id=thread, tenant=tenant)
    memory = ConversationMemory(conversation_memory_driver=driver, max_runs=2)
    memory.meta["topic"] = "billing"
    bot = Agent(prompt_driver=ScriptedPromptDriver(), conversation_memory=memory)
    for n in (1, 2, 3):
        assert bot.run(f"question {n}").output.value == f"answer to question {n}"
    stored = OffpromptClient(url, tenant=tenant).all_runs(thread)
    assert [r["run"]["input"]["value"] for r in stored] == ["question 2", "question 3"]

    again = OffpromptConversationMemoryDriver(base_url=url, thread_id=thread, tenant=tenant)
    reloaded = ConversationMemory(conversation_memory_driver=again, max_runs=2)
    assert [r.input.value for r in reloaded.runs] == ["question 2", "question 3"]
    assert [r.id for r in reloaded.runs] == [r.id for r in memory.runs] and reloaded.meta == {"topic": "billing"}
    assert isinstance(again.prompt_stack(last_n=1), PromptStack)


def check_offprompt_conversation_memory(url: str, tenant: str) -> None:
    """OffpromptConversationMemory loads nothing: each prompt gets the history from the prompt-stack route."""
    thread = uid("lazy")

    def memory(**options: Any) -> OffpromptConversationMemory:
        driver = OffpromptConversationMemoryDriver(base_url=url, thread_id=thread, tenant=tenant)
        return OffpromptConversationMemory(conversation_memory_driver=driver, **options)

    first, prompt_driver = memory(), ScriptedPromptDriver()
    bot = Agent(prompt_driver=prompt_driver, conversation_memory=first)
    for n in (1, 2):
        assert bot.run(f"question {n}").output.value == f"answer to question {n}"
    assert first.runs == []
    assert prompt_driver.texts(-1)[-3:] == ["question 1", "answer to question 1", "question 2"]

    fresh, fresh_driver = memory(max_runs=1), ScriptedPromptDriver()
    Agent(prompt_driver=fresh_driver, conversation_memory=fresh).run("question 3")
    assert fresh_driver.texts(0)[-3:] == ["question 2", "answer to question 2", "question 3"]
    assert fresh.to_prompt_stack().messages[-1].to_text() == "answer to question 3"


def check_task_memory(url: str, tenant: str) -> None:
    """OffpromptTaskMemory: a 6 MB blob and a text of 6 MB JSON, tool outputs past the request limit, go through
    the uploads route, stay off-prompt, and load back byte-exact: the blob through BlobDownloads, the text
    through the 303."""
    assert len(TextArtifact(big_text()).to_json()) > RESPONSE_LIMIT * 1.1
    api = OffpromptClient(url, tenant=tenant, timeout=120)
    task_memory = OffpromptTaskMemory(name=uid("TaskMemory"), base_url=url, tenant=tenant)
    prompt_driver = ScriptedPromptDriver(
        steps=[("CameraTool", "shoot", {"iso": 400}), ("ReaderTool", "fetch", {"url": "https://example.com/long"})]
    )
    bot = Agent(
        prompt_driver=prompt_driver,
        tools=[CameraTool(off_prompt=True), ReaderTool(off_prompt=True)],
        task_memory=task_memory,
    )
    assert bot.run("keep the big outputs").output.value == "answer to keep the big outputs"
    seen = sum(len(m.to_text()) for p in prompt_driver.prompts for m in p.messages)
    assert seen < 50_000, "a large tool output reached the prompt driver"
    references = [REFERENCE.search(result) for result in prompt_driver.tool_results()]
    assert all(references), prompt_driver.tool_results()
    (blob_memory, blob_ns), (text_memory, text_ns) = [(r[1], r[2]) for r in references if r]
    assert blob_memory == text_memory == task_memory.name
    assert len(api.meta(task_memory.name)["entries"]) == 2

    assert api.request("GET", artifacts_path(task_memory.name, blob_ns)).json()["type"] == "BlobDownloads"
    [blob] = task_memory.load_artifacts(blob_ns).value
    assert isinstance(blob, BlobArtifact) and blob.value == big_blob() and blob.meta == {"iso": 400}
    decoded = api.load_artifacts(task_memory.name, blob_ns)
    assert isinstance(decoded, ListArtifact) and decoded.value[0].value == big_blob()
    raw = api.load_artifacts(task_memory.name, blob_ns, raw=True)
    assert decoded.value[0].to_dict() == raw["value"][0] and ListArtifact.from_dict(raw).value[0].value == big_blob()

    assert api.request("GET", artifacts_path(task_memory.name, text_ns)).status == 303
    [text] = task_memory.load_artifacts(text_ns).value
    assert (
        isinstance(text, TextArtifact) and text.value == big_text() and text.meta == {"url": "https://example.com/long"}
    )
    assert api.load_artifacts(task_memory.name, text_ns).value[0].to_dict() == text.to_dict()
    assert task_memory.load_artifacts("no-such-namespace").value == []


CHECKS: dict[str, Callable[[str, str], None]] = {
    "decoded_answers": check_decoded_answers,
    "conversation_memory_driver": check_conversation_memory_driver,
    "offprompt_conversation_memory": check_offprompt_conversation_memory,
    "task_memory": check_task_memory,
}


def main(check: str, url: str, tenant: str) -> None:
    logging.getLogger("griptape").setLevel(logging.WARNING)  # each subtask's prompt and answer: noise here
    check_isolation()  # in every run: no check can pass where the server library is importable
    started = time.monotonic()
    CHECKS[check](url, tenant)
    print(f"{check} passed in {time.monotonic() - started:.1f}s\nok")


if __name__ == "__main__":
    main(*sys.argv[1:])
