"""process-output's `idempotency_key` (ADR 0026) through the handler, on moto's DynamoDB and S3: a retry of the
same request gets the first answer and stores nothing again; another request under the same key is a 409 that
writes nothing; a failed or pass-through request leaves the key free. Direct invocation behaves the same."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tm_unit_helpers import Ctx, all_items, all_objects, call, http_event

from offprompt.errors import Conflict

MEMORY_ITEMS = "TASKMEM#"


def blob_output(data: str = "AAEC", *, key: str | None = "retry-1", name: str = "pic") -> dict[str, Any]:
    body: dict[str, Any] = {
        "tool": "Camera",
        "activity": "shoot",
        "artifact": {"type": "BlobArtifact", "name": name, "value": data},
    }
    if key is not None:
        body["idempotency_key"] = key
    return body


def post(h: SimpleNamespace, body: Any) -> tuple[int, Any, dict[str, str]]:
    return call(h.po, http_event("process_output_http.json", body=body))


def stored_batches() -> int:
    return sum(1 for i in all_items() if i["pk"]["S"].startswith(MEMORY_ITEMS) and i["sk"]["S"].startswith("BATCH#"))


def test_a_retry_gets_the_first_answer_and_stores_nothing_again(handlers: SimpleNamespace) -> None:
    first = post(handlers, blob_output())
    objects = all_objects()
    again = post(handlers, blob_output())
    assert first[0] == again[0] == 200
    assert again[1] == first[1] and first[1]["type"] == "InfoArtifact"
    assert (first[2]["X-Offprompt-Replayed"], again[2]["X-Offprompt-Replayed"]) == ("false", "true")
    assert again[2]["X-Offprompt-Stored"] == "true"
    assert stored_batches() == 1 and all_objects() == objects
    status, loaded, _ = call(
        handlers.la, http_event("load_artifacts_http.json", params={"memory_name": "TaskMemory", "namespace": "pic"})
    )
    assert status == 200 and len(loaded["value"]) == 1


def test_without_a_key_each_call_appends_as_in_griptape(handlers: SimpleNamespace) -> None:
    assert post(handlers, blob_output(key=None))[0] == 200
    assert post(handlers, blob_output(key=None))[0] == 200
    assert stored_batches() == 2


def test_the_same_key_for_another_request_is_a_409_that_writes_nothing(handlers: SimpleNamespace) -> None:
    assert post(handlers, blob_output("AAEC"))[0] == 200
    before = (all_items(), all_objects())
    status, error, _ = post(handlers, blob_output("AAED"))
    assert status == 409 and error["code"] == "conflict" and "idempotency_key" in error["message"]
    assert (all_items(), all_objects()) == before


def test_keys_are_per_memory_and_tenant(handlers: SimpleNamespace) -> None:
    assert post(handlers, blob_output())[0] == 200
    other_tenant = call(handlers.po, http_event("process_output_http.json", body=blob_output(), tenant="tenant-b"))
    assert other_tenant[0] == 200 and other_tenant[2]["X-Offprompt-Replayed"] == "false"
    other_memory = call(
        handlers.po,
        http_event("process_output_http.json", body=blob_output(), params={"memory_name": "Other"}),
    )
    assert other_memory[0] == 200 and other_memory[2]["X-Offprompt-Replayed"] == "false"


def test_a_failed_request_frees_its_key(handlers: SimpleNamespace) -> None:
    bad = blob_output("not base64!")
    status, error, _ = post(handlers, bad)
    assert status == 400, error
    assert not any(i["pk"]["S"].startswith("RECEIPT#") for i in all_items())
    assert post(handlers, blob_output())[0] == 200  # the same key, now with a valid request


def test_a_pass_through_output_keeps_no_receipt(handlers: SimpleNamespace) -> None:
    empty = {"tool": "T", "activity": "a", "artifact": {"type": "ListArtifact", "value": []}, "idempotency_key": "k"}
    status, _body, headers = post(handlers, empty)
    assert status == 200 and headers["X-Offprompt-Stored"] == "false"
    assert not any(i["pk"]["S"].startswith("RECEIPT#") for i in all_items())


def test_direct_invocation_replays_and_conflicts_the_same_way(handlers: SimpleNamespace) -> None:
    event = {"tenant": "tenant-a", "memory_name": "TaskMemory", **blob_output(key="direct-1")}
    first = handlers.po.lambda_handler(event, Ctx())
    assert handlers.po.lambda_handler(event, Ctx()) == first
    assert stored_batches() == 1
    changed = {**event, "artifact": {**event["artifact"], "value": "AAED"}}
    try:
        handlers.po.lambda_handler(changed, Ctx())
    except Conflict as exc:
        assert "idempotency_key" in exc.message
    else:  # pragma: no cover - the assertion below reports it
        raise AssertionError("another request under the same key was accepted")


def test_the_key_is_validated_like_any_field(handlers: SimpleNamespace) -> None:
    for key in ("", "k" * 257, 5):
        status, error, _ = post(handlers, {**blob_output(), "idempotency_key": key})
        assert status == 422 and error["code"] == "schema_invalid", (key, error)
    assert all_objects() == [] and stored_batches() == 0  # refused requests store nothing
