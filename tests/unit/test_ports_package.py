"""The ports package (docs/adr/0058): one module per domain, every port still importable as `offprompt.ports.X`.

`offprompt/ports/__init__.py` names each port three times over (the type checker's imports, the `_DOMAINS` table its
lazy `__getattr__` reads, and the domain module that defines it): these tests keep the three the same, and check
that importing the package loads no domain module until a port is named.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import offprompt.ports as ports

PACKAGE = Path(ports.__file__).parent
LIBRARY = PACKAGE.parents[1]  # layers/offprompt
DOMAINS = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")


def defined_names(path: Path) -> set[str]:
    """The public names a module defines at its top level (classes and aliases), not those it imports."""
    names: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if not n.startswith("_")}


def type_checking_imports() -> dict[str, set[str]]:
    """What `__init__.py` imports for the type checker, by domain module."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING")
    found: dict[str, set[str]] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.module, ast.unparse(node)
        found.setdefault(node.module.rsplit(".", 1)[-1], set()).update(a.name for a in node.names)
    return found


def test_the_table_the_imports_and_the_modules_name_the_same_ports() -> None:
    table = {domain: set(names.split()) for domain, names in ports._DOMAINS.items()}
    assert sorted(table) == DOMAINS
    assert type_checking_imports() == table
    for domain in DOMAINS:
        assert defined_names(PACKAGE / f"{domain}.py") == table[domain], domain
    assert len(ports._HOME) == sum(len(names) for names in table.values())  # no name in two domains


@pytest.mark.parametrize("name", sorted(ports._HOME))
def test_every_port_is_the_domain_modules_own_object(name: str) -> None:
    domain = importlib.import_module(f"offprompt.ports.{ports._HOME[name]}")
    assert getattr(ports, name) is getattr(domain, name)
    exec(f"from offprompt.ports import {name} as imported", namespace := {})  # the callers' form
    assert namespace["imported"] is getattr(domain, name)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="NoSuchPort"):
        ports.NoSuchPort  # noqa: B018
    with pytest.raises(ImportError):
        exec("from offprompt.ports import NoSuchPort", {})


def test_importing_the_package_loads_no_domain_until_a_port_is_named() -> None:
    probe = (
        "import json, sys\n"
        "import offprompt.ports\n"
        "before = sorted(m for m in sys.modules if m.startswith('offprompt.ports.'))\n"
        "from offprompt.ports import RunStore\n"
        "after = sorted(m for m in sys.modules if m.startswith('offprompt.ports.'))\n"
        "print(json.dumps([before, after]))\n"
    )
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(LIBRARY)}
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    before, after = json.loads(proc.stdout)
    assert before == []
    # The threads domain and what it builds on (a run body store is a blob store), nothing else.
    assert after == ["offprompt.ports.blobs", "offprompt.ports.threads"]
