"""The MCP tools are built from the routes (issue 37): one table (tool ↔ route ↔ use case), each tool's arguments the
route's request model's fields (its types, bounds and defaults; a description for the model), and docs/mcp.md's
tool table generated from it."""

from __future__ import annotations

from typing import Any

import pytest
from mcp_server.handler import tools
from mcp_server.tools import specs

from offprompt.limits import MAX_QUERY_CHARS
from offprompt.memory.records import MAX_LABELS
from offprompt_local.routes import ROUTES


def _schema(model: Any) -> dict[str, Any]:
    return model.model_json_schema()


def _without_descriptions(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _without_descriptions(v) for k, v in schema.items() if k not in ("description", "title")}
    if isinstance(schema, list):
        return [_without_descriptions(v) for v in schema]
    return schema


def test_every_tool_names_a_declared_route_and_a_use_case() -> None:
    declared = {r.route_key for r in ROUTES}
    for name, spec in specs().items():
        assert spec.route.split("?")[0] in declared, name
        assert spec.use_case, name
    assert [t.name for t in tools()] == list(specs())


def test_arguments_taken_from_a_route_model_are_its_fields() -> None:
    """Each field a tool takes from its route's request model has the model's schema (bounds, enum, default) and a
    description; the tool adds only the route's path parameters and what only it has."""
    derived = {name: spec for name, spec in specs().items() if spec.request is not None}
    assert {"get_context", "search_memory", "recall", "search_conversations", "store_output"} <= set(derived)
    for name, spec in derived.items():
        assert spec.request is not None
        route = _schema(spec.request)["properties"]
        tool = _schema(spec.arguments)["properties"]
        taken = set(tool) & set(route)
        assert taken, name
        for field in taken:
            assert _without_descriptions(tool[field]) == _without_descriptions(route[field]), (name, field)
            assert tool[field].get("description"), (name, field)


@pytest.mark.parametrize("field", ["mode", "query", "namespace_prefix"])
def test_recall_has_the_search_routes_bounds_and_mode(field: str) -> None:
    schema = _schema(specs()["recall"].arguments)["properties"]
    assert field in schema
    if field == "mode":
        assert schema["mode"]["enum"] == ["bm25", "knn", "hybrid"] and schema["mode"]["default"] == "bm25"
    if field == "query":
        assert schema["query"]["anyOf"][0]["maxLength"] == MAX_QUERY_CHARS
    if field == "namespace_prefix":
        assert schema["namespace_prefix"]["maxItems"] == MAX_LABELS
