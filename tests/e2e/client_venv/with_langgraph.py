"""offprompt_client with the `langgraph` extra, in a venv holding only `offprompt-client[langgraph]` (the real
LangGraph, no server library, no repository), against the real local stack: a LangGraph `StateGraph` whose
"model" is a scripted function (no network) keeps its long-term memory in `offprompt_client.langgraph.OffpromptStore`.
Run by tests/e2e/test_client_standalone.py, once per check, each in a fresh interpreter (so `turn_two` reads what
`turn_one`, another process, stored):

    python -I with_langgraph.py CHECK API_URL TENANT

Prints `ok` when the isolation check and CHECK passed (a traceback and exit status 1 otherwise).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import importlib.util
import re
import sys
import time
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore, InvalidNamespaceError, Item, SearchItem

from offprompt_client import OffpromptClient
from offprompt_client.langgraph import OffpromptStore

USER = "ada-two-processes"


class State(TypedDict, total=False):
    user: str
    message: str
    memories: list[str]
    answer: str
    remember: dict[str, Any] | None


def scripted_model(message: str, memories: list[str]) -> tuple[str, dict[str, Any] | None]:
    """The LLM's stand-in: (the answer, a memory to keep or None), from the message and the recalled memories."""
    if told := re.search(r"My name is (\w+)", message):
        return "Noted.", {"kind": "fact", "text": f"The user's name is {told.group(1)}."}
    if "What is my name" in message:
        names = [m.group(1) for text in memories if (m := re.search(r"name is (\w+)", text))]
        return (f"Your name is {names[-1]}." if names else "I do not know."), None
    return "Noted.", None


def namespace(user: str) -> tuple[str, ...]:
    return ("users", user, "memories")


# ---- the graph: recall -> model -> remember, sync nodes (turn_one) or async nodes (turn_two) -------------------
def recall(state: State, runtime: Runtime) -> State:
    assert runtime.store is not None
    found = runtime.store.search(namespace(state["user"]), filter={"kind": "fact"}, limit=20)
    return {"memories": [item.value["text"] for item in found]}


def model(state: State) -> State:
    answer, memory = scripted_model(state["message"], state.get("memories", []))
    return {"answer": answer, "remember": memory}


def remember(state: State, runtime: Runtime) -> State:
    memory = state.get("remember")
    if memory and runtime.store is not None:
        runtime.store.put(namespace(state["user"]), "name", memory)
    return {}


async def arecall(state: State, runtime: Runtime) -> State:
    assert runtime.store is not None
    found = await runtime.store.asearch(namespace(state["user"]), filter={"kind": "fact"}, limit=20)
    return {"memories": [item.value["text"] for item in found]}


async def aremember(state: State, runtime: Runtime) -> State:
    memory = state.get("remember")
    if memory and runtime.store is not None:
        await runtime.store.aput(namespace(state["user"]), "name", memory)
    return {}


def graph(store: BaseStore, *, asynchronous: bool = False) -> Any:
    builder = StateGraph(State)
    builder.add_node("recall", arecall if asynchronous else recall)
    builder.add_node("model", model)
    builder.add_node("remember", aremember if asynchronous else remember)
    builder.add_edge(START, "recall")
    builder.add_edge("recall", "model")
    builder.add_edge("model", "remember")
    builder.add_edge("remember", END)
    return builder.compile(store=store)


def isolation() -> None:
    assert sys.flags.isolated, "run me with python -I"
    for name in ("offprompt", "api_common", "offprompt_local", "griptape", "agents", "strands"):
        assert importlib.util.find_spec(name) is None, f"{name} is importable: the venv holds more than the extra"
    assert importlib.metadata.version("langgraph").startswith("1.")


def _store(**kwargs: Any) -> OffpromptStore:
    return OffpromptStore(base_url=URL, tenant=TENANT, timeout=120, **kwargs)


def turn_one() -> None:
    store = _store()
    for item in store.search(namespace(USER), limit=100):  # a rerun starts clean
        store.delete(item.namespace, item.key)
    out = graph(store).invoke({"user": USER, "message": "My name is Ada."})
    assert out["answer"] == "Noted." and out["memories"] == [], out
    stored = store.get(namespace(USER), "name")
    assert stored is not None and stored.value == {"kind": "fact", "text": "The user's name is Ada."}


def turn_two() -> None:
    store = _store()  # another process: the memory comes from offprompt
    out = asyncio.run(graph(store, asynchronous=True).ainvoke({"user": USER, "message": "What is my name?"}))
    assert out["memories"] == ["The user's name is Ada."], out
    assert out["answer"] == "Your name is Ada.", out
    # and by text (BM25): searchable within the index's refresh interval
    deadline = time.monotonic() + 30
    while not (hits := store.search(("users", USER), query="name Ada")) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert [(h.namespace, h.key) for h in hits] == [(namespace(USER), "name")], hits
    assert hits[0].score is not None and hits[0].score > 0


def store_api() -> None:
    """The store's surface as a user meets it, in the venv that has nothing but the extra."""
    root = f"lg-{uuid.uuid4().hex[:8]}"
    store = _store(ttl={"default_ttl": 60, "refresh_on_read": True})
    store.put((root, "prefs"), "food", {"likes": "lentils", "stars": 4})
    store.put((root, "prefs"), "food", {"likes": "beans", "stars": 5})  # a replace keeps the old version
    store.put((root, "notes"), "n1", {"text": "quiet"}, index=False, ttl=5)
    item = store.get((root, "prefs"), "food")
    assert isinstance(item, Item) and item.value == {"likes": "beans", "stars": 5}
    assert isinstance(item.created_at, datetime) and item.created_at.tzinfo is not None
    assert item.updated_at >= item.created_at
    found = store.search((root,), filter={"stars": {"$gte": 5}})
    assert [(type(i), i.key) for i in found] == [(SearchItem, "food")]
    assert store.list_namespaces(prefix=(root,)) == [(root, "notes"), (root, "prefs")]
    assert store.list_namespaces(prefix=(root,), max_depth=1) == [(root,)]
    history = OffpromptClient(URL, tenant=TENANT).record_history([root, "prefs"], "food")
    values = [version["value"] for version in (history["versions"] if isinstance(history, dict) else history)]
    assert values == [{"likes": "beans", "stars": 5}, {"likes": "lentils", "stars": 4}], history
    assert asyncio.run(store.aget((root, "notes"), "n1")) is not None
    store.delete((root, "prefs"), "food")
    assert store.get((root, "prefs"), "food") is None
    assert store.list_namespaces(prefix=(root,)) == [(root, "notes")]
    try:
        store.put((root, "a.b"), "k", {})
    except InvalidNamespaceError:
        pass
    else:
        raise AssertionError("a label with '.' was accepted")


CHECKS: dict[str, Callable[[], None]] = {
    "turn_one": turn_one,
    "turn_two": turn_two,
    "store_api": store_api,
}

if __name__ == "__main__":
    CHECK, URL, TENANT = sys.argv[1], sys.argv[2], sys.argv[3]
    isolation()
    CHECKS[CHECK]()
    print("ok")
