"""What an outsider can send to the conversation routes gets a 4xx and stores nothing (issue 11, findings 1 and 3)."""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import pytest
from conversation_api import Api, all_items, all_objects, load_event

from offprompt.errors import InvalidInput

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


# Characters an outsider found stored but then unaddressable (issue 11, finding 4). API Gateway's HTTP API
# (and the dev server) hand the function a *decoded* rawPath, with the decoded values in pathParameters.
ODD_IDS = [
    "a#b",
    "what?",
    'say "hi"',
    "back\\slash",
    "tick`",
    "it\u2019s",
    "\u20ac5",
    "nb\u00a0sp",
    "emoji\U0001f600",
    "50%",
    "a b",
]


@pytest.mark.parametrize("thread_id", ODD_IDS)
def test_a_thread_id_that_can_be_written_can_be_addressed(api: Api, thread_id: str) -> None:
    def decoded(template: str, method: str, suffix: str, body: Any = None) -> dict[str, Any]:
        event = copy.deepcopy(load_event(template))
        path = f"/threads/{thread_id}{suffix}"
        event["rawPath"] = event["requestContext"]["http"]["path"] = path
        event["requestContext"]["http"]["method"] = method
        event["pathParameters"] = {"thread_id": thread_id}
        event.pop("queryStringParameters", None)
        event["rawQueryString"] = ""
        event["body"] = None if body is None else json.dumps(body)
        return event

    run = {
        "type": "Run",
        "id": "r",
        "input": {"type": "TextArtifact", "value": "q"},
        "output": {"type": "TextArtifact", "value": "a"},
    }
    out = api.add_run(decoded("add_run_http.json", "POST", "/runs", run), None)
    assert out["statusCode"] == 201, out
    out = api.threads(decoded("thread_runs_http.json", "GET", "/runs"), None)
    assert out["statusCode"] == 200 and [r["run"]["id"] for r in json.loads(out["body"])["runs"]] == ["r"], out
    out = api.prompt_stack_fn(decoded("prompt_stack_http.json", "POST", "/prompt-stack", {"max_tokens": 100}), None)
    assert out["statusCode"] == 200 and len(json.loads(out["body"])["messages"]) == 2, out
    out = api.threads(decoded("thread_get_http.json", "GET", ""), None)
    assert out["statusCode"] == 200 and json.loads(out["body"])["thread_id"] == thread_id, out
    out = api.threads(decoded("thread_delete_http.json", "DELETE", ""), None)
    assert out["statusCode"] == 204, out


@pytest.mark.parametrize("thread_id", ["a/b", ".", "..", "invoice\u202efdp.exe", "a\u2066b", "a\u200bb"])
def test_a_thread_id_that_no_url_can_address_is_refused_on_write(api: Api, thread_id: str) -> None:
    """`/`, `.`, `..` (ADR 0014) and bidi or other format controls (a spoofed label in the console: issue 30 item 7):
    the same 400 `invalid_input` over HTTP and invoked directly."""
    run = {
        "type": "Run",
        "input": {"type": "TextArtifact", "value": "q"},
        "output": {"type": "TextArtifact", "value": "a"},
    }
    with pytest.raises(InvalidInput, match="thread_id"):
        api.add_run({"tenant": "tenant-a", "thread_id": thread_id, "run": run}, None)
    status, body = api.post_run(thread_id, run)
    assert status == 400 and body["code"] == "invalid_input", body


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        # found by schemathesis: a 500 (islice past sys.maxsize)
        ({"last_n": 1303528501631903968796868608}, 422, "schema_invalid"),
        ({"max_tokens": 10**30}, 422, "schema_invalid"),
        ({"last_n": 2**63, "max_tokens": 2**63}, 422, "schema_invalid"),
        # past the system and input messages: a rule on the request, whatever the size
        ({"memory_index": 10**30}, 400, "invalid_input"),
    ],
)
def test_huge_numbers_in_a_prompt_stack_request_are_refused(
    api: Api, body: dict[str, Any], status: int, code: str
) -> None:
    run = {"input": {"type": "TextArtifact", "value": "q"}, "output": {"type": "TextArtifact", "value": "a"}}
    assert api.post_run("t1", run)[0] == 201
    got, error = api.prompt_stack("t1", body)
    assert (got, error["code"]) == (status, code), error
