"""LangGraph checkpoints built from settings (docs/adr/0039): the process's default `Checkpoints` — DynamoDB, and
S3 for blobs past the item budget when a bucket is set. The composition root for checkpoints
(docs/adr/0018-composition-root.md): adapters are built here, never in `offprompt.services`."""

from __future__ import annotations

import functools

from offprompt.config import Settings
from offprompt.services.checkpoints.context import Checkpoints


def checkpoints_from_settings(settings: Settings) -> Checkpoints:
    from offprompt.adapters.dynamodb_checkpoints import DynamoDbCheckpointStore
    from offprompt.adapters.s3 import InlineCheckpointBlobs, S3CheckpointBlobs

    bucket = settings.bucket_name
    return Checkpoints(
        DynamoDbCheckpointStore(settings.require("table_name")),
        S3CheckpointBlobs(bucket) if bucket else InlineCheckpointBlobs(),
        big_blobs=bool(bucket),
    )


@functools.cache
def default_checkpoints() -> Checkpoints:
    """The process's checkpoints, built from the environment on first use (never at import)."""
    from offprompt.config import get_settings

    return checkpoints_from_settings(get_settings())
