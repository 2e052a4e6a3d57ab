"""The `moto_server` fixture gives each test a clean AWS: moto's backends are process-global, so without a reset
a resource made by one test is still there in the next (the second test below then fails on CreateTable)."""

from __future__ import annotations

import boto3
import pytest


@pytest.mark.parametrize("attempt", [1, 2])
def test_each_test_starts_from_an_empty_moto(moto_server: str, attempt: int) -> None:
    ddb = boto3.client("dynamodb", endpoint_url=moto_server)
    assert ddb.list_tables()["TableNames"] == []
    ddb.create_table(
        TableName="fixture-probe",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
