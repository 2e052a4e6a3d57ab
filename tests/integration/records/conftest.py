"""Fixtures for records on moto: the table (as template.yaml defines it) and bucket, `Records` over the real
DynamoDB and S3 adapters with an in-memory record index (the OpenSearch index is helper A2's adapter; its wiring is
tested where it lives), a clock the test moves, and the records function's handler."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from fakes.record_index import InMemoryRecordIndex

from offprompt.adapters.clients import reset_clients
from offprompt.adapters.dynamodb_records import DynamoDbRecordStore
from offprompt.adapters.s3_records import S3RecordBodies
from offprompt.composition import records as composition
from offprompt.config import get_settings
from offprompt.services.records.context import Records
from offprompt_local import resources

TABLE = "offprompt-records-test"
BUCKET = "offprompt-records-bucket"
T0 = 1_780_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now

    def tick(self, seconds: float = 1.0) -> float:
        self.now += seconds
        return self.now


@pytest.fixture
def aws(moto_aws: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    monkeypatch.setenv("OFFPROMPT_TABLE", TABLE)
    monkeypatch.setenv("OFFPROMPT_BUCKET", BUCKET)
    reset_clients()
    get_settings.cache_clear()
    composition.default_records.cache_clear()
    ddb = boto3.client("dynamodb")
    s3 = boto3.client("s3")
    resources.create_table(ddb, TABLE)
    s3.create_bucket(Bucket=BUCKET)
    yield {"dynamodb": ddb, "s3": s3}
    reset_clients()
    get_settings.cache_clear()
    composition.default_records.cache_clear()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def index() -> InMemoryRecordIndex:
    return InMemoryRecordIndex()


@pytest.fixture
def rec(aws: dict[str, Any], clock: Clock, index: InMemoryRecordIndex) -> Records:
    return Records(DynamoDbRecordStore(TABLE), S3RecordBodies(BUCKET), index, clock=clock)


def table_items(ddb: Any) -> list[dict[str, Any]]:
    return list(ddb.scan(TableName=TABLE, ConsistentRead=True)["Items"])


def bucket_keys(s3: Any) -> list[str]:
    return [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET).get("Contents", [])]
