"""Fixtures for task-memory unit tests: moto DynamoDB/S3 with the template's table and bucket, and the
in-memory TextStore fake (the integration tests use the real OpenSearch store)."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from fakes.text_store import InMemoryTextStore
from task_memory_support import handlers_using, moto_resources, service_on
from tm_unit_helpers import BUCKET, TABLE

from offprompt.services.task_memory import TaskMemoryService


@pytest.fixture
def aws(moto_aws: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield from moto_resources(monkeypatch, TABLE, BUCKET)


@pytest.fixture
def texts() -> InMemoryTextStore:
    return InMemoryTextStore(chunk_chars=100)


@pytest.fixture
def svc(aws: None, texts: InMemoryTextStore) -> TaskMemoryService:
    return service_on(texts, TABLE, BUCKET)


@pytest.fixture
def handlers(svc: TaskMemoryService, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    return handlers_using(svc, monkeypatch, TABLE)
