"""The dev server's execution environments are threads of one process; Powertools' Metrics keeps an environment's
metrics in class-level dicts, one set per process. Once the dev server has made an environment, each thread (a
request, a stream poller) has its own: a request's flush at the end of its invocation neither takes a poller's
metrics nor races a poller's flush. Before, a request could flush the set another thread had just emptied:
`SchemaValidationError: Must contain at least one metric` out of the handler, the dev server's 500 (seen in a
suite run: PUT /extraction/strategies/{name} answered {"message":"Internal Server Error"} under schemathesis, and a
GET of a deleted namespace answered an error other than its 404)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from aws_lambda_powertools import Metrics
from aws_lambda_powertools.metrics.provider.cloudwatch_emf.cloudwatch import AmazonCloudWatchEMFProvider

from offprompt_local.devserver import FunctionHost
from offprompt_local.routes import ROUTES


@pytest.fixture(autouse=True)
def _an_environment_made(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dev server makes an execution environment (as for its first request), in this process."""
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "offprompt-test")
    FunctionHost().handler(next(r for r in ROUTES if r.function == "extraction"))


def _in_thread(work: Callable[[], Any]) -> threading.Thread:
    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread


def test_a_request_flushes_only_its_own_metrics(capsys: pytest.CaptureFixture[str]) -> None:
    request_metrics = Metrics()  # one per process, as api_common.entry.observability() keeps it
    added, flushed = threading.Event(), threading.Event()
    seen_by_poller: list[dict[str, Any]] = []

    def poller() -> None:  # as the memory events poller runs its function: a metric, then its flush
        Metrics().add_metric(name="MemoryEventsPublished", unit="Count", value=1)
        added.set()
        assert flushed.wait(10)
        seen_by_poller.append(dict(Metrics().metric_set))

    thread = _in_thread(poller)
    assert added.wait(10)
    assert not request_metrics.metric_set, "the request sees the poller's metrics"
    request_metrics.add_metric(name="RunsAdded", unit="Count", value=1)
    request_metrics.flush_metrics()
    flushed.set()
    thread.join(10)
    assert "MemoryEventsPublished" not in capsys.readouterr().out
    assert list(seen_by_poller[0]) == ["MemoryEventsPublished"], "the request's flush took the poller's metric"


def test_a_flush_racing_another_threads_flush_does_not_raise(monkeypatch: pytest.MonkeyPatch) -> None:
    """The window, injected: the request's flush has checked that its set is not empty and pauses before
    serializing it; meanwhile the poller flushes."""
    serialize = AmazonCloudWatchEMFProvider.serialize_metric_set
    request_thread = threading.get_ident()
    checked, poller_flushed = threading.Event(), threading.Event()

    def paused_serialize(self: Any, *args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() == request_thread:
            checked.set()
            assert poller_flushed.wait(10)
        return serialize(self, *args, **kwargs)

    monkeypatch.setattr(AmazonCloudWatchEMFProvider, "serialize_metric_set", paused_serialize)

    def poller() -> None:
        assert checked.wait(10)
        metrics = Metrics()
        metrics.add_metric(name="MemoryEventsPublished", unit="Count", value=1)
        metrics.flush_metrics()
        poller_flushed.set()

    thread = _in_thread(poller)
    metrics = Metrics()
    metrics.add_metric(name="RunsAdded", unit="Count", value=1)
    metrics.flush_metrics()  # SchemaValidationError when the poller's flush emptied the shared set
    thread.join(10)
    assert poller_flushed.is_set()
