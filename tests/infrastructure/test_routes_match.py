"""template.yaml's HttpApi events, its OpenAPI security list and offprompt_local.routes are the same table."""

from __future__ import annotations

from sam_support import load_template

from offprompt_local import routes


def _template_events() -> set[tuple[str, str, str]]:
    found = set()
    for resource in load_template()["Resources"].values():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        handler = resource["Properties"]["Handler"]
        for event in resource["Properties"].get("Events", {}).values():
            if event["Type"] == "HttpApi":
                props = event["Properties"]
                assert props["ApiId"] == {"Ref": "HttpApi"}
                found.add((props["Method"].upper(), props["Path"], handler))
    return found


def test_http_api_events_equal_the_route_table() -> None:
    expected = {(r.method, r.path, r.handler) for r in routes.ROUTES}
    assert len(expected) == len(routes.ROUTES)
    assert _template_events() == expected


def test_every_route_has_a_security_requirement_in_the_openapi_body() -> None:
    paths = load_template()["Resources"]["HttpApi"]["Properties"]["DefinitionBody"]["paths"]
    operations = [(method.upper(), path, op) for path, item in paths.items() for method, op in item.items()]
    secured = {(method, path) for method, path, op in operations if op["security"]}
    public = {(method, path) for method, path, op in operations if not op["security"]}
    assert secured == {(r.method, r.path) for r in routes.ROUTES if r.function not in routes.PUBLIC_FUNCTIONS}
    # only the console's static files are open (an explicit empty list, never a path left out of the body)
    assert public == {(r.method, r.path) for r in routes.ROUTES if r.function in routes.PUBLIC_FUNCTIONS}
    assert public == {("GET", "/console"), ("GET", "/console/{asset}")}


def test_functions_without_routes_are_the_declared_ones() -> None:
    handlers = {
        r["Properties"]["Handler"].split(".")[0]
        for r in load_template()["Resources"].values()
        if r["Type"] == "AWS::Serverless::Function"
    }
    assert handlers - set(routes.functions()) == {
        *routes.NON_HTTP_FUNCTIONS,
        routes.AUTHORIZER_FUNCTION,
        "example_tool",
    }


def _sample_events() -> list[dict]:
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "events"
    return [json.loads(p.read_text()) | {"_file": p.name} for p in sorted(root.glob("*.json"))]


def test_every_declared_route_has_a_sample_http_event() -> None:
    """Declared once (api_common.routes), checked everywhere: each route has an API Gateway v2 sample event."""
    http = {e["routeKey"] for e in _sample_events() if "routeKey" in e}
    assert {r.route_key for r in routes.ROUTES} - http == set()
    assert http - {r.route_key for r in routes.ROUTES} == set()  # no sample event for a route that is gone


def test_every_declared_direct_action_has_a_sample_direct_event() -> None:
    import importlib

    missing = []
    direct = [e for e in _sample_events() if "routeKey" not in e and "tenant" in e]
    for function in routes.functions():
        declared = importlib.import_module(f"{function}.handler").routes
        for action in declared.directs:
            named = [e for e in direct if e["_file"].startswith(tuple(f"{p}_" for p in declared.event_prefixes))]
            if not any(e.get("action", declared.default_action) == action for e in named):
                missing.append((function, action))
    assert missing == []
