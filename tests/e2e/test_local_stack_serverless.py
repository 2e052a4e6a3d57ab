"""The local stack in OpenSearch Serverless mode (`make dev OPENSEARCH_MODE=serverless`): the handlers reach the real
node through the Serverless-faithful layer (offprompt_local.aoss_proxy; docs/adr/0030-opensearch-serverless.md),
which refuses delete-by-query, refresh and chosen document ids and holds new documents out of search for its
refresh interval (2 s here). A text is stored, loaded exact at once, found by search once the interval has passed,
its namespace deleted, and a tenant erased right after a store (before search could see it); the stack's log
shows no request the layer refused."""

from __future__ import annotations

import json
import random
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from test_local_stack import RunningStack, running_stack, uid

from offprompt.artifacts import ListArtifact, TextArtifact
from offprompt_client import OffpromptClient

pytestmark = pytest.mark.slow
INTERVAL_S = 2.0
#: Past this, a store is searchable and a delete is no longer seen: two intervals and a margin.
SETTLED_S = 2 * INTERVAL_S + 1


@pytest.fixture(scope="module")
def aoss_stack(opensearch_url: str) -> Iterator[RunningStack]:
    environment = {"OFFPROMPT_OPENSEARCH_MODE": "serverless", "OFFPROMPT_AOSS_REFRESH_INTERVAL": f"{INTERVAL_S:g}s"}
    with running_stack(opensearch_url, **environment) as running:
        yield running
        refused = [line for line in running.lines if "OpenSearch Serverless refuses" in line]
        assert not refused, refused


@pytest.fixture(scope="module")
def dana(aoss_stack: RunningStack) -> OffpromptClient:
    return OffpromptClient(aoss_stack.url, tenant="dana", timeout=120)


def _until(check: Any, seconds: float = SETTLED_S + 5) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        answer = check()
        if answer or time.monotonic() > deadline:
            return answer
        time.sleep(0.2)


def _node(opensearch_url: str, path: str, body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        opensearch_url + path, data=data, method="POST" if data else "GET", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_the_index_is_created_as_serverless_accepts_it(aoss_stack: RunningStack, opensearch_url: str) -> None:
    assert any("Serverless-faithful layer" in line for line in aoss_stack.lines), aoss_stack.output()
    settings = _node(opensearch_url, f"/{aoss_stack.index}/_settings")[aoss_stack.index]["settings"]["index"]
    assert settings["refresh_interval"] == f"{INTERVAL_S:g}s"  # set by the layer: the adapter sent no such setting
    mapping = _node(opensearch_url, f"/{aoss_stack.index}/_mapping")[aoss_stack.index]["mappings"]["properties"]
    assert mapping["write_id"] == {"type": "keyword"}


def test_store_load_search_and_delete_a_text(dana: OffpromptClient) -> None:
    memory, namespace = uid("Memory"), "page"
    rng = random.Random(7)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    value = " ".join(rng.choice(words) for _ in range(40_000)) + " The secret word is zanzibar."
    artifact = TextArtifact(value, name=namespace, meta={"mode": "serverless"})
    dana.process_output(memory, "WebScraper", "get_content", artifact)
    loaded = dana.load_artifacts(memory, namespace)  # at once: from the S3 record, not from search
    assert [a.to_dict() for a in loaded.value] == [artifact.to_dict()]

    hits = _until(lambda: dana.search(memory, namespace, "zanzibar", top_k=3, mode="bm25")["hits"])
    assert hits and "zanzibar" in hits[0]["text"] and hits[0]["artifact_id"] == artifact.id
    assert len({(h["position"], h["chunk"]) for h in hits}) == len(hits)

    assert dana.delete_namespace(memory, namespace) is None
    assert dana.load_artifacts(memory, namespace).value == []
    assert _until(lambda: not dana.search(memory, namespace, "zanzibar", mode="bm25")["hits"])


def test_knn_and_hybrid_search_by_meaning(aoss_stack: RunningStack, dana: OffpromptClient) -> None:
    # Task memory embeds with wordllama (zero-padded), conversation search with MiniLM: the stand-ins for Titan.
    line = next((x.strip() for x in aoss_stack.lines if x.strip().startswith("embeddings  ")), "")
    assert line.startswith("embeddings  conversation search: all-MiniLM-L6-v2"), aoss_stack.output()
    assert "task memory and records: wordllama" in line, line
    memory, namespace = uid("Notes"), "notes"
    notes = ["A recipe for banana bread.", "The automobile was parked in the garage.", "Quarterly tax deadlines."]
    dana.process_output(memory, "Notes", "save", ListArtifact([TextArtifact(n) for n in notes], name=namespace))
    for mode in ("knn", "hybrid"):
        hits = _until(lambda mode=mode: dana.search(memory, namespace, "car", top_k=3, mode=mode)["hits"])
        assert hits and hits[0]["text"] == notes[1], (mode, hits)


def test_erase_removes_documents_search_does_not_see_yet(aoss_stack: RunningStack, opensearch_url: str) -> None:
    tenant = uid("erin")
    erin = OffpromptClient(aoss_stack.url, tenant=tenant, timeout=120)
    erin.process_output("TaskMemory", "T", "a", TextArtifact("erase me " * 2000, name="doomed"))
    chunks = erin.get_namespace("TaskMemory", "doomed")
    assert chunks["artifact_count"] == 1
    request = urllib.request.Request(
        aoss_stack.url + "/tenant",
        data=json.dumps({"confirm": tenant}).encode(),
        method="DELETE",
        headers={"X-Offprompt-Tenant": tenant, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        erased = json.loads(response.read())
    assert erased["verified"] and erased["deleted"]["opensearch"] >= 1, erased
    time.sleep(SETTLED_S)  # whatever search was going to see of the tenant, it sees now
    count = _node(opensearch_url, f"/{aoss_stack.index}/_count", {"query": {"term": {"tenant": tenant}}})["count"]
    assert count == 0
