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
    secured = {(method.upper(), path) for path, item in paths.items() for method, op in item.items() if op["security"]}
    assert secured == {(r.method, r.path) for r in routes.ROUTES}


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
