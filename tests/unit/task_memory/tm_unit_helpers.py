"""Fixtures for task-memory unit tests: moto DynamoDB/S3 with the template's table and bucket, and the
in-memory TextStore fake (the integration tests use the real OpenSearch store)."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import boto3

from offprompt_local.resources import create_bucket, create_table

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))


TABLE = "offprompt-unit"
BUCKET = "offprompt-unit-bucket"


def make_resources() -> None:
    """The table and bucket as template.yaml declares them (a plain pk/sk table while the template is mid-edit)."""
    ddb, s3 = boto3.client("dynamodb"), boto3.client("s3")
    try:
        create_table(ddb, TABLE)
    except RuntimeError:
        ddb.create_table(
            TableName=TABLE,
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk")],
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            BillingMode="PAY_PER_REQUEST",
        )
    try:
        create_bucket(s3, BUCKET)
    except RuntimeError:
        if BUCKET not in [b["Name"] for b in s3.list_buckets()["Buckets"]]:
            s3.create_bucket(Bucket=BUCKET)


def all_items() -> list[dict[str, Any]]:
    return boto3.client("dynamodb").scan(TableName=TABLE)["Items"]


def all_objects() -> list[str]:
    return [o["Key"] for o in boto3.client("s3").list_objects_v2(Bucket=BUCKET).get("Contents", [])]


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


class Ctx:
    aws_request_id = "test-request"
    function_name = "test"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:test"


def call(handler: Any, event: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
    """Invoke a Lambda handler with an HTTP event; return (status, parsed JSON body or None, headers)."""
    response = handler.lambda_handler(event, Ctx())
    body = response.get("body")
    return response["statusCode"], (json.loads(body) if body else None), response.get("headers") or {}
