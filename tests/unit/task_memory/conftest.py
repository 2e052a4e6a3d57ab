"""Fixtures for task-memory unit tests: moto DynamoDB/S3 with the template's table and bucket, and the
in-memory TextStore fake (the integration tests use the real OpenSearch store)."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from fakes.text_store import InMemoryTextStore
from tm_unit_helpers import BUCKET, TABLE, make_resources

from offprompt.adapters.clients import reset_clients
from offprompt.adapters.dynamodb_namespaces import DynamoDbNamespaceStore
from offprompt.adapters.s3 import S3BlobStore
from offprompt.config import get_settings
from offprompt.services.task_memory import TaskMemoryService


@pytest.fixture
def aws(moto_aws: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("OFFPROMPT_TABLE", TABLE)
    monkeypatch.setenv("OFFPROMPT_BUCKET", BUCKET)
    get_settings.cache_clear()
    reset_clients()
    make_resources()
    yield
    get_settings.cache_clear()
    reset_clients()


@pytest.fixture
def texts() -> InMemoryTextStore:
    return InMemoryTextStore(chunk_chars=100)


@pytest.fixture
def svc(aws: None, texts: InMemoryTextStore) -> TaskMemoryService:
    return TaskMemoryService(DynamoDbNamespaceStore(TABLE), S3BlobStore(BUCKET), texts, bucket=BUCKET)


@pytest.fixture
def handlers(svc: TaskMemoryService, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    import load_artifacts.handler as la
    import memories.handler as mh
    import process_output.handler as po

    for module in (po, la, mh):
        monkeypatch.setattr(module, "service", lambda: svc)
    return SimpleNamespace(po=po, la=la, mh=mh)
