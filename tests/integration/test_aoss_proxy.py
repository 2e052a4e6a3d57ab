"""The Serverless-faithful layer (`offprompt_local.aoss_proxy`) refuses what OpenSearch Serverless refuses, on the real
node, so the suites that run through it cannot pass by accident: each refusal is checked next to the same request
succeeding on the node itself, and the managed-domain text store (which refreshes and chooses ids) fails through it.
Constraint numbers are those of docs/adr/0030-opensearch-serverless.md."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from opensearchpy import OpenSearch
from opensearchpy.exceptions import NotFoundError, RequestError

from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer
from offprompt.adapters.opensearch_client import build_opensearch_client
from offprompt.adapters.opensearch_text import OpenSearchTextStore, index_definition
from offprompt.artifacts import TextArtifact
from offprompt.errors import DependencyUnavailable
from offprompt.ports import TextScope
from offprompt_local.aoss_proxy import CUSTOM_ID_REASON, ServerlessProxy

pytestmark = pytest.mark.opensearch

#: Long enough to see a document that search does not see yet, short enough to wait for.
SLOW_REFRESH_S = 3.0


@pytest.fixture(scope="module")
def slow_proxy(opensearch_url: str) -> Iterator[ServerlessProxy]:
    proxy = ServerlessProxy(opensearch_url, refresh_interval=f"{SLOW_REFRESH_S:g}s")
    proxy.start()
    yield proxy
    proxy.stop()


@pytest.fixture
def via_proxy(aoss_proxy: ServerlessProxy) -> Iterator[OpenSearch]:
    assert aoss_proxy.url is not None
    client = build_opensearch_client(aoss_proxy.url, max_retries=0)
    yield client
    client.close()


@pytest.fixture
def index(opensearch_client: OpenSearch, via_proxy: OpenSearch) -> Iterator[str]:
    """A fresh index created through the proxy, as Serverless accepts it."""
    name = f"aoss-proxy-{uuid.uuid4().hex}"
    via_proxy.indices.create(index=name, body=index_definition(serverless=True))
    yield name
    opensearch_client.indices.delete(index=name, ignore_unavailable=True)


def _status(call: Any) -> int:
    try:
        call()
    except (NotFoundError, RequestError) as exc:
        return int(exc.status_code)
    return 200


def test_delete_by_query_is_refused_though_the_node_serves_it(
    via_proxy: OpenSearch, opensearch_client: OpenSearch, index: str
) -> None:
    query = {"query": {"term": {"tenant": "t"}}}
    assert _status(lambda: via_proxy.delete_by_query(index=index, body=query)) == 404  # C4
    assert opensearch_client.delete_by_query(index=index, body=query)["deleted"] == 0


def test_refresh_is_refused_in_every_form(via_proxy: OpenSearch, opensearch_client: OpenSearch, index: str) -> None:
    assert _status(lambda: via_proxy.indices.refresh(index=index)) == 404  # C5: no _refresh API
    doc = {"tenant": "t", "memory": "m", "namespace": "n", "position": 0, "chunk": 0, "text": "x"}
    for refresh in ("true", "wait_for"):  # C5: no refresh parameter
        assert _status(lambda refresh=refresh: via_proxy.index(index=index, body=doc, refresh=refresh)) == 400
        line = json.dumps({"index": {}}) + "\n" + json.dumps(doc) + "\n"
        assert _status(lambda r=refresh, b=line: via_proxy.bulk(body=b, index=index, refresh=r)) == 400
    opensearch_client.indices.refresh(index=index)  # the node itself serves it


def test_custom_document_ids_are_refused(via_proxy: OpenSearch, index: str) -> None:
    doc = {"tenant": "t", "memory": "m", "namespace": "n", "position": 0, "chunk": 0, "text": "x"}
    assert _status(lambda: via_proxy.index(index=index, id="chosen", body=doc)) == 400  # C1
    assert _status(lambda: via_proxy.create(index=index, id="chosen", body=doc)) == 400
    lines = "".join(
        json.dumps(action) + "\n" + json.dumps(doc) + "\n" for action in ({"index": {"_id": "chosen"}}, {"index": {}})
    )
    answer = via_proxy.bulk(body=lines, index=index)
    first, second = (next(iter(item.values())) for item in answer["items"])
    assert answer["errors"] is True
    assert first["status"] == 400 and first["error"]["reason"] == CUSTOM_ID_REASON
    assert second["status"] == 201 and second["_id"] != "chosen"  # served, with an id of the collection's choice
    assert via_proxy.delete(index=index, id=second["_id"])["result"] == "deleted"  # C2: delete by id is served


def test_shard_settings_and_the_lucene_engine_are_refused(via_proxy: OpenSearch, opensearch_client: OpenSearch) -> None:
    name = f"aoss-proxy-{uuid.uuid4().hex}"
    managed = index_definition()  # what a managed domain gets: shard settings, Lucene HNSW
    assert _status(lambda: via_proxy.indices.create(index=name, body=managed)) == 400  # C7
    managed["settings"] = {"index": {"knn": True}}
    assert _status(lambda: via_proxy.indices.create(index=name, body=managed)) == 400  # C8: Lucene engine
    assert not opensearch_client.indices.exists(index=name)


def test_search_and_get_see_a_document_only_after_the_refresh_interval(
    slow_proxy: ServerlessProxy, opensearch_url: str
) -> None:
    assert slow_proxy.url is not None
    client = build_opensearch_client(slow_proxy.url, max_retries=0)
    node = build_opensearch_client(opensearch_url)
    name = f"aoss-proxy-{uuid.uuid4().hex}"
    try:
        client.indices.create(index=name, body=index_definition(serverless=True))
        doc = {"tenant": "t", "memory": "m", "namespace": "n", "position": 0, "chunk": 0, "text": "needle"}
        written = client.index(index=name, body=doc)
        started = time.monotonic()
        query = {"query": {"match": {"text": "needle"}}}
        assert client.search(index=name, body=query)["hits"]["hits"] == []  # C6: not at once
        assert client.mget(index=name, body={"ids": [written["_id"]]})["docs"][0]["found"] is False  # C3
        assert node.mget(index=name, body={"ids": [written["_id"]]})["docs"][0]["found"] is True  # real-time there
        while not client.search(index=name, body=query)["hits"]["hits"]:
            assert time.monotonic() - started < SLOW_REFRESH_S * 3, "never became searchable"
            time.sleep(0.2)
        assert time.monotonic() - started > SLOW_REFRESH_S / 3  # took (part of) an interval, not one round trip
    finally:
        node.indices.delete(index=name, ignore_unavailable=True)
        client.close()
        node.close()


def test_the_managed_domain_store_fails_through_the_proxy(
    aoss_proxy: ServerlessProxy, opensearch_client: OpenSearch
) -> None:
    """The domain path's index definition, ids and refreshes are exactly what Serverless refuses."""
    assert aoss_proxy.url is not None
    name = f"aoss-proxy-{uuid.uuid4().hex}"
    store = OpenSearchTextStore(build_opensearch_client(aoss_proxy.url, max_retries=0), name, BpeOpenAiTokenizer())
    with pytest.raises(DependencyUnavailable):
        store.store(TextScope("t", "m", "n"), 0, [TextArtifact("hello")])
    opensearch_client.indices.create(index=name, body=index_definition(serverless=True))
    store._index_ready = True  # past index creation: the writes themselves
    try:
        with pytest.raises(DependencyUnavailable, match="Document ID is not supported"):
            store.store(TextScope("t", "m", "n"), 0, [TextArtifact("hello")])
        with pytest.raises(DependencyUnavailable):
            store.delete(TextScope("t", "m", "n"))
    finally:
        opensearch_client.indices.delete(index=name, ignore_unavailable=True)
