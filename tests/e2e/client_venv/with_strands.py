"""offprompt_client with the `strands` extra, in a venv holding only `offprompt-client[strands]` (the real Strands
Agents SDK, no server library, no repository), against the real local stack: a Strands `Agent` on a scripted model
(no network) keeps its session (messages, agent state, redactions) in `offprompt_client.strands`, and a Strands
`Graph` of two such agents keeps its multi-agent state there (docs/adr/0046). Run by
tests/e2e/test_framework_sessions.py, once per check, each in a fresh interpreter (so `turn_two` reads what
`turn_one`, another process, stored):

    python -I with_strands.py CHECK API_URL TENANT

Prints `ok` when the isolation check and CHECK passed (a traceback and exit status 1 otherwise).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import sys
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from strands import Agent
from strands.models import Model
from strands.multiagent import GraphBuilder

from offprompt_client import OffpromptClient, OffpromptClientError
from offprompt_client.strands import OffpromptSessionManager, OffpromptSessionRepository

SESSION = "strands-two-processes"


class ScriptedModel(Model):
    """Answers from the messages it is given (no network): the name the user said in any earlier turn."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> Any:
        return {}

    async def structured_output(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def stream(self, messages: Any, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        self.seen.append(messages)
        texts = [_text(m) for m in messages]
        names = [m.group(1) for t in texts if (m := re.search(r"My name is (\w+)", t))]
        answer = f"Your name is {names[-1]}." if "What is my name" in texts[-1] and names else "Noted."
        yield {"messageStart": {"role": "assistant"}}
        yield {"contentBlockStart": {"start": {}}}
        yield {"contentBlockDelta": {"delta": {"text": answer}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}


def _text(message: Any) -> str:
    return " ".join(str(block.get("text", "")) for block in message.get("content", []))


def isolation() -> None:
    assert sys.flags.isolated, "run me with python -I"
    for name in ("offprompt", "api_common", "offprompt_local", "griptape"):
        assert importlib.util.find_spec(name) is None, f"{name} is importable: the venv holds more than the extra"
    assert importlib.metadata.version("strands-agents") == "1.62.0"


def _agent(model: ScriptedModel, session_id: str = SESSION) -> Agent:
    manager = OffpromptSessionManager(session_id, base_url=URL, tenant=TENANT, timeout=120)
    return Agent(model=model, session_manager=manager, agent_id="helper", callback_handler=None)


def turn_one() -> None:
    repository = OffpromptSessionRepository(base_url=URL, tenant=TENANT)
    if repository.read_session(SESSION) is not None:
        repository.delete_session(SESSION)
    agent = _agent(ScriptedModel())
    agent.state.set("turns", 1)  # synced with the agent when the invocation ends
    assert str(agent("My name is Ada.")).strip() == "Noted."
    assert [m["role"] for m in agent.messages] == ["user", "assistant"]


def turn_two() -> None:
    model = ScriptedModel()
    agent = _agent(model)  # another process: the messages and the state come from offprompt
    assert [_text(m) for m in agent.messages] == ["My name is Ada.", "Noted."], agent.messages
    assert agent.state.get("turns") == 1
    assert str(agent("What is my name?")).strip() == "Your name is Ada."
    assert _text(model.seen[0][0]) == "My name is Ada."
    # redaction, as a guardrail does it: the latest message is replaced in the stored session
    assert agent._session_manager is not None
    agent._session_manager.redact_latest_message({"role": "assistant", "content": [{"text": "[redacted]"}]}, agent)
    stored = OffpromptSessionRepository(base_url=URL, tenant=TENANT).list_messages(SESSION, "helper")
    assert [_text(m.to_message()) for m in stored] == ["My name is Ada.", "Noted.", "What is my name?", "[redacted]"]
    assert [m.message_id for m in stored] == [0, 1, 2, 3]
    page = OffpromptSessionRepository(base_url=URL, tenant=TENANT).list_messages(SESSION, "helper", limit=2, offset=1)
    assert [m.message_id for m in page] == [1, 2]


def delete_and_isolation() -> None:
    session = f"strands-{uuid.uuid4().hex[:8]}"
    agent = _agent(ScriptedModel(), session)
    agent("My name is Bo.")
    other = OffpromptSessionRepository(base_url=URL, tenant=TENANT + "-other")
    assert other.read_session(session) is None and other.list_messages(session, "helper") == []
    repository = OffpromptSessionRepository(base_url=URL, tenant=TENANT)
    repository.delete_session(session)
    assert repository.read_session(session) is None
    assert repository.read_agent(session, "helper") is None and repository.list_messages(session, "helper") == []
    OffpromptClient(URL, tenant=TENANT).add_run(session, input="q", output="a")  # now a thread of Griptape runs
    try:
        _agent(ScriptedModel(), session)
    except OffpromptClientError as error:
        assert error.status == 409 and error.code == "thread_kind_mismatch", error
    else:
        raise AssertionError("a Strands session on a thread of Griptape runs was accepted")


def graph_session() -> None:
    session = f"strands-graph-{uuid.uuid4().hex[:8]}"
    repository = OffpromptSessionRepository(base_url=URL, tenant=TENANT)

    def graph() -> Any:
        builder = GraphBuilder()
        builder.add_node(Agent(model=ScriptedModel(), agent_id="first", callback_handler=None), "first")
        builder.add_node(Agent(model=ScriptedModel(), agent_id="second", callback_handler=None), "second")
        builder.add_edge("first", "second")
        builder.set_graph_id("planner")
        builder.set_max_node_executions(10)
        builder.set_session_manager(OffpromptSessionManager(session, base_url=URL, tenant=TENANT, timeout=120))
        return builder.build()

    result = graph()("My name is Cy.")
    assert result.status.value == "completed", result
    state = repository.read_multi_agent(session, "planner")
    assert state is not None and state["type"] == "graph" and state["id"] == "planner", state
    assert state["status"] == "completed" and sorted(state["completed_nodes"]) == ["first", "second"], state
    assert state["execution_order"] == ["first", "second"] and state["current_task"] == "My name is Cy."
    again = graph()  # another graph on the same session reads the stored state (completed: it starts afresh)
    assert again("What is my name?").status.value == "completed"
    assert repository.read_multi_agent(session, "planner")["current_task"] == "What is my name?"
    repository.delete_session(session)
    assert repository.read_session(session) is None and repository.read_multi_agent(session, "planner") is None


CHECKS: dict[str, Callable[[], None]] = {
    "turn_one": turn_one,
    "turn_two": turn_two,
    "delete_and_isolation": delete_and_isolation,
    "graph_session": graph_session,
}

if __name__ == "__main__":
    CHECK, URL, TENANT = sys.argv[1], sys.argv[2], sys.argv[3]
    isolation()
    CHECKS[CHECK]()
    print("ok")
