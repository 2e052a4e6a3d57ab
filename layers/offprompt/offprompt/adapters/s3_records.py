"""RecordBodyStore on S3: record values over the item limit, under the tenant's `records/` root (docs/adr/0034)."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from .layout import record_body_key
from .s3 import S3BlobStore

logger = logging.getLogger("offprompt.adapters.s3_records")


class S3RecordBodies(S3BlobStore):
    def __init__(self, bucket: str, client: Any | None = None) -> None:
        super().__init__(bucket, client)

    def put_body(self, tenant: str, namespace: tuple[str, ...], key: str, version: int, data: bytes) -> str:
        # The writer's own token in the key: two writers racing for one version never overwrite each other's body.
        body_key = record_body_key(tenant, namespace, key, version, uuid.uuid4().hex)
        self.put(body_key, data, content_type="application/json")
        return body_key

    def drop(self, key: str) -> None:
        try:
            self.client.delete_object(Bucket=self.bucket, Key=key)
        except Exception:  # best effort: an orphaned body is removed by the tenant's erase
            logger.exception("could not delete an orphaned record body")
