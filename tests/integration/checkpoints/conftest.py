"""Fixtures for checkpoints on the local substrate's moto server: the table (as template.yaml defines it) and
bucket, `Checkpoints` over the real DynamoDB and S3 adapters with a clock the test owns, and the checkpoints
function's handler."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from checkpoints_support import BUCKET, TABLE, Clock

from offprompt.adapters.clients import reset_clients
from offprompt.adapters.dynamodb_checkpoints import DynamoDbCheckpointStore
from offprompt.adapters.s3 import S3CheckpointBlobs
from offprompt.composition import checkpoints as composition
from offprompt.config import get_settings
from offprompt.services.checkpoints.context import Checkpoints
from offprompt_local import resources


@pytest.fixture
def aws(moto_server: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """The table and bucket behind the local substrate's moto server: atomic requests and transactions, as DynamoDB's.
    In-process moto (`moto_aws`) deep-copies every table a transaction names to be able to roll it back: with a few
    hundred items each writes transaction cost ~1 s (test_latest_reads_exactly_the_newest_checkpoint_and_its_writes
    took 75 s alone, 477 s in a loaded suite); the substrate saves only the touched items (ADR 0061)."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_server)
    monkeypatch.setenv("OFFPROMPT_TABLE", TABLE)
    monkeypatch.setenv("OFFPROMPT_BUCKET", BUCKET)
    reset_clients()
    get_settings.cache_clear()
    composition.default_checkpoints.cache_clear()
    ddb = boto3.client("dynamodb")
    s3 = boto3.client("s3")
    resources.create_table(ddb, TABLE)
    s3.create_bucket(Bucket=BUCKET)
    yield {"dynamodb": ddb, "s3": s3}
    reset_clients()
    get_settings.cache_clear()
    composition.default_checkpoints.cache_clear()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def ck(aws: dict[str, Any], clock: Clock) -> Checkpoints:
    return Checkpoints(
        DynamoDbCheckpointStore(TABLE, client=aws["dynamodb"]), S3CheckpointBlobs(BUCKET, client=aws["s3"]), clock=clock
    )
