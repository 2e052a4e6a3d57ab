"""Best-effort cleanup steps of the task-memory use cases (`offprompt.cleanup`, shared with the adapters)."""

from __future__ import annotations

from offprompt.cleanup import best_effort

__all__ = ["best_effort"]
