"""The documentation's tables that restate code, generated (docs/adr/0060-docs-that-run.md).

`python -m offprompt_local.doc_tables` (`make doc-tables`) rewrites each region between

    <!-- generated: NAME (make doc-tables) -->
    ...
    <!-- end generated: NAME -->

in README.md and docs/*.md from its source; tests/infrastructure/test_doc_tables.py fails when a region is stale.
The tables: `endpoints` (README: every route of docs/openapi.json by group), `routes` (docs/api.md: every route
with its summary) and `extras` (docs/python-client.md: the client's optional dependencies). Reads files only; nothing
happens at import time.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
OPENAPI = ROOT / "docs" / "openapi.json"
CLIENT_PYPROJECT = ROOT / "clients" / "python" / "pyproject.toml"
METHODS = ("get", "post", "put", "patch", "delete")
REGION = re.compile(
    r"(<!-- generated: (?P<name>[a-z-]+) \(make doc-tables\) -->\n)(?P<body>.*?)(<!-- end generated: (?P=name) -->)",
    re.S,
)


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(METHOD, path, operation) of every operation, in the document's order of paths."""
    return [
        (method.upper(), path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def endpoints_table(document: dict[str, Any]) -> str:
    """One row per group (the document's tags, in their order): every route of the group."""
    rows = ["| group | routes |", "|---|---|"]
    for tag in document["tags"]:
        routes = [f"`{method} {path}`" for method, path, op in operations(document) if tag["name"] in op["tags"]]
        rows.append(f"| {tag['name']} | {' · '.join(routes)} |")
    return "\n".join(rows) + "\n"


def routes_table(document: dict[str, Any]) -> str:
    rows = ["| route | group | does |", "|---|---|---|"]
    for method, path, op in operations(document):
        rows.append(f"| `{method} {path}` | {', '.join(op['tags'])} | {cell(op.get('summary', ''))} |")
    return "\n".join(rows) + "\n"


def extras_table(pyproject: dict[str, Any]) -> str:
    rows = ["| extra | installs | `pip install` |", "|---|---|---|"]
    for extra, requirements in pyproject["project"]["optional-dependencies"].items():
        installs = ", ".join(f"`{requirement}`" for requirement in requirements)
        rows.append(f'| `{extra}` | {installs} | `pip install "./clients/python[{extra}]"` |')
    return "\n".join(rows) + "\n"


def tables() -> dict[str, Callable[[], str]]:
    def document() -> dict[str, Any]:
        return dict(json.loads(OPENAPI.read_text(encoding="utf-8")))

    return {
        "endpoints": lambda: endpoints_table(document()),
        "routes": lambda: routes_table(document()),
        "extras": lambda: extras_table(tomllib.loads(CLIENT_PYPROJECT.read_text(encoding="utf-8"))),
    }


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def render(text: str, makers: dict[str, Callable[[], str]]) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in makers:
            raise KeyError(f"no generated table named {name!r} (known: {sorted(makers)})")
        return match.group(1) + makers[name]() + match.group(4)

    return REGION.sub(replace, text)


def regions(text: str) -> list[str]:
    return [match.group("name") for match in REGION.finditer(text)]


def main() -> int:
    makers = tables()
    for path in documents():
        text = path.read_text(encoding="utf-8")
        fresh = render(text, makers)
        if fresh != text:
            path.write_text(fresh, encoding="utf-8")
            print(f"rewrote {path.relative_to(ROOT)}: {', '.join(regions(text))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
