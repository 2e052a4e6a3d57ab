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
    # All 8 raced to create the name in one transaction (ADR 0035); the losers reserved and committed after it,
    # reusing the objects they had written: exactly the 24 committed objects are stored.
    import boto3

    objects = boto3.client("s3").list_objects_v2(Bucket=BUCKET).get("Contents", [])
    assert len(objects) == 24


def test_concurrent_retries_under_one_idempotency_key_store_once(svc_over_http: TaskMemoryService) -> None:
    """20 copies of one request with one `idempotency_key`, at once (ADR 0026): exactly one store; every other
    copy gets the first answer or a 409 "in progress" (never a second batch)."""
    from offprompt.adapters.dynamodb_receipts import DynamoDbReceiptStore
    from offprompt.errors import Conflict
    from offprompt.services.task_memory import OutputRequest, process_once

    svc = svc_over_http
    receipts = DynamoDbReceiptStore(TABLE)
    request = OutputRequest.model_validate(
        {
            "tool": "Camera",
            "activity": "shoot",
            "artifact": {"type": "BlobArtifact", "name": "once", "value": "AAEC"},
            "idempotency_key": "step-7",
        }
    )
    outcomes: list[str] = []
    errors: list[BaseException] = []
    barrier = threading.Barrier(20)

    def worker() -> None:
        barrier.wait()
        try:
            once = process_once(
                receipts, "t1", "TaskMemory", request, lambda: store(svc, BlobArtifact(b"\x00\x01\x02", name="once"))
            )
            outcomes.append("replayed" if once.replayed else "stored")
        except Conflict as exc:
            outcomes.append("in progress" if "in progress" in exc.message else exc.message)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert outcomes.count("stored") == 1 and set(outcomes) <= {"stored", "replayed", "in progress"}, outcomes
    assert len(loaded(svc, "once")) == 1
    again = process_once(receipts, "t1", "TaskMemory", request, lambda: store(svc, BlobArtifact(b"x", name="once")))
    assert again.replayed and len(loaded(svc, "once")) == 1
