"""A route's response models serve the OpenAPI document only: a handler, its resolver and every route's validation
(what a first request builds) never import `api_common.schemas` nor build a response model; the document's resolver
(`FunctionRoutes.openapi_app`) has them all (issue 34, docs/adr/0063)."""

from __future__ import annotations

from pathlib import Path

import pytest
from probe_support import probe

ROOT = Path(__file__).resolve().parents[2]
HTTP_FUNCTIONS = sorted(
    path.parent.name for path in (ROOT / "functions").glob("*/handler.py") if "FunctionRoutes(" in path.read_text()
)


def test_the_http_functions_are_found() -> None:
    assert {"add_run", "prompt_stack", "threads", "mcp_server", "records"} <= set(HTTP_FUNCTIONS)


@pytest.mark.parametrize("function", HTTP_FUNCTIONS)
def test_serving_builds_no_response_model(function: str) -> None:
    state = probe(
        "import json, sys\n"
        f"import {function}.handler as handler\n"
        "from api_common.entry import prime_validation\n"
        "imported = 'api_common.schemas' in sys.modules\n"
        "app = handler.routes.app()\n"
        "routes = prime_validation(app)\n"
        "extra = sum(len(r.dependant.response_extra_models) for r in [*app._static_routes, *app._dynamic_routes])\n"
        "print(json.dumps({'imported': [imported, 'api_common.schemas' in sys.modules], 'routes': routes > 0,\n"
        "  'response_models': extra}))"
    )
    assert state == {"imported": [False, False], "routes": True, "response_models": 0}


def test_the_document_resolver_has_every_route_with_its_response_models() -> None:
    state = probe(
        "import json\n"
        "import threads.handler as handler\n"
        "app = handler.routes.openapi_app()\n"
        "routes = [*app._static_routes, *app._dynamic_routes]\n"
        "schema = json.loads(app.get_openapi_json_schema())\n"
        "ok = schema['paths']['/threads']['get']['responses']['200']['content']['application/json']['schema']\n"
        "print(json.dumps({'routes': len(routes), 'declared': len(handler.routes.specs), 'page': ok,\n"
        "  'served': handler.routes.app() is not app}))"
    )
    assert state["routes"] == state["declared"] > 0
    assert state["page"] == {"$ref": "#/components/schemas/ThreadsPage"}
    assert state["served"] is True


def test_a_response_naming_no_schema_is_refused_when_documented() -> None:
    state = probe(
        "import json\n"
        "from api_common.routes import documented, json_content\n"
        "try:\n"
        "    documented({200: json_content('NoSuchPage', 'nothing')})\n"
        "except LookupError as e:\n"
        "    print(json.dumps(str(e)))"
    )
    assert "NoSuchPage" in state
