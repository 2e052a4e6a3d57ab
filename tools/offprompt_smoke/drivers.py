"""Griptape checks with real Griptape Agents: Griptape's own `GriptapeCloudConversationMemoryDriver` against
`/api/threads` (only `base_url` and the key), and the drivers of `offprompt_client.griptape` (conversation memory,
its driver under Griptape's ConversationMemory, task memory). Griptape is imported when a check runs."""

from __future__ import annotations

import re
from typing import Any

from offprompt_client import TENANT_HEADER

from .runner import Smoke, expect

DOCUMENT_CHARS = 200_000
REFERENCE = re.compile(r'memory_name "([^"]+)" and artifact_namespace "([^"]+)"')


def quiet_griptape() -> None:
    """Griptape logs every task at INFO to the console (its logging config, made on first use): errors only, so
    the table stays readable."""
    import logging

    from griptape.configs import Defaults

    logging.getLogger(Defaults.logging_config.logger_name).setLevel(logging.ERROR)


def connection(smoke: Smoke) -> dict[str, Any]:
    """How offprompt_client.griptape's drivers reach the API: the key, or the local header tenant."""
    if smoke.options.key:
        return {"base_url": smoke.options.base_url, "api_key": smoke.options.key}
    return {"base_url": smoke.options.base_url, "api_key": "", "tenant": smoke.options.tenant}


def conversation(prompts: Any) -> list[str]:
    """The user/assistant texts of a prompt stack (what the model was shown of the conversation)."""
    return [m.to_text() for m in prompts.messages if m.role in ("user", "assistant")]


def check_cloud_driver(smoke: Smoke) -> str:
    from griptape.drivers.memory.conversation.griptape_cloud import GriptapeCloudConversationMemoryDriver
    from griptape.memory.structure import ConversationMemory
    from griptape.structures import Agent

    from .agents import ScriptedPromptDriver

    quiet_griptape()

    alias = smoke.name("gt-cloud")

    def driver() -> GriptapeCloudConversationMemoryDriver:
        made = GriptapeCloudConversationMemoryDriver(
            base_url=smoke.options.base_url, api_key=smoke.options.key or "local", alias=alias
        )
        if not smoke.options.key:
            made.headers[TENANT_HEADER] = smoke.options.tenant  # the local stack's tenant; a key needs nothing else
        return made

    first = driver()
    memory = ConversationMemory(conversation_memory_driver=first, max_runs=2)  # loads: finds or creates the thread
    expect(first.thread_id, "Griptape's driver has no thread id after loading")
    smoke.cleanup.cloud_threads.append(str(first.thread_id))
    prompt_driver = ScriptedPromptDriver()
    agent = Agent(prompt_driver=prompt_driver, conversation_memory=memory)
    outputs = [agent.run(f"question {n}").output.value for n in (1, 2, 3)]
    expect(outputs == [f"answer to question {n}" for n in (1, 2, 3)], f"the agent answered {outputs}")
    seen = conversation(prompt_driver.prompts[-1])
    expect(seen[-3:] == ["question 2", "answer to question 2", "question 3"], f"the third prompt showed {seen}")
    stored = [r["run"]["input"]["value"] for r in smoke.api.all_runs(str(first.thread_id))]
    expect(stored == ["question 2", "question 3"], f"offprompt holds {stored} for max_runs=2")
    reloaded = ConversationMemory(conversation_memory_driver=driver(), max_runs=2)
    expect([r.id for r in reloaded.runs] == [r.id for r in memory.runs], "a new driver (same alias) loads other runs")
    credentials = "key" if smoke.options.key else "the header tenant"
    return (
        f"Griptape's driver (base_url + {credentials}, alias) under an Agent, max_runs=2: 3 turns, the history in "
        "each prompt; runs 2-3 stored; a new driver reloads them"
    )


def check_conversation_memory(smoke: Smoke) -> str:
    from griptape.structures import Agent

    from offprompt_client.griptape import OffpromptConversationMemory, OffpromptConversationMemoryDriver

    from .agents import ScriptedPromptDriver

    quiet_griptape()

    thread = smoke.thread("gt-memory")

    def memory(max_runs: int | None = None) -> OffpromptConversationMemory:
        driver = OffpromptConversationMemoryDriver(thread_id=thread, **connection(smoke))
        settings: dict[str, Any] = {"max_runs": max_runs}  # a field of Griptape's ConversationMemory
        return OffpromptConversationMemory(conversation_memory_driver=driver, **settings)

    lazy = memory()
    prompt_driver = ScriptedPromptDriver()
    agent = Agent(prompt_driver=prompt_driver, conversation_memory=lazy)
    outputs = [agent.run(f"question {n}").output.value for n in (1, 2, 3)]
    expect(outputs == [f"answer to question {n}" for n in (1, 2, 3)], f"the agent answered {outputs}")
    expect(lazy.runs == [], f"OffpromptConversationMemory loaded {len(lazy.runs)} runs")
    seen = conversation(prompt_driver.prompts[-1])
    wanted = ["question 1", "answer to question 1", "question 2", "answer to question 2", "question 3"]
    expect(seen[-5:] == wanted, f"the third prompt showed {seen}")

    fresh_driver = ScriptedPromptDriver()
    Agent(prompt_driver=fresh_driver, conversation_memory=memory(max_runs=2)).run("question 4")
    seen = conversation(fresh_driver.prompts[0])
    wanted = ["question 2", "answer to question 2", "question 3", "answer to question 3", "question 4"]
    expect(seen[-5:] == wanted, f"a new memory with max_runs=2 showed {seen}")
    stored = [r["run"]["input"]["value"] for r in smoke.api.all_runs(thread)]
    expect(stored == ["question 3", "question 4"], f"offprompt holds {stored} after max_runs=2")
    return "OffpromptConversationMemory: nothing loaded, each prompt's history from prompt-stack; max_runs=2 pruned"


def check_memory_driver(smoke: Smoke) -> str:
    from griptape.memory.structure import ConversationMemory
    from griptape.structures import Agent

    from offprompt_client.griptape import OffpromptConversationMemoryDriver

    from .agents import ScriptedPromptDriver

    quiet_griptape()

    thread = smoke.thread("gt-driver")
    memory = ConversationMemory(
        conversation_memory_driver=OffpromptConversationMemoryDriver(thread_id=thread, **connection(smoke)), max_runs=2
    )
    memory.meta["topic"] = "smoke"
    agent = Agent(prompt_driver=ScriptedPromptDriver(), conversation_memory=memory)
    for n in (1, 2, 3):
        agent.run(f"question {n}")
    stored = [r["run"]["input"]["value"] for r in smoke.api.all_runs(thread)]
    expect(stored == ["question 2", "question 3"], f"offprompt holds {stored} (Griptape kept the newest 2)")
    reloaded = ConversationMemory(
        conversation_memory_driver=OffpromptConversationMemoryDriver(thread_id=thread, **connection(smoke)), max_runs=2
    )
    expect([r.id for r in reloaded.runs] == [r.id for r in memory.runs], "a reload gives other run ids")
    expect(reloaded.meta == {"topic": "smoke"}, f"meta reloaded as {reloaded.meta}")
    return (
        "OffpromptConversationMemoryDriver under Griptape's ConversationMemory(max_runs=2): trims followed, meta kept"
    )


def check_task_memory(smoke: Smoke) -> str:
    from griptape.structures import Agent

    from offprompt_client.griptape import OffpromptTaskMemory

    from .agents import LINE, BigDocumentTool, MemoryReaderTool, ScriptedPromptDriver, digest, document

    quiet_griptape()

    memory_name = smoke.memory("gt-TaskMemory")

    def steps(question: str, results: list[str]) -> Any:
        if not results:
            return ("BigDocumentTool", "fetch", {"size": DOCUMENT_CHARS})
        if len(results) == 1:
            found = REFERENCE.search(results[0])
            if found is None:
                return f"no reference in {results[0][:200]}"
            return ("MemoryReaderTool", "read", {"memory_name": found[1], "artifact_namespace": found[2]})
        return f"done: {results[-1]}"

    prompt_driver = ScriptedPromptDriver(script=steps)
    agent = Agent(
        prompt_driver=prompt_driver,
        tools=[BigDocumentTool(off_prompt=True), MemoryReaderTool(off_prompt=False)],
        task_memory=OffpromptTaskMemory(name=memory_name, **connection(smoke)),
    )
    output = agent.run("read the big document").output.value
    wanted = f"done: read {DOCUMENT_CHARS} characters, sha256 {digest(document(DOCUMENT_CHARS))}"
    expect(output == wanted, f"the agent answered {output[:300]!r}")
    expect(LINE not in prompt_driver.seen(), "the off-prompt output reached the prompt driver")
    entries = smoke.api.meta(memory_name)["entries"]
    expect(len(entries) == 1, f"{len(entries)} meta entries")
    expect(entries[0]["thought"] == "thinking about BigDocumentTool.fetch", f"meta entry {entries[0]}")
    return (
        f"OffpromptTaskMemory: a {DOCUMENT_CHARS // 1000} KB off_prompt output stored, never in a prompt, read back "
        "by a tool (SHA-256 equal); the meta entry kept the thought"
    )
