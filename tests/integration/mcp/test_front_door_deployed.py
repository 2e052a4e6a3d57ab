"""The front door as deployed (issue 30, items 5 and 6; docs/adr/0044-front-door.md): the handlers as Lambda runs
them, behind API Gateway (its payload v2 events) and invoked directly, on moto and the real OpenSearch node.

- `/mcp` refuses a foreign `Origin` with a 403 `origin_refused` (the MCP specification: servers MUST validate it),
  admits none, the API's own and the ones `OFFPROMPT_MCP_ALLOWED_ORIGINS` names;
- a body whose Content-Type is not JSON is a 415 in the shared entry (`/mcp`: a JSON-RPC error carrying the code);
- NaN, Infinity and 1e400 in a direct invocation are the HTTP route's 422 `schema_invalid` (`finite_number`), raised
  as `SchemaInvalid` before anything is stored.
"""

from __future__ import annotations

import copy
import importlib
import json
import math
from typing import Any

import pytest
from hosted_support import ROOT, Deployment, reset_caches

from offprompt.errors import NotFound, SchemaInvalid

pytestmark = pytest.mark.opensearch

MCP = json.loads((ROOT / "events" / "mcp_call_http.json").read_text())
HOST = MCP["headers"]["host"]


def sample(name: str) -> dict[str, Any]:
    return dict(json.loads((ROOT / "events" / name).read_text()))


def http(function: str, event: dict[str, Any], tenant: str = "alice", **headers: str) -> tuple[int, Any]:
    event = copy.deepcopy(event)
    event["requestContext"]["authorizer"] = {"jwt": {"claims": {"sub": tenant}, "scopes": None}}
    event["headers"].update(headers)
    out = importlib.import_module(f"{function}.handler").lambda_handler(event, None)
    text = out.get("body")
    return out["statusCode"], json.loads(text) if text else None


def direct(function: str, event: dict[str, Any]) -> Any:
    return importlib.import_module(f"{function}.handler").lambda_handler(event, None)


@pytest.mark.parametrize("method", ["POST", "GET"])
def test_mcp_refuses_a_foreign_origin(stack: Deployment, method: str) -> None:
    event = MCP if method == "POST" else sample("mcp_get_http.json")
    for origin in ("https://evil.example", "null", f"http://{HOST}", f"https://{HOST}.evil.example"):
        status, body = http("mcp_server", event, origin=origin)
        assert (status, body["code"]) == (403, "origin_refused"), (origin, body)
    for origin in (f"https://{HOST}", f"https://{HOST.upper()}/"):
        assert http("mcp_server", event, origin=origin)[0] == (200 if method == "POST" else 405)


def test_mcp_admits_the_origins_its_setting_names(stack: Deployment, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OFFPROMPT_MCP_ALLOWED_ORIGINS", " https://app.example.com/ , https://other.example:8443")
    reset_caches()
    assert http("mcp_server", MCP, origin="https://app.example.com")[0] == 200
    assert http("mcp_server", MCP, origin="https://other.example:8443")[0] == 200
    assert http("mcp_server", MCP, origin="https://other.example")[0] == 403


def test_a_body_that_is_not_json_by_its_content_type_is_a_415(stack: Deployment) -> None:
    status, body = http("mcp_server", MCP, **{"content-type": "text/plain;charset=UTF-8"})
    assert status == 415 and body["error"]["data"] == {"code": "unsupported_media_type"}, body
    put = sample("record_put_http.json")
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "application/json; charset=utf-16"):
        status, body = http("records", put, **{"content-type": content_type})
        assert (status, body["code"]) == (415, "unsupported_media_type"), body
    assert http("records", put, **{"content-type": "application/merge-patch+json; charset=UTF-8"})[0] == 200


NOT_FINITE = [math.nan, math.inf, -math.inf]


@pytest.mark.parametrize("number", NOT_FINITE)
def test_a_direct_invocation_holding_nan_or_infinity_is_the_routes_422(stack: Deployment, number: float) -> None:
    cases: list[tuple[str, dict[str, Any], tuple[Any, ...]]] = []
    put = sample("record_put_direct.json")
    put["value"] = {"x": [1, number]}
    cases.append(("records", put, ("value", "x", 1)))
    items = sample("thread_items_add_direct.json")
    items["items"][0]["n"] = number
    cases.append(("threads", items, ("items", 0, "n")))
    checkpoint = sample("checkpoint_put_direct.json")
    checkpoint["metadata"]["step"] = number
    cases.append(("checkpoints", checkpoint, ("metadata", "step")))
    run = sample("add_run_direct.json")
    run["run"]["meta"] = {"score": number}
    cases.append(("add_run", run, ("run", "meta", "score")))
    for function, event, loc in cases:
        with pytest.raises(SchemaInvalid) as refused:
            direct(function, event)
        assert refused.value.to_dict()["details"][0] == {
            "loc": list(loc),
            "type": "finite_number",
            "msg": refused.value.to_dict()["details"][0]["msg"],
        }, function
    with pytest.raises(NotFound):
        direct("records", {**sample("record_get_direct.json"), "as_of": None})
