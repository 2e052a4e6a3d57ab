"""What an outsider can send to the conversation routes gets a 4xx and stores nothing (issue 11, findings 1 and 3)."""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import pytest
from conversation_api import Api, all_items, all_objects, load_event

NOT_UTF8 = b"\xff\xfe{}"


def _binary_event(template: str, method: str, path: str, raw: bytes) -> dict[str, Any]:
    # API Gateway HTTP APIs deliver a body that is not UTF-8 text base64-encoded, with isBase64Encoded set.
    event = copy.deepcopy(load_event(template))
    event["rawPath"] = path
    event["requestContext"]["http"]["method"] = method
    event["requestContext"]["http"]["path"] = path
    event["pathParameters"] = {"thread_id": "t1"}
    event["body"] = base64.b64encode(raw).decode("ascii")
    event["isBase64Encoded"] = True
    return event


@pytest.mark.parametrize(
    ("fn", "template", "method", "path"),
    [
        ("add_run", "add_run_http.json", "POST", "/threads/t1/runs"),
        ("prompt_stack_fn", "prompt_stack_http.json", "POST", "/threads/t1/prompt-stack"),
        ("threads", "thread_put_http.json", "PUT", "/threads/t1"),
    ],
)
def test_a_body_that_is_not_utf8_is_a_400(
    api: Api, aws: dict[str, Any], fn: str, template: str, method: str, path: str
) -> None:
    out = getattr(api, fn)(_binary_event(template, method, path, NOT_UTF8), None)
    assert out["statusCode"] == 400, out
    assert json.loads(out["body"])["code"] == "invalid_input"
    assert all_items(aws["dynamodb"]) == []


def test_a_blob_run_whose_bytes_are_not_text_is_refused_and_stores_nothing(api: Api, aws: dict[str, Any]) -> None:
    run = {
        "type": "Run",
        "id": "r1",
        "input": {"type": "TextArtifact", "value": "give me the bytes"},
        "output": {"type": "BlobArtifact", "value": base64.b64encode(b"\x89PNG\xff\xfe\x00").decode()},
    }
    status, body = api.post_run("t1", run)
    assert status == 400, body
    assert body["code"] == "invalid_artifact"
    assert "BlobArtifact" in body["message"]
    assert all_items(aws["dynamodb"]) == [] and all_objects(aws["s3"]) == []


def test_a_blob_run_of_text_bytes_is_stored(api: Api) -> None:
    run = {
        "type": "Run",
        "input": {"type": "TextArtifact", "value": "q"},
        "output": {"type": "BlobArtifact", "value": base64.b64encode("héllo".encode()).decode()},
    }
    status, body = api.post_run("t1", run)
    assert status == 201, body
