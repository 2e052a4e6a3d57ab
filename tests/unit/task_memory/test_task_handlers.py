"""The three task-memory Lambda handlers, driven by the sample events in events/ (HTTP and direct)."""

from __future__ import annotations

import base64
import json
from types import SimpleNamespace
from typing import Any

import boto3
import pytest
from tm_unit_helpers import BUCKET, Ctx, all_items, all_objects, call, http_event, load_event

from offprompt.errors import Conflict, InvalidInput, SchemaInvalid

NS = "e59302f3225041b697b0efa5d1d93369"
LINE = f'Output of "WebTool.fetch" was stored in memory with memory_name "TaskMemory" and artifact_namespace "{NS}"'


def post_output(h: SimpleNamespace, body: Any = ..., **kw: Any) -> tuple[int, Any, dict[str, str]]:
    return call(h.po, http_event("process_output_http.json", body=body, **kw))


def test_sample_events_end_to_end(handlers: SimpleNamespace) -> None:
    status, body, headers = call(handlers.po, load_event("process_output_http.json"))
    assert status == 200 and body["type"] == "InfoArtifact" and body["value"] == LINE and body["name"] == NS
    assert headers["X-Offprompt-Stored"] == "true"
    direct = handlers.po.lambda_handler(load_event("process_output_direct.json"), Ctx())
    assert direct["value"] == LINE

    status, body, _ = call(handlers.la, load_event("load_artifacts_http.json"))
    assert status == 200 and [i["value"] for i in body["value"]] == ["The quick brown fox jumps over the lazy dog."] * 2
    direct = handlers.la.lambda_handler(load_event("load_artifacts_direct.json"), Ctx())
    assert direct["value"] == body["value"]

    status, body, _ = call(handlers.mh, load_event("memories_list_namespaces_http.json"))
    assert status == 200 and [n["namespace"] for n in body["namespaces"]] == [NS] and body["next_cursor"] is None
    assert body["namespaces"][0]["storage"] == "text" and body["namespaces"][0]["artifact_count"] == 2
    assert handlers.mh.lambda_handler(load_event("memories_list_namespaces_direct.json"), Ctx()) == body

    status, record, _ = call(handlers.mh, load_event("memories_get_namespace_http.json"))
    assert (
        status == 200 and record["tool"] == "WebTool" and json.loads(record["namespace_metadata"])[0]["tag"] == "call_9"
    )
    assert handlers.mh.lambda_handler(load_event("memories_get_namespace_direct.json"), Ctx()) == record

    status, meta, _ = call(handlers.mh, load_event("memories_meta_http.json"))
    assert status == 200 and meta["entries"][0] == {
        "thought": "I will fetch the page",
        "actions": record["namespace_metadata"],
        "answer": LINE,
    }
    assert handlers.mh.lambda_handler(load_event("memories_meta_direct.json"), Ctx()) == meta

    status, found, _ = call(handlers.mh, load_event("memories_search_http.json"))
    assert (
        status == 200
        and found["hits"]
        and set(found["hits"][0]) == {"artifact_id", "position", "chunk", "text", "score"}
    )
    assert handlers.mh.lambda_handler(load_event("memories_search_direct.json"), Ctx())["hits"] == found["hits"]

    status, body, _ = call(handlers.mh, load_event("memories_delete_namespace_http.json"))
    assert status == 204 and body is None
    again = handlers.mh.lambda_handler(load_event("memories_delete_namespace_direct.json"), Ctx())
    assert again == {"deleted": False, "namespace": NS}  # idempotent
    status, body, _ = call(handlers.mh, load_event("memories_delete_namespace_http.json"))
    assert status == 204
    status, body, _ = call(handlers.mh, load_event("memories_get_namespace_http.json"))
    assert status == 404 and body["code"] == "not_found"


def test_upload_routes(handlers: SimpleNamespace) -> None:
    status, body, _ = call(handlers.po, load_event("process_output_upload_http.json"))
    assert status == 201 and set(body) == {"upload_id", "url", "expires_in", "headers", "s3_uri"}
    assert body["s3_uri"].startswith(f"s3://{BUCKET}/uploads/")
    direct = handlers.po.lambda_handler(load_event("process_output_upload_direct.json"), Ctx())
    assert direct["upload_id"] != body["upload_id"]


def test_empty_and_pass_through(handlers: SimpleNamespace) -> None:
    status, body, headers = post_output(
        handlers, {"tool": "T", "activity": "a", "artifact": {"type": "TextArtifact", "value": " "}}
    )
    assert status == 200 and body["type"] == "InfoArtifact" and body["value"] == "tool output is empty"
    assert headers["X-Offprompt-Stored"] == "false"
    err = {"type": "ErrorArtifact", "id": "e1", "reference": None, "meta": {}, "name": "e1", "value": "boom"}
    status, body, _ = post_output(handlers, {"tool": "T", "activity": "a", "artifact": err})
    assert status == 200 and body == err
    assert all_items() == []


def test_conflict_http_and_direct(handlers: SimpleNamespace) -> None:
    post_output(
        handlers, {"tool": "T", "activity": "a", "artifact": {"type": "TextArtifact", "value": "x", "name": "n"}}
    )
    blob = {"type": "BlobArtifact", "value": base64.b64encode(b"b").decode(), "name": "n"}
    status, body, _ = post_output(handlers, {"tool": "T", "activity": "a", "artifact": blob})
    assert status == 409 and body["code"] == "storage_kind_conflict"
    assert (
        body["artifact"]["type"] == "ErrorArtifact"
        and body["artifact"]["value"] == "error storing tool output in memory"
    )
    event = {"tenant": "tenant-a", "memory_name": "TaskMemory", "tool": "T", "activity": "a", "artifact": blob}
    with pytest.raises(Conflict) as err:
        handlers.po.lambda_handler(event, Ctx())
    assert type(err.value) is Conflict and err.value.details["artifact"]["type"] == "ErrorArtifact"


@pytest.mark.parametrize(
    ("kwargs", "status", "code"),
    [
        ({"raw_body": "{not json"}, 400, "invalid_input"),
        ({"raw_body": ""}, 400, "invalid_input"),
        ({"body": {"tool": "T", "activity": "a"}}, 422, "schema_invalid"),
        ({"body": {"tool": "T", "activity": "a", "artifact": [], "extra": 1}}, 422, "schema_invalid"),
        (
            {"body": {"tool": "T", "activity": "a", "artifact": {"type": "NopeArtifact", "value": "x"}}},
            400,
            "invalid_artifact",
        ),
        (
            {"body": {"tool": "T", "activity": "a", "artifact": {"type": "BlobArtifact", "value": "!!!"}}},
            400,
            "invalid_artifact",
        ),
        (
            {"body": {"tool": "T", "activity": "a", "artifact": {"type": "TextArtifact", "value": 5}}},
            400,
            "invalid_artifact",
        ),
        (
            {
                "body": {
                    "tool": "T",
                    "activity": "a",
                    "artifact": {"type": "TextArtifact", "value": "x", "id": "i" * 10_240},
                }
            },
            400,
            "invalid_input",
        ),
        (
            {
                "body": {
                    "tool": "T",
                    "activity": "a",
                    "artifact": {"type": "TextArtifact", "value": "x", "name": "a\x00b"},
                }
            },
            400,
            "invalid_input",
        ),
        (
            {
                "raw_body": json.dumps(
                    {
                        "tool": "T",
                        "activity": "a",
                        "artifact": {"type": "TextArtifact", "value": "x" * (6 * 1024 * 1024)},
                    }
                )
            },
            413,
            "payload_too_large",
        ),
        (
            {
                "body": {
                    "tool": "T",
                    "activity": "a",
                    "artifact": {
                        "type": "ListArtifact",
                        "value": [{"type": "TextArtifact", "value": "a"}, {"type": "BlobArtifact", "value": ""}],
                    },
                }
            },
            400,
            "mixed_list",
        ),
        (
            {
                "body": {
                    "tool": "T",
                    "activity": "a",
                    "artifact": {"type": "TextArtifact", "name": "n"},
                    "value_from": {"upload_id": "../../x"},
                }
            },
            400,
            "invalid_upload",
        ),
        (
            {
                "path": "/memories/" + "m" * 300 + "/outputs",
                "params": {"memory_name": "m" * 300},
                "body": {"tool": "T", "activity": "a", "artifact": {"type": "TextArtifact", "value": "x"}},
            },
            400,
            "invalid_input",
        ),
    ],
    ids=[
        "malformed",
        "empty",
        "missing-field",
        "extra-field",
        "unknown-type",
        "bad-base64",
        "non-string",
        "10kb-id",
        "control-char",
        "oversized",
        "mixed-list",
        "bad-upload",
        "long-memory",
    ],
)
def test_bad_requests_are_4xx_and_write_nothing(
    handlers: SimpleNamespace, kwargs: dict[str, Any], status: int, code: str
) -> None:
    got, body, _ = post_output(handlers, **kwargs)
    assert (got, body["code"]) == (status, code), body
    if status == 422:  # same body as every other route's schema errors: a list of {loc, type, msg}
        first = ".".join(str(p) for p in body["details"][0]["loc"])
        assert body["message"] == f"{first}: {body['details'][0]['msg']}"  # names the first problem
        assert body["details"] and all(set(d) == {"loc", "type", "msg"} for d in body["details"]), body
    assert all_items() == [] and all_objects() == []


def test_hostile_but_valid_names_are_data(handlers: SimpleNamespace) -> None:
    name = "..ünï cødé\\🎉#%23?"
    art = {"type": "TextArtifact", "value": "payload", "name": name}
    status, body, _ = post_output(handlers, {"tool": "T", "activity": "a", "artifact": art})
    assert status == 200 and body["name"] == name
    path = "/memories/TaskMemory/namespaces/x/artifacts"
    status, body, _ = call(
        handlers.la,
        http_event("load_artifacts_http.json", path=path, params={"memory_name": "TaskMemory", "namespace": name}),
    )
    assert status == 200 and body["value"][0]["value"] == "payload"


def test_a_name_no_url_path_can_address_is_refused(handlers: SimpleNamespace) -> None:
    # API Gateway decodes %2F before routing, so a namespace holding "/" could be stored but never read back.
    art = {"type": "TextArtifact", "value": "payload", "name": "docs/readme.md"}
    status, body, _ = post_output(handlers, {"tool": "T", "activity": "a", "artifact": art})
    assert status == 400 and body["code"] == "invalid_input" and '"/"' in body["message"], body
    assert all_items() == [] and all_objects() == []


def test_direct_errors_are_raised(handlers: SimpleNamespace) -> None:
    with pytest.raises(InvalidInput, match="tenant"):
        handlers.po.lambda_handler({"memory_name": "m"}, Ctx())
    with pytest.raises(InvalidInput, match="action"):
        handlers.mh.lambda_handler({"tenant": "t", "memory_name": "m", "action": "drop_table"}, Ctx())
    with pytest.raises(SchemaInvalid, match="tool"):
        handlers.po.lambda_handler({"tenant": "t", "memory_name": "m", "tool": 1}, Ctx())


def test_search_schema_and_kinds(handlers: SimpleNamespace) -> None:
    call(handlers.po, load_event("process_output_http.json"))
    event = http_event("memories_search_http.json", body={"query": "fox", "top_k": 0})
    assert call(handlers.mh, event)[0] == 422
    event = http_event("memories_search_http.json", body={"query": "fox", "mode": "fuzzy"})
    assert call(handlers.mh, event)[0] == 422
    event = http_event("memories_search_http.json", body={"query": "fox"}, tenant="tenant-b")
    assert call(handlers.mh, event)[:2] == (200, {"hits": []})  # another tenant's namespace is unknown: no hits
    blob = {"type": "BlobArtifact", "value": "AA==", "name": "blobs"}
    post_output(handlers, {"tool": "T", "activity": "a", "artifact": blob})
    event = http_event(
        "memories_search_http.json",
        path="/memories/TaskMemory/namespaces/blobs/search",
        params={"memory_name": "TaskMemory", "namespace": "blobs"},
        body={"query": "x"},
    )
    status, body, _ = call(handlers.mh, event)
    assert (status, body["code"]) == (409, "not_text_namespace")


def test_cross_tenant_over_http(handlers: SimpleNamespace) -> None:
    call(handlers.po, load_event("process_output_http.json"))
    status, body, _ = call(handlers.la, http_event("load_artifacts_http.json", tenant="tenant-b"))
    assert status == 200 and body["value"] == []
    status, body, _ = call(handlers.mh, http_event("memories_get_namespace_http.json", tenant="tenant-b"))
    assert (status, body["code"]) == (404, "not_found")
    status, body, _ = call(handlers.mh, http_event("memories_delete_namespace_http.json", tenant="tenant-b"))
    assert status == 204  # idempotent, and tenant-a's namespace is untouched:
    assert call(handlers.la, load_event("load_artifacts_http.json"))[1]["value"]
    status, body, _ = call(handlers.mh, http_event("memories_list_namespaces_http.json", tenant="tenant-b"))
    assert body["namespaces"] == []
    status, body, _ = call(handlers.la, load_event("load_artifacts_http.json"))
    assert len(body["value"]) == 1


def test_large_load_is_303_with_presigned_location(handlers: SimpleNamespace, svc: Any) -> None:
    import requests

    svc.max_inline_response_bytes = 100
    call(handlers.po, load_event("process_output_http.json"))
    status, body, headers = call(handlers.la, load_event("load_artifacts_http.json"))
    assert status == 303 and headers["Location"] == body["download_url"] and body["expires_in"] > 0
    assert requests.get(headers["Location"], timeout=30).json()["value"][0]["name"] == NS
    direct = handlers.la.lambda_handler(load_event("load_artifacts_direct.json"), Ctx())
    assert set(direct) == {"download_url", "expires_in", "size"}


def test_direct_load_stays_under_the_step_functions_state_cap(handlers: SimpleNamespace, svc: Any) -> None:
    import requests

    from offprompt.artifacts import TextArtifact

    # ~300 KB of JSON: fine for Lambda (HTTP answers inline up to 5 MB), too big for a 256 KB Step Functions state.
    art = TextArtifact("fox " * 75_000, name=NS)
    svc.process_output("tenant-a", "TaskMemory", tool="T", activity="a", artifact=art)
    event = load_event("load_artifacts_direct.json")
    direct = handlers.la.lambda_handler(event, Ctx())
    assert set(direct) == {"download_url", "expires_in", "size"} and 200 * 1024 < direct["size"] < 5 * 1024 * 1024
    assert requests.get(direct["download_url"], timeout=30).json()["value"] == [art.to_dict()]
    status, body, _ = call(handlers.la, load_event("load_artifacts_http.json"))
    assert status == 200 and body["value"] == [art.to_dict()]  # HTTP keeps the 5 MB threshold
    inline = handlers.la.lambda_handler({**event, "max_inline_bytes": 5 * 1024 * 1024}, Ctx())
    assert inline["value"] == [art.to_dict()]
    assert handlers.la.lambda_handler({**event, "max_inline_bytes": None}, Ctx())["size"] == direct["size"]
    for bad in (0, -1, 5 * 1024 * 1024 + 1, True, "1000", 1.5):
        with pytest.raises(InvalidInput):
            handlers.la.lambda_handler({**event, "max_inline_bytes": bad}, Ctx())
    # The override also lowers the limit: a small namespace inline by default, by URL under a 10-byte limit.
    svc.process_output("tenant-a", "TaskMemory", tool="T", activity="a", artifact=TextArtifact("small", name="s"))
    small = {**event, "namespace": "s"}
    assert [i["value"] for i in handlers.la.lambda_handler(small, Ctx())["value"]] == ["small"]
    assert set(handlers.la.lambda_handler({**small, "max_inline_bytes": 10}, Ctx())) == {
        "download_url",
        "expires_in",
        "size",
    }


def test_dependency_failure_is_503(handlers: SimpleNamespace) -> None:
    boto3.client("s3").delete_bucket(Bucket=BUCKET)
    blob = {"type": "BlobArtifact", "value": "AA==", "name": "b"}
    status, body, _ = post_output(handlers, {"tool": "T", "activity": "a", "artifact": blob})
    assert (status, body["code"]) == (503, "dependency_unavailable")


def test_query_paging_params(handlers: SimpleNamespace) -> None:
    status, body, _ = call(handlers.mh, http_event("memories_meta_http.json", query={"limit": "abc"}))
    assert (status, body["code"]) == (422, "schema_invalid")
    status, body, _ = call(handlers.mh, http_event("memories_meta_http.json", query={"cursor": "%%%"}))
    assert status == 400
