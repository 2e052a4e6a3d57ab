"""offprompt_client with the `openai-agents` extra, in a venv holding only `offprompt-client[openai-agents]` (the
real OpenAI Agents SDK, no server library, no repository), against the real local stack: an Agents SDK `Runner`
on a scripted model (no network) keeps its conversation in `offprompt_client.openai_agents.OffpromptSession`.
Run by tests/e2e/test_framework_sessions.py, once per check, each in a fresh interpreter (so `turn_two` reads
what `turn_one`, another process, stored):

    python -I with_openai_agents.py CHECK API_URL TENANT

Prints `ok` when the isolation check and CHECK passed (a traceback and exit status 1 otherwise).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import importlib.util
import re
import sys
import uuid
from collections.abc import Callable
from typing import Any

from agents import Agent, ModelResponse, Runner, Usage, set_tracing_disabled
from agents.memory import Session
from agents.models.interface import Model
from openai.types.responses import ResponseOutputMessage, ResponseOutputText

from offprompt_client import OffpromptClient, OffpromptClientError
from offprompt_client.openai_agents import OffpromptSession

SESSION = "agents-two-processes"


class ScriptedModel(Model):
    """Answers from the input it is given (no network): the name the user said in any earlier turn."""

    def __init__(self) -> None:
        self.inputs: list[Any] = []

    async def get_response(self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any) -> ModelResponse:
        self.inputs.append(input)
        texts = [_text(item) for item in (input if isinstance(input, list) else [{"role": "user", "content": input}])]
        names = [m.group(1) for t in texts if (m := re.search(r"My name is (\w+)", t))]
        answer = f"Your name is {names[-1]}." if "What is my name" in texts[-1] and names else "Noted."
        message = ResponseOutputMessage(
            id=f"msg_{uuid.uuid4().hex[:12]}",
            type="message",
            role="assistant",
            status="completed",
            content=[ResponseOutputText(type="output_text", text=answer, annotations=[])],
        )
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


def _text(item: Any) -> str:
    content = item.get("content") if isinstance(item, dict) else None
    if isinstance(content, str):
        return content
    return " ".join(str(part.get("text", "")) for part in content or [] if isinstance(part, dict))


def isolation() -> None:
    assert sys.flags.isolated, "run me with python -I"
    for name in ("offprompt", "api_common", "offprompt_local", "griptape"):
        assert importlib.util.find_spec(name) is None, f"{name} is importable: the venv holds more than the extra"
    assert importlib.metadata.version("openai-agents") == "0.24.0"


def _session() -> OffpromptSession:
    return OffpromptSession(SESSION, base_url=URL, tenant=TENANT, timeout=120)


async def turn_one() -> None:
    session = _session()
    assert isinstance(session, Session)  # the SDK's runtime-checkable protocol
    await session.clear_session()
    model = ScriptedModel()
    result = await Runner.run(Agent(name="helper", model=model), "My name is Ada.", session=session)
    assert result.final_output == "Noted."
    items = await session.get_items()
    assert [i.get("role") for i in items] == ["user", "assistant"], items
    assert items[0]["content"] == "My name is Ada."


async def turn_two() -> None:
    session = _session()
    model = ScriptedModel()
    result = await Runner.run(Agent(name="helper", model=model), "What is my name?", session=session)
    assert result.final_output == "Your name is Ada.", result.final_output  # turn one's items, from offprompt
    assert any(_text(i) == "My name is Ada." for i in model.inputs[0])
    items = await session.get_items()
    assert [_text(i) for i in items] == ["My name is Ada.", "Noted.", "What is my name?", "Your name is Ada."]
    assert [_text(i) for i in await session.get_items(limit=2)] == ["What is my name?", "Your name is Ada."]
    popped = await session.pop_item()
    assert popped is not None and _text(popped) == "Your name is Ada."
    assert len(await session.get_items()) == 3
    await session.clear_session()
    assert await session.get_items() == [] and await session.pop_item() is None


async def concurrent_pops() -> None:
    session = OffpromptSession(f"pops-{uuid.uuid4().hex[:8]}", base_url=URL, tenant=TENANT, timeout=120)
    await session.add_items([{"role": "user", "content": f"m{i}"} for i in range(6)])
    popped = await asyncio.gather(*(session.pop_item() for _ in range(10)))
    texts = sorted(_text(p) for p in popped if p is not None)
    assert texts == [f"m{i}" for i in range(6)], popped  # each item exactly once
    assert await session.get_items() == []


async def big_items_and_paging() -> None:
    session = OffpromptSession(f"big-{uuid.uuid4().hex[:8]}", base_url=URL, tenant=TENANT, timeout=120)
    big = {"role": "user", "content": "x" * 500_000}  # past DynamoDB's item limit: stored in S3
    many = [{"role": "user", "content": f"m{i}"} for i in range(230)]  # more than one page and one POST
    await session.add_items([big, *many])
    items = await session.get_items()
    assert items == [big, *many]
    assert await session.get_items(limit=150) == many[-150:]


async def wrong_kind() -> None:
    thread = f"griptape-{uuid.uuid4().hex[:8]}"
    OffpromptClient(URL, tenant=TENANT).add_run(thread, input="q", output="a")
    session = OffpromptSession(thread, base_url=URL, tenant=TENANT)
    try:
        await session.add_items([{"role": "user", "content": "hi"}])
    except OffpromptClientError as error:
        assert error.status == 409 and error.code == "thread_kind_mismatch", error
    else:
        raise AssertionError("a session on a thread of Griptape runs was accepted")
    other = OffpromptSession(SESSION + "-other", base_url=URL, tenant=TENANT + "-other")
    assert await other.get_items() == []


CHECKS: dict[str, Callable[[], Any]] = {
    "turn_one": turn_one,
    "turn_two": turn_two,
    "concurrent_pops": concurrent_pops,
    "big_items_and_paging": big_items_and_paging,
    "wrong_kind": wrong_kind,
}

if __name__ == "__main__":
    CHECK, URL, TENANT = sys.argv[1], sys.argv[2], sys.argv[3]
    set_tracing_disabled(True)
    isolation()
    asyncio.run(CHECKS[CHECK]())
    print("ok")
