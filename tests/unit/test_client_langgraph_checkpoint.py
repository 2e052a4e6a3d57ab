"""offprompt_client.langgraph.OffpromptSaver without a server: each checkpointer call as the HTTP request it becomes
(the checkpoint routes of docs/adr/0039), each answer as the `CheckpointTuple` it becomes, what is refused before
sending, and what is retried. The saver against the real local stack (LangGraph's conformance suite, a 2 MB
checkpoint, a graph across processes): tests/e2e/test_langgraph_checkpoint.py, tests/e2e/test_client_standalone.py.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Callable
from typing import Any

import pytest
from client_support import FakeTransport
from langgraph.checkpoint.base import CheckpointTuple
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.serde.types import ERROR, INTERRUPT

from offprompt_client import OffpromptClientError, OffpromptConnectionError, retries
from offprompt_client.langgraph import OffpromptSaver
from offprompt_client.langgraph_checkpoint import CheckpointTooLarge

SERDE = JsonPlusSerializer()
CP_ID = "1f0a0000-0000-6000-8000-000000000002"
PARENT_ID = "1f0a0000-0000-6000-8000-000000000001"


@pytest.fixture(autouse=True)
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retries.time, "sleep", lambda _s: None)


def saver_on(answer: Callable[[str, str, dict[str, str], Any], tuple[int, Any]] | None = None) -> Any:
    transport = FakeTransport(answer)
    return OffpromptSaver(client=transport), transport


def checkpoint(**values: Any) -> dict[str, Any]:
    return {
        "v": 1,
        "id": CP_ID,
        "ts": "2026-12-03T10:00:00+00:00",
        "channel_values": values,
        "channel_versions": {k: 1 for k in values},
        "versions_seen": {},
        "updated_channels": None,
    }


def wire(value: Any) -> dict[str, str]:
    kind, data = SERDE.dumps_typed(value)
    return {"type": kind, "data": base64.b64encode(data).decode()}


def answer_tuple(thread: str = "t", **fields: Any) -> dict[str, Any]:
    return {
        "thread_id": thread,
        "checkpoint_ns": "",
        "checkpoint_id": CP_ID,
        "parent_checkpoint_id": PARENT_ID,
        "checkpoint": wire(checkpoint(k="v")),
        "metadata": {"source": "loop", "step": 1},
        "pending_writes": [
            {"task_id": "task", "task_path": "", "idx": 0, "channel": "k", "value": wire("pending")},
        ],
        **fields,
    }


# ---- put ------------------------------------------------------------------------------------------------------
def test_put_sends_the_serialized_checkpoint_its_parent_and_the_merged_metadata() -> None:
    saver, sent = saver_on(lambda *_: (200, {}))
    config = {
        "configurable": {"thread_id": "t", "checkpoint_ns": "sub:1", "checkpoint_id": PARENT_ID, "user": "ada"},
        "metadata": {"run_name": "nightly", "obj": object()},
    }
    cp = checkpoint(k="v")
    cp["channel_values"]["stale"] = "not in channel_versions"
    stored = saver.put(config, cp, {"source": "loop", "step": 1, "parents": {}}, {"k": 1})
    assert stored == {"configurable": {"thread_id": "t", "checkpoint_ns": "sub:1", "checkpoint_id": CP_ID}}
    [(method, path, query, body)] = sent.sent
    assert (method, path, query) == ("PUT", f"/checkpoint-threads/t/checkpoints/{CP_ID}", {})
    assert body["checkpoint_ns"] == "sub:1" and body["parent_checkpoint_id"] == PARENT_ID
    # LangGraph's own merge: the config's primitive values join the metadata; objects do not
    assert body["metadata"] == {"source": "loop", "step": 1, "parents": {}, "user": "ada", "run_name": "nightly"}
    sent_checkpoint = SERDE.loads_typed((body["checkpoint"]["type"], base64.b64decode(body["checkpoint"]["data"])))
    assert sent_checkpoint == checkpoint(k="v")  # only the channels its versions name


def test_metadata_json_cannot_hold_is_refused_before_sending() -> None:
    saver, sent = saver_on()
    with pytest.raises(TypeError, match="JSON"):
        saver.put({"configurable": {"thread_id": "t"}}, checkpoint(), {"source": "loop", "x": {1, 2}}, {})
    assert sent.sent == []


# ---- put_writes -----------------------------------------------------------------------------------------------
def test_put_writes_numbers_regular_writes_by_position_and_special_channels_by_langgraphs_map() -> None:
    saver, sent = saver_on(lambda *_: (200, {"stored": 3}))
    config = {"configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": CP_ID}}
    saver.put_writes(config, [("a", 1), (ERROR, "boom"), (INTERRUPT, {"q": "?"})], "task-1", "p:1")
    [(method, path, _, body)] = sent.sent
    assert (method, path) == ("PUT", f"/checkpoint-threads/t/checkpoints/{CP_ID}/writes")
    assert body == {
        "checkpoint_ns": "",
        "task_id": "task-1",
        "task_path": "p:1",
        "writes": [
            {"idx": 0, "channel": "a", "value": wire(1)},
            {"idx": -1, "channel": ERROR, "value": wire("boom")},
            {"idx": -3, "channel": INTERRUPT, "value": wire({"q": "?"})},
        ],
    }


def test_many_writes_go_in_requests_the_route_accepts() -> None:
    saver, sent = saver_on(lambda *_: (200, {}))
    config = {"configurable": {"thread_id": "t", "checkpoint_id": CP_ID}}
    saver.put_writes(config, [("c", n) for n in range(1001)], "task")
    sizes = [len(body["writes"]) for _, _, _, body in sent.sent]
    assert sizes == [500, 500, 1] and sent.sent[2][3]["writes"][0]["idx"] == 1000


# ---- get_tuple ------------------------------------------------------------------------------------------------
def test_get_tuple_asks_for_the_latest_or_the_named_checkpoint_and_builds_the_tuple() -> None:
    saver, sent = saver_on(lambda *_: (200, answer_tuple(thread="source-of-a-copy")))
    found = saver.get_tuple({"configurable": {"thread_id": "t"}})
    assert sent.sent[-1][:3] == ("GET", "/checkpoint-threads/t/checkpoint", {})
    assert isinstance(found, CheckpointTuple)
    assert found.config == {"configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": CP_ID}}
    assert found.parent_config == {"configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": PARENT_ID}}
    assert found.checkpoint == checkpoint(k="v") and found.metadata == {"source": "loop", "step": 1}
    assert found.pending_writes == [("task", "k", "pending")]
    saver.get_tuple({"configurable": {"thread_id": "t", "checkpoint_ns": "n", "checkpoint_id": CP_ID}})
    assert sent.sent[-1][2] == {"checkpoint_ns": "n", "checkpoint_id": CP_ID}


def test_get_tuple_of_nothing_is_none_but_another_404_raises() -> None:
    saver, _ = saver_on(lambda *_: (404, {"code": "checkpoint_not_found"}))
    assert saver.get_tuple({"configurable": {"thread_id": "t"}}) is None
    saver, _ = saver_on(lambda *_: (404, {"code": "route_not_found"}))
    with pytest.raises(OffpromptClientError):
        saver.get_tuple({"configurable": {"thread_id": "t"}})


# ---- list -----------------------------------------------------------------------------------------------------
def test_list_follows_cursors_counts_down_the_limit_and_retries_a_busy_page() -> None:
    pages = {None: ([answer_tuple(), answer_tuple()], "c2"), "c2": ([answer_tuple()], "c3"), "c3": ([], None)}
    busy = [True]

    def answer(method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        if body["cursor"] == "c2" and busy.pop() if busy else False:
            return 503, {"code": "busy"}
        tuples, cursor = pages[body["cursor"]]
        return 200, {"checkpoints": tuples, "next_cursor": cursor}

    saver, sent = saver_on(answer)
    before = {"configurable": {"thread_id": "t", "checkpoint_id": CP_ID}}
    found = list(saver.list({"configurable": {"thread_id": "t"}}, filter={"step": 1}, before=before, limit=5))
    assert len(found) == 3
    bodies = [body for _, _, _, body in sent.sent]
    assert [b["cursor"] for b in bodies] == [None, "c2", "c2", "c3"]  # the busy page asked for again
    assert [b["limit"] for b in bodies] == [5, 3, 3, 2]
    assert all(b["checkpoint_ns"] is None and b["before"] == CP_ID and b["filter"] == {"step": 1} for b in bodies)


def test_list_without_a_thread_or_with_limit_zero_sends_nothing() -> None:
    saver, sent = saver_on()
    with pytest.raises(ValueError, match="thread_id"):
        list(saver.list(None))
    assert list(saver.list({"configurable": {"thread_id": "t"}}, limit=0)) == []
    assert sent.sent == []


def test_list_of_a_named_checkpoint_is_its_get_with_filter_and_before_applied() -> None:
    saver, sent = saver_on(lambda *_: (200, answer_tuple()))
    config = {"configurable": {"thread_id": "t", "checkpoint_id": CP_ID}}
    assert len(list(saver.list(config))) == 1
    assert list(saver.list(config, filter={"step": 2})) == []
    assert list(saver.list(config, filter={"step": True})) == []  # JSON's true is not 1, as the service says
    assert len(list(saver.list(config, filter={"step": 1.0, "source": "loop"}))) == 1
    assert list(saver.list(config, before={"configurable": {"checkpoint_id": CP_ID}})) == []
    assert {method for method, *_ in sent.sent} == {"GET"}


# ---- delete, copy, prune --------------------------------------------------------------------------------------
def test_delete_copy_and_prune_requests() -> None:
    saver, sent = saver_on(lambda *_: (200, {}))
    saver.delete_thread("t")
    saver.copy_thread("t", "t2")
    saver.prune(["a", "b"], strategy="delete")
    assert [(m, p, b) for m, p, _, b in sent.sent] == [
        ("DELETE", "/checkpoint-threads/t", None),
        ("POST", "/checkpoint-threads/t/copy", {"target_thread_id": "t2"}),
        ("POST", "/checkpoint-threads/a/prune", {"strategy": "delete"}),
        ("POST", "/checkpoint-threads/b/prune", {"strategy": "delete"}),
    ]


def test_copy_of_a_thread_without_checkpoints_copies_nothing_and_a_lost_copy_is_not_resent() -> None:
    saver, _ = saver_on(lambda *_: (404, {"code": "checkpoint_thread_not_found"}))
    saver.copy_thread("none", "t2")

    def lost(*_: Any) -> tuple[int, Any]:
        raise OffpromptConnectionError(0, "connection_error", "reset")

    saver, sent = saver_on(lost)
    with pytest.raises(OffpromptConnectionError):
        saver.copy_thread("t", "t2")
    assert len(sent.sent) == 1  # resent, it would find its own copy and answer 409


def test_an_unknown_prune_strategy_sends_nothing() -> None:
    saver, sent = saver_on()
    with pytest.raises(ValueError, match="strategy"):
        saver.prune(["t"], strategy="keep_oldest")
    assert sent.sent == []


def test_puts_are_retried_on_connection_errors_and_503_refusals_are_not() -> None:
    answers: list[Any] = [OffpromptConnectionError(0, "connection_error", "reset"), (503, {"code": "busy"})]

    def answer(*_: Any) -> tuple[int, Any]:
        if answers:
            nxt = answers.pop(0)
            if isinstance(nxt, BaseException):
                raise nxt
            return nxt
        return 200, {}

    saver, sent = saver_on(answer)
    saver.put({"configurable": {"thread_id": "t"}}, checkpoint(), {"source": "loop", "step": 0}, {})
    assert len(sent.sent) == 3
    saver, sent = saver_on(lambda *_: (413, {"code": "payload_too_large"}))
    with pytest.raises(OffpromptClientError):
        saver.put({"configurable": {"thread_id": "t"}}, checkpoint(), {"source": "loop", "step": 0}, {})
    assert len(sent.sent) == 1


def test_the_async_methods_give_the_same_answers() -> None:
    saver, sent = saver_on(
        lambda m, p, q, b: (
            200,
            {"checkpoints": [answer_tuple()], "next_cursor": None} if p.endswith("/list") else answer_tuple(),
        )
    )
    config = {"configurable": {"thread_id": "t"}}

    async def both() -> tuple[Any, list[Any]]:
        found = await saver.aget_tuple(config)
        listed = [t async for t in saver.alist(config)]
        await saver.aput(config, checkpoint(), {"source": "loop", "step": 0}, {})
        await saver.aput_writes({"configurable": {"thread_id": "t", "checkpoint_id": CP_ID}}, [("a", 1)], "x")
        await saver.adelete_thread("t")
        await saver.acopy_thread("t", "u")
        await saver.aprune(["t"])
        return found, listed

    found, listed = asyncio.run(both())
    assert found == saver.get_tuple(config) and listed == list(saver.list(config))
    assert [m for m, *_ in sent.sent[:7]] == ["GET", "POST", "PUT", "PUT", "DELETE", "POST", "POST"]


def test_a_tuple_too_large_is_a_typed_error_and_not_resent() -> None:
    refusal = {"code": "checkpoint_too_large", "message": "over 4194304", "details": {"limit": 4194304}}
    saver, sent = saver_on(lambda *_: (413, refusal))
    config = {"configurable": {"thread_id": "t", "checkpoint_id": CP_ID}}
    with pytest.raises(CheckpointTooLarge) as raised:
        saver.put_writes(config, [("k", "v" * 10)], "task")
    assert (raised.value.status, raised.value.code) == (413, "checkpoint_too_large")
    with pytest.raises(CheckpointTooLarge):
        saver.put({"configurable": {"thread_id": "t"}}, checkpoint(), {"source": "loop", "step": 0}, {})
    assert len(sent.sent) == 2
