"""Building a resolver (the OpenAPI generator builds every function's) must not fix the process's Logger and
Metrics before the environment that configures them is in place: a later invocation's metrics then lacked
their namespace ("Must contain a metric namespace") when the document was generated first in one process."""

from __future__ import annotations

import pytest

from api_common.entry import _build_app, observability


def test_building_an_app_leaves_logger_and_metrics_unbuilt(monkeypatch: pytest.MonkeyPatch) -> None:
    observability.cache_clear()
    monkeypatch.delenv("POWERTOOLS_METRICS_NAMESPACE", raising=False)
    _build_app(lambda app: None)
    assert observability.cache_info().currsize == 0
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "offprompt")
    _, metrics = observability()
    assert metrics.namespace == "offprompt"
    observability.cache_clear()
