"""Shared by the records tests (tests/integration/records): the table and bucket names, a clock the test moves, and
readers of what the table and bucket hold. A module of its own, not the conftest: `from conftest import` resolves to
whichever conftest pytest imported first when several directories are collected in one run."""

from __future__ import annotations

from typing import Any

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


def table_items(ddb: Any) -> list[dict[str, Any]]:
    """The table's items but the audit log's (a refused request is recorded there by design, ADR 0056)."""
    items = ddb.scan(TableName=TABLE, ConsistentRead=True)["Items"]
    return [i for i in items if not i["pk"]["S"].startswith("AUDIT#")]


def bucket_keys(s3: Any) -> list[str]:
    return [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET).get("Contents", [])]
