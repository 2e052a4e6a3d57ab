"""RecordBodyStore on S3: record values over the item limit, under the tenant's `records/` root (docs/adr/0034)."""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

from offprompt.errors import DependencyUnavailable, NotFound
from offprompt.ports import StoredRecord

from .layout import record_body_key
from .s3 import S3BlobStore

logger = logging.getLogger("offprompt.adapters.s3_records")


class S3RecordBodies(S3BlobStore):
    def put_body(self, tenant: str, namespace: tuple[str, ...], key: str, version: int, data: bytes) -> str:
        # The writer's own token in the key: two writers racing for one version never overwrite each other's body.
        body_key = record_body_key(tenant, namespace, key, version, uuid.uuid4().hex)
        self.put(body_key, data, content_type="application/json")
        return body_key

    def value(self, record: StoredRecord) -> dict[str, Any] | None:
        if record.body_key is None:
            return inline_value(record)
        try:
            data = self.get(record.body_key)
        except NotFound:
            raise DependencyUnavailable("a record's stored value is missing; retry") from None
        return dict(json.loads(data))

    def drop(self, key: str) -> None:
        try:
            self.client.delete_object(Bucket=self.bucket, Key=key)
        except Exception:  # best effort: an orphaned body is removed by the tenant's erase
            logger.exception("could not delete an orphaned record body")


class InlineRecordBodies:
    """The record bodies of a deployment without a bucket: every value inline (larger ones are refused)."""

    def put_body(self, tenant: str, namespace: tuple[str, ...], key: str, version: int, data: bytes) -> str:
        raise DependencyUnavailable("no bucket is configured for record values over the item limit")

    def value(self, record: StoredRecord) -> dict[str, Any] | None:
        return inline_value(record)

    def drop(self, key: str) -> None:
        """Nothing is offloaded without a bucket."""


def inline_value(record: StoredRecord) -> dict[str, Any] | None:
    if record.value_json is None:
        if record.deleted:
            return None
        raise DependencyUnavailable("a record's value is held in S3 and no bucket is configured")
    return dict(json.loads(record.value_json))
