"""The client distribution (`clients/python`) stands alone: none of its modules imports the server side at run time.

Users install `offprompt-client` by itself (`pip install ./clients/python`, optionally `[griptape]`): the server
library (`offprompt`), the functions' glue (`api_common`), the local stack (`offprompt_local`) and the operator
CLI (`offprompt_admin`) are not there. An import under `if TYPE_CHECKING:` never runs and is allowed. This guard
reads the source (fast, every module, every function body); tests/e2e/test_client_standalone.py proves the same
by running the installed package in a venv that has nothing else.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLIENT_SRC = ROOT / "clients" / "python" / "src"
SERVER_SIDE = ("offprompt", "api_common", "offprompt_local", "offprompt_admin")
# Calls that import (or look for) a module named by a string: importlib.import_module, __import__, find_spec.
DYNAMIC_IMPORTS = ("import_module", "__import__", "find_spec")


def _server_side(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in SERVER_SIDE)


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of every node inside the body of an `if TYPE_CHECKING:` (or `typing.TYPE_CHECKING`)."""
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            guarded.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    return guarded


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def server_side_imports(source: str) -> list[tuple[int, str]]:
    """(line, module) of each import of a server-side module that can run: `import x`, `from x import y`
    (absolute), and `import_module("x")` / `__import__("x")` / `find_spec("x")` with a literal name."""
    tree = ast.parse(source)
    guarded = _type_checking_only(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        elif isinstance(node, ast.Call) and _called_name(node) in DYNAMIC_IMPORTS and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                modules = [first.value]
        found.extend((node.lineno, module) for module in modules if _server_side(module))
    return sorted(found)


def test_no_client_module_imports_the_server_side_at_run_time() -> None:
    modules = sorted(CLIENT_SRC.rglob("*.py"))
    names = {p.relative_to(CLIENT_SRC).as_posix() for p in modules}
    # the guard cannot pass by reading nothing
    assert {"offprompt_client/__init__.py", "offprompt_client/client.py", "offprompt_client/griptape.py"} <= names
    offending = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in modules
        for line, module in server_side_imports(path.read_text(encoding="utf-8"))
    ]
    assert offending == [], "the client package must run without the server library:\n" + "\n".join(offending)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import offprompt", [(1, "offprompt")]),
        ("import os, offprompt.artifacts as a", [(1, "offprompt.artifacts")]),
        ("from offprompt.prompt import PromptStack", [(1, "offprompt.prompt")]),
        ("from api_common.entry import x", [(1, "api_common.entry")]),
        ("import offprompt_local.stack", [(1, "offprompt_local.stack")]),
        ("def f():\n    from offprompt.artifacts import ListArtifact\n", [(2, "offprompt.artifacts")]),
        ("import importlib\nimportlib.import_module('offprompt.artifacts')", [(2, "offprompt.artifacts")]),
        ("import importlib.util\nimportlib.util.find_spec('offprompt')", [(2, "offprompt")]),
        ("__import__('api_common')", [(1, "api_common")]),
        # an `else:` of TYPE_CHECKING runs
        ("if TYPE_CHECKING:\n    pass\nelse:\n    import offprompt\n", [(4, "offprompt")]),
        # allowed: type-checking-only imports, the client itself, relative imports, other packages
        ("if TYPE_CHECKING:\n    from offprompt.artifacts import ListArtifact\n", []),
        ("import typing\nif typing.TYPE_CHECKING:\n    import offprompt\n", []),
        ("import offprompt_client\nfrom offprompt_client.client import OffpromptClient", []),
        ("from . import client\nfrom .client import offprompt", []),
        ("import griptape.artifacts\nimport offprompts", []),
    ],
)
def test_the_guard_sees_every_form_of_import(source: str, expected: list[tuple[int, str]]) -> None:
    assert server_side_imports(source) == expected
