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


#: The MCP endpoint's own errors are JSON-RPC errors (docs/adr/0032): POST /mcp answers a body it cannot read as
#: JSON-RPC (400, 406, 413, 415) with a JSON-RPC error object; GET /mcp only ever answers 405 (no SSE stream).
JSONRPC_ERRORS = {("post", "/mcp"): {400, 406, 413, 415}}
NO_SUCCESS = {("get", "/mcp")}


def test_every_operation_documents_the_error_body_for_every_error_status(generated: dict[str, Any]) -> None:
    for path, ops in generated["paths"].items():
        for method, op in ops.items():
            statuses = {int(s) for s in op["responses"]}
            assert {400, 401, 404, 405, 409, 413, 415, 422, 500, 503} <= statuses, (method, path)
            assert any(200 <= s < 400 for s in statuses) != ((method, path) in NO_SUCCESS), (method, path)
            for status in statuses:
                if status >= 400:
                    schema = op["responses"][str(status)]["content"]["application/json"]["schema"]
                    jsonrpc = status in JSONRPC_ERRORS.get((method, path), set())
                    expected = "JsonRpcMessage" if jsonrpc else "ErrorBody"
                    assert schema == {"$ref": f"#/components/schemas/{expected}"}, (method, path, status)
    error = generated["components"]["schemas"]["ErrorBody"]
    assert set(error["required"]) == {"code", "message"} and "details" in error["properties"]


def test_bodies_are_the_library_request_models(generated: dict[str, Any]) -> None:
    body = generated["paths"]["/threads/{thread_id}/prompt-stack"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/PromptStackRequest"}
    headers = generated["paths"]["/threads/{thread_id}/prompt-stack"]["post"]["responses"]["200"]["headers"]
    assert set(headers) == {"X-Offprompt-Prompt-Tokens", "X-Offprompt-Over-Budget"}
    assert json.dumps(generated).count("HTTPValidationError") == 0


def test_every_operation_has_one_tag_of_its_function_and_every_tag_is_described(generated: dict[str, Any]) -> None:
    described = [tag["name"] for tag in generated["tags"]]
    assert described == [
        "conversation",
        "task memory",
        "Griptape Cloud threads",
        "keys and usage",
        "tenant data",
        "records",
        "extraction",
        "LangGraph checkpoints",
        "console",
        "MCP",
    ]
    assert all(len(tag["description"]) > 40 for tag in generated["tags"])
    function_of = {(r.method.lower(), r.path): r.function for r in ROUTES}
    used: dict[str, set[str]] = {}
    for path, ops in generated["paths"].items():
        for method, op in ops.items():
            assert op["tags"] == [docs.FUNCTION_TAGS[function_of[(method, path)]]], (method, path)
            used.setdefault(op["tags"][0], set()).add(function_of[(method, path)])
    assert set(used) == set(described)  # no tag without operations, no operation in a tag nobody described
    assert used["conversation"] == {"add_run", "threads", "prompt_stack"}
    assert used["Griptape Cloud threads"] == {"cloud_threads"}
    assert used["task memory"] == {"process_output", "load_artifacts", "memories"}
    assert used["keys and usage"] == {"account"} and used["tenant data"] == {"tenant_data"}
    assert used["console"] == {"console"}
    assert used["LangGraph checkpoints"] == {"checkpoints"}


def test_every_operation_accepts_any_one_of_the_three_security_schemes(generated: dict[str, Any]) -> None:
    schemes = generated["components"]["securitySchemes"]
    assert schemes["apiKey"]["type"] == "http" and schemes["apiKey"]["scheme"] == "bearer"
    assert schemes["apiKey"]["bearerFormat"] == "op_<key_id>_<secret>"
    assert "Authorization: Bearer op_<key_id>_<secret>" in schemes["apiKey"]["description"]
    assert (schemes["jwt"]["type"], schemes["jwt"]["scheme"], schemes["jwt"]["bearerFormat"]) == (
        "http",
        "bearer",
        "JWT",
    )
    assert (schemes["iam"]["type"], schemes["iam"]["in"], schemes["iam"]["name"]) == (
        "apiKey",
        "header",
        "Authorization",
    )
    assert "Signature Version 4" in schemes["iam"]["description"]
    for path, ops in generated["paths"].items():
        for method, op in ops.items():
            if path.startswith("/console"):  # the console's static files: no credentials (docs/adr/0038)
                assert op["security"] == [] and method == "get", (method, path)
                continue
            # a list of alternatives, each one scheme alone: any one of them authenticates the request
            assert op["security"] == [{"apiKey": []}, {"jwt": []}, {"iam": []}], (method, path)


def test_a_function_without_a_tag_fails_the_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(docs.FUNCTION_TAGS, "account")
    with pytest.raises(RuntimeError, match="function account has no tag"):
        docs.generate()


def test_swagger_ui_keeps_its_authorization_and_loads_this_document() -> None:
    page = docs.swagger_html()
    assert "persistAuthorization: true" in page
    assert "withCredentials: true" in page  # the dev server is the page's own origin: nothing cross-site
    spec = page.split("spec: ", 1)[1].split(",\n    presets:", 1)[0]
    assert json.loads(spec) == json.loads(docs.openapi_bytes())
