"""The records function through its Lambda handler (API Gateway v2 events and direct invocations) on moto: the HTTP
shapes a client (the LangGraph store) relies on, status codes and error codes (docs/adr/0034)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from fakes.record_index import InMemoryRecordIndex
from records_support import Clock

from offprompt.errors import InvalidInput
from offprompt.services.records.context import Records

EVENTS = Path(__file__).resolve().parents[3] / "events"


class Api:
    def __init__(self, rec: Records) -> None:
        from records import handler

        self.handler = handler
        self.rec = rec

    def http(
        self,
        method: str,
        route: str,
        path: str,
        params: dict[str, str] | None = None,
        *,
        body: Any = None,
        query: dict[str, str] | None = None,
        tenant: str = "tenant-a",
    ) -> tuple[int, Any]:
        sample = next(
            json.loads(p.read_text())
            for p in sorted(EVENTS.glob("record_*_http.json"))
            if json.loads(p.read_text())["routeKey"] == f"{method} {route}"
        )
        event = copy.deepcopy(sample)
        event["rawPath"] = path
        event["requestContext"]["http"]["path"] = path
        event["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = tenant
        event["pathParameters"] = params or {}
        event.pop("body", None)
        if body is not None:
            event["body"] = body if isinstance(body, str) else json.dumps(body)
        event.pop("queryStringParameters", None)
        event["rawQueryString"] = urlencode(query or {})
        if query:
            event["queryStringParameters"] = query
        out = self.handler.lambda_handler(event, None)
        text = out.get("body") or ""
        return out["statusCode"], (json.loads(text) if text else None)

    def record(self, method: str, ns: str, key: str, **kw: Any) -> tuple[int, Any]:
        path = f"/records/{quote(ns, safe='')}/{quote(key, safe='')}"
        return self.http(method, "/records/{namespace}/{key}", path, {"namespace": ns, "key": key}, **kw)

    def direct(self, **event: Any) -> Any:
        return self.handler.lambda_handler({"tenant": "tenant-a", **event}, None)


@pytest.fixture
def api(rec: Records, monkeypatch: pytest.MonkeyPatch) -> Api:
    from records import handler

    monkeypatch.setattr(handler, "records", lambda: rec)
    return Api(rec)


def test_http_put_get_history_delete(api: Api, clock: Clock) -> None:
    status, put = api.record("PUT", "users.u1", "food", body={"value": {"text": "likes sushi"}, "ttl_minutes": 60})
    assert status == 200
    assert set(put) == {
        "namespace",
        "key",
        "value",
        "version",
        "created_at",
        "updated_at",
        "valid_from",
        "valid_to",
        "expires_at",
    }
    assert put["namespace"] == ["users", "u1"] and put["version"] == 1 and put["expires_at"].endswith("Z")
    clock.tick()
    api.record("PUT", "users.u1", "food", body={"value": {"text": "likes ramen"}})
    status, got = api.record("GET", "users.u1", "food", query={"refresh_ttl": "false"})
    assert status == 200 and got["value"] == {"text": "likes ramen"} and got["version"] == 2
    status, old = api.record("GET", "users.u1", "food", query={"as_of": put["valid_from"]})
    assert status == 200 and old["value"] == {"text": "likes sushi"}
    status, history = api.http(
        "GET",
        "/records/{namespace}/{key}/history",
        "/records/users.u1/food/history",
        {"namespace": "users.u1", "key": "food"},
    )
    assert status == 200 and [v["version"] for v in history["versions"]] == [2, 1]
    assert history["versions"][0]["deleted"] is False
    assert api.record("DELETE", "users.u1", "food") == (204, None)
    assert api.record("DELETE", "users.u1", "food") == (204, None)
    status, error = api.record("GET", "users.u1", "food")
    assert status == 404 and error["code"] == "record_not_found"


def test_http_search_and_namespaces(api: Api, clock: Clock) -> None:
    for i, ns in enumerate(["a.b", "a.b.c", "a.x"]):
        api.record("PUT", ns, f"k{i}", body={"value": {"text": f"fact {i}", "n": i}})
        clock.tick()
    status, found = api.http("POST", "/records/search", "/records/search", body={"namespace_prefix": ["a", "b"]})
    assert status == 200 and [r["key"] for r in found["items"]] == ["k1", "k0"]
    assert all(r["score"] is None for r in found["items"])
    body = {"namespace_prefix": ["a"], "query": "fact", "filter": {"n": {"$gte": 1}}, "limit": 1, "offset": 0}
    status, found = api.http("POST", "/records/search", "/records/search", body=body)
    assert status == 200 and len(found["items"]) == 1 and found["items"][0]["value"]["n"] >= 1
    assert isinstance(found["items"][0]["score"], float)
    status, listed = api.http(
        "POST", "/records/namespaces", "/records/namespaces", body={"prefix": ["a", "*"], "max_depth": 2}
    )
    assert status == 200 and listed == {"namespaces": [["a", "b"], ["a", "x"]]}
    status, settings = api.http(
        "PUT",
        "/record-namespaces/{namespace}",
        "/record-namespaces/a.b",
        {"namespace": "a.b"},
        body={"default_ttl_minutes": 5},
    )
    assert status == 200 and settings == {"namespace": ["a", "b"], "default_ttl_minutes": 5.0}
    assert api.record("PUT", "a.b", "ttl", body={"value": {}})[1]["expires_at"] is not None


@pytest.mark.parametrize(
    ("ns", "key", "body", "status", "code"),
    [
        ("a..b", "k", {"value": {}}, 400, "invalid_input"),
        ("a", "k", {"value": []}, 422, "schema_invalid"),
        ("a", "k", {"value": {}, "extra": 1}, 422, "schema_invalid"),
        ("a", "k", {"value": {}, "ttl_minutes": 0}, 400, "invalid_input"),
        ("a", "k", {"value": {}, "index": "text"}, 422, "schema_invalid"),
        ("a", "k", "not json", 400, "invalid_input"),
    ],
)
def test_http_bad_puts_are_4xx_and_write_nothing(
    api: Api, aws: dict[str, Any], ns: str, key: str, body: Any, status: int, code: str
) -> None:
    from records_support import table_items

    got, error = api.record("PUT", ns, key, body=body)
    assert (got, error["code"]) == (status, code)
    assert table_items(aws["dynamodb"]) == []


def test_http_bad_reads_are_4xx(api: Api) -> None:
    status, error = api.record("GET", "a", "k", query={"as_of": "yesterday"})
    assert (status, error["code"]) == (400, "invalid_input")
    body = {"filter": {"n": {"$in": [1]}}}
    status, error = api.http("POST", "/records/search", "/records/search", body=body)
    assert (status, error["code"]) == (400, "invalid_input")
    status, error = api.http("POST", "/records/search", "/records/search", body={"limit": 0})
    assert (status, error["code"]) == (422, "schema_invalid")


@pytest.mark.parametrize("condition", [{"p": {"$regex": 5}}, {"p": {"$where": "x"}}, {"$eq": {"p": {"$gte2": 1}}}])
def test_an_unknown_operator_below_the_top_level_is_refused_over_http_and_directly(
    api: Api, condition: dict[str, Any]
) -> None:
    """Issue 30 item 7: `{"o": {"p": {"$regex": 5}}}` was accepted and acted as `$lte`; the same answer as an
    unknown operator at the top level, over HTTP and invoked directly."""
    body = {"filter": {"o": condition}}
    status, error = api.http("POST", "/records/search", "/records/search", body=body)
    assert (status, error["code"]) == (400, "invalid_input") and "unknown operator" in error["message"]
    with pytest.raises(InvalidInput, match="unknown operator"):
        api.direct(action="search_records", **body)


def test_direct_invocations(api: Api, index: InMemoryRecordIndex) -> None:
    put = api.direct(action="put_record", namespace=["u", "1"], key="k", value={"text": "hello"})
    assert put["version"] == 1 and put["namespace"] == ["u", "1"]
    assert api.direct(action="get_record", namespace=["u", "1"], key="k")["value"] == {"text": "hello"}
    assert api.direct(action="record_history", namespace=["u", "1"], key="k")["versions"][0]["version"] == 1
    found = api.direct(action="search_records", namespace_prefix=["u"], query="hello")["items"]
    assert [r["key"] for r in found] == ["k"]
    assert api.direct(action="list_record_namespaces")["namespaces"] == [["u", "1"]]
    out = api.direct(action="configure_record_namespace", namespace=["u"], default_ttl_minutes=1)
    assert out == {"namespace": ["u"], "default_ttl_minutes": 1.0}
    assert api.direct(action="delete_record", namespace=["u", "1"], key="k") == {"deleted": True}
    assert api.direct(action="delete_record", namespace=["u", "1"], key="k") == {"deleted": False}
    with pytest.raises(Exception) as missing:
        api.direct(action="get_record", namespace=["u", "1"], key="k")
    assert getattr(missing.value, "code", None) == "record_not_found"
    with pytest.raises(Exception) as bad:
        api.direct(action="get_record", namespace="u.1", key="k")
    assert getattr(bad.value, "code", None) == "invalid_input"
