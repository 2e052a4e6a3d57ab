"""Fixtures for records on moto: the table (as template.yaml defines it) and bucket, `Records` over the real
DynamoDB and S3 adapters with an in-memory record index (the OpenSearch index is helper A2's adapter; its wiring is
tested where it lives), a clock the test moves, and the records function's handler."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from fakes.record_index import InMemoryRecordIndex
from records_support import BUCKET, TABLE, Clock

from offprompt.adapters.clients import reset_clients
from offprompt.adapters.dynamodb_records import DynamoDbRecordStore
from offprompt.adapters.s3 import S3RecordBodies
from offprompt.composition import records as composition
from offprompt.config import get_settings
from offprompt.services.records.context import Records
from offprompt_local import resources


@pytest.fixture
def aws(moto_aws: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    yield from _resources(monkeypatch)


@pytest.fixture
def aws_over_http(moto_server: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """The same table and bucket behind the local substrate's moto server, where each DynamoDB request is atomic as
    in DynamoDB: for tests whose claim is about concurrent requests. In-process moto (`aws`) is not: its
    TransactWriteItems applies its puts one by one and, when a condition fails, restores a copy of the whole table,
    so a concurrent request can see half a transaction (or have its own commit rolled back)."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_server)
    yield from _resources(monkeypatch)


def _resources(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
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
