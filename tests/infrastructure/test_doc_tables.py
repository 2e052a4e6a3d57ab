"""The tables the docs restate from code are current (issue 33, docs/adr/0060-docs-that-run.md): the generated ones
equal what `make doc-tables` writes; the configuration table names every `OFFPROMPT_` variable of the code; the
layout names every function; every relative link of README.md and docs/*.md resolves."""

from __future__ import annotations

import json
import re
from pathlib import Path

from offprompt_local import doc_tables

ROOT = Path(__file__).resolve().parents[2]
#: Variables only the test machinery sets (never a user): the pytest plugin's guards.
TEST_ONLY = {"OFFPROMPT_UNDER_TEST", "OFFPROMPT_AOSS_TEST_REFRESH_INTERVAL"}


def test_every_generated_table_is_current() -> None:
    makers = doc_tables.tables()
    found = set()
    for path in doc_tables.documents():
        text = path.read_text(encoding="utf-8")
        found |= set(doc_tables.regions(text))
        assert doc_tables.render(text, makers) == text, f"{path.relative_to(ROOT)} is stale: run `make doc-tables`"
    assert found == set(makers), f"generated tables without a region: {set(makers) - found}"


def test_the_readme_endpoint_table_names_every_route_of_the_openapi_document() -> None:
    document = json.loads((ROOT / "docs" / "openapi.json").read_text(encoding="utf-8"))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("<!-- generated: endpoints") : readme.index("<!-- end generated: endpoints")]
    named = set(re.findall(r"`([A-Z]+ /[^`]*)`", table))
    routes = {f"{method} {path}" for method, path, _ in doc_tables.operations(document)}
    assert named == routes and len(routes) > 40


def test_a_planted_route_makes_the_table_stale() -> None:
    document = json.loads((ROOT / "docs" / "openapi.json").read_text(encoding="utf-8"))
    before = doc_tables.endpoints_table(document)
    document["paths"]["/planted"] = {"get": {"tags": [document["tags"][0]["name"]], "summary": "planted"}}
    assert "`GET /planted`" in doc_tables.endpoints_table(document) and "GET /planted" not in before


def code_variables() -> set[str]:
    sources = [ROOT / "template.yaml"]
    for tree in (
        "layers/offprompt/offprompt",
        "functions",
        "infra/local/offprompt_local",
        "tools",
        "clients/python/src",
    ):
        sources += sorted((ROOT / tree).rglob("*.py"))
    names: set[str] = set()
    for source in sources:
        names |= set(re.findall(r"\bOFFPROMPT_[A-Z0-9_]*[A-Z0-9]\b", source.read_text(encoding="utf-8")))
    return names - TEST_ONLY


def test_the_configuration_table_names_every_variable_the_code_reads() -> None:
    table = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    listed: set[str] = set()
    for cell in re.findall(r"^\| ([^|]+) \|", table, flags=re.M):
        names = re.findall(r"`(OFFPROMPT_[A-Z0-9_]+|_[A-Z0-9_]+)`", cell)
        stem = ""
        for name in names:
            if name.startswith("_"):  # `OFFPROMPT_EMBEDDING_MODEL_ID` / `_DIMENSIONS`: OFFPROMPT_EMBEDDING_DIMENSIONS
                listed.add(stem + name)
            else:
                listed.add(name)
                stem = name.rsplit("_", 2)[0]
    code = code_variables()
    assert not code - listed, f"not in docs/configuration.md: {sorted(code - listed)}"
    assert not listed - code, f"docs/configuration.md names variables no code reads: {sorted(listed - code)}"


def test_the_layout_names_every_function() -> None:
    layout = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    layout = layout[layout.index("## Layout") :]
    functions = {d.name for d in (ROOT / "functions").iterdir() if (d / "handler.py").exists()}
    missing = {name for name in functions if not re.search(rf"\b{name}\b", layout)}
    assert not missing, f"docs/development.md's layout does not name: {sorted(missing)}"


def test_every_relative_link_resolves() -> None:
    broken = []
    for path in doc_tables.documents():
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue
            if not (path.parent / target).exists():
                broken.append(f"{path.relative_to(ROOT)} → {target}")
    assert not broken, broken


def test_the_deploy_guide_names_every_stack_output() -> None:
    template = (ROOT / "template.yaml").read_text(encoding="utf-8")
    outputs = set(re.findall(r"^  ([A-Za-z0-9]+):", template[template.index("\nOutputs:\n") :], flags=re.M))
    guide = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    listed = guide[guide.index("Outputs: ") : guide.index("## Callers and the first key")]
    missing = {name for name in outputs if not name.endswith("FunctionArn") and name not in listed}
    assert "`<Function>Arn` per function" in listed and not missing, f"docs/deploy.md's outputs miss {sorted(missing)}"
