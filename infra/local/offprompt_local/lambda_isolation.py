"""One Lambda execution environment per request, in one process: Powertools' router state made per-thread.

Lambda runs one request at a time per execution environment (a process), so Powertools keeps the request being
resolved on the class: `BaseRouter.current_event = ...` in `ApiGatewayResolver.resolve`. The local dev server (and
tests that run handlers on several threads) serve concurrent requests in one process, where that class attribute
would be shared: a request could read another's event — its path, its headers, its authorizer context, so its
tenant (test_concurrent_clients_each_get_their_own_answers failed on main for this). `isolate_powertools_requests()`
makes `current_event` and `lambda_context` per-thread, which is what separate execution environments give deployed.
Powertools' Metrics is the same: every `Metrics()` shares class-level dicts (the metrics, dimensions and metadata
of the environment), so a request flushing its metrics took the stream pollers' too, and a flush racing another
thread's raised `SchemaValidationError` out of the handler (the dev server's 500; `isolate_powertools_metrics`).
Local only: Lambda never needs it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class PowertoolsInternalsChanged(RuntimeError):
    """Powertools no longer keeps the event it resolves where `isolate_powertools_requests` expects it."""


_request_state = threading.local()
_ROUTER_SLOTS = ("current_event", "lambda_context")
_metric_state = threading.local()
#: The state Powertools' Metrics and its EMF provider share between instances, each made per thread: its factory.
_METRIC_SLOTS: dict[str, Callable[[], Any]] = {
    "metric_set": dict,
    "dimension_set": dict,
    "metadata_set": dict,
    "dimension_sets": list,
}


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


class _PerThreadMetricState:
    """`<Metrics or provider instance>.<slot>`: this thread's, one per thread for every instance (as Powertools shares
    one set between all `Metrics()` of an environment). A data descriptor, so it wins over what an instance built
    before `isolate_powertools_metrics()` holds in its `__dict__`; what `__init__` assigns (the class-level dict) is
    not kept."""

    def __init__(self, name: str, factory: Callable[[], Any]) -> None:
        self.name = name
        self.factory = factory

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        try:
            return getattr(_metric_state, self.name)
        except AttributeError:
            value = self.factory()
            setattr(_metric_state, self.name, value)
            return value

    def __set__(self, instance: Any, value: Any) -> None:
        """Ignored: the instance reads this thread's state (its `__init__` assigns the class-level dict)."""


def isolate_powertools_metrics() -> None:
    """Give each thread its own Powertools metrics, as each Lambda execution environment (a process) has.

    `Metrics()` instances share class-level dicts (`Metrics._metrics`, `_dimensions`, `_metadata`) through their
    EMF provider: one set per process. Here the stream pollers (memory events, conversation index) and every request
    are threads of one process: a request's `flush_metrics` at the end of its invocation (api_common.entry) printed
    and cleared the pollers' metrics, and one racing another thread's flush found the set emptied between its check
    and its serialization (`SchemaValidationError: Must contain at least one metric`, raised out of the handler) or
    changed while iterated. Default dimensions stay per process (the project sets none). Idempotent; raises
    `PowertoolsInternalsChanged` if the state is not where expected."""
    from aws_lambda_powertools.metrics import metrics
    from aws_lambda_powertools.metrics.provider.cloudwatch_emf import cloudwatch

    classes = (metrics.Metrics, cloudwatch.AmazonCloudWatchEMFProvider)
    if all(isinstance(cls.__dict__.get("metric_set"), _PerThreadMetricState) for cls in classes):
        return
    shared = ("_metrics", "_dimensions", "_metadata")
    if not all(isinstance(getattr(metrics.Metrics, name, None), dict) for name in shared):
        raise PowertoolsInternalsChanged(
            "aws_lambda_powertools.metrics.Metrics no longer keeps its metrics in class-level dicts; see "
            "isolate_powertools_metrics in offprompt_local/lambda_isolation.py"
        )
    for cls in classes:
        for name, factory in _METRIC_SLOTS.items():
            if cls is metrics.Metrics and name == "dimension_sets":
                continue  # the provider's alone
            setattr(cls, name, _PerThreadMetricState(name, factory))


def isolate_lambda_environments() -> None:
    """Both isolations: each request (thread) its own Powertools event and metrics."""
    isolate_powertools_requests()
    isolate_powertools_metrics()
