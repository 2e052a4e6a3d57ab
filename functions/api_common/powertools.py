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
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from typing import Any

PACKAGE = "aws_lambda_powertools.event_handler"
_LOCK = threading.RLock()


def install_lazy_event_handler() -> None:
    """Register PACKAGE in `sys.modules` unexecuted, completed on first demand (idempotent)."""
    with _LOCK:
        if PACKAGE in sys.modules:
            return
        import aws_lambda_powertools

        spec = importlib.util.find_spec(PACKAGE)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot find {PACKAGE}")
        package = importlib.util.module_from_spec(spec)
        loader = spec.loader

        def __getattr__(name: str) -> Any:
            if name.startswith("__"):
                raise AttributeError(name)
            if importlib.util.find_spec(f"{PACKAGE}.{name}") is not None:  # a submodule: import only it
                return importlib.import_module(f"{PACKAGE}.{name}")
            with _LOCK:
                if package.__dict__.get("__getattr__") is __getattr__:
                    del package.__dict__["__getattr__"]
                    loader.exec_module(package)  # the real __init__, once
            try:
                return package.__dict__[name]
            except KeyError:
                raise AttributeError(f"module {PACKAGE!r} has no attribute {name!r}") from None

        package.__getattr__ = __getattr__  # type: ignore[method-assign]
        sys.modules[PACKAGE] = package
        aws_lambda_powertools.event_handler = package
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

__all__ = ["APIGatewayHttpResolver", "Body", "Path", "Query", "Response", "install_lazy_event_handler"]
