"""The client package's Griptape drivers (offprompt_client.griptape) with real Griptape Agents on the local stack.

- OffpromptConversationMemoryDriver: only new runs are posted, Griptape's max_runs trims are followed, meta kept;
- OffpromptConversationMemory: no load; each prompt gets offprompt's budgeted history, the same messages as
  Griptape's own autoprune picks over the same runs with the same tokenizer;
- OffpromptTaskMemory: a 1 MB off_prompt tool output never reaches the prompt driver; a task-memory tool reads it;
  Griptape's own PromptSummaryTool, QueryTool and ExtractionTool read it; an 8 MB output (past the 6 MB request
  limit) goes through the uploads route and comes back through the 303, byte-exact.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import re
from typing import Any

import pytest
from griptape.artifacts import BlobArtifact, ListArtifact, TextArtifact
from griptape.common import PromptStack
from griptape.memory.structure import ConversationMemory, Run
from griptape.structures import Agent
from griptape.tokenizers import SimpleTokenizer
from griptape_support import (
    FILLER,
    INVOICES,
    BigOutputTool,
    CannedPromptDriver,
    Cl100kTokenizer,
    EchoTool,
    InvoiceExtractionDriver,
    MemoryReaderTool,
    RagAnswerDriver,
    ReportTool,
    ScriptedPromptDriver,
    echo_call,
)
from test_local_stack import RunningStack, stack, uid  # noqa: F401  (stack: the module's local stack fixture)

from offprompt_client import OffpromptClient
from offprompt_client.griptape import (
    OffpromptConversationMemory,
    OffpromptConversationMemoryDriver,
    OffpromptTaskMemory,
)

pytestmark = pytest.mark.slow
TENANT = "griptape-client"


def driver(url: str, thread: str) -> OffpromptConversationMemoryDriver:
    return OffpromptConversationMemoryDriver(base_url=url, thread_id=thread, tenant=TENANT)


def native(url: str) -> OffpromptClient:
    return OffpromptClient(url, tenant=TENANT, timeout=120)


def stored_inputs(url: str, thread: str) -> list[str]:
    return [r["run"]["input"]["value"] for r in native(url).all_runs(thread)]


def test_driver_posts_new_runs_follows_trims_and_keeps_meta(stack: RunningStack) -> None:  # noqa: F811
    thread = uid("driver")
    memory = ConversationMemory(conversation_memory_driver=driver(stack.url, thread), max_runs=2)
    memory.meta["topic"] = "billing"
    bot = Agent(prompt_driver=CannedPromptDriver(tool_call=echo_call), tools=[EchoTool()], conversation_memory=memory)
    for n in (1, 2, 3):
        bot.run(f"question {n}")
    assert stored_inputs(stack.url, thread) == ["question 2", "question 3"]

    reloaded = ConversationMemory(conversation_memory_driver=driver(stack.url, thread), max_runs=2)
    assert [r.input.value for r in reloaded.runs] == ["question 2", "question 3"]
    assert [r.id for r in reloaded.runs] == [r.id for r in memory.runs]
    assert reloaded.meta == {"topic": "billing"}


def test_conversation_memory_is_lazy_and_prunes_server_side(stack: RunningStack) -> None:  # noqa: F811
    thread = uid("lazy")
    memory = OffpromptConversationMemory(conversation_memory_driver=driver(stack.url, thread))
    prompt_driver = CannedPromptDriver(tool_call=echo_call)
    bot = Agent(prompt_driver=prompt_driver, tools=[EchoTool()], conversation_memory=memory)
    for n in (1, 2, 3):
        assert bot.run(f"question {n}").output.value == f"answer to question {n}"  # Griptape swallows errors
    assert memory.runs == []  # nothing loaded, nothing kept
    assert stored_inputs(stack.url, thread) == ["question 1", "question 2", "question 3"]
    history = [m.to_text() for m in prompt_driver.prompts[-1].messages if m.is_text()]
    assert history[-5:] == ["question 1", "answer to question 1", "question 2", "answer to question 2", "question 3"]

    # a fresh memory on the same thread (a new process would do the same): the history reaches the prompt
    fresh_driver = CannedPromptDriver(tool_call=echo_call)
    fresh = OffpromptConversationMemory(conversation_memory_driver=driver(stack.url, thread), max_runs=2)
    Agent(prompt_driver=fresh_driver, tools=[EchoTool()], conversation_memory=fresh).run("question 4")
    first = [m.to_text() for m in fresh_driver.prompts[0].messages if m.is_text()]
    assert first[-5:] == ["question 2", "answer to question 2", "question 3", "answer to question 3", "question 4"]
    assert fresh.to_prompt_stack().messages[-1].to_text() == "answer to question 4"


TOKENIZERS = {
    "cl100k": lambda budget: Cl100kTokenizer(max_input_tokens=budget, max_output_tokens=100),
    "chars4": lambda budget: SimpleTokenizer(characters_per_token=4, max_input_tokens=budget, max_output_tokens=100),
}


@pytest.mark.parametrize("kind", TOKENIZERS)
@pytest.mark.parametrize("budget", [60, 90, 140, 400, 100_000])
def test_same_history_as_griptape_autoprune(stack: RunningStack, budget: int, kind: str) -> None:  # noqa: F811
    thread = uid("budget")
    offprompt_driver = driver(stack.url, thread)
    runs = [
        Run(input=TextArtifact(f"question {n}: " + "words " * (n * 3)), output=TextArtifact(f"answer {n} " * n))
        for n in range(1, 9)
    ]
    for run in runs:
        offprompt_driver.add_run(run)
    prompt_driver = CannedPromptDriver(tokenizer=TOKENIZERS[kind](budget))

    def base() -> PromptStack:
        stack_ = PromptStack()
        stack_.add_system_message("You are terse.")
        stack_.add_user_message("and now?")
        return stack_

    griptape = ConversationMemory(runs=list(runs), autoload=False)
    griptape.conversation_memory_driver = offprompt_driver  # never called: autoload=False and no add_run
    expected = griptape.add_to_prompt_stack(prompt_driver, base(), 1)
    ours = OffpromptConversationMemory(conversation_memory_driver=offprompt_driver)
    got = ours.add_to_prompt_stack(prompt_driver, base(), 1)
    assert [(m.role, m.to_text()) for m in got.messages] == [(m.role, m.to_text()) for m in expected.messages]
    kept = (len(got.messages) - 2) // 2
    assert kept == 8 if budget >= 400 else kept < 8  # the small budgets really prune


def script(results_needed: int) -> Any:
    def step(_: PromptStack, results: list[str]) -> Any:
        if not results:
            return ("BigOutputTool", "fetch", {"size": 1_000_000})
        if len(results) == 1:
            found = re.search(r'memory_name "([^"]+)" and artifact_namespace "([^"]+)"', results[0])
            assert found, results[0]
            return ("MemoryReaderTool", "read", {"memory_name": found[1], "artifact_namespace": found[2]})
        return f"done: {results[-1]}"

    return step


def test_task_memory_keeps_a_1mb_output_off_prompt(stack: RunningStack) -> None:  # noqa: F811
    memory_name = uid("TaskMemory")
    task_memory = OffpromptTaskMemory(name=memory_name, base_url=stack.url, tenant=TENANT)
    prompt_driver = ScriptedPromptDriver(script=script(2))
    bot = Agent(
        prompt_driver=prompt_driver,
        tools=[BigOutputTool(off_prompt=True), MemoryReaderTool(off_prompt=False)],
        task_memory=task_memory,
    )
    output = bot.run("summarize the big document").output.value

    big = BigOutputTool().fetch({"values": {"size": 1_000_000}}).value
    digest = hashlib.sha256(big.encode()).hexdigest()
    assert output == f"done: read 1000000 characters, sha256 {digest}"
    assert prompt_driver.calls == 3
    seen = sum(len(m.to_text()) for p in prompt_driver.prompts for m in p.messages)
    assert seen < 50_000, "the 1 MB output reached the prompt driver"
    assert not any("keeps this line out" in str(p.to_dict()) for p in prompt_driver.prompts)

    # offprompt holds the namespace and the meta-memory entry with the subtask's thought and actions
    entries = native(stack.url).meta(memory_name)["entries"]
    assert len(entries) == 1
    assert entries[0]["thought"] == "thinking about BigOutputTool.fetch"
    assert "BigOutputTool" in str(entries[0]["actions"])
    assert task_memory.name == memory_name and OffpromptTaskMemory().name == "TaskMemory"
    assert task_memory.load_artifacts("no-such-namespace").value == []


def test_griptapes_prompt_summary_tool_reads_offprompt_task_memory(stack: RunningStack) -> None:  # noqa: F811
    from griptape.engines import PromptSummaryEngine
    from griptape.tools import PromptSummaryTool
    from griptape_support import SummaryPromptDriver

    def steps(_: PromptStack, results: list[str]) -> Any:
        if not results:
            return ("BigOutputTool", "fetch", {"size": 200_000})
        if len(results) == 1:
            found = re.search(r'memory_name "([^"]+)" and artifact_namespace "([^"]+)"', results[0])
            assert found, results[0]
            target = {"memory_name": found[1], "artifact_namespace": found[2]}
            return ("PromptSummaryTool", "summarize", {"summary": target})
        return f"done: {results[-1]}"

    summarizer = SummaryPromptDriver()
    prompt_driver = ScriptedPromptDriver(script=steps)
    bot = Agent(
        prompt_driver=prompt_driver,
        tools=[
            BigOutputTool(off_prompt=True),
            PromptSummaryTool(prompt_summary_engine=PromptSummaryEngine(prompt_driver=summarizer), off_prompt=False),
        ],
        task_memory=OffpromptTaskMemory(name=uid("TaskMemory"), base_url=stack.url, tenant=TENANT),
    )
    output = bot.run("summarize the big document").output.value
    assert output.startswith("done: summary #"), output
    # Griptape's own tool loaded the 200 KB text from offprompt and summarized it; the agent never saw it
    summarized = "".join(m.to_text() for p in summarizer.prompts for m in p.messages)
    assert summarized.count("keeps this line out of the prompt") >= 200_000 // 46
    assert not any("keeps this line out" in str(p.to_dict()) for p in prompt_driver.prompts)


def reference_in(result: str) -> dict[str, str]:
    """The memory and namespace Griptape's tool.j2 reference line names."""
    found = re.search(r'memory_name "([^"]+)" and artifact_namespace "([^"]+)"', result)
    assert found, result
    return {"memory_name": found[1], "artifact_namespace": found[2]}


def test_griptapes_query_tool_reads_offprompt_task_memory(stack: RunningStack) -> None:  # noqa: F811
    from griptape.tools import QueryTool

    def steps(_: PromptStack, results: list[str]) -> Any:
        if not results:
            return ("ReportTool", "fetch", {"quarter": "Q3"})
        if len(results) == 1:
            return ("QueryTool", "query", {"query": "Invoice INV-2718", "content": reference_in(results[0])})
        return f"done: {results[-1]}"

    rag_driver = RagAnswerDriver()
    query_tool = QueryTool(prompt_driver=rag_driver, off_prompt=False)
    task_memory = OffpromptTaskMemory(name=uid("TaskMemory"), base_url=stack.url, tenant=TENANT)
    prompt_driver = ScriptedPromptDriver(script=steps)
    bot = Agent(prompt_driver=prompt_driver, tools=[ReportTool(off_prompt=True), query_tool], task_memory=task_memory)
    output = bot.run("what is the total of invoice INV-2718?").output.value

    assert output == "done: Invoice INV-2718 total: 99.00 USD (line 1).", output
    assert query_tool.find_input_memory(task_memory.name) is task_memory
    # QueryTool's RAG prompt got the whole stored report from offprompt; the agent's prompts never did
    rag_context = "".join(m.to_text() for p in rag_driver.prompts for m in p.messages if m.is_system())
    assert rag_context.count(FILLER) == 4 * 800 and "Report for Q3" in rag_context
    assert rag_driver.calls == 1
    assert not any(FILLER in str(p.to_dict()) for p in prompt_driver.prompts)


def test_griptapes_extraction_tool_reads_offprompt_task_memory(stack: RunningStack) -> None:  # noqa: F811
    from griptape.engines import JsonExtractionEngine
    from griptape.tools import ExtractionTool

    def steps(_: PromptStack, results: list[str]) -> Any:
        if not results:
            return ("ReportTool", "fetch", {"quarter": "Q4"})
        if len(results) == 1:
            return ("ExtractionTool", "extract", {"data": reference_in(results[0])})
        return f"done:\n{results[-1]}"

    extractor = InvoiceExtractionDriver()
    schema = {"type": "object", "properties": {"invoice": {"type": "string"}, "total": {"type": "string"}}}
    engine = JsonExtractionEngine(prompt_driver=extractor, template_schema=schema)
    task_memory = OffpromptTaskMemory(name=uid("TaskMemory"), base_url=stack.url, tenant=TENANT)
    prompt_driver = ScriptedPromptDriver(script=steps)
    bot = Agent(
        prompt_driver=prompt_driver,
        tools=[ReportTool(off_prompt=True), ExtractionTool(extraction_engine=engine, off_prompt=False)],
        task_memory=task_memory,
    )
    output = bot.run("list the invoices of the Q4 report").output.value

    head, *rows = output.split("\n")
    assert head == "done:", output
    assert [json.loads(row) for row in rows] == [{"invoice": i, "total": t} for i, t in INVOICES.items()]
    # the engine got the whole stored report (in chunks: it is larger than the extractor's input budget)
    extracted_from = "".join(m.to_text() for p in extractor.prompts for m in p.messages if m.is_user())
    assert extracted_from.count(FILLER.split(",")[0]) == 4 * 800 and extractor.calls >= 2
    assert not any(FILLER in str(p.to_dict()) for p in prompt_driver.prompts)


def test_task_memory_stores_an_8mb_output_by_upload_and_loads_it_through_the_303(
    stack: RunningStack,  # noqa: F811
) -> None:
    size = 8_000_000
    memory_name = uid("TaskMemory")
    task_memory = OffpromptTaskMemory(name=memory_name, base_url=stack.url, tenant=TENANT)
    references: list[dict[str, str]] = []

    def steps(_: PromptStack, results: list[str]) -> Any:
        if not results:
            return ("BigOutputTool", "fetch", {"size": size})
        if len(results) == 1:
            references.append(reference_in(results[0]))
            return ("MemoryReaderTool", "read", references[0])
        return f"done: {results[-1]}"

    prompt_driver = ScriptedPromptDriver(script=steps)
    bot = Agent(
        prompt_driver=prompt_driver,
        tools=[BigOutputTool(off_prompt=True), MemoryReaderTool(off_prompt=False)],
        task_memory=task_memory,
    )
    output = bot.run("keep the huge document").output.value

    big = BigOutputTool().fetch({"values": {"size": size}})
    assert task_memory.client.request_too_large(json.dumps({"artifact": big.to_dict()}).encode())
    digest = hashlib.sha256(big.value.encode()).hexdigest()
    assert output == f"done: read {size} characters, sha256 {digest}", output  # stored, then read back exactly
    namespace = references[0]["artifact_namespace"]
    response = native(stack.url).request("GET", f"/memories/{memory_name}/namespaces/{namespace}/artifacts")
    assert response.status == 303 and response.headers["location"]  # too large for a response: presigned GET
    loaded = task_memory.load_artifacts(namespace)
    assert [type(a) for a in loaded.value] == [TextArtifact]
    assert loaded.value[0].value == big.value
    assert len(native(stack.url).meta(memory_name)["entries"]) == 1


def test_client_uploads_what_exceeds_its_request_limit(stack: RunningStack) -> None:  # noqa: F811
    memory = uid("Uploads")
    api = OffpromptClient(stack.url, tenant=TENANT, timeout=120, max_request_bytes=200_000)
    blob = random.Random(7).randbytes(300_000)
    text = "ünïcode ✓ " * 30_000  # ~ 330 KB of UTF-8, more as \u escapes in JSON
    assert api.request_too_large(json.dumps(text).encode()) and not api.request_too_large(b"{}")
    blob_reference = api.process_output(memory, "Camera", "shoot", BlobArtifact(blob, name="pic"), raw=True)
    text_artifact = {"type": "TextArtifact", "value": text, "name": "t", "meta": {"page": 1}}
    text_reference = api.process_output(memory, "Reader", "read", text_artifact, raw=True)
    for reference in (blob_reference, text_reference):
        assert reference["type"] == "InfoArtifact", reference
    raw_blob = api.load_artifacts(memory, "pic", raw=True)["value"][0]
    assert base64.b64decode(raw_blob["value"]) == blob and raw_blob["type"] == "BlobArtifact"
    raw_text = api.load_artifacts(memory, "t", raw=True)["value"][0]
    assert raw_text["value"] == text and raw_text["meta"] == {"page": 1}  # the envelope travelled with value_from
    # a ListArtifact cannot be given by reference: it is sent inline (here within the server's own 6 MB limit)
    items = ListArtifact([TextArtifact(text), TextArtifact("b")], name="l")
    assert api.process_output(memory, "T", "a", items, raw=True)["type"] == "InfoArtifact"
    assert [a["value"] for a in api.load_artifacts(memory, "l", raw=True)["value"]] == [text, "b"]
