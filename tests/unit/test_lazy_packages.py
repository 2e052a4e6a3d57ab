"""Packages that re-export their submodules' names lazily (offprompt.lazy): importing one submodule or a handler
loads only what it names, and every exported name still resolves to its submodule's object (issue 34,
docs/adr/0063)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
from probe_support import probe

ROOT = Path(__file__).resolve().parents[2]
LAZY_PACKAGES = ["offprompt.services.conversation", "offprompt.services.account", "offprompt.services.task_memory"]


def type_checking_names(package: str) -> dict[str, str]:
    """name -> absolute submodule, as the package's `if TYPE_CHECKING:` block imports them."""
    path = ROOT / "layers" / "offprompt" / Path(*package.split(".")) / "__init__.py"
    names: dict[str, str] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.module is not None
                module = f"{package}.{statement.module}" if statement.level else statement.module
                names.update({alias.name: module for alias in statement.names})
    return names


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_exported_name_resolves_to_its_submodules_object(package: str) -> None:
    names = type_checking_names(package)
    module = importlib.import_module(package)
    assert names and set(names) <= set(module.__all__) and set(names) <= set(dir(module))
    for name, home in names.items():
        assert getattr(module, name) is getattr(importlib.import_module(home), name), name
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = module.no_such_name


# what must stay unloaded: (import, modules it must not load)
CASES = {
    "conversation requests": (
        "offprompt.services.conversation.requests",
        ["offprompt.services.conversation.add_run", "offprompt.services.conversation.cloud_threads"],
    ),
    "account scopes": ("offprompt.services.account.scopes", ["offprompt.services.account.service"]),
    "threads handler": (
        "threads.handler",
        [
            "offprompt.services.conversation.prompt_stack",
            "offprompt.services.account.service",
            # the search use case and its ranking: on the first search (~11 ms of the import otherwise)
            "offprompt.services.conversation.search",
            "offprompt.memory.recall",
        ],
    ),
    "prompt_stack handler": (
        "prompt_stack.handler",
        ["offprompt.services.conversation.add_run", "offprompt.services.conversation.cloud_threads"],
    ),
    "mcp_server handler": (
        "mcp_server.handler",
        [
            "offprompt.composition.task_memory",
            "offprompt.composition.records",
            "offprompt.composition.conversation_index",
            "offprompt.services.task_memory.idempotent_output",
            "offprompt.services.conversation.prompt_stack",
            "offprompt.services.conversation.search",
        ],
    ),
    "summarizer handler": (
        "summarizer.handler",
        ["offprompt.services.conversation.add_run", "offprompt.services.conversation.prompt_stack"],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_import_loads_only_what_it_names(case: str) -> None:
    module, unloaded = CASES[case]
    state = probe(
        f"import json, sys; import {module}; print(json.dumps([m for m in {unloaded!r} if m in sys.modules]))"
    )
    assert state == []
