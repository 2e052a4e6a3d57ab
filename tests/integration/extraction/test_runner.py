"""The extraction runner end to end on moto with a scripted OpenAI-compatible model over real HTTP (docs/adr/0051):
strategy → conversation → the model's operations → records with provenance and history → status; consolidation
(update keeps history, delete is a tombstone, paraphrases are one record); a replayed event; a model that times out,
answers garbage or is down for a while (nothing lost, the status says so, it catches up); triggers; the plan's
extraction tokens; another tenant's runs never reach a strategy."""

from __future__ import annotations

import re
from typing import Any

import pytest
from extraction_support import (
    Deferred,
    ScriptedModel,
    completion,
    known_of,
    operations,
    turns_of,
)
from records_support import Clock

from offprompt.errors import NotFound
from offprompt.metering import utc_day
from offprompt.services.extraction.context import Extractions
from offprompt.services.extraction.requests import StrategyPut, Trigger
from offprompt.services.extraction.run import MAX_FAILURES, extract_thread
from offprompt.services.extraction.status import thread_extraction
from offprompt.services.extraction.strategies import put_strategy
from offprompt.services.records.get import get_record, record_history
from offprompt.services.records.requests import HistoryQuery, RecordRead, RecordSearch
from offprompt.services.records.search import search_records

TENANT = "tenant-a"
NS = ("users", "u1", "facts")


def home_model(request: dict[str, Any]) -> tuple[int, Any]:
    """Consolidates where the user lives under `home_city`: add, update when it changed, delete when they moved out,
    noop when the prompt shows it is known."""
    known = known_of(request)
    ops = []
    for run_id, text in turns_of(request):
        moved = re.search(r"I moved out", text)
        city = re.search(r"I live in (\w+)", text)
        if moved and "home_city" in known:
            ops.append({"op": "delete", "key": "home_city", "text": "", "source_run_ids": [run_id]})
        elif city:
            fact = f"Lives in {city.group(1)}"
            op = "noop" if known.get("home_city") == fact else ("update" if "home_city" in known else "add")
            ops.append({"op": op, "key": "home_city", "text": fact, "source_run_ids": [run_id]})
    return 200, completion(operations(*ops))


def facts(ext: Extractions, *, tenant: str = TENANT, after_runs: int = 1, idle_seconds: int = 0) -> None:
    request = StrategyPut(
        type="facts",
        namespace="users/{actor_id}/facts",
        trigger=Trigger(after_runs=after_runs, idle_seconds=idle_seconds),
    )
    put_strategy(ext, tenant, "facts", request)


def actor(ext: Extractions, thread_id: str, actor_id: str = "u1", tenant: str = TENANT) -> None:
    ext.runs.configure(tenant, thread_id, {"actor_id": actor_id}, "2026-01-01T00:00:00Z")


def lisbon(ext: Extractions, chat: Any, clock: Clock) -> None:
    """The facts strategy, thread t1 of actor u1 (a first run creates it), and its run saying where the user lives."""
    facts(ext)
    chat.say(TENANT, "t1", "hello")
    actor(ext, "t1")
    chat.say(TENANT, "t1", "I live in Lisbon")
    clock.tick()


def status_of(ext: Extractions, thread_id: str, tenant: str = TENANT) -> dict[str, Any]:
    return thread_extraction(ext, tenant, thread_id)["strategies"]["facts"]


def record(ext: Extractions, key: str = "home_city", tenant: str = TENANT) -> dict[str, Any]:
    return get_record(ext.records, tenant, NS, key, RecordRead(refresh_ttl=False))


def tokens_today(ext: Extractions, clock: Clock, tenant: str = TENANT) -> int:
    assert ext.account is not None
    day = utc_day(clock())
    return sum(c.get("extraction_tokens", 0) for _, c in ext.account.usage_items(tenant, day, day))


def test_a_fact_added_then_updated_then_deleted_with_provenance_history_and_status(
    ext: Extractions, model: ScriptedModel, chat: Any, clock: Clock
) -> None:
    model.script = home_model
    facts(ext)
    chat.say(TENANT, "t1", "hello")  # creates the thread
    actor(ext, "t1")
    first = chat.say(TENANT, "t1", "I live in Lisbon")
    clock.tick()
    out = extract_thread(ext, TENANT, "t1")
    assert out["strategies"]["facts"] == {"outcome": "extracted", "written": 1, "wait": None}
    added = record(ext)
    assert added["value"]["text"] == "Lives in Lisbon"
    provenance = added["value"]["provenance"]
    assert provenance["thread_id"] == "t1" and provenance["run_ids"] == [first]
    assert provenance["strategy"] == "facts" and provenance["model"] == "openai:scripted"
    assert (
        provenance["op"] == "add"
        and provenance["extracted_at"]
        and (provenance["first_seq"], provenance["last_seq"]) == (1, 2)
    )
    sent = model.requests[-1]
    assert sent["path"] == "/v1/chat/completions" and sent["auth"] == "Bearer sk-test" and sent["model"] == "scripted"
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["name"] == "memory_operations"
    assert "[run r1] User: hello" in sent["messages"][-1]["content"]

    clock.tick()
    chat.say(TENANT, "t1", "I live in Porto now")
    clock.tick()
    assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["written"] == 1
    assert "- home_city: Lives in Lisbon" in model.requests[-1]["messages"][-1]["content"]  # consolidated
    assert record(ext)["value"]["text"] == "Lives in Porto" and record(ext)["value"]["provenance"]["op"] == "update"
    versions = record_history(ext.records, TENANT, NS, "home_city", HistoryQuery())["versions"]
    assert [v["value"]["text"] for v in versions] == ["Lives in Porto", "Lives in Lisbon"]
    assert versions[1]["valid_to"] == versions[0]["valid_from"]  # the old one's validity window closed

    clock.tick()
    chat.say(TENANT, "t1", "I moved out, no home for now")
    clock.tick()
    assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["written"] == 1
    with pytest.raises(NotFound):
        record(ext)
    versions = record_history(ext.records, TENANT, NS, "home_city", HistoryQuery())["versions"]
    assert [v["deleted"] for v in versions] == [True, False, False]

    status = status_of(ext, "t1")
    assert status["processed_through_seq"] == 4 and status["pending_runs"] == 0
    assert status["records_written"] == 3 and status["last_error"] is None and status["paused"] is None
    assert tokens_today(ext, clock) == 3 * 120  # each answer's prompt and completion tokens


def test_ten_paraphrases_leave_one_record(ext: Extractions, model: ScriptedModel, chat: Any, clock: Clock) -> None:
    """The scripted model answers `add` (under a new key each time) unless the existing record is in its prompt."""

    def adds_unless_known(request: dict[str, Any]) -> tuple[int, Any]:
        if any("Lisbon" in text for text in known_of(request).values()):
            return 200, completion(operations({"op": "noop", "key": "home", "text": "", "source_run_ids": []}))
        run_id = turns_of(request)[0][0]
        key = f"fact_{len(model.requests)}"
        return 200, completion(
            operations({"op": "add", "key": key, "text": "Lives in Lisbon", "source_run_ids": [run_id]})
        )

    model.script = adds_unless_known
    facts(ext)
    paraphrases = [
        "I live in Lisbon", "Lisbon is my home", "My flat is in Lisbon", "Home for me is Lisbon",
        "I'm based in Lisbon", "I reside in Lisbon", "Lisbon's where I live", "I stay in Lisbon",
        "My address is in Lisbon", "I have lived in Lisbon for years",
    ]  # fmt: skip
    for n, said in enumerate(paraphrases):
        thread = f"conv-{n}"
        chat.say(TENANT, thread, "hi")
        actor(ext, thread)
        chat.say(TENANT, thread, said)
        clock.tick()
        extract_thread(ext, TENANT, thread)
    found = search_records(ext.records, TENANT, RecordSearch(namespace_prefix=list(NS), limit=100))["items"]
    assert [r["value"]["text"] for r in found] == ["Lives in Lisbon"]
    assert len(model.requests) == 10


def test_a_replayed_event_writes_nothing_twice(
    ext: Extractions, model: ScriptedModel, chat: Any, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    model.script = home_model
    lisbon(ext, chat, clock)
    extract_thread(ext, TENANT, "t1")
    asked = len(model.requests)
    again = extract_thread(ext, TENANT, "t1")  # the same event delivered again
    assert again["strategies"]["facts"] == {"outcome": "up to date", "written": 0, "wait": None}
    assert len(model.requests) == asked
    assert len(record_history(ext.records, TENANT, NS, "home_city", HistoryQuery())["versions"]) == 1

    # an attempt that wrote its records and stopped before its status: the retry asks again and writes nothing new
    chat.say(TENANT, "t1", "I live in Porto")
    clock.tick()
    save = ext.store.save
    calls = {"n": 0}

    def crash_once(tenant: str, status: Any, *, lease: str | None) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("the function stopped here")
        save(tenant, status, lease=lease)

    monkeypatch.setattr(ext.store, "save", crash_once)
    assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["outcome"] == "failed"
    assert record(ext)["value"]["text"] == "Lives in Porto"  # written before the stop
    assert status_of(ext, "t1")["processed_through_seq"] == 2  # the range is not marked processed
    monkeypatch.setattr(ext.store, "save", save)
    # the retry's model words it otherwise: the range's batch is already the current version's, nothing is written
    model.script = lambda request: (
        200,
        completion(operations({"op": "update", "key": "home_city", "text": "Lives in Porto, Portugal",
                               "source_run_ids": []})),
    )  # fmt: skip
    out = extract_thread(ext, TENANT, "t1")["strategies"]["facts"]
    assert out == {"outcome": "extracted", "written": 0, "wait": None}
    versions = record_history(ext.records, TENANT, NS, "home_city", HistoryQuery())["versions"]
    assert [v["value"]["text"] for v in versions] == ["Lives in Porto", "Lives in Lisbon"]
    assert status_of(ext, "t1")["processed_through_seq"] == 3


def test_a_model_that_times_out_then_answers(
    ext: Extractions, model: ScriptedModel, chat: Any, clock: Clock, deferred: Deferred
) -> None:
    model.script = home_model
    lisbon(ext, chat, clock)
    model.delay = 1.0  # the client waits 0.5 s per attempt
    out = extract_thread(ext, TENANT, "t1")["strategies"]["facts"]
    assert out["outcome"] == "failed" and out["written"] == 0
    status = status_of(ext, "t1")
    assert "model unavailable" in status["last_error"] and "timed out" in status["last_error"]
    assert status["processed_through_seq"] == 0 and status["pending_runs"] == 2
    assert deferred.messages[-1] == ({"tenant": TENANT, "thread_id": "t1"}, 30.0)  # asked again later
    model.delay = 0.0
    clock.tick(30)
    assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["outcome"] == "extracted"
    assert record(ext)["value"]["text"] == "Lives in Lisbon"
    assert status_of(ext, "t1")["last_error"] is None


@pytest.mark.parametrize(
    "garbage",
    [
        "I think the user lives in Lisbon.",
        '{"operations": [{"op": "upsert", "key": "home_city", "text": "x", "source_run_ids": []}]}',
        '{"operations": [{"op": "add", "key": "a/b", "text": "x", "source_run_ids": []}]}',
        '{"operations": [{"op": "add", "key": "k", "text": "   ", "source_run_ids": []}]}',
        '{"ops": []}',
    ],
)
def test_a_malformed_answer_writes_nothing_and_is_reported(
    ext: Extractions, model: ScriptedModel, chat: Any, clock: Clock, garbage: str
) -> None:
    model.script = lambda request: (200, completion(garbage))
    lisbon(ext, chat, clock)
    assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["outcome"] == "failed"
    assert search_records(ext.records, TENANT, RecordSearch(namespace_prefix=["users"]))["items"] == []
    status = status_of(ext, "t1")
    assert status["last_error"].startswith("the model's answer") and status["processed_through_seq"] == 0
    assert tokens_today(ext, clock) == 120  # what the model was paid for is metered all the same
    model.script = home_model
    assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["outcome"] == "extracted"
    assert record(ext)["value"]["text"] == "Lives in Lisbon"


def test_a_model_down_for_a_while_loses_nothing_and_catches_up(
    ext: Extractions, model: ScriptedModel, chat: Any, clock: Clock, deferred: Deferred
) -> None:
    facts(ext)
    chat.say(TENANT, "t1", "hello")
    actor(ext, "t1")
    model.script = lambda request: (503, {"error": {"message": "overloaded"}})
    waits = []
    for n in range(MAX_FAILURES):
        chat.say(TENANT, "t1", f"I live in City{n}")
        clock.tick(60)
        assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["outcome"] == "failed"
        waits.append(deferred.messages[-1][1] if deferred.messages else None)
    assert waits[:5] == [30.0, 60.0, 120.0, 240.0, 480.0]  # backoff, then the runner stops asking by itself
    assert len(deferred.messages) == MAX_FAILURES - 1
    status = status_of(ext, "t1")
    assert "HTTP 503" in status["last_error"] and status["pending_runs"] == MAX_FAILURES + 1
    assert status["processed_through_seq"] == 0
    model.script = home_model  # back
    chat.say(TENANT, "t1", "I live in Faro")
    clock.tick()
    assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["outcome"] == "extracted"
    assert "[run r2] User: I live in City0" in model.requests[-1]["messages"][-1]["content"]  # every run it missed
    status = status_of(ext, "t1")
    assert status["last_error"] is None and status["pending_runs"] == 0
    assert status["processed_through_seq"] == MAX_FAILURES + 2
    assert record(ext)["value"]["text"] == "Lives in Faro"


def test_a_refused_connection_is_a_model_unavailable(
    ext: Extractions, model: ScriptedModel, chat: Any, clock: Clock
) -> None:
    facts(ext)
    chat.say(TENANT, "t1", "I live in Lisbon")
    actor(ext, "t1")
    model.close()  # nothing listens any more
    assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["outcome"] == "failed"
    assert "model unavailable" in status_of(ext, "t1")["last_error"]


def test_the_trigger_waits_for_runs_and_for_the_conversation_to_settle(
    ext: Extractions, model: ScriptedModel, chat: Any, clock: Clock, deferred: Deferred
) -> None:
    model.script = home_model
    facts(ext, after_runs=2, idle_seconds=30)
    chat.say(TENANT, "t1", "I live in Lisbon")
    actor(ext, "t1")
    clock.tick(100)
    assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["outcome"] == "waiting for runs"
    assert deferred.messages == [] and model.requests == []  # the next run's event asks again
    chat.say(TENANT, "t1", "and I work at the port")
    clock.tick(10)
    out = extract_thread(ext, TENANT, "t1")["strategies"]["facts"]
    assert out["outcome"] == "waiting for the conversation to settle" and out["wait"] == pytest.approx(20.0)
    assert deferred.messages[-1][1] == pytest.approx(20.0) and model.requests == []
    clock.tick(20)
    assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["outcome"] == "extracted"
    assert len(model.requests) == 1 and len(turns_of(model.requests[0])) == 2  # both runs, one question


def test_a_thread_without_the_actor_its_namespace_needs_is_skipped_and_says_so(
    ext: Extractions, model: ScriptedModel, chat: Any, clock: Clock
) -> None:
    facts(ext)
    put_strategy(ext, TENANT, "summary", StrategyPut(type="summary", namespace="threads/{thread_id}/summary"))
    model.script = lambda request: (
        200,
        completion(operations({"op": "add", "key": "summary", "text": "Small talk.", "source_run_ids": []})),
    )
    chat.say(TENANT, "t1", "hello")
    assert thread_extraction(ext, TENANT, "t1")["strategies"]["facts"]["last_error"].startswith("skipped: ")
    out = extract_thread(ext, TENANT, "t1")["strategies"]
    assert out["facts"]["outcome"] == "skipped" and out["summary"]["outcome"] == "extracted"
    status = thread_extraction(ext, TENANT, "t1")["strategies"]
    assert "actor_id" in status["facts"]["last_error"] and status["facts"]["pending_runs"] == 1
    assert status["summary"]["records_written"] == 1 and status["summary"]["last_error"] is None
    summary = get_record(ext.records, TENANT, ("threads", "t1", "summary"), "summary", RecordRead())
    assert summary["value"]["provenance"]["strategy"] == "summary"
    assert "running summary" in model.requests[0]["messages"][0]["content"]  # the summary type's prompt
    with pytest.raises(NotFound):
        thread_extraction(ext, TENANT, "nope")


def test_over_the_plans_extraction_tokens_it_pauses_and_loses_nothing(
    ext: Extractions, model: ScriptedModel, chat: Any, clock: Clock
) -> None:
    assert ext.account is not None
    ext.account.put_tenant(TENANT, {"plan": "custom", "extraction_tokens_per_day": 100}, "2026-01-01T00:00:00Z")
    model.script = home_model
    lisbon(ext, chat, clock)
    assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["outcome"] == "extracted"  # 120 tokens: used up
    chat.say(TENANT, "t1", "I live in Porto")
    clock.tick()
    assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["outcome"] == "paused"
    status = status_of(ext, "t1")
    assert "100 extraction tokens per day" in status["paused"] and status["pending_runs"] == 1
    assert len(model.requests) == 1 and record(ext)["value"]["text"] == "Lives in Lisbon"
    ext.account.put_tenant(TENANT, {"plan": "custom", "extraction_tokens_per_day": 10_000}, "2026-01-01T00:00:00Z")
    assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["outcome"] == "extracted"
    assert record(ext)["value"]["text"] == "Lives in Porto"
    status = status_of(ext, "t1")
    assert status["paused"] is None and status["pending_runs"] == 0


def test_what_extraction_stores_is_on_the_tenants_gauge_exactly(
    ext: Extractions, model: ScriptedModel, chat: Any, clock: Clock, aws: dict[str, Any]
) -> None:
    """ADR 0042's rule for the records extraction writes: each version's bytes on the tenant's stored-bytes gauge in
    its own transaction (before, extracted records were stored free: the recount saw none of them)."""
    from extraction_support import TABLE

    from offprompt.adapters import gauge

    assert ext.account is not None
    ext.account.put_tenant(TENANT, {"plan": "custom", "extraction_tokens_per_day": 10_000}, "2026-01-01T00:00:00Z")
    model.script = home_model
    lisbon(ext, chat, clock)
    assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["written"] == 1
    chat.say(TENANT, "t1", "I live in Porto now")
    clock.tick()
    assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["written"] == 1
    counted = gauge.recount_stored_bytes(TABLE, TENANT, client=aws["dynamodb"])
    assert counted.stored_bytes > 0, counted  # two record versions, metered
    assert gauge.gauges(TABLE, TENANT, aws["dynamodb"])["stored_bytes"] == counted.stored_bytes


def test_over_the_plans_stored_bytes_nothing_is_stored_and_the_status_says_so(
    ext: Extractions, model: ScriptedModel, chat: Any, clock: Clock
) -> None:
    assert ext.account is not None
    ext.account.put_tenant(
        TENANT, {"plan": "custom", "stored_bytes": 10, "extraction_tokens_per_day": 10_000}, "2026-01-01T00:00:00Z"
    )
    model.script = home_model
    lisbon(ext, chat, clock)
    assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["outcome"] == "failed"
    status = status_of(ext, "t1")
    assert "over the plan" in status["last_error"] and status["pending_runs"] >= 1, status
    with pytest.raises(NotFound):
        record(ext)
    ext.account.put_tenant(TENANT, {"plan": "custom", "extraction_tokens_per_day": 10_000}, "2026-01-01T00:00:00Z")
    clock.tick(3600)
    assert extract_thread(ext, TENANT, "t1")["strategies"]["facts"]["outcome"] == "extracted"
    assert record(ext)["value"]["text"] == "Lives in Lisbon" and status_of(ext, "t1")["last_error"] is None


def test_a_foreign_tenants_strategy_never_sees_another_tenants_runs(
    ext: Extractions, model: ScriptedModel, chat: Any, clock: Clock
) -> None:
    model.script = home_model
    facts(ext, tenant="tenant-b")
    chat.say(TENANT, "t1", "I live in Lisbon")  # tenant-a's thread t1; tenant-a has no strategy
    actor(ext, "t1")
    chat.say("tenant-b", "t1", "I live in Oslo")  # tenant-b's own thread of the same name
    actor(ext, "t1", tenant="tenant-b")
    clock.tick()
    assert extract_thread(ext, TENANT, "t1") == {"thread_id": "t1", "strategies": {}}
    assert model.requests == []
    extract_thread(ext, "tenant-b", "t1")
    prompt = model.requests[0]["messages"][-1]["content"]
    assert "Oslo" in prompt and "Lisbon" not in prompt
    assert record(ext, tenant="tenant-b")["value"]["text"] == "Lives in Oslo"
    with pytest.raises(NotFound):
        record(ext)  # nothing written for tenant-a
    assert thread_extraction(ext, TENANT, "t1")["strategies"] == {}


def test_the_queue_handler_extracts_each_thread_once(
    ext: Extractions, model: ScriptedModel, chat: Any, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json
    from pathlib import Path

    from extraction import handler

    monkeypatch.setattr(handler, "extractions", lambda: ext)
    model.script = home_model
    facts(ext)
    chat.say(TENANT, "thread-1", "I live in Lisbon")
    actor(ext, "thread-1")
    clock.tick()
    sample = json.loads((Path(__file__).resolve().parents[3] / "events" / "extraction_queue.json").read_text())
    delayed = {
        **sample["Records"][0],
        "messageId": "msg-2",
        "body": json.dumps({"tenant": TENANT, "thread_id": "thread-1"}),
    }
    junk = {**sample["Records"][0], "messageId": "msg-3", "body": "not json"}
    sample["Records"] += [delayed, junk]
    assert handler.lambda_handler(sample, None) == {"batchItemFailures": []}
    assert len(model.requests) == 1 and record(ext)["value"]["text"] == "Lives in Lisbon"

    def broken(*args: Any) -> None:
        raise RuntimeError("DynamoDB is down")

    monkeypatch.setattr(handler, "extract_thread", broken)
    failed = handler.lambda_handler(sample, None)["batchItemFailures"]
    assert failed == [{"itemIdentifier": "msg-1"}, {"itemIdentifier": "msg-2"}]


class Published:
    def __init__(self) -> None:
        self.events: list[Any] = []

    def publish(self, events: Any) -> set[str]:
        self.events.extend(events)
        return set()


def test_completed_and_failed_are_said_on_the_bus(
    ext: Extractions, model: ScriptedModel, chat: Any, clock: Clock
) -> None:
    bus = Published()
    ext.publisher = bus
    lisbon(ext, chat, clock)
    model.script = lambda request: (200, completion("garbage"))
    extract_thread(ext, TENANT, "t1")
    model.script = home_model
    extract_thread(ext, TENANT, "t1")
    failed, completed = bus.events
    assert (failed.type, failed.tenant) == ("extraction.failed", TENANT)
    assert (
        failed.detail["thread_id"] == "t1" and failed.detail["strategy"] == "facts" and failed.detail["failures"] == 1
    )
    assert failed.detail["error"].startswith("the model's answer")
    assert completed.type == "extraction.completed"
    assert completed.detail == {
        "thread_id": "t1",
        "strategy": "facts",
        "processed_through_seq": 2,
        "records_written": 1,
        "namespace": list(NS),
    }
