"""What the task-memory unit and integration tests share: the template's table and bucket on moto, HTTP events,
handler calls, and the building blocks of their `aws` / `svc` / `handlers` fixtures.

Each tier names its own table and bucket (tm_unit_helpers, tm_it_helpers) and passes them in.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import boto3
import pytest

from offprompt.adapters.clients import reset_clients
from offprompt.adapters.dynamodb_namespaces import DynamoDbNamespaceStore
from offprompt.adapters.s3 import S3BlobStore
from offprompt.composition.task_memory import task_memory_service
from offprompt.config import get_settings
from offprompt.services.task_memory import TaskMemoryService
from offprompt_local.resources import create_bucket, create_table

ROOT = Path(__file__).resolve().parents[1]


def make_resources(table: str, bucket: str) -> None:
    """The table and bucket as template.yaml declares them (a plain pk/sk table while the template is mid-edit)."""
    ddb, s3 = boto3.client("dynamodb"), boto3.client("s3")
    try:
        create_table(ddb, table)
    except RuntimeError:
        ddb.create_table(
            TableName=table,
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk")],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            BillingMode="PAY_PER_REQUEST",
        )
    try:
        create_bucket(s3, bucket)
    except RuntimeError:
        if bucket not in [b["Name"] for b in s3.list_buckets()["Buckets"]]:
            s3.create_bucket(Bucket=bucket)


def all_items(table: str) -> list[dict[str, Any]]:
    """The table's items but the audit log's: a refused request is recorded there by design (ADR 0056), and
    "writes nothing" is about the tenant's data."""
    items = boto3.client("dynamodb").scan(TableName=table)["Items"]
    return [i for i in items if not i["pk"]["S"].startswith("AUDIT#")]


def all_objects(bucket: str) -> list[str]:
    return [o["Key"] for o in boto3.client("s3").list_objects_v2(Bucket=bucket).get("Contents", [])]


def load_event(name: str) -> dict[str, Any]:
    return json.loads((ROOT / "events" / name).read_text())


def http_event(
    name: str,
    *,
    path: str | None = None,
    params: dict[str, str] | None = None,
    body: Any = ...,
    raw_body: str | None = None,
    tenant: str = "tenant-a",
    query: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The sample event `events/<name>` for `tenant`, with the given path, path parameters, body and query."""
    event = copy.deepcopy(load_event(name))
    if path is not None:
        event["rawPath"] = path
        event["requestContext"]["http"]["path"] = path
    if params is not None:
        event["pathParameters"] = params
    if raw_body is not None:
        event["body"] = raw_body
    elif body is not ...:
        event["body"] = json.dumps(body)
    if query is not None:
        event["queryStringParameters"] = query
        event["rawQueryString"] = "&".join(f"{k}={v}" for k, v in query.items())
    event["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = tenant
    return event


def call(handler: Any, event: dict[str, Any], context: Any) -> tuple[int, Any, dict[str, str]]:
    """Invoke a Lambda handler with an HTTP event; return (status, parsed JSON body or None, headers)."""
    response = handler.lambda_handler(event, context)
    body = response.get("body")
    return response["statusCode"], (json.loads(body) if body else None), response.get("headers") or {}


def moto_resources(monkeypatch: pytest.MonkeyPatch, table: str, bucket: str) -> Iterator[None]:
    """The `aws` fixture's body: settings and clients pointed at moto, with the table and bucket made."""
    monkeypatch.setenv("OFFPROMPT_TABLE", table)
    monkeypatch.setenv("OFFPROMPT_BUCKET", bucket)
    get_settings.cache_clear()
    reset_clients()
    make_resources(table, bucket)
    yield
    get_settings.cache_clear()
    reset_clients()


def service_on(texts: Any, table: str, bucket: str) -> TaskMemoryService:
    """The service on moto's DynamoDB and S3 and the given text store."""
    return task_memory_service(DynamoDbNamespaceStore(table), S3BlobStore(bucket), texts, bucket=bucket)


def handlers_using(svc: TaskMemoryService, monkeypatch: pytest.MonkeyPatch, table: str) -> SimpleNamespace:
    """The task-memory handler modules (po, la, mh), each answering with `svc` (idempotency keys in `table`)."""
    import load_artifacts.handler as la
    import memories.handler as mh
    import process_output.handler as po

    from offprompt.adapters.dynamodb_receipts import DynamoDbReceiptStore

    for module in (po, la, mh):
        monkeypatch.setattr(module, "service", lambda: svc)
    receipts = DynamoDbReceiptStore(table)
    monkeypatch.setattr(po, "receipts", lambda: receipts)
    return SimpleNamespace(po=po, la=la, mh=mh)
