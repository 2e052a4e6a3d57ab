"""Concurrent stores into one namespace, over HTTP to the atomic local substrate."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from task_memory_support import moto_resources, service_on
from tm_it_helpers import BUCKET, TABLE

from offprompt.artifacts import BlobArtifact, ListArtifact
from offprompt.services.task_memory import TaskMemoryService


def store(svc: TaskMemoryService, artifact: Any) -> Any:
    return svc.process_output("t1", "TaskMemory", tool="WebTool", activity="fetch", artifact=artifact)


def loaded(svc: TaskMemoryService, ns: str) -> list[dict[str, Any]]:
    import json

    return [json.loads(i) for i in svc.load_items_json("t1", "TaskMemory", ns)]


@pytest.fixture
def svc_over_http(moto_server: str, monkeypatch: pytest.MonkeyPatch, texts: Any) -> Iterator[TaskMemoryService]:
    """The service on the local substrate's moto server, where each DynamoDB request is atomic as in DynamoDB
    (moto in-process is not thread-safe, so concurrency claims made on it prove less than they say)."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_server)
    for _ in moto_resources(monkeypatch, TABLE, BUCKET):
        yield service_on(texts, TABLE, BUCKET)


def test_concurrent_appends_never_collide(svc_over_http: TaskMemoryService) -> None:
    svc = svc_over_http
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            arts = [BlobArtifact(b"w%d-%d" % (i, j), name=f"w{i}-{j}") for j in range(3)]
            store(svc, ListArtifact(arts, name="shared"))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    items = loaded(svc, "shared")
    assert len(items) == 24
    names = [i["name"] for i in items]
    for i in range(8):  # each batch contiguous and in order
        k = names.index(f"w{i}-0")
        assert names[k : k + 3] == [f"w{i}-0", f"w{i}-1", f"w{i}-2"]
