"""The real local OpenSearch node (k-NN, Lucene engine) with offprompt's index definition.

These talk to a real node over HTTP: nothing here is mocked, so each assertion can fail if OpenSearch, the
k-NN plugin or `infra/opensearch/index.json` misbehave.
"""

from __future__ import annotations

import math
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from opensearchpy import OpenSearch, helpers
from opensearchpy.exceptions import RequestError

from offprompt_local import opensearch as local_opensearch
from offprompt_local.opensearch import LocalOpenSearch, index_definition

DIMENSION: int = index_definition()["mappings"]["properties"]["embedding"]["dimension"]
TENANTS = ("tenant-a", "tenant-b")
NAMESPACES = ("ns-1", "ns-2", "ns-3")
VOCABULARY = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]
PHRASE = "the quick brown fox jumps over the lazy dog"


# ------------------------------------------------------------------------------------------- helpers


def unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector]


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def random_vector(rng: random.Random) -> list[float]:
    return unit([rng.gauss(0, 1) for _ in range(DIMENSION)])


def near(base: list[float], noise: float, rng: random.Random) -> list[float]:
    return unit([x + rng.gauss(0, noise / math.sqrt(DIMENSION)) for x in base])


def make_doc(doc_id: str, tenant: str, namespace: str, text: str, embedding: list[float]) -> dict[str, Any]:
    return {
        "_id": doc_id,
        "tenant": tenant,
        "memory": "conversation",
        "namespace": namespace,
        "artifact_id": doc_id,
        "position": int(doc_id.rsplit("-", 1)[-1]),
        "chunk": 0,
        "text": text,
        "artifact": {"type": "TextArtifact", "value": text},
        "embedding": embedding,
    }


def corpus(size: int = 300, seed: int = 7) -> list[dict[str, Any]]:
    """`size` documents spread over tenants and namespaces, with random texts and random unit vectors."""
    rng = random.Random(seed)
    docs = []
    for i in range(size):
        text = " ".join(rng.choices(VOCABULARY, k=12))
        docs.append(make_doc(f"doc-{i}", TENANTS[i % 2], NAMESPACES[i % 3], text, random_vector(rng)))
    return docs


def bulk_index(client: OpenSearch, index: str, docs: Iterable[dict[str, Any]], refresh: bool = True) -> None:
    actions = [{"_index": index, **doc} for doc in docs]
    indexed, errors = helpers.bulk(client, actions, refresh=refresh, request_timeout=120)
    assert not errors
    assert indexed == len(actions)


def count(client: OpenSearch, index: str, **term: str) -> int:
    query = {"term": term} if term else {"match_all": {}}
    return int(client.count(index=index, body={"query": query})["count"])


# ----------------------------------------------------------------------------------- index definition


def test_index_is_created_from_the_shared_definition(opensearch_client: OpenSearch, opensearch_index: str) -> None:
    mapping = opensearch_client.indices.get_mapping(index=opensearch_index)[opensearch_index]["mappings"]
    assert mapping["dynamic"] == "strict"
    embedding = mapping["properties"]["embedding"]
    assert embedding["type"] == "knn_vector"
    assert embedding["dimension"] == DIMENSION
    assert embedding["method"]["engine"] == "lucene"  # the default (faiss) needs native libraries
    assert embedding["method"]["space_type"] == "cosinesimil"
    settings = opensearch_client.indices.get_settings(index=opensearch_index)[opensearch_index]["settings"]
    assert settings["index"]["knn"] == "true"
    assert settings["index"]["number_of_shards"] == "1"
    assert settings["index"]["number_of_replicas"] == "0"


def test_strict_mapping_rejects_unknown_fields(opensearch_client: OpenSearch, opensearch_index: str) -> None:
    with pytest.raises(RequestError) as raised:
        opensearch_client.index(index=opensearch_index, body={"text": "hi", "surprise": 1})
    assert raised.value.status_code == 400
    assert raised.value.error == "strict_dynamic_mapping_exception"


def test_artifact_envelope_is_stored_verbatim(opensearch_client: OpenSearch, opensearch_index: str) -> None:
    large = "x" * 300_000  # far beyond keyword's ignore_above and Lucene's 32 KiB term limit
    envelope = {"type": "TextArtifact", "id": "a1", "value": large, "meta": {"nested": [1, 2, {"deep": None}]}}
    opensearch_client.index(index=opensearch_index, id="obj", body={"artifact": envelope})
    opensearch_client.index(index=opensearch_index, id="str", body={"artifact": large})
    assert opensearch_client.get(index=opensearch_index, id="obj")["_source"]["artifact"] == envelope
    assert opensearch_client.get(index=opensearch_index, id="str")["_source"]["artifact"] == large


# ---------------------------------------------------------------------------------------------- search


def test_bm25_ranks_the_exact_phrase_first(opensearch_client: OpenSearch, opensearch_index: str) -> None:
    rng = random.Random(1)
    docs = corpus(250)
    words = [w for w in PHRASE.split() if w != "the"]
    # Distractors share most of the query terms, but none has all of them.
    for i in range(250, 290):
        partial = rng.sample(words, k=len(words) - 2) + rng.choices(VOCABULARY, k=6)
        docs.append(make_doc(f"doc-{i}", "tenant-a", "ns-1", " ".join(partial), random_vector(rng)))
    docs.append(make_doc("doc-999", "tenant-a", "ns-1", f"charlie delta {PHRASE} echo", random_vector(rng)))
    bulk_index(opensearch_client, opensearch_index, docs)

    result = opensearch_client.search(index=opensearch_index, body={"query": {"match": {"text": PHRASE}}, "size": 20})
    hits = result["hits"]["hits"]
    assert hits[0]["_id"] == "doc-999"
    assert hits[0]["_score"] > hits[1]["_score"]
    assert result["hits"]["total"]["value"] == 41  # the phrase document and all 40 distractors match
    assert all(hits[i]["_score"] >= hits[i + 1]["_score"] for i in range(len(hits) - 1))


def test_filtered_knn_returns_the_true_nearest_neighbours(opensearch_client: OpenSearch, opensearch_index: str) -> None:
    rng = random.Random(2)
    query = random_vector(rng)
    docs = corpus(300)
    # Ten in-filter neighbours at increasing distance, and closer decoys outside the filter: a filter that is
    # ignored or applied after the k-NN step would return the decoys or too few documents.
    for i, noise in enumerate([0.2 + 0.15 * j for j in range(10)]):
        docs.append(make_doc(f"doc-{400 + i}", "tenant-a", "ns-2", "near", near(query, noise, rng)))
    for i, (tenant, namespace) in enumerate([("tenant-b", "ns-2"), ("tenant-a", "ns-1"), ("tenant-b", "ns-3")]):
        docs.append(make_doc(f"doc-{500 + i}", tenant, namespace, "decoy", near(query, 0.05, rng)))
    bulk_index(opensearch_client, opensearch_index, docs)

    in_filter = [d for d in docs if d["tenant"] == "tenant-a" and d["namespace"] == "ns-2"]
    expected = sorted(in_filter, key=lambda d: cosine(query, d["embedding"]), reverse=True)[:10]
    body = {
        "size": 10,
        "_source": {"excludes": ["embedding"]},
        "query": {
            "knn": {
                "embedding": {
                    "vector": query,
                    "k": 10,
                    "filter": {"bool": {"filter": [{"term": {"tenant": "tenant-a"}}, {"term": {"namespace": "ns-2"}}]}},
                }
            }
        },
    }
    hits = opensearch_client.search(index=opensearch_index, body=body)["hits"]["hits"]

    assert [h["_id"] for h in hits] == [d["_id"] for d in expected]
    for hit, doc in zip(hits, expected, strict=True):
        # The Lucene engine's cosinesimil score is (1 + cos) / 2.
        assert hit["_score"] == pytest.approx((1 + cosine(query, doc["embedding"])) / 2, abs=1e-4)


def test_mget_sees_documents_before_any_refresh(opensearch_client: OpenSearch, opensearch_index: str) -> None:
    opensearch_client.indices.put_settings(index=opensearch_index, body={"index": {"refresh_interval": "-1"}})
    docs = corpus(200)
    bulk_index(opensearch_client, opensearch_index, docs, refresh=False)

    assert count(opensearch_client, opensearch_index) == 0  # search only sees refreshed segments...
    ids = [d["_id"] for d in docs]
    found = opensearch_client.mget(index=opensearch_index, body={"ids": ids})["docs"]  # ...real-time get doesn't
    assert [d["_id"] for d in found if d["found"]] == ids
    assert found[17]["_source"]["text"] == docs[17]["text"]


def test_delete_by_query_removes_exactly_one_namespace(opensearch_client: OpenSearch, opensearch_index: str) -> None:
    bulk_index(opensearch_client, opensearch_index, corpus(300))
    before = {ns: count(opensearch_client, opensearch_index, namespace=ns) for ns in NAMESPACES}
    assert before == {"ns-1": 100, "ns-2": 100, "ns-3": 100}

    result = opensearch_client.delete_by_query(
        index=opensearch_index, body={"query": {"term": {"namespace": "ns-2"}}}, refresh=True
    )

    assert result["deleted"] == 100
    assert not result["failures"]
    after = {ns: count(opensearch_client, opensearch_index, namespace=ns) for ns in NAMESPACES}
    assert after == {"ns-1": 100, "ns-2": 0, "ns-3": 100}


def test_malformed_query_is_a_real_400(opensearch_client: OpenSearch, opensearch_index: str) -> None:
    with pytest.raises(RequestError) as raised:
        opensearch_client.search(index=opensearch_index, body={"query": {"no_such_query": {"text": "x"}}})
    assert raised.value.status_code == 400
    assert raised.value.error == "parsing_exception"
    assert "no_such_query" in str(raised.value.info)


# ---------------------------------------------------------------------------------------------- launcher


def _is_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited


def _wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _is_alive(pid):
            return True
        time.sleep(0.2)
    return False


@pytest.mark.opensearch
@pytest.mark.slow
def test_stop_leaves_no_jvm_and_no_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENSEARCH_URL", raising=False)
    node = LocalOpenSearch()
    url = node.start()
    pid, home = node.pid, node.home
    assert pid is not None and home is not None
    try:
        assert url.startswith("http://127.0.0.1:")
        assert b"EmbeddedOpenSearch" in Path(f"/proc/{pid}/cmdline").read_bytes()
        assert OpenSearch(hosts=[url]).cluster.health()["status"] in ("green", "yellow")
    finally:
        node.stop()
    assert not _is_alive(pid)
    assert not home.exists()
    assert not node.is_running()


@pytest.mark.opensearch
@pytest.mark.slow
def test_jvm_exits_when_its_parent_is_killed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENSEARCH_URL", raising=False)
    script = (
        "from offprompt_local.opensearch import LocalOpenSearch\n"
        "node = LocalOpenSearch(); node.start(); print(node.pid, node.home, flush=True)\n"
        "import time; time.sleep(600)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        pid_text, home_text = parent.stdout.readline().split()
        jvm = int(pid_text)
        assert _is_alive(jvm)
    finally:
        os.kill(parent.pid, signal.SIGKILL)  # no atexit, no cleanup: only the closed stdin pipe is left
        parent.wait()
    assert _wait_gone(jvm, timeout=60), f"orphan JVM {jvm} still running"
    assert not Path(home_text).exists()


def test_opensearch_url_skips_starting_a_node(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENSEARCH_URL", "http://127.0.0.1:9/")

    def no_process(*args: object, **kwargs: object) -> None:
        raise AssertionError("a process was started although OPENSEARCH_URL is set")

    monkeypatch.setattr(local_opensearch.subprocess, "Popen", no_process)
    monkeypatch.setattr(local_opensearch.subprocess, "run", no_process)
    with LocalOpenSearch() as url:
        assert url == "http://127.0.0.1:9"
    node = LocalOpenSearch()
    assert node.external
    assert node.start() == "http://127.0.0.1:9"
    assert node.pid is None
