"""Fixtures for extraction on moto: the table (as template.yaml defines it) and bucket, the real DynamoDB and S3
adapters, records with the in-memory record index, the conversation service (its runs are what extraction reads), a
clock the test moves, a scripted OpenAI-compatible model over real HTTP, and the extraction context."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from extraction_support import BUCKET, TABLE, Deferred, ScriptedModel, completion, extractions, run_payload
from records_support import Clock

from offprompt.adapters.clients import reset_clients
from offprompt.adapters.extraction_models import OpenAIChatModel
from offprompt.composition.conversation import default_service
from offprompt.config import get_settings
from offprompt.services.conversation.add_run import add_run
from offprompt.services.extraction.context import Extractions
from offprompt_local import resources


@pytest.fixture
def aws(moto_aws: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    yield from _resources(monkeypatch)


@pytest.fixture
def aws_over_http(moto_server: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """The table and bucket behind the local substrate's moto server: for tests whose other AWS service (Bedrock) is
    a scripted HTTP endpoint of its own (`AWS_ENDPOINT_URL_BEDROCK_RUNTIME` wins over `AWS_ENDPOINT_URL`)."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_server)
    yield from _resources(monkeypatch)


def _resources(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    monkeypatch.setenv("OFFPROMPT_TABLE", TABLE)
    monkeypatch.setenv("OFFPROMPT_BUCKET", BUCKET)
    monkeypatch.setenv("OFFPROMPT_SUMMARIZE_MODE", "off")
    reset_clients()
    get_settings.cache_clear()
    default_service.cache_clear()
    ddb = boto3.client("dynamodb")
    s3 = boto3.client("s3")
    resources.create_table(ddb, TABLE)
    s3.create_bucket(Bucket=BUCKET)
    yield {"dynamodb": ddb, "s3": s3}
    reset_clients()
    get_settings.cache_clear()
    default_service.cache_clear()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    scripted = ScriptedModel(lambda request: (200, completion('{"operations": []}')))
    yield scripted
    scripted.close()


@pytest.fixture
def deferred() -> Deferred:
    return Deferred()


@pytest.fixture
def ext(aws: dict[str, Any], clock: Clock, model: ScriptedModel, deferred: Deferred) -> Extractions:
    def build() -> OpenAIChatModel:
        return OpenAIChatModel("scripted", model.base_url, "sk-test", timeout=0.5, attempts=2, backoff=0.01)

    return extractions(build, clock, deferred)


class Conversation:
    """Adds runs through add-run's own use case, at the test's clock."""

    def __init__(self, clock: Clock) -> None:
        self.conv = default_service()
        self.conv.clock = clock
        self.count = 0

    def say(self, tenant: str, thread_id: str, text: str) -> str:
        self.count += 1
        run_id = f"r{self.count}"
        add_run(self.conv, tenant, thread_id, run_payload(run_id, text))
        return run_id


@pytest.fixture
def chat(clock: Clock) -> Conversation:
    """Needs `aws` or `aws_over_http` requested first."""
    return Conversation(clock)
