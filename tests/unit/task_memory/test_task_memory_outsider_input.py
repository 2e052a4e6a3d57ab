"""What an outsider can send to the task-memory routes gets a 4xx and stores nothing (issue 11, findings 1 and 2)."""

from __future__ import annotations

import base64
from types import SimpleNamespace
from typing import Any

import pytest
from tm_unit_helpers import all_items, all_objects, call, http_event


@pytest.mark.parametrize(
    ("fn", "template"),
    [
        ("po", "process_output_http.json"),
        ("mh", "memories_search_http.json"),
    ],
)
def test_a_body_that_is_not_utf8_is_a_400(handlers: SimpleNamespace, fn: str, template: str) -> None:
    event = http_event(template, raw_body=base64.b64encode(b"\xff\xfe{}").decode("ascii"))
    event["isBase64Encoded"] = True
    status, body, _ = call(getattr(handlers, fn), event)
    assert status == 400, body
    assert body["code"] == "invalid_input"
    assert all_items() == [] and all_objects() == []


@pytest.mark.parametrize("template", ["memories_list_namespaces_http.json", "memories_meta_http.json"])
@pytest.mark.parametrize("limit", ["\u00b2", "\u0663", "\uff15", "-1x", "1e3", "9" * 30])
def test_a_limit_that_is_not_an_integer_is_a_422(handlers: SimpleNamespace, template: str, limit: str) -> None:
    # The query's declared type (integer) decides, as for every other route: 422 schema_invalid naming `limit`.
    status, body, _ = call(handlers.mh, http_event(template, query={"limit": limit}))
    assert status == 422, body
    assert body["code"] == "schema_invalid" and "limit" in body["message"]


@pytest.mark.parametrize("field", ["thought", "action_input"])
def test_a_huge_thought_or_action_input_is_a_413_before_anything_is_written(
    handlers: SimpleNamespace, texts: Any, field: str
) -> None:
    big = "x" * 450_000
    body: dict[str, Any] = {
        "tool": "WebTool",
        "activity": "fetch",
        "artifact": {"type": "TextArtifact", "name": "page", "value": "hello"},
    }
    if field == "thought":
        body["thought"] = big
    else:
        body["actions"] = [{"tag": "c1", "name": "WebTool", "path": "fetch", "input": {"values": {"q": big}}}]
    for _ in range(2):  # the same on a retry: no position burned, no text left behind
        status, out, _ = call(handlers.po, http_event("process_output_http.json", body=body))
        assert status == 413, out
        assert out["code"] == "payload_too_large"
    assert all_items() == [] and all_objects() == [] and texts.docs == {}
    body.pop("thought", None)
    body.pop("actions", None)
    status, out, _ = call(handlers.po, http_event("process_output_http.json", body=body))
    assert status == 200 and out["type"] == "InfoArtifact"


ODD_NAMES = [
    "a#b",
    "what?",
    'say "hi"',
    "back\\slash",
    "tick`",
    "it\u2019s",
    "\u20ac5",
    "nb\u00a0sp",
    "emoji\U0001f600",
]


@pytest.mark.parametrize("name", ODD_NAMES)
def test_a_namespace_that_can_be_written_can_be_addressed(handlers: SimpleNamespace, name: str) -> None:
    body = {"tool": "T", "activity": "a", "artifact": {"type": "TextArtifact", "value": "payload", "name": name}}
    status, out, _ = call(handlers.po, http_event("process_output_http.json", body=body))
    assert status == 200 and out["name"] == name, out
    params = {"memory_name": "TaskMemory", "namespace": name}
    base = f"/memories/TaskMemory/namespaces/{name}"  # decoded, as API Gateway's HTTP API hands it over
    status, out, _ = call(handlers.la, http_event("load_artifacts_http.json", path=f"{base}/artifacts", params=params))
    assert status == 200 and out["value"][0]["value"] == "payload", out
    status, out, _ = call(handlers.mh, http_event("memories_get_namespace_http.json", path=base, params=params))
    assert status == 200 and out["namespace"] == name, out
    search = http_event("memories_search_http.json", path=f"{base}/search", params=params, body={"query": "payload"})
    status, out, _ = call(handlers.mh, search)
    assert status == 200 and out["hits"], out
    status, out, _ = call(handlers.mh, http_event("memories_delete_namespace_http.json", path=base, params=params))
    assert status == 204, out
