"""DynamoDB Streams keeps 24 hours of records; the substrate keeps ≤ 24 h and ≤ STREAM_MAX_RECORDS per shard
(moto keeps every record for as long as the server runs)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from offprompt_local.substrate import moto_patches

from .conftest import TABLE, Server


def _records(server: Server) -> list[dict[str, Any]]:
    ddb, streams = server.dynamodb(), server.streams()
    arn = ddb.describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    records: list[dict[str, Any]] = []
    position = iterator["ShardIterator"]
    while position:
        page = streams.get_records(ShardIterator=position, Limit=1000)
        records.extend(page["Records"])
        position = page.get("NextShardIterator") if page["Records"] else None
    return records


def test_stream_records_are_bounded_in_number(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(moto_patches, "STREAM_MAX_RECORDS", 50)
    ddb = server.dynamodb()
    for i in range(200):
        ddb.put_item(TableName=TABLE, Item={"pk": {"S": "p"}, "sk": {"S": f"run#{i:04d}"}})
    records = _records(server)
    assert 0 < len(records) <= 50
    # The newest records are the ones kept, and sequence numbers still increase.
    assert records[-1]["dynamodb"]["Keys"]["sk"] == {"S": "run#0199"}
    numbers = [int(r["dynamodb"]["SequenceNumber"]) for r in records]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)


def test_stream_records_older_than_24_hours_are_dropped(server: Server) -> None:
    ddb = server.dynamodb()
    for i in range(5):
        ddb.put_item(TableName=TABLE, Item={"pk": {"S": "p"}, "sk": {"S": f"old#{i}"}})
    from moto.dynamodb.models import dynamodb_backends

    shard = dynamodb_backends["123456789012"]["us-east-1"].tables[TABLE].stream_shard
    for record in shard.items:  # age them: as if written a day and a minute ago
        record.record["dynamodb"]["ApproximateCreationDateTime"] -= timedelta(hours=24, minutes=1)
    ddb.put_item(TableName=TABLE, Item={"pk": {"S": "p"}, "sk": {"S": "new"}})
    assert [r["dynamodb"]["Keys"]["sk"]["S"] for r in _records(server)] == ["new"]
