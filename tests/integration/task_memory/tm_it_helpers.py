"""Task-memory integration fixtures: moto DynamoDB/S3 plus the REAL OpenSearchTextStore on the local node."""

from __future__ import annotations

import copy
import hashlib
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import boto3
import pytest

from offprompt_local.resources import create_bucket, create_table

ROOT = Path(__file__).resolve().parents[3]
TABLE = "offprompt-it"
BUCKET = "offprompt-it-bucket"
DIMENSIONS = 1024


class HashingEmbedder:
    """A deterministic bag-of-words embedder (Bedrock is not available locally): similar words → similar vectors."""

    dimensions = DIMENSIONS

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vec = [0.0] * DIMENSIONS
            for word in re.findall(r"\w+", text.lower()):
                vec[int(hashlib.md5(word.encode()).hexdigest(), 16) % DIMENSIONS] += 1.0
            norm = math.sqrt(sum(v * v for v in vec)) or 1.0
            vec = [v / norm for v in vec] if any(vec) else [1.0 / math.sqrt(DIMENSIONS)] * DIMENSIONS
            out.append(vec)
        return out


def opensearch_text_store(client: Any, index: str, embedder: Any = None) -> Any:
    module = pytest.importorskip(
        "offprompt.adapters.opensearch_text", reason="OpenSearchTextStore (another helper's adapter) not landed yet"
    )
    from offprompt.adapters.tokenizer import TiktokenTokenizer

    return module.OpenSearchTextStore(client, index, TiktokenTokenizer(), embedder)


def make_resources() -> None:
    ddb, s3 = boto3.client("dynamodb"), boto3.client("s3")
    try:
        create_table(ddb, TABLE)
    except RuntimeError:  # template.yaml mid-edit by someone else: same keys
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


def doc_count(client: Any, index: str) -> int:
    client.indices.refresh(index=index)
    return int(client.count(index=index)["count"])


def all_items() -> list[dict[str, Any]]:
    return boto3.client("dynamodb").scan(TableName=TABLE)["Items"]


def all_objects() -> list[str]:
    return [o["Key"] for o in boto3.client("s3").list_objects_v2(Bucket=BUCKET).get("Contents", [])]


class Ctx:
    aws_request_id = "it-request"
    function_name = "it"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:it"


def http_event(
    name: str,
    *,
    path: str | None = None,
    params: dict[str, str] | None = None,
    body: Any = ...,
    tenant: str = "tenant-a",
) -> dict[str, Any]:
    event = copy.deepcopy(json.loads((ROOT / "events" / name).read_text()))
    if path is not None:
        event["rawPath"] = path
        event["requestContext"]["http"]["path"] = path
    if params is not None:
        event["pathParameters"] = params
    if body is not ...:
        event["body"] = json.dumps(body)
    event["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = tenant
    return event


def call(handler: Any, event: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
    response = handler.lambda_handler(event, Ctx())
    body = response.get("body")
    return response["statusCode"], (json.loads(body) if body else None), response.get("headers") or {}
