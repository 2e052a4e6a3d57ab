"""A package that re-exports its submodules' names without importing them (PEP 562): each name's submodule is
imported the first time the name is asked for, so importing one submodule (`offprompt.services.conversation.requests`)
no longer runs every other through the package's `__init__` (issue 34, docs/adr/0063).

    __getattr__, __dir__ = lazy_exports(__name__, {"add_run": "DAY PRUNE_BATCH", "requests": "RunIn parse_model"})

The package lists the same names under `if TYPE_CHECKING:` as plain imports, for type checkers and readers;
tests/unit/test_lazy_packages.py keeps the two the same.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable


def lazy_exports(package: str, homes: dict[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """(`__getattr__`, `__dir__`) for `package`: `homes` maps a submodule (relative) to the names it exports,
    space-separated. A name resolved once is kept in the package's namespace."""
    home = {name: module for module, names in homes.items() for name in names.split()}

    def __getattr__(name: str) -> object:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *home})

    return __getattr__, __dir__
