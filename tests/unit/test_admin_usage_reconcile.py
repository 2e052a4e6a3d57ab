"""`offprompt-admin usage reconcile <tenant> [--dry-run]` on moto (docs/adr/0042): the tenant's gauges recounted from
its items, drift repaired and reported before/after; --dry-run changes nothing; a second run finds nothing."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from test_admin_cli import TABLE, table
from test_admin_cli import run as run_cli

from offprompt.adapters.dynamodb_checkpoints import DynamoDbCheckpointStore
from offprompt.adapters.layout import TENANT_SK, tenant_pk
from offprompt.adapters.s3 import S3CheckpointBlobs
from offprompt.metering import PLANS, Meter
from offprompt.services.checkpoints import put, writes
from offprompt.services.checkpoints.context import Checkpoints
from offprompt.services.checkpoints.requests import CheckpointPut, WritesPut

#: The operator CLI's test table (test_admin_cli's fixture: moto, OFFPROMPT_TABLE unset).
ddb = table
KEY = {"pk": {"S": tenant_pk("acme")}, "sk": {"S": TENANT_SK}}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    status, out = run_cli(capsys, "--table", TABLE, *args)
    assert status == 0
    return out


def gauges(ddb: Any) -> tuple[int, int]:
    item = ddb.get_item(TableName=TABLE, Key=KEY, ConsistentRead=True)["Item"]
    return int(item["stored_bytes"]["N"]), int(item["key_count"]["N"])


def blob(size: int) -> dict[str, str]:
    return {"type": "bytes", "data": base64.b64encode(b"x" * size).decode()}


def test_reconcile_repairs_drift_and_says_what_it_changed(ddb: Any, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "tenant", "create", "acme", "--plan", "pro")
    ck = Checkpoints(DynamoDbCheckpointStore(TABLE, client=ddb), S3CheckpointBlobs("unused", client=None))
    meter = Meter("acme", PLANS["pro"])
    put.put_checkpoint(ck, "acme", "g", "1ef-1", CheckpointPut.model_validate({"checkpoint": blob(100)}), meter=meter)
    request = WritesPut.model_validate({"task_id": "t", "writes": [{"idx": 0, "channel": "c", "value": blob(50)}]})
    writes.put_writes(ck, "acme", "g", "1ef-1", request, meter=meter)
    assert gauges(ddb) == (150, 1)
    ddb.update_item(  # drift, as the overcharging code left it
        TableName=TABLE,
        Key=KEY,
        UpdateExpression="SET stored_bytes = :b, key_count = :k",
        ExpressionAttributeValues={":b": {"N": "1048725"}, ":k": {"N": "3"}},
    )
    dry = run(capsys, "usage", "reconcile", "acme", "--dry-run")
    assert dry["changed"] == {
        "stored_bytes": {"before": 1048725, "after": 150},
        "key_count": {"before": 3, "after": 1},
    }
    assert dry["dry_run"] is True and dry["after"] == dry["before"]
    assert gauges(ddb) == (1048725, 3)  # nothing changed
    done = run(capsys, "usage", "reconcile", "acme")
    assert done["changed"] == dry["changed"] and done["after"] == {"stored_bytes": 150, "key_count": 1}
    assert done["recount"]["stored_bytes_by_kind"] == {"checkpoint": 150}  # the layout kind of both items
    assert gauges(ddb) == (150, 1)
    assert run(capsys, "usage", "reconcile", "acme")["changed"] == {}


def test_reconcile_of_an_unknown_tenant_writes_nothing(ddb: Any, capsys: pytest.CaptureFixture[str]) -> None:
    report = run(capsys, "usage", "reconcile", "nobody")
    assert report["changed"] == {} and report["after"] == {"stored_bytes": 0, "key_count": 0}
    assert "Item" not in ddb.get_item(TableName=TABLE, Key={**KEY, "pk": {"S": tenant_pk("nobody")}})
