"""Task-memory integration fixtures: moto DynamoDB/S3 plus the REAL OpenSearchTextStore on the local node."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from tm_it_helpers import BUCKET, TABLE, HashingEmbedder, make_resources, opensearch_text_store

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
def texts(opensearch_client: Any, opensearch_index: str) -> Any:
    return opensearch_text_store(opensearch_client, opensearch_index, HashingEmbedder())


@pytest.fixture
def svc(aws: None, texts: Any) -> TaskMemoryService:
    return TaskMemoryService(DynamoDbNamespaceStore(TABLE), S3BlobStore(BUCKET), texts, bucket=BUCKET)


@pytest.fixture
def handlers(svc: TaskMemoryService, monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    import load_artifacts.handler as la
    import memories.handler as mh
    import process_output.handler as po

    for module in (po, la, mh):
        monkeypatch.setattr(module, "service", lambda: svc)
    return SimpleNamespace(po=po, la=la, mh=mh)
