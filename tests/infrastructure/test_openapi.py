"""docs/openapi.json is what the code generates (`make openapi` regenerates it), and it documents every route's
errors: each operation lists every status the error table can produce, each with the one error body."""

from __future__ import annotations

import json
from typing import Any

import pytest

from offprompt_local import docs
from offprompt_local.routes import ROUTES


@pytest.fixture(scope="module")
def generated() -> dict[str, Any]:
    return docs.generate()


def test_the_checked_in_document_is_what_the_code_generates(generated: dict[str, Any]) -> None:
    assert docs.DOCUMENT.read_text(encoding="utf-8") == docs.render(generated), "run make openapi"


def test_it_is_openapi_3_1_with_every_route(generated: dict[str, Any]) -> None:
    assert generated["openapi"].startswith("3.1")
    operations = {(m.upper(), p) for p, ops in generated["paths"].items() for m in ops}
    assert operations == {(r.method, r.path) for r in ROUTES}


def test_every_operation_documents_the_error_body_for_every_error_status(generated: dict[str, Any]) -> None:
    for path, ops in generated["paths"].items():
        for method, op in ops.items():
            statuses = {int(s) for s in op["responses"]}
            assert {400, 401, 404, 405, 409, 413, 422, 500, 503} <= statuses, (method, path)
            assert any(200 <= s < 400 for s in statuses), (method, path)
            for status in statuses:
                if status >= 400:
                    schema = op["responses"][str(status)]["content"]["application/json"]["schema"]
                    assert schema == {"$ref": "#/components/schemas/ErrorBody"}, (method, path, status)
    error = generated["components"]["schemas"]["ErrorBody"]
    assert set(error["required"]) == {"code", "message"} and "details" in error["properties"]


def test_bodies_are_the_library_request_models(generated: dict[str, Any]) -> None:
    body = generated["paths"]["/threads/{thread_id}/prompt-stack"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/PromptStackRequest"}
    headers = generated["paths"]["/threads/{thread_id}/prompt-stack"]["post"]["responses"]["200"]["headers"]
    assert set(headers) == {"X-Offprompt-Prompt-Tokens", "X-Offprompt-Over-Budget"}
    assert json.dumps(generated).count("HTTPValidationError") == 0
