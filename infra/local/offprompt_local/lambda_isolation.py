"""One Lambda execution environment per request, in one process: Powertools' router state made per-thread.

Lambda runs one request at a time per execution environment (a process), so Powertools keeps the request being
resolved on the class: `BaseRouter.current_event = ...` in `ApiGatewayResolver.resolve`. The local dev server (and
tests that run handlers on several threads) serve concurrent requests in one process, where that class attribute
would be shared: a request could read another's event — its path, its headers, its authorizer context, so its
tenant (test_concurrent_clients_each_get_their_own_answers failed on main for this). `isolate_powertools_requests()`
makes `current_event` and `lambda_context` per-thread, which is what separate execution environments give deployed.
Local only: Lambda never needs it.
"""

from __future__ import annotations

import threading
from typing import Any


class PowertoolsInternalsChanged(RuntimeError):
    """Powertools no longer keeps the event it resolves where `isolate_powertools_requests` expects it."""


_request_state = threading.local()
_ROUTER_SLOTS = ("current_event", "lambda_context")


class _PerThreadSlot:
    """`BaseRouter.<slot>` read or written through an instance: this thread's (this request's) value."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        try:
            return getattr(_request_state, self.name)
        except AttributeError:
            raise AttributeError(self.name) from None

    def __set__(self, instance: Any, value: Any) -> None:
        setattr(_request_state, self.name, value)


def _class_slot(name: str) -> property:
    slot = _PerThreadSlot(name)
    return property(lambda cls: slot.__get__(None, cls), lambda cls, value: slot.__set__(None, value))


def isolate_powertools_requests() -> None:
    """Give each request its own Powertools event, as a Lambda execution environment (a process) has.

    Powertools' event handler keeps the event and context it resolves on the `BaseRouter` class
    (`BaseRouter.current_event = ...` in `resolve()`): one slot per process. Deployed that is one request at a
    time; here execution environments are threads of one process, and two requests in flight at once, to any
    functions, would read each other's event (tenant, path parameters). This makes both slots per thread (a
    request runs on its connection's thread): class-level reads and writes through the metaclass, instance reads
    through a descriptor. Idempotent; raises `PowertoolsInternalsChanged` if the slots are not where expected."""
    from abc import ABCMeta

    from aws_lambda_powertools.event_handler import api_gateway

    router = api_gateway.BaseRouter
    if type(router).__name__ == "_PerRequestRouterMeta":
        return
    annotations = getattr(router, "__annotations__", {})
    if type(router) is not ABCMeta or not all(name in annotations for name in _ROUTER_SLOTS):
        raise PowertoolsInternalsChanged(
            "aws_lambda_powertools.event_handler.api_gateway.BaseRouter no longer declares current_event and "
            "lambda_context as class slots; see isolate_powertools_requests in offprompt_local/devserver.py"
        )
    meta = type("_PerRequestRouterMeta", (ABCMeta,), {name: _class_slot(name) for name in _ROUTER_SLOTS})
    for name in _ROUTER_SLOTS:
        if name in router.__dict__:
            delattr(router, name)
        setattr(router, name, _PerThreadSlot(name))
    router.__class__ = meta  # type: ignore[method-assign]  # a class is an object: its metaclass can change
