"""Best-effort cleanup: a failed cleanup step is logged and left for the sweep, never the request's outcome."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

_log = logging.getLogger("offprompt.task_memory")


def best_effort(action: Callable[[], Any]) -> None:
    """Run a cleanup step; a failure is logged (what is left is swept later) and never hides the request's outcome."""
    try:
        action()
    except Exception as exc:
        _log.warning("cleanup failed; left for the sweep", extra={"error": type(exc).__name__}, exc_info=True)
