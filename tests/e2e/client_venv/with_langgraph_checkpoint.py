"""offprompt_client's LangGraph checkpointer, in a venv holding only `offprompt-client[langgraph]` (the real LangGraph,
no server library, no repository), against the real local stack: a human-in-the-loop `StateGraph` whose "model" is
a scripted function (no network) keeps its checkpoints in `offprompt_client.langgraph.OffpromptSaver`. Run by
tests/e2e/test_client_standalone.py, each check in a fresh interpreter, in order:

- `interrupted`: the graph plans, then stops at the approval step (`interrupt`); the process ends there.
- `resumed`: another process resumes the thread (`Command(resume="yes")`, async API) and the graph finishes.
- `replayed`: another process replays the thread from the checkpoint before the plan (the graph plans again and
  stops at the approval again), resumes it with "no", and finds both branches in the history; copies the thread
  (a fork) and deletes it.

    python -I with_langgraph_checkpoint.py CHECK API_URL TENANT

Prints `ok` when the isolation check and CHECK passed (a traceback and exit status 1 otherwise).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import importlib.util
import sys
from collections.abc import Callable
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from offprompt_client.langgraph import OffpromptSaver

THREAD = "lg-approval-flow"
REQUEST = "archive the Q3 report"


class State(TypedDict, total=False):
    request: str
    proposal: str
    plans: int
    approved: bool
    answer: str


def scripted_model(request: str) -> str:
    """The LLM's stand-in: the plan it proposes for a request."""
    return f"move '{request.removeprefix('archive ')}' to the archive"


def plan(state: State) -> State:
    return {"proposal": scripted_model(state["request"]), "plans": state.get("plans", 0) + 1}


def approve(state: State) -> State:
    decision = interrupt({"question": "Approve?", "proposal": state["proposal"]})
    return {"approved": decision == "yes"}


def act(state: State) -> State:
    return {"answer": ("done: " if state["approved"] else "cancelled: ") + state["proposal"]}


def graph(saver: OffpromptSaver) -> Any:
    builder = StateGraph(State)
    builder.add_node("plan", plan)
    builder.add_node("approve", approve)
    builder.add_node("act", act)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "approve")
    builder.add_edge("approve", "act")
    builder.add_edge("act", END)
    return builder.compile(checkpointer=saver)


def isolation() -> None:
    assert sys.flags.isolated, "run me with python -I"
    for name in ("offprompt", "api_common", "offprompt_local", "griptape", "agents", "strands"):
        assert importlib.util.find_spec(name) is None, f"{name} is importable: the venv holds more than the extra"
    assert importlib.metadata.version("langgraph").startswith("1.")


def _saver() -> OffpromptSaver:
    return OffpromptSaver(base_url=URL, tenant=TENANT, timeout=120)


CONFIG: dict[str, Any] = {"configurable": {"thread_id": THREAD}}


def interrupted() -> None:
    saver = _saver()
    saver.delete_thread(THREAD)  # a rerun starts clean
    out = graph(saver).invoke({"request": REQUEST}, CONFIG)
    [stop] = out["__interrupt__"]
    assert stop.value == {"question": "Approve?", "proposal": scripted_model(REQUEST)}, out
    state = graph(saver).get_state(CONFIG)
    assert state.next == ("approve",) and state.values["plans"] == 1, state


def resumed() -> None:
    async def resume() -> dict[str, Any]:
        app = graph(_saver())
        state = await app.aget_state(CONFIG)  # what the other process left
        assert state.next == ("approve",), state
        return await app.ainvoke(Command(resume="yes"), CONFIG)

    out = asyncio.run(resume())
    assert out["answer"] == f"done: {scripted_model(REQUEST)}" and out["plans"] == 1, out
    state = graph(_saver()).get_state(CONFIG)
    assert state.next == () and state.values["approved"] is True, state


def replayed() -> None:
    saver = _saver()
    app = graph(saver)
    history = list(app.get_state_history(CONFIG))
    assert [s.next for s in history] == [(), ("act",), ("approve",), ("plan",), ("__start__",)], history
    done_id = history[0].config["configurable"]["checkpoint_id"]
    before_plan = next(s for s in history if s.next == ("plan",))
    out = app.invoke(None, before_plan.config)  # replay: the graph plans again from there, and stops again
    assert "__interrupt__" in out and out["plans"] == 1, out
    out = app.invoke(Command(resume="no"), CONFIG)
    assert out["answer"] == f"cancelled: {scripted_model(REQUEST)}", out
    branches = list(app.get_state_history(CONFIG))
    assert len(branches) == len(history) + 4, [s.next for s in branches]  # plan, approve, act, end of the new branch
    done = saver.get_tuple({"configurable": {"thread_id": THREAD, "checkpoint_ns": "", "checkpoint_id": done_id}})
    assert done is not None and done.checkpoint["channel_values"]["answer"].startswith("done: ")  # the old branch
    copy = f"{THREAD}-copy"
    saver.delete_thread(copy)
    saver.copy_thread(THREAD, copy)
    copied = app.get_state({"configurable": {"thread_id": copy}})
    assert copied.values == app.get_state(CONFIG).values, copied
    assert len(list(app.get_state_history({"configurable": {"thread_id": copy}}))) == len(branches)
    saver.delete_thread(THREAD)
    assert app.get_state({"configurable": {"thread_id": copy}}).values == copied.values  # the copy outlives it
    assert saver.get_tuple(CONFIG) is None
    saver.delete_thread(copy)


CHECKS: dict[str, Callable[[], None]] = {
    "interrupted": interrupted,
    "resumed": resumed,
    "replayed": replayed,
}

if __name__ == "__main__":
    CHECK, URL, TENANT = sys.argv[1], sys.argv[2], sys.argv[3]
    isolation()
    CHECKS[CHECK]()
    print("ok")
