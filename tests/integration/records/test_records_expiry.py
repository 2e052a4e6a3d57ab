"""DynamoDB's TTL sweep of record items (docs/adr/0034): the records function's stream branch deletes an expired
version's S3 body and its record-index document; a REMOVE by anyone else, or of another kind of item, is ignored."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError
from fakes.record_index import InMemoryRecordIndex
from records_support import TABLE, Clock, bucket_keys

from offprompt.metering import Meter, Plan
from offprompt.services.records.context import Records
from offprompt.services.records.put import put_record
from offprompt.services.records.requests import RecordPut

TTL = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


@pytest.fixture
def handler(rec: Records, monkeypatch: pytest.MonkeyPatch) -> Any:
    from records import handler

    monkeypatch.setattr(handler, "records", lambda: rec)
    return handler


def _removal(
    item: dict[str, Any], identity: dict[str, str] | None, seq: str = "1", *, event_id: str | None = None
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "eventID": event_id or f"event-{seq}",
        "eventName": "REMOVE",
        "dynamodb": {"Keys": {"pk": item["pk"], "sk": item["sk"]}, "OldImage": item, "SequenceNumber": seq},
    }
    if identity is not None:
        record["userIdentity"] = identity
    return record


def _items(aws: dict[str, Any]) -> list[dict[str, Any]]:
    return list(aws["dynamodb"].scan(TableName=TABLE, ConsistentRead=True)["Items"])


def test_a_swept_version_takes_its_body_and_document_along(
    handler: Any, rec: Records, aws: dict[str, Any], clock: Clock, index: InMemoryRecordIndex
) -> None:
    put_record(rec, "alice", ("u",), "big", RecordPut(value={"text": "needle " + "x" * 400_000}, ttl_minutes=1))
    clock.tick()
    put_record(rec, "alice", ("u",), "big", RecordPut(value={"text": "small"}, ttl_minutes=1))  # big is a version now
    version = next(i for i in _items(aws) if i["sk"]["S"].startswith("VER#"))
    current = next(i for i in _items(aws) if i["sk"]["S"].startswith("CUR#"))
    assert len(bucket_keys(aws["s3"])) == 1 and len(index.docs) == 2

    # not DynamoDB's TTL (an API delete, an erase): ignored
    out = handler.lambda_handler({"Records": [_removal(version, None), _removal(version, {"type": "User"})]}, None)
    assert out == {"batchItemFailures": []}
    assert len(bucket_keys(aws["s3"])) == 1 and len(index.docs) == 2

    out = handler.lambda_handler({"Records": [_removal(version, TTL), _removal(current, TTL, "2")]}, None)
    assert out == {"batchItemFailures": []}
    assert bucket_keys(aws["s3"]) == [] and index.docs == {}
    # a retried record deletes nothing twice and fails nothing
    assert handler.lambda_handler({"Records": [_removal(version, TTL)]}, None) == {"batchItemFailures": []}


def test_other_items_and_failures(handler: Any, index: InMemoryRecordIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    run = {"pk": {"S": "T#alice#TH#t"}, "sk": {"S": "RUN#000000000001"}, "tenant": {"S": "alice"}}
    assert handler.lambda_handler({"Records": [_removal(run, TTL)]}, None) == {"batchItemFailures": []}
    assert not [c for c in index.calls if c[0] == "delete"]
    item = {"pk": {"S": "REC#alice"}, "sk": {"S": "CUR#u##k"}, "tenant": {"S": "alice"}, "doc_id": {"S": "d"}}

    def broken(tenant: str, doc_ids: Any) -> None:
        raise RuntimeError("index down")

    monkeypatch.setattr(index, "delete", broken)
    out = handler.lambda_handler({"Records": [_removal(item, TTL, "7")]}, None)
    assert out == {"batchItemFailures": [{"itemIdentifier": "7"}]}


def _gauge(aws: dict[str, Any], tenant: str = "alice") -> int | None:
    found = [i for i in _items(aws) if i["sk"]["S"] == "#TENANT" and tenant in i["pk"]["S"]]
    return int(found[0]["stored_bytes"]["N"]) if found else None


def test_a_swept_metered_version_leaves_the_gauge_once(
    handler: Any, rec: Records, aws: dict[str, Any], clock: Clock
) -> None:
    plan = Plan("p", stored_bytes=10_000_000)
    put_record(rec, "alice", ("u",), "k", RecordPut(value={"t": "a" * 100}, ttl_minutes=1), meter=Meter("alice", plan))
    clock.tick()
    put_record(rec, "alice", ("u",), "k", RecordPut(value={"t": "b" * 300}, ttl_minutes=1), meter=Meter("alice", plan))
    version = next(i for i in _items(aws) if i["sk"]["S"].startswith("VER#"))
    current = next(i for i in _items(aws) if i["sk"]["S"].startswith("CUR#"))
    before = _gauge(aws)
    assert before == int(version["metered_bytes"]["N"]) + int(current["metered_bytes"]["N"])

    # a delete by anyone else (the API, an erase) takes its bytes off in its own transaction: ignored here
    assert handler.lambda_handler({"Records": [_removal(version, {"type": "User"}, event_id="e0")]}, None) == {
        "batchItemFailures": []
    }
    assert _gauge(aws) == before
    out = handler.lambda_handler({"Records": [_removal(version, TTL, event_id="e1")]}, None)
    assert out == {"batchItemFailures": []}
    assert _gauge(aws) == before - int(version["metered_bytes"]["N"])
    # a redelivered stream record moves nothing again
    assert handler.lambda_handler({"Records": [_removal(version, TTL, event_id="e1")]}, None) == {
        "batchItemFailures": []
    }
    assert _gauge(aws) == before - int(version["metered_bytes"]["N"])
    handler.lambda_handler({"Records": [_removal(current, TTL, "2", event_id="e2")]}, None)
    assert _gauge(aws) == 0
    markers = [i for i in _items(aws) if i["sk"]["S"].startswith("EXPIRED#")]
    assert len(markers) == 2 and all(m["pk"]["S"] == "REC#alice" and "expires_at" in m for m in markers)


def test_a_failed_body_delete_is_reported_and_the_retry_finishes(
    handler: Any, rec: Records, aws: dict[str, Any], clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    put_record(rec, "alice", ("u",), "big", RecordPut(value={"text": "x" * 400_000}, ttl_minutes=1))
    current = next(i for i in _items(aws) if i["sk"]["S"].startswith("CUR#"))
    assert len(bucket_keys(aws["s3"])) == 1
    s3 = rec.bodies.client  # type: ignore[attr-defined]

    def refused(**kwargs: Any) -> None:
        raise ClientError({"Error": {"Code": "InternalError", "Message": "down"}}, "DeleteObject")

    real = s3.delete_object
    monkeypatch.setattr(s3, "delete_object", refused)
    out = handler.lambda_handler({"Records": [_removal(current, TTL, "9", event_id="e9")]}, None)
    assert out == {"batchItemFailures": [{"itemIdentifier": "9"}]}
    assert len(bucket_keys(aws["s3"])) == 1
    monkeypatch.setattr(s3, "delete_object", real)
    assert handler.lambda_handler({"Records": [_removal(current, TTL, "9", event_id="e9")]}, None) == {
        "batchItemFailures": []
    }
    assert bucket_keys(aws["s3"]) == []
