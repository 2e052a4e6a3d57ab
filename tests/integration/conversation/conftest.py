"""Fixtures for conversation-memory handler tests: moto table + bucket, fresh clients/settings/service."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from conversation_api import BUCKET, TABLE, Api
from fakes.conversation_index import FakeConversationIndex

from offprompt.adapters.clients import reset_clients
from offprompt.composition.conversation import default_cloud_threads, default_service
from offprompt.composition.conversation_index import set_conversation_index_override
from offprompt.config import get_settings
from offprompt_local import resources

# template.yaml is the source of truth; while it is being edited (unparseable), fall back to its known shape.
FALLBACK_TABLE = {
    "AttributeDefinitions": [
        {"AttributeName": "pk", "AttributeType": "S"},
        {"AttributeName": "sk", "AttributeType": "S"},
    ],
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
    "BillingMode": "PAY_PER_REQUEST",
    "StreamSpecification": {"StreamViewType": "NEW_AND_OLD_IMAGES"},
    "TimeToLiveSpecification": {"AttributeName": "expires_at", "Enabled": True},
}
_TEMPLATE_CACHE: dict[str, Any] = {}


_ORIGINAL = resources.template_resource


def _table_props(logical_id: str) -> dict[str, Any]:
    """template.yaml's MemoryTable, parsed once per session (the fallback while the template is unparseable)."""
    if "props" not in _TEMPLATE_CACHE:
        try:
            _TEMPLATE_CACHE["props"] = _ORIGINAL(logical_id)
        except RuntimeError:
            _TEMPLATE_CACHE["props"] = FALLBACK_TABLE
    return dict(_TEMPLATE_CACHE["props"])


@pytest.fixture
def aws(moto_aws: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    yield from _resources(monkeypatch)


@pytest.fixture
def aws_over_http(moto_server: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """The same table and bucket behind the local substrate's moto server (atomic requests, like DynamoDB):
    for tests whose claim is about concurrent requests."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_server)
    yield from _resources(monkeypatch)


def _resources(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    monkeypatch.setenv("OFFPROMPT_TABLE", TABLE)
    monkeypatch.setenv("OFFPROMPT_BUCKET", BUCKET)
    monkeypatch.setenv("OFFPROMPT_SUMMARIZE_MODE", "async")
    reset_clients()
    get_settings.cache_clear()
    default_service.cache_clear()
    default_cloud_threads.cache_clear()  # holds the service: one per test, as default_service
    ddb = boto3.client("dynamodb")
    s3 = boto3.client("s3")
    with monkeypatch.context() as patch:
        patch.setattr(resources, "template_resource", _table_props)
        resources.create_table(ddb, TABLE)
    s3.create_bucket(Bucket=BUCKET)
    yield {"dynamodb": ddb, "s3": s3}
    reset_clients()
    get_settings.cache_clear()
    default_service.cache_clear()
    default_cloud_threads.cache_clear()  # holds the service: one per test, as default_service


@pytest.fixture
def api(aws: dict[str, Any]) -> Api:
    return Api()


@pytest.fixture
def index(api: Api) -> Iterator[FakeConversationIndex]:
    """The in-memory conversation index the search route uses (tests/fakes/conversation_index.py), fed by the test."""
    fake = FakeConversationIndex()
    set_conversation_index_override(fake)
    yield fake
    set_conversation_index_override(None)
