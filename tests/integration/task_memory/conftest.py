"""Task-memory integration fixtures: moto DynamoDB/S3 plus the REAL OpenSearchTextStore on the local node."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from task_memory_support import handlers_using, moto_resources, service_on
from tm_it_helpers import BUCKET, TABLE, HashingEmbedder, opensearch_text_store

from offprompt.services.task_memory import TaskMemoryService


@pytest.fixture
def aws(moto_aws: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield from moto_resources(monkeypatch, TABLE, BUCKET)


@pytest.fixture
def texts(opensearch_client: Any, opensearch_index: str) -> Any:
    return opensearch_text_store(opensearch_client, opensearch_index, HashingEmbedder())


@pytest.fixture
def svc(aws: None, texts: Any) -> TaskMemoryService:
    return service_on(texts, TABLE, BUCKET)


@pytest.fixture
def handlers(svc: TaskMemoryService, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    return handlers_using(svc, monkeypatch, TABLE)
