"""Shared by the checkpoints tests (tests/integration/checkpoints, the bench): table and bucket names, a clock the
test moves, blobs on the wire, a botocore call counter, and readers of what the table and bucket hold."""

from __future__ import annotations

import base64
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

TABLE = "offprompt-checkpoints-test"
BUCKET = "offprompt-checkpoints-bucket"
T0 = 1_780_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        self.now += 0.001  # every write a distinct time
        return self.now


def blob(data: bytes, type_: str = "msgpack") -> dict[str, str]:
    return {"type": type_, "data": base64.b64encode(data).decode()}


def unblob(value: dict[str, str]) -> bytes:
    return base64.b64decode(value["data"])


def table_items(ddb: Any) -> list[dict[str, Any]]:
    """The table's items but the audit log's (a refused request is recorded there by design, ADR 0056)."""
    items: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {"TableName": TABLE, "ConsistentRead": True}
    while True:
        out = ddb.scan(**kwargs)
        items.extend(i for i in out["Items"] if not i["pk"]["S"].startswith("AUDIT#"))
        if "LastEvaluatedKey" not in out:
            return items
        kwargs["ExclusiveStartKey"] = out["LastEvaluatedKey"]


def bucket_keys(s3: Any) -> list[str]:
    return [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET).get("Contents", [])]


@contextmanager
def counting(*clients: Any) -> Iterator[Counter[str]]:
    """Counts the API calls the given boto3 clients make ("dynamodb.Query", "s3.GetObject"), as bench_fork does."""
    calls: Counter[str] = Counter()

    def count(event_name: str, **_: Any) -> None:
        _, service, operation = event_name.split(".", 2)
        calls[f"{service}.{operation}"] += 1

    for client in clients:
        client.meta.events.register("before-call.*.*", count)
    try:
        yield calls
    finally:
        for client in clients:
            client.meta.events.unregister("before-call.*.*", count)


@contextmanager
def items_read(client: Any) -> Iterator[list[str]]:
    """The sort keys of the items each DynamoDB Query answered with (what a read paid for), in order."""
    seen: list[str] = []

    def record(http_response: Any, parsed: dict[str, Any], **_: Any) -> None:
        seen.extend(item["sk"]["S"] for item in parsed.get("Items", []))

    client.meta.events.register("after-call.dynamodb.Query", record)
    try:
        yield seen
    finally:
        client.meta.events.unregister("after-call.dynamodb.Query", record)
