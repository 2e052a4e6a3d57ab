"""Concurrent requests over HTTP are atomic and linearizable (moto's threaded server interleaves them)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3
import botocore.config
import pytest
from botocore.exceptions import ClientError

from .conftest import TABLE, Server

WORKERS = 50
#: A wide item: moto validates every attribute between its condition check and its write, so a race window
#: exists on plain moto whatever the scheduler does.
PAYLOAD = {f"a{i}": {"S": "x" * 64} for i in range(200)}


@pytest.fixture(autouse=True)
def frequent_thread_switches() -> Iterator[None]:
    """Switch threads every 10 µs (default 5 ms) so interleavings happen in a short test, not by luck."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(previous)


def _client(server: Server) -> Any:
    config = botocore.config.Config(max_pool_connections=WORKERS, retries={"max_attempts": 1})
    return boto3.client("dynamodb", endpoint_url=server.url, region_name="us-east-1", config=config)


def _key(pk: str, sk: str = "meta") -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def test_concurrent_conditional_puts_on_one_key_have_exactly_one_winner(server: Server) -> None:
    ddb = _client(server)
    rounds, winners = 3, []
    for round_ in range(rounds):

        def put(worker: int, round_: int = round_) -> bool:
            try:
                ddb.put_item(
                    TableName=TABLE,
                    Item={**_key(f"lock-{round_}"), **PAYLOAD, "owner": {"N": str(worker)}},
                    ConditionExpression="attribute_not_exists(pk)",
                )
            except ClientError as exc:
                assert exc.response["Error"]["Code"] == "ConditionalCheckFailedException"
                return False
            return True

        with ThreadPoolExecutor(WORKERS) as pool:
            winners.append(sum(pool.map(put, range(WORKERS))))
    assert winners == [1] * rounds


def test_concurrent_add_updates_all_count(server: Server) -> None:
    ddb = _client(server)
    per_worker = 5
    ddb.put_item(TableName=TABLE, Item={**_key("counter"), **PAYLOAD, "n": {"N": "0"}})

    def add(worker: int) -> None:
        for _ in range(per_worker):
            ddb.update_item(
                TableName=TABLE,
                Key=_key("counter"),
                UpdateExpression="ADD n :one",
                ExpressionAttributeValues={":one": {"N": "1"}},
            )

    with ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(add, range(WORKERS)))
    item = ddb.get_item(TableName=TABLE, Key=_key("counter"), ConsistentRead=True)["Item"]
    assert item["n"] == {"N": str(WORKERS * per_worker)}


def test_concurrent_transactions_claiming_one_key_commit_once(server: Server) -> None:
    """Each transaction claims `claim` and bumps a counter; exactly one may commit, and the counter shows one."""
    ddb = _client(server)

    def claim(worker: int) -> bool:
        try:
            ddb.transact_write_items(
                TransactItems=[
                    {
                        "Put": {
                            "TableName": TABLE,
                            "Item": {**_key("claim"), **PAYLOAD, "owner": {"N": str(worker)}},
                            "ConditionExpression": "attribute_not_exists(pk)",
                        }
                    },
                    {
                        "Update": {
                            "TableName": TABLE,
                            "Key": _key("claims"),
                            "UpdateExpression": "ADD n :one",
                            "ExpressionAttributeValues": {":one": {"N": "1"}},
                        }
                    },
                ]
            )
        except ClientError as exc:
            assert exc.response["Error"]["Code"] == "TransactionCanceledException"
            return False
        return True

    with ThreadPoolExecutor(WORKERS) as pool:
        committed = sum(pool.map(claim, range(WORKERS)))
    counter = ddb.get_item(TableName=TABLE, Key=_key("claims"), ConsistentRead=True)["Item"]
    assert (committed, counter["n"]) == (1, {"N": "1"})
