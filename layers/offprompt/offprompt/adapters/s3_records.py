"""RecordBodyStore on S3: record values over the item limit, under the tenant's `records/` root (docs/adr/0034)."""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from offprompt.errors import DependencyUnavailable
from offprompt.ports import StoredRecord

from .aws_errors import error_code, failure_reason
from .clients import aws_client
from .layout import record_body_key

logger = logging.getLogger("offprompt.adapters.s3_records")


class S3RecordBodies:
    def __init__(self, bucket: str, client: Any | None = None) -> None:
        self.bucket = bucket
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = aws_client("s3")
        return self._client

    def put_body(self, tenant: str, namespace: tuple[str, ...], key: str, version: int, data: bytes) -> str:
        # The writer's own token in the key: two writers racing for one version never overwrite each other's body.
        body_key = record_body_key(tenant, namespace, key, version, uuid.uuid4().hex)
        try:
            self.client.put_object(
                Bucket=self.bucket,
                Key=body_key,
                Body=data,
                ContentType="application/json",
                ServerSideEncryption="AES256",
            )
        except (ClientError, BotoCoreError) as exc:
            raise DependencyUnavailable(f"S3 put failed: {failure_reason(exc)}") from exc
        return body_key

    def value(self, record: StoredRecord) -> dict[str, Any] | None:
        if record.body_key is None:
            return inline_value(record)
        try:
            data = self.client.get_object(Bucket=self.bucket, Key=record.body_key)["Body"].read()
        except ClientError as exc:
            if error_code(exc) in ("NoSuchKey", "404"):
                raise DependencyUnavailable("a record's stored value is missing; retry") from None
            raise DependencyUnavailable(f"S3 get failed: {failure_reason(exc)}") from exc
        except BotoCoreError as exc:
            raise DependencyUnavailable(f"S3 get failed: {failure_reason(exc)}") from exc
        return dict(json.loads(data))

    def drop(self, key: str) -> None:
        try:
            self.client.delete_object(Bucket=self.bucket, Key=key)
        except Exception:  # best effort: an orphaned body is removed by the tenant's erase
            logger.exception("could not delete an orphaned record body")

    def delete(self, key: str) -> None:
        try:
            self.client.delete_object(Bucket=self.bucket, Key=key)
        except (ClientError, BotoCoreError) as exc:
            raise DependencyUnavailable(f"S3 delete failed: {failure_reason(exc)}") from exc


class InlineRecordBodies:
    """The record bodies of a deployment without a bucket: every value inline (larger ones are refused)."""

    def put_body(self, tenant: str, namespace: tuple[str, ...], key: str, version: int, data: bytes) -> str:
        raise DependencyUnavailable("no bucket is configured for record values over the item limit")

    def value(self, record: StoredRecord) -> dict[str, Any] | None:
        return inline_value(record)

    def drop(self, key: str) -> None:
        """Nothing is offloaded without a bucket."""

    def delete(self, key: str) -> None:
        """Nothing is offloaded without a bucket."""


def inline_value(record: StoredRecord) -> dict[str, Any] | None:
    if record.value_json is None:
        if record.deleted:
            return None
        raise DependencyUnavailable("a record's value is held in S3 and no bucket is configured")
    return dict(json.loads(record.value_json))
