"""The local stand-ins for EventBridge and SQS stop cleanly: a stopping stack waits for the deliveries under way
before it stops moto, and nothing is delivered after (CI caught an extraction running on after `[stack] stopped`,
failing against a stopped substrate)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from offprompt.ports import MemoryEvent
from offprompt_local.memory_events import LocalEventSink, LocalQueue


def _event(n: int = 0) -> MemoryEvent:
    return MemoryEvent(
        id=f"e{n}", type="items.appended", time="2026-12-05T00:00:00Z", tenant="t", detail={"thread": "x"}
    )


def _waits_for_the_work_under_way(stop: Any, release: threading.Event) -> None:
    """`stop(timeout=10)` does not return while the work under way is held, and returns once `release` is set."""
    stopping = threading.Thread(target=stop, kwargs={"timeout": 10})
    stopping.start()
    stopping.join(0.3)
    assert stopping.is_alive(), "it returned while work was still under way"
    release.set()
    stopping.join(10)
    assert not stopping.is_alive()


def test_close_waits_for_a_delivery_under_way_and_delivers_nothing_after(tmp_path: Path) -> None:
    logs: list[str] = []
    sink = LocalEventSink(tmp_path / "events.jsonl", logs.append)
    entered, release, finished = threading.Event(), threading.Event(), threading.Event()
    calls: list[str] = []

    def target(envelope: dict[str, Any], _context: Any) -> dict[str, Any]:
        calls.append(envelope["id"])
        entered.set()
        release.wait(10)
        finished.set()
        return {"batchItemFailures": []}

    sink.subscribe(["items.appended"], "extraction", target)
    sink.publish([_event(1)])
    assert entered.wait(10)
    _waits_for_the_work_under_way(sink.close, release)
    assert finished.is_set()

    sink.publish([_event(2)])
    assert calls == ["e1"]
    assert [line["id"] for line in sink.read()] == ["e1", "e2"], "the event is still written to the sink's file"
    assert any("not delivered" in line for line in logs)


def test_close_runs_the_closers_after_the_deliveries(tmp_path: Path) -> None:
    sink = LocalEventSink(tmp_path / "events.jsonl", lambda _line: None)
    order: list[str] = []
    sink.subscribe(["items.appended"], "t", lambda _e, _c: order.append("delivered"))
    sink.on_close(lambda timeout: order.append(f"closer {timeout > 0}"))
    sink.publish([_event()])
    sink.close(timeout=10)
    assert order == ["delivered", "closer True"]


def test_a_stopped_queue_runs_no_delayed_check() -> None:
    handled: list[dict[str, Any]] = []
    logs: list[str] = []
    queue = LocalQueue(lambda event, _context: handled.append(event), logs.append)
    assert queue.send({"n": 1}, delay=0.2) == {"delayed": 0.2}
    queue.stop(timeout=5)
    queue.send({"n": 2}, delay=0.01)
    threading.Event().wait(0.5)
    assert handled == []
    assert any("not scheduled" in line for line in logs)


def test_stop_waits_for_a_delayed_check_already_running() -> None:
    started, release = threading.Event(), threading.Event()
    done: list[str] = []

    def handler(_event: dict[str, Any], _context: Any) -> dict[str, Any]:
        started.set()
        release.wait(10)
        done.append("checked")
        return {"batchItemFailures": []}

    queue = LocalQueue(handler, lambda _line: None)
    queue.send({"n": 1}, delay=0.01)
    assert started.wait(10)
    _waits_for_the_work_under_way(queue.stop, release)
    assert done == ["checked"]
