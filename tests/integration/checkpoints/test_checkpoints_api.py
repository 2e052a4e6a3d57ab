"""The checkpoints function through its Lambda handler (API Gateway v2 events and direct invocations) on moto: the
wire contract the OffpromptSaver is written against (docs/adr/0039), status codes and error codes the same over
HTTP and direct invocation, nothing written on bad input."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from checkpoints_support import blob, bucket_keys, table_items, unblob

from offprompt.errors import OffpromptError
from offprompt.services.checkpoints.context import Checkpoints

EVENTS = Path(__file__).resolve().parents[3] / "events"
CID = "1ef4f797-8335-6428-8001-8a1503f9b875"
T = "/checkpoint-threads/{thread_id}"


class Api:
    def __init__(self) -> None:
        from checkpoints import handler

        self.handler = handler

    def http(
        self,
        method: str,
        route: str,
        params: dict[str, str],
        *,
        body: Any = None,
        query: dict[str, str] | None = None,
        tenant: str = "tenant-a",
    ) -> tuple[int, Any]:
        sample = next(
            json.loads(p.read_text())
            for p in sorted(EVENTS.glob("checkpoint_*_http.json"))
            if json.loads(p.read_text())["routeKey"] == f"{method} {route}"
        )
        event = copy.deepcopy(sample)
        path = route
        for name, value in params.items():
            path = path.replace("{" + name + "}", quote(value, safe=""))
        event["rawPath"] = path
        event["requestContext"]["http"]["path"] = path
        event["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = tenant
        event["pathParameters"] = params
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

    def direct(self, **event: Any) -> Any:
        return self.handler.lambda_handler({"tenant": "tenant-a", **event}, None)

    def direct_error(self, **event: Any) -> str:
        try:
            self.direct(**event)
        except OffpromptError as exc:
            return exc.code
        raise AssertionError("no error")


@pytest.fixture
def api(ck: Checkpoints, monkeypatch: pytest.MonkeyPatch) -> Api:
    from checkpoints import handler

    monkeypatch.setattr(handler, "checkpoints", lambda: ck)
    return Api()


def put_body(data: bytes = b"state", **extra: Any) -> dict[str, Any]:
    return {
        "checkpoint_ns": "",
        "parent_checkpoint_id": None,
        "checkpoint": blob(data),
        "metadata": {"step": 1},
        **extra,
    }


def test_the_routes_over_http(api: Api) -> None:
    params = {"thread_id": "graph 1", "checkpoint_id": CID}
    status, out = api.http("PUT", T + "/checkpoints/{checkpoint_id}", params, body=put_body(b"\xffbytes"))
    assert (status, out) == (200, {"thread_id": "graph 1", "checkpoint_ns": "", "checkpoint_id": CID})
    writes = {"task_id": "t1", "task_path": "", "writes": [{"idx": 0, "channel": "c", "value": blob(b"w")}]}
    assert api.http("PUT", T + "/checkpoints/{checkpoint_id}/writes", params, body=writes) == (200, {"stored": 1})
    status, got = api.http("GET", T + "/checkpoint", {"thread_id": "graph 1"}, query={"checkpoint_ns": ""})
    assert status == 200 and unblob(got["checkpoint"]) == b"\xffbytes"
    assert set(got) == {"thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "checkpoint",
                        "metadata", "pending_writes"}  # fmt: skip
    assert got["pending_writes"] == [{"task_id": "t1", "task_path": "", "idx": 0, "channel": "c", "value": blob(b"w")}]
    status, by_id = api.http("GET", T + "/checkpoint", {"thread_id": "graph 1"}, query={"checkpoint_id": CID})
    assert status == 200 and by_id == got
    status, page = api.http("POST", T + "/checkpoints/list", {"thread_id": "graph 1"}, body={"filter": {"step": 1}})
    assert status == 200 and page == {"checkpoints": [got], "next_cursor": None}
    status, copied = api.http("POST", T + "/copy", {"thread_id": "graph 1"}, body={"target_thread_id": "graph 2"})
    assert (status, copied) == (201, {"thread_id": "graph 2", "copied_from": "graph 1", "through": {"": CID}})
    status, pruned = api.http("POST", T + "/prune", {"thread_id": "graph 2"}, body={"strategy": "keep_latest"})
    assert (status, pruned) == (200, {"thread_id": "graph 2", "strategy": "keep_latest"})
    assert api.http("DELETE", T, {"thread_id": "graph 1"}) == (204, None)
    assert api.http("DELETE", T, {"thread_id": "graph 1"}) == (204, None)
    status, still = api.http("GET", T + "/checkpoint", {"thread_id": "graph 2"})
    assert status == 200 and still["checkpoint_id"] == CID and still["thread_id"] == "graph 2"


def test_direct_invocation_does_the_same(api: Api) -> None:
    out = api.direct(action="put_checkpoint", thread_id="g", checkpoint_id=CID, **put_body())
    assert out == {"thread_id": "g", "checkpoint_ns": "", "checkpoint_id": CID}
    writes = {"task_id": "t1", "writes": [{"idx": -1, "channel": "__error__", "value": blob(b"e")}]}
    assert api.direct(action="put_checkpoint_writes", thread_id="g", checkpoint_id=CID, **writes) == {"stored": 1}
    got = api.direct(action="get_checkpoint", thread_id="g")
    assert got["checkpoint_id"] == CID and got["pending_writes"][0]["idx"] == -1
    assert api.direct(action="list_checkpoints", thread_id="g")["checkpoints"] == [got]
    assert api.direct(action="copy_checkpoint_thread", thread_id="g", target_thread_id="h")["thread_id"] == "h"
    assert api.direct(action="prune_checkpoint_thread", thread_id="h", strategy="delete")["strategy"] == "delete"
    assert api.direct(action="delete_checkpoint_thread", thread_id="g") == {"deleted": True}


def test_a_metadata_filter_keeps_json_types_apart_over_http_and_direct(api: Api) -> None:
    """Issue 30 item 7: `{"step": true}` matched `step: 1` (Python's `True == 1`). JSON's true is not 1 (as in
    LangGraph's Postgres saver, whose `metadata @> filter` is typed); 1 and 1.0 are one JSON number."""
    one, other = CID, CID[:-1] + "6"
    params = {"thread_id": "typed"}
    stored = {one: {"step": 1, "o": {"a": 1}, "f": 2}, other: {"step": True, "o": {"a": True}, "f": 2.0}}
    for cid, metadata in stored.items():
        route, body = T + "/checkpoints/{checkpoint_id}", put_body(metadata=metadata)
        assert api.http("PUT", route, {**params, "checkpoint_id": cid}, body=body)[0] == 200
    cases = [
        ({"step": True}, [other]),
        ({"step": 1}, [one]),
        ({"step": 1.0}, [one]),
        ({"step": False}, []),
        ({"step": 0}, []),
        ({"o": {"a": True}}, [other]),
        ({"o": {"a": 1}}, [one]),
        ({"f": 2}, [other, one]),
    ]
    for wanted, ids in cases:
        status, page = api.http("POST", T + "/checkpoints/list", params, body={"filter": wanted})
        assert status == 200 and [c["checkpoint_id"] for c in page["checkpoints"]] == ids, wanted
        direct = api.direct(action="list_checkpoints", thread_id="typed", filter=wanted)
        assert [c["checkpoint_id"] for c in direct["checkpoints"]] == ids, wanted


BAD: list[tuple[str, str, dict[str, str], dict[str, Any], dict[str, str] | None, int, str]] = [
    ("PUT", T + "/checkpoints/{checkpoint_id}", {"thread_id": "g", "checkpoint_id": "bad#id"}, put_body(), None, 400,
     "invalid_input"),
    ("PUT", T + "/checkpoints/{checkpoint_id}", {"thread_id": "g", "checkpoint_id": CID},
     {**put_body(), "checkpoint": {"type": "t", "data": "not base64!"}}, None, 400, "invalid_input"),
    ("PUT", T + "/checkpoints/{checkpoint_id}", {"thread_id": "g", "checkpoint_id": CID},
     {**put_body(), "extra": 1}, None, 422, "schema_invalid"),
    ("PUT", T + "/checkpoints/{checkpoint_id}", {"thread_id": "g", "checkpoint_id": CID},
     put_body(b"x" * (4 * 2**20 + 1)), None, 413, "payload_too_large"),
    ("PUT", T + "/checkpoints/{checkpoint_id}/writes", {"thread_id": "g", "checkpoint_id": CID},
     {"task_id": "t", "writes": [{"idx": 0, "channel": "c", "value": {"type": "t", "data": "not base64!"}}]}, None,
     400, "invalid_input"),
    ("GET", T + "/checkpoint", {"thread_id": "g"}, {}, {"checkpoint_id": CID}, 404, "checkpoint_not_found"),
    ("GET", T + "/checkpoint", {"thread_id": "g"}, {}, {"checkpoint_id": "a b"}, 422, "schema_invalid"),
    ("POST", T + "/checkpoints/list", {"thread_id": "g"}, {"limit": 0}, None, 422, "schema_invalid"),
    ("POST", T + "/checkpoints/list", {"thread_id": "g"}, {"cursor": "garbage"}, None, 400, "invalid_input"),
    ("POST", T + "/copy", {"thread_id": "g"}, {"target_thread_id": "h"}, None, 404, "checkpoint_thread_not_found"),
    ("POST", T + "/copy", {"thread_id": "g"}, {"target_thread_id": "a/b"}, None, 400, "invalid_input"),
    ("POST", T + "/prune", {"thread_id": "g"}, {"strategy": "all"}, None, 422, "schema_invalid"),
    # bidi controls spoof labels (issue 30 item 7): a thread id, a namespace, a task id
    ("PUT", T + "/checkpoints/{checkpoint_id}", {"thread_id": "g\u202eh", "checkpoint_id": CID}, put_body(), None, 400,
     "invalid_input"),
    ("PUT", T + "/checkpoints/{checkpoint_id}", {"thread_id": "g", "checkpoint_id": CID},
     put_body(checkpoint_ns="sub\u2067graph"), None, 400, "invalid_input"),
    ("PUT", T + "/checkpoints/{checkpoint_id}/writes", {"thread_id": "g", "checkpoint_id": CID},
     {"task_id": "t\u202e", "writes": [{"idx": 0, "channel": "c", "value": blob(b"w")}]}, None, 400, "invalid_input"),
    ("POST", T + "/copy", {"thread_id": "g"}, {"target_thread_id": "h\u200f"}, None, 400, "invalid_input"),
]  # fmt: skip
ACTIONS = {
    ("PUT", T + "/checkpoints/{checkpoint_id}"): "put_checkpoint",
    ("PUT", T + "/checkpoints/{checkpoint_id}/writes"): "put_checkpoint_writes",
    ("GET", T + "/checkpoint"): "get_checkpoint",
    ("POST", T + "/checkpoints/list"): "list_checkpoints",
    ("POST", T + "/copy"): "copy_checkpoint_thread",
    ("POST", T + "/prune"): "prune_checkpoint_thread",
}


@pytest.mark.parametrize(("method", "route", "params", "body", "query", "status", "code"), BAD)
def test_bad_input_is_the_same_4xx_over_http_and_direct_and_writes_nothing(
    api: Api,
    aws: dict[str, Any],
    method: str,
    route: str,
    params: dict[str, str],
    body: dict[str, Any],
    query: dict[str, str] | None,
    status: int,
    code: str,
) -> None:
    got_status, error = api.http(method, route, params, body=body if method != "GET" else None, query=query)
    assert (got_status, error["code"]) == (status, code), error
    direct = {**params, **body, **(query or {})}
    assert api.direct_error(action=ACTIONS[(method, route)], **direct) == code
    assert table_items(aws["dynamodb"]) == [] and bucket_keys(aws["s3"]) == []


def test_conflicts(api: Api) -> None:
    api.direct(action="put_checkpoint", thread_id="g", checkpoint_id=CID, **put_body())
    api.direct(action="put_checkpoint", thread_id="h", checkpoint_id=CID, **put_body())
    status, error = api.http("POST", T + "/copy", {"thread_id": "g"}, body={"target_thread_id": "h"})
    assert (status, error["code"]) == (409, "checkpoint_thread_exists")
    assert api.direct_error(action="copy_checkpoint_thread", thread_id="g", target_thread_id="h") == (
        "checkpoint_thread_exists"
    )


def test_a_2_mb_checkpoint_round_trips_over_http(api: Api, aws: dict[str, Any]) -> None:
    data = os.urandom(2 * 1024 * 1024)
    params = {"thread_id": "big", "checkpoint_id": CID}
    assert api.http("PUT", T + "/checkpoints/{checkpoint_id}", params, body=put_body(data))[0] == 200
    status, got = api.http("GET", T + "/checkpoint", {"thread_id": "big"})
    assert status == 200 and unblob(got["checkpoint"]) == data
    assert len(bucket_keys(aws["s3"])) == 1
