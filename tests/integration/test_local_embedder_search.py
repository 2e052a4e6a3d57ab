"""k-NN and hybrid search on the real local OpenSearch node with the local wordllama embedder (real semantics).

The index is created by the text store's own `ensure_index()` from the embedder's dimension (256), as the
local stack creates it. The query "car" shares no word with the automobile text, so BM25 cannot find it;
k-NN and hybrid must rank it first.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from offprompt.adapters.opensearch_text import OpenSearchTextStore
from offprompt.adapters.tokenizer import TiktokenTokenizer
from offprompt.artifacts import TextArtifact
from offprompt.composition.task_memory import set_embedder_override, text_store_from_settings
from offprompt.config import load_settings
from offprompt.ports import TextScope
from offprompt_local.embedder import LocalWordLlamaEmbedder

SCOPE = TextScope("tenant-a", "TaskMemory", "notes")
TEXTS = [
    "A recipe for banana bread with walnuts and cinnamon.",
    "Quarterly tax filing deadlines for small businesses.",
    "The automobile was parked in the garage overnight.",
    "Photosynthesis converts sunlight into chemical energy in plants.",
    "The orchestra rehearsed the symphony until midnight.",
]
AUTOMOBILE = 2


@pytest.fixture(scope="module")
def embedder() -> LocalWordLlamaEmbedder:
    return LocalWordLlamaEmbedder()


@pytest.fixture
def index(opensearch_client: Any) -> Iterator[str]:
    name = f"offprompt-wordllama-{uuid.uuid4().hex}"
    yield name
    opensearch_client.indices.delete(index=name, ignore_unavailable=True)


@pytest.fixture
def store(opensearch_client: Any, index: str, embedder: LocalWordLlamaEmbedder) -> OpenSearchTextStore:
    store = OpenSearchTextStore(opensearch_client, index, TiktokenTokenizer(), embedder, refresh="wait_for")
    assert store.ensure_index() is True
    store.store(SCOPE, 0, [TextArtifact(text) for text in TEXTS])
    return store


def test_the_index_takes_the_embedders_dimension(store: OpenSearchTextStore, opensearch_client: Any) -> None:
    mapping = opensearch_client.indices.get_mapping(index=store.index)
    assert next(iter(mapping.values()))["mappings"]["properties"]["embedding"]["dimension"] == 256


@pytest.mark.parametrize("mode", ["knn", "hybrid"])
def test_car_finds_the_automobile(store: OpenSearchTextStore, mode: Any) -> None:
    hits = store.search(SCOPE, "car", 3, mode)
    assert hits, mode
    assert hits[0].position == AUTOMOBILE, [(h.position, h.score) for h in hits]
    assert "automobile" in hits[0].text


def test_bm25_alone_does_not(store: OpenSearchTextStore) -> None:
    # What makes the two tests above mean something: lexically, "car" matches nothing here.
    assert store.search(SCOPE, "car", 3, "bm25") == []


@pytest.mark.parametrize(
    ("query", "expected"),
    [("baking a cake", 0), ("paying taxes", 1), ("how plants make food from light", 3), ("classical music", 4)],
)
def test_other_meanings_rank_first_too(store: OpenSearchTextStore, query: str, expected: int) -> None:
    assert store.search(SCOPE, query, 1, "knn")[0].position == expected
    assert store.search(SCOPE, query, 1, "hybrid")[0].position == expected


@pytest.mark.parametrize("top_k", [1, 2, 5])
def test_knn_agrees_with_brute_force_at_any_top_k(
    store: OpenSearchTextStore, embedder: LocalWordLlamaEmbedder, top_k: int
) -> None:
    # k-NN asked for its single best hit must return the true nearest chunk, not the first one the HNSW graph
    # walk happened to reach (the knn clause's k is also Lucene's candidate list: k=1 is a greedy walk).
    vectors = embedder.embed(TEXTS)
    for query in ["paying taxes", "car", "dessert", "musicians", "sunlight and leaves"]:
        q = embedder.embed([query])[0]
        scores = [sum(a * b for a, b in zip(q, v, strict=True)) for v in vectors]
        expected = sorted(range(len(TEXTS)), key=lambda i: -scores[i])[:top_k]
        assert [h.position for h in store.search(SCOPE, query, top_k, "knn")] == expected, query


def test_the_service_wiring_uses_the_override(
    opensearch_url: str, index: str, embedder: LocalWordLlamaEmbedder
) -> None:
    # As the local stack wires it: the hook set, the store built from settings, the index from ensure_index().
    env = {"OFFPROMPT_OPENSEARCH_URL": opensearch_url, "OFFPROMPT_OPENSEARCH_INDEX": index}
    set_embedder_override(embedder)
    try:
        service_store = text_store_from_settings(load_settings(env))
    finally:
        set_embedder_override(None)
    assert service_store.ensure_index() is True  # type: ignore[attr-defined]
    service_store.store(SCOPE, 0, [TextArtifact(text) for text in TEXTS], searchable=True)  # search at once
    assert service_store.search(SCOPE, "vehicle", 1, "hybrid")[0].position == AUTOMOBILE
