"""A failed cleanup step is logged, never swallowed silently, and never hides the request's outcome (issue 11)."""

from __future__ import annotations

import logging

import pytest

from offprompt.errors import DependencyUnavailable
from offprompt.services.task_memory.cleanup import best_effort as _best_effort


@pytest.mark.parametrize("error", [DependencyUnavailable("s3 down"), OSError("reset"), RuntimeError("bug")])
def test_a_failed_cleanup_is_one_warning_line(caplog: pytest.LogCaptureFixture, error: Exception) -> None:
    def fail() -> None:
        raise error

    with caplog.at_level(logging.WARNING, logger="offprompt.task_memory"):
        _best_effort(fail)
    (record,) = caplog.records
    assert record.levelno == logging.WARNING and "cleanup failed" in record.getMessage()
    assert record.error == type(error).__name__  # type: ignore[attr-defined]
