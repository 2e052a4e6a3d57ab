"""Griptape's own GriptapeCloudConversationMemoryDriver, unchanged, against the local stack's `/api/threads`.

Real Griptape Agents (a canned prompt driver that first calls a tool, then answers) keep their conversation
in offprompt with only `base_url` (and an API key the local stack ignores); a new process reloads it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from attrs import define
from griptape.common import ActionResultMessageContent
from griptape.drivers.memory.conversation.griptape_cloud import GriptapeCloudConversationMemoryDriver
from griptape.memory.structure import ConversationMemory, SummaryConversationMemory
from griptape.structures import Agent
from griptape_support import CannedPromptDriver, EchoTool, SummaryPromptDriver, echo_call
from test_local_stack import RunningStack, stack, uid  # noqa: F401  (stack: the module's local stack fixture)

from offprompt_client import OffpromptClient

pytestmark = pytest.mark.slow
HERE = Path(__file__).resolve().parent

RELOAD = textwrap.dedent(
    """
    import json, sys
    from griptape.drivers.memory.conversation.griptape_cloud import GriptapeCloudConversationMemoryDriver
    from griptape.memory.structure import ConversationMemory, SummaryConversationMemory
    from griptape.structures import Agent
    from griptape_support import CannedPromptDriver, EchoTool, echo_call

    url, alias, kind, max_runs, question = sys.argv[1:6]
    driver = GriptapeCloudConversationMemoryDriver(base_url=url, api_key="local", alias=alias)
    if kind == "summary":
        memory = SummaryConversationMemory(conversation_memory_driver=driver, offset=1)
    else:
        memory = ConversationMemory(conversation_memory_driver=driver, max_runs=int(max_runs))
    loaded = {
        "thread_id": driver.thread_id,
        "runs": [[r.id, r.input.value, r.output.value] for r in memory.runs],
        "meta": memory.meta,
        "summary": getattr(memory, "summary", None),
        "summary_index": getattr(memory, "summary_index", None),
    }
    if question:
        prompt_driver = CannedPromptDriver(tool_call=echo_call)
        Agent(prompt_driver=prompt_driver, tools=[EchoTool()], conversation_memory=memory).run(question)
        loaded["first_prompt"] = [[m.role, m.to_text()] for m in prompt_driver.prompts[0].messages]
    print(json.dumps(loaded))
    """
)


def reload_in_new_process(url: str, alias: str, kind: str = "buffer", max_runs: int = 0, question: str = "") -> Any:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", RELOAD, url, alias, kind, str(max_runs), question],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def agent(url: str, alias: str, *, max_runs: int | None = None) -> tuple[Agent, CannedPromptDriver]:
    driver = GriptapeCloudConversationMemoryDriver(base_url=url, api_key="local", alias=alias)
    prompt_driver = CannedPromptDriver(tool_call=echo_call)
    memory = ConversationMemory(conversation_memory_driver=driver, max_runs=max_runs)
    return Agent(prompt_driver=prompt_driver, tools=[EchoTool()], conversation_memory=memory), prompt_driver


def test_agent_conversation_reloads_in_a_new_process_and_follows_max_runs(stack: RunningStack) -> None:  # noqa: F811
    alias = uid("support-bot")
    bot, prompt_driver = agent(stack.url, alias, max_runs=2)
    for n in (1, 2, 3):
        assert bot.run(f"question {n}").output.value == f"answer to question {n}"
    assert prompt_driver.calls == 6  # each run: a tool call, then the answer
    results = prompt_driver.prompts[1].messages[-1].get_content_type(ActionResultMessageContent)
    assert [r.artifact.value for r in results] == ["echo: question 1"]  # the tool really ran
    ids = [r.id for r in bot.conversation_memory.runs]  # type: ignore[union-attr]

    loaded = reload_in_new_process(stack.url, alias, max_runs=2, question="question 4")
    assert loaded["runs"] == [
        [ids[0], "question 2", "answer to question 2"],
        [ids[1], "question 3", "answer to question 3"],
    ]
    # the reloaded history reaches the prompt of the next run
    first_prompt = [text for role, text in loaded["first_prompt"] if role in ("user", "assistant")]
    assert first_prompt == ["question 2", "answer to question 2", "question 3", "answer to question 3", "question 4"]

    # offprompt stores exactly the runs Griptape kept (question 1 and 2 were trimmed away by now)
    native = OffpromptClient(stack.url, tenant="local", timeout=60).list_runs(loaded["thread_id"], limit=100)
    assert [r["run"]["input"]["value"] for r in native["runs"]] == ["question 3", "question 4"]


def test_a_fresh_driver_finds_the_thread_by_id(stack: RunningStack) -> None:  # noqa: F811
    alias = uid("by-id")
    bot, _ = agent(stack.url, alias)
    bot.run("hello")
    thread_id = bot.conversation_memory.conversation_memory_driver.thread_id  # type: ignore[union-attr]
    fresh = GriptapeCloudConversationMemoryDriver(base_url=stack.url, api_key="another-key", thread_id=thread_id)
    runs, meta = fresh.load()
    assert [(r.input.value, r.output.value) for r in runs] == [("hello", "answer to hello")]
    assert meta == {}


@define
class MetaSummaryMemory(SummaryConversationMemory):
    """Griptape 1.13's SummaryConversationMemory reads `summary`/`summary_index` from meta on load but never
    writes them there after summarizing (only a summary passed to the constructor reaches meta). This
    subclass writes them before each store, so the test shows what offprompt keeps: the meta it is sent."""

    def after_add_run(self) -> None:
        self.meta.update(summary=self.summary, summary_index=self.summary_index)
        super().after_add_run()


def test_summary_memory_meta_survives_a_reload(stack: RunningStack) -> None:  # noqa: F811
    alias = uid("summary")
    driver = GriptapeCloudConversationMemoryDriver(base_url=stack.url, api_key="local", alias=alias)
    summarizer = SummaryPromptDriver()
    memory = MetaSummaryMemory(conversation_memory_driver=driver, prompt_driver=summarizer, offset=1)
    bot = Agent(prompt_driver=CannedPromptDriver(tool_call=echo_call), tools=[EchoTool()], conversation_memory=memory)
    for n in (1, 2, 3):
        bot.run(f"question {n}")
    assert memory.summary == "summary #2" and memory.summary_index == 2

    loaded = reload_in_new_process(stack.url, alias, kind="summary")
    assert loaded["summary"] == "summary #2" and loaded["summary_index"] == 2
    assert loaded["meta"] == {"summary": "summary #2", "summary_index": 2}
    assert [r[1] for r in loaded["runs"]] == ["question 1", "question 2", "question 3"]
