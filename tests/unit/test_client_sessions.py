"""offprompt_client.openai_agents without a server: how the session pages, cuts appends and retries.

The e2e tier (tests/e2e/test_framework_sessions.py) runs it with the real Agents SDK against the local stack; here
a fake client answers, so each rule is seen failing alone: a retried append carries the same request id (the server
then stores it once), a pop is never resent after a connection error (it may have popped), `get_items(None)` reads
every page oldest first, and appends are cut by count and by Lambda's payload limit."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest

from offprompt_client import OffpromptClient, OffpromptClientError, OffpromptConnectionError, retries
from offprompt_client.openai_agents import OffpromptSession, request_chunks


class FakeClient(OffpromptClient):
    def __init__(self, failures: list[BaseException] | None = None) -> None:
        super().__init__("http://fake")
        self.items: list[Any] = []
        self.calls: list[tuple[str, Any]] = []
        self.failures = failures or []

    def _fail(self) -> None:
        if self.failures:
            raise self.failures.pop(0)

    def add_items(self, thread_id: str, items: list[Any], *, request_id: str | None = None) -> Any:
        self.calls.append(("add", request_id))
        self._fail()
        self.items.extend(items)
        return {"seqs": [], "replayed": 0}

    def get_items(self, thread_id: str, *, limit: int | None = None, before: int | None = None) -> Any:
        self.calls.append(("get", (limit, before)))
        end = len(self.items) if before is None else before - 1
        start = max(0, end - (limit or 20))
        return {
            "items": self.items[start:end],
            "seqs": list(range(start + 1, end + 1)),
            "next_before": start + 1 if start else None,
        }

    def pop_item(self, thread_id: str) -> Any:
        self.calls.append(("pop", None))
        self._fail()
        return {"item": self.items.pop() if self.items else None, "seq": None}


@pytest.fixture(autouse=True)
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retries.time, "sleep", lambda _s: None)


def test_get_items_none_reads_every_page_oldest_first() -> None:
    client = FakeClient()
    client.items = [{"n": i} for i in range(250)]
    session = OffpromptSession("s", client=client)
    assert asyncio.run(session.get_items()) == client.items
    assert [c for c in client.calls if c[0] == "get"] == [("get", (100, None)), ("get", (100, 151)), ("get", (100, 51))]
    assert asyncio.run(session.get_items(limit=3)) == client.items[-3:]
    assert asyncio.run(session.get_items(limit=0)) == []


def test_a_retried_append_carries_the_same_request_id() -> None:
    client = FakeClient([OffpromptConnectionError(0, "connection_error", "reset"), OffpromptClientError(503, "x", "y")])
    asyncio.run(OffpromptSession("s", client=client).add_items([{"n": 1}]))
    ids = [rid for op, rid in client.calls if op == "add"]
    assert len(ids) == 3 and len(set(ids)) == 1 and ids[0]
    assert client.items == [{"n": 1}]


def test_a_pop_is_not_resent_after_a_connection_error_but_is_after_a_503() -> None:
    client = FakeClient([OffpromptConnectionError(0, "connection_error", "reset")])
    client.items = [{"n": 1}, {"n": 2}]
    with pytest.raises(OffpromptConnectionError):
        asyncio.run(OffpromptSession("s", client=client).pop_item())
    assert [op for op, _ in client.calls] == ["pop"]
    client.failures = [OffpromptClientError(503, "dependency_unavailable", "retry")]
    assert asyncio.run(OffpromptSession("s", client=client).pop_item()) == {"n": 2}


def test_a_refused_append_is_not_retried() -> None:
    client = FakeClient([OffpromptClientError(409, "thread_kind_mismatch", "runs")])
    with pytest.raises(OffpromptClientError):
        asyncio.run(OffpromptSession("s", client=client).add_items([{"n": 1}]))
    assert len(client.calls) == 1 and client.items == []


def test_appends_are_cut_by_count_and_by_the_payload_limit() -> None:
    client = OffpromptClient("http://fake")
    assert [len(c) for c in request_chunks(client, [{"n": i} for i in range(250)])] == [32] * 7 + [26]
    big = {"content": "x" * 2_000_000}
    assert [len(c) for c in request_chunks(client, [big] * 4)] == [3, 1]
    quoted = {"content": '"' * 1_000_000}  # 4 MB once JSON and the Lambda event have escaped it
    assert [len(c) for c in request_chunks(client, [quoted] * 2)] == [1, 1]
    assert request_chunks(client, []) == []


def test_a_session_with_a_token_budget_reads_once_with_it() -> None:
    seen: list[Any] = []

    class Budgeted(FakeClient):
        def get_items(self, thread_id: str, **query: Any) -> Any:
            seen.append(query)
            return {"items": [{"n": 9}], "seqs": [9], "next_before": 8, "tokens": 3}

    session = OffpromptSession("s", client=Budgeted(), max_tokens=500)
    assert asyncio.run(session.get_items()) == [{"n": 9}]
    assert seen == [{"limit": None, "max_tokens": 500}]


def test_session_settings_are_the_sdks_and_none_only_without_the_sdk(monkeypatch: pytest.MonkeyPatch) -> None:
    from agents.memory import SessionSettings

    client = FakeClient()
    client.items = [{"n": i} for i in range(5)]
    session = OffpromptSession("s", client=client, session_settings={"limit": 2})
    assert session.session_settings == SessionSettings(limit=2)
    assert asyncio.run(session.get_items()) == client.items[-2:]
    assert asyncio.run(session.get_items(limit=3)) == client.items[-3:]
    assert OffpromptSession("s", client=client).session_settings == SessionSettings()
    with pytest.raises(TypeError, match="limitt"):
        OffpromptSession("s", client=client, session_settings={"limitt": 1})
    monkeypatch.setitem(sys.modules, "agents.memory.session_settings", None)  # as where the SDK is not installed
    assert OffpromptSession("s", client=client).session_settings is None
    with pytest.raises(ImportError, match="openai-agents"):
        OffpromptSession("s", client=client, session_settings={"limit": 2})
