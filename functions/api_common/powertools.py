"""Powertools' HTTP resolver without importing every other resolver Powertools has.

`aws_lambda_powertools/event_handler/__init__.py` imports all of Powertools' resolvers (AppSync, AppSync Events,
Bedrock Agent, VPC Lattice, Function URL, ...); AppSync's alone pulls in asyncio. On a cold start that is ~145 ms
of the package's ~190 ms import, for classes no function uses (bench/bench_cold_start.py;
docs/adr/0016-layer-lock-and-contents.md). Importing this module registers that package *without* running its
`__init__`: submodules (`api_gateway`, `content_types`, `openapi`, ...) import as usual, and the first time code
asks the package for a name only its `__init__` defines, a module `__getattr__` runs the real `__init__` then, so
`from aws_lambda_powertools.event_handler import X` keeps working for every X.

`api_common/__init__.py` installs it, so it is in place before any module of this package imports Powertools;
handlers import `APIGatewayHttpResolver`, `Response` and the OpenAPI parameter markers (`Body`, `Path`,
`Query`) from here (a third-party import would run first). The
package starts out holding `api_gateway`'s public names, the ones the real `__init__` re-exports from there.

`aws_lambda_powertools.utilities.data_classes` gets the same treatment (`install_lazy_package`): its `__init__`
imports every event kind Powertools knows; the resolver needs five submodules, which are imported instead. So does
the top-level `aws_lambda_powertools` (`install_lazy_powertools`): its `__init__` imports the Logger, Metrics and
Tracer, which only a request that logs or records a metric needs (`api_common.entry.observability`); its two side
effects are done here instead: the package logger's NullHandler and the user agent's botocore initializer (once).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import logging
import sys
import threading
from collections.abc import Callable
from typing import Any

ROOT_PACKAGE = "aws_lambda_powertools"
PACKAGE = "aws_lambda_powertools.event_handler"
# The event classes the HTTP resolver imports from `data_classes` (its `__init__` imports all ~40 event kinds:
# S3, SQS, Kinesis, Kafka, AppSync, ...; ~25 ms of a cold start), by the submodule that defines them.
DATA_CLASSES = "aws_lambda_powertools.utilities.data_classes"
DATA_CLASSES_USED = {
    "alb_event": ("ALBEvent",),
    "api_gateway_proxy_event": ("APIGatewayProxyEvent", "APIGatewayProxyEventV2"),
    "bedrock_agent_event": ("BedrockAgentEvent",),
    "lambda_function_url_event": ("LambdaFunctionUrlEvent",),
    "vpc_lattice": ("VPCLatticeEvent", "VPCLatticeEventV2"),
}
_LOCK = threading.RLock()
_COMPLETE: dict[str, Callable[[], None]] = {}  # package -> runs its real __init__ (install_lazy_package)


def install_lazy_package(
    name: str,
    eager: dict[str, tuple[str, ...]] | None = None,
    around_init: Callable[[Callable[[], None]], None] | None = None,
) -> Any:
    """Register package `name` in `sys.modules` unexecuted, completed on first demand (idempotent).

    `eager`: submodule -> names it defines that the package should hold from the start (imported now, only those
    submodules). Any other name of the package runs its real `__init__` once, then resolves as usual; through
    `around_init(run)` when given (which must call `run`)."""
    with _LOCK:
        if name in sys.modules:
            return sys.modules[name]
        parent_name, _, child = name.rpartition(".")
        parent = importlib.import_module(parent_name) if parent_name else None
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot find {name}")
        package = importlib.util.module_from_spec(spec)
        loader = spec.loader

        started = threading.Event()  # the real __init__ has been started (by this or another thread)

        def complete() -> None:
            # Under the lock, and `__getattr__` removed only once the real __init__ has run: another thread asking
            # for a name meanwhile lands in `__getattr__` and waits here for the lock, never sees a half-made package.
            with _LOCK:
                if started.is_set():
                    return  # done, or the __init__ running in this thread asked for one of its own names
                started.set()
                run = functools.partial(loader.exec_module, package)  # the real __init__, once
                around_init(run) if around_init is not None else run()
                if package.__dict__.get("__getattr__") is __getattr__:
                    del package.__dict__["__getattr__"]

        def __getattr__(attribute: str) -> Any:
            if attribute.startswith("__"):
                raise AttributeError(attribute)
            if importlib.util.find_spec(f"{name}.{attribute}") is not None:  # a submodule: import only it
                return importlib.import_module(f"{name}.{attribute}")
            complete()
            try:
                return package.__dict__[attribute]
            except KeyError:
                raise AttributeError(f"module {name!r} has no attribute {attribute!r}") from None

        package.__getattr__ = __getattr__  # type: ignore[method-assign]
        _COMPLETE[name] = complete
        sys.modules[name] = package
        if parent is not None:
            setattr(parent, child, package)
        for submodule, names in (eager or {}).items():
            module = importlib.import_module(f"{name}.{submodule}")
            for attribute in names:
                package.__dict__.setdefault(attribute, getattr(module, attribute))
        return package


def complete_lazy_package(name: str) -> None:
    """Run the real `__init__` of a package `install_lazy_package` registered, now (idempotent).

    Needed before importing a submodule that imports names from its own package (`data_classes.sqs_event` does
    `from ...data_classes import S3Event`): done lazily, that would run the `__init__` in the middle of the
    submodule's import, and the `__init__` imports that submodule again (a circular import)."""
    complete = _COMPLETE.get(name)
    if complete is not None:
        complete()


def install_lazy_powertools() -> None:
    """`aws_lambda_powertools` without its `__init__` (Logger, Metrics, Tracer), that `__init__`'s side effects done
    now: the package logger quiet (as `set_package_logger_handler` leaves it; with POWERTOOLS_DEBUG set, the real
    `__init__` runs at once instead) and Powertools' user agent on every botocore session. Completing the package
    later runs its `__init__` without registering the user agent a second time."""
    with _LOCK:
        if ROOT_PACKAGE in sys.modules:
            return
        install_lazy_package(ROOT_PACKAGE, around_init=_init_without_user_agent)
        from aws_lambda_powertools.shared import user_agent
        from aws_lambda_powertools.shared.functions import powertools_debug_is_set

        if powertools_debug_is_set():
            complete_lazy_package(ROOT_PACKAGE)  # its package logger at DEBUG, as the real __init__ sets it
            return
        package_logger = logging.getLogger(ROOT_PACKAGE)
        package_logger.addHandler(logging.NullHandler())
        package_logger.propagate = False
        user_agent.inject_user_agent()


def _init_without_user_agent(run: Callable[[], None]) -> None:
    from aws_lambda_powertools.shared import user_agent

    injected = user_agent.inject_header
    user_agent.inject_header = False  # install_lazy_powertools registered it
    try:
        run()
    finally:
        user_agent.inject_header = injected


def install_lazy_event_handler() -> None:
    """Powertools' event handler and the event classes it uses, without either package's `__init__`."""
    install_lazy_powertools()
    install_lazy_package(DATA_CLASSES, DATA_CLASSES_USED)
    with _LOCK:
        if PACKAGE in sys.modules:
            return
        package = install_lazy_package(PACKAGE)
        api_gateway = importlib.import_module(f"{PACKAGE}.api_gateway")
        for name, value in vars(api_gateway).items():
            if not name.startswith("_") and getattr(value, "__module__", None) == api_gateway.__name__:
                package.__dict__.setdefault(name, value)


install_lazy_event_handler()

from aws_lambda_powertools.event_handler.api_gateway import (  # noqa: E402
    APIGatewayHttpResolver,
    Response,
)
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query  # noqa: E402

__all__ = [
    "APIGatewayHttpResolver",
    "Body",
    "Path",
    "Query",
    "Response",
    "complete_lazy_package",
    "install_lazy_event_handler",
    "install_lazy_package",
    "install_lazy_powertools",
]
