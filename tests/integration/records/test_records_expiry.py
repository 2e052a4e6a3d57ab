"""DynamoDB's TTL sweep of record items (docs/adr/0034): the records function's stream branch deletes an expired
version's S3 body and its record-index document; a REMOVE by anyone else, or of another kind of item, is ignored."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import TABLE, Clock, bucket_keys
from fakes.record_index import InMemoryRecordIndex

from offprompt.services.records.context import Records
from offprompt.services.records.put import put_record
from offprompt.services.records.requests import RecordPut

TTL = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


@pytest.fixture
def handler(rec: Records, monkeypatch: pytest.MonkeyPatch) -> Any:
    from records import handler

    monkeypatch.setattr(handler, "records", lambda: rec)
    return handler


def _removal(item: dict[str, Any], identity: dict[str, str] | None, seq: str = "1") -> dict[str, Any]:
    record: dict[str, Any] = {
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
