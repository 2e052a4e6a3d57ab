"""One Lambda execution environment per request, in one process: Powertools' router state made per-thread.

Lambda runs one request at a time per execution environment (a process), so Powertools keeps the request being
resolved on the class: `BaseRouter.current_event = ...` in `ApiGatewayResolver.resolve`. The local dev server (and
tests that run handlers on several threads) serve concurrent requests in one process, where that class attribute
would be shared: a request could read another's event — its path, its headers, its authorizer context, so its
tenant. `isolate_execution_environments()` makes `current_event` and `lambda_context` per-thread (a data descriptor
on the class and on its metaclass, so both `BaseRouter.current_event = x` and `self.current_event` go through it),
which is what separate execution environments give deployed. Local only: Lambda never needs it.
"""

from __future__ import annotations

import threading
from typing import Any

_STATE = threading.local()
_ATTRIBUTES = ("current_event", "lambda_context")
_LOCK = threading.Lock()


class _PerThread:
    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        return getattr(_STATE, self.name, None)

    def __set__(self, obj: Any, value: Any) -> None:
        setattr(_STATE, self.name, value)


def isolate_execution_environments() -> None:
    """Make Powertools' per-request router state per-thread (idempotent)."""
    from aws_lambda_powertools.event_handler.api_gateway import BaseRouter

    with _LOCK:
        if isinstance(BaseRouter.__dict__.get("current_event"), _PerThread):
            return
        for name in _ATTRIBUTES:  # instance reads (`self.current_event`) find these in the class
            setattr(BaseRouter, name, _PerThread(name))
        meta = type("PerThreadRouterMeta", (type(BaseRouter),), {name: _PerThread(name) for name in _ATTRIBUTES})
        # class writes and reads (`BaseRouter.current_event = x`) go through it
        setattr(BaseRouter, "__class__", meta)  # noqa: B010
