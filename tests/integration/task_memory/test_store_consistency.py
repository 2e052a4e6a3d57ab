"""A text store answers once the text is durable and loadable, not when it is searchable; `consistency: "search"`
answers once a search finds it too (issue 25, ADR 0031). On the real node, and on Serverless through its
faithful layer (no refresh to ask for there: the store polls after its commit)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from task_memory_support import handlers_using, service_on
from tm_it_helpers import BUCKET, TABLE, call, http_event, opensearch_text_store

from offprompt.services.task_memory import TaskMemoryService

TEXT = "The rainforest canopy holds most of the species; epiphytes grow on its branches."


def store(h: SimpleNamespace, name: str, **extra: Any) -> tuple[int, Any, dict[str, str]]:
    artifact = {"type": "TextArtifact", "name": name, "meta": {}, "value": TEXT}
    body = {"tool": "WebTool", "activity": "fetch", "artifact": artifact, **extra}
    return call(h.po, http_event("process_output_http.json", body=body, tenant="tenant-a"))


def hits(h: SimpleNamespace, name: str) -> list[Any]:
    event = http_event(
        "memories_search_http.json",
        path=f"/memories/TaskMemory/namespaces/{name}/search",
        params={"memory_name": "TaskMemory", "namespace": name},
        body={"query": "epiphytes canopy", "top_k": 3},
        tenant="tenant-a",
    )
    status, body, _ = call(h.mh, event)
    assert status == 200, body
    return list(body["hits"])


@pytest.fixture
def slow_index(opensearch_client: Any, opensearch_index: str) -> str:
    """The index refreshes every 10 s: a search right after a store that did not wait finds nothing."""
    opensearch_client.indices.put_settings(index=opensearch_index, body={"index": {"refresh_interval": "10s"}})
    return opensearch_index


@pytest.fixture
def domain(aws: None, opensearch_client: Any, slow_index: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    texts = opensearch_text_store(opensearch_client, slow_index)
    requests: list[tuple[str, str, dict[str, Any]]] = []
    perform = texts.client.transport.perform_request

    def recorded(method: str, url: str, params: Any = None, *args: Any, **kwargs: Any) -> Any:
        requests.append((method, url, dict(params or {})))
        return perform(method, url, params, *args, **kwargs)

    monkeypatch.setattr(texts.client.transport, "perform_request", recorded)
    svc: TaskMemoryService = service_on(texts, TABLE, BUCKET)
    yield SimpleNamespace(h=handlers_using(svc, monkeypatch, TABLE), requests=requests)


def test_a_store_answers_without_waiting_for_the_index(domain: Any) -> None:
    name = f"ns-{uuid.uuid4().hex[:8]}"
    status, _, headers = store(domain.h, name)
    assert status == 200 and "X-Offprompt-Searchable" not in headers
    asked_for_refresh = [r for r in domain.requests if "refresh" in r[2] or r[1].endswith("/_refresh")]
    assert asked_for_refresh == [], asked_for_refresh  # neither refresh=wait_for nor a forced refresh
    assert hits(domain.h, name) == []  # not searchable yet (the index refreshes every 10 s) ...
    event = http_event(
        "load_artifacts_http.json",
        path=f"/memories/TaskMemory/namespaces/{name}/artifacts",
        params={"memory_name": "TaskMemory", "namespace": name},
        tenant="tenant-a",
    )
    loaded = json.loads(domain.h.la.lambda_handler(event, None)["body"])
    assert [a["value"] for a in loaded["value"]] == [TEXT]  # ... but loadable at once, exactly


def test_consistency_search_answers_once_a_search_finds_it(domain: Any) -> None:
    name = f"ns-{uuid.uuid4().hex[:8]}"
    status, _, headers = store(domain.h, name, consistency="search")
    assert status == 200 and headers["X-Offprompt-Searchable"] == "true", headers
    assert [h["text"] for h in hits(domain.h, name)] == [TEXT]  # at once, in spite of the 10 s interval


def test_consistency_must_be_load_or_search(domain: Any) -> None:
    status, body, _ = store(domain.h, "ns-x", consistency="eventual")
    assert status == 422 and body["code"] == "schema_invalid", body


def test_consistency_search_on_serverless_waits_for_the_collection(
    aws: None, aoss_proxy: Any, opensearch_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import boto3

    from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer
    from offprompt.adapters.opensearch_client import build_opensearch_client
    from offprompt.adapters.opensearch_text import OpenSearchTextStore, S3TextRecords

    index = f"offprompt-aoss-{uuid.uuid4().hex}"
    texts = OpenSearchTextStore(
        build_opensearch_client(aoss_proxy.url),
        index,
        BpeOpenAiTokenizer(),
        mode="serverless",
        records=S3TextRecords(BUCKET, client=boto3.client("s3")),
    )
    h = handlers_using(service_on(texts, TABLE, BUCKET), monkeypatch, TABLE)
    refused = len(aoss_proxy.refusals)
    try:
        started = time.monotonic()
        status, _, headers = store(h, "ns-s", consistency="search")
        assert status == 200 and headers["X-Offprompt-Searchable"] == "true", headers
        assert [hit["text"] for hit in hits(h, "ns-s")] == [TEXT]
        assert time.monotonic() - started < 20
    finally:
        opensearch_client.indices.delete(index=index, ignore_unavailable=True)
    assert aoss_proxy.refusals[refused:] == []  # nothing Serverless would refuse was sent
