"""OpenSearchTextStore against the real local OpenSearch node (k-NN, Lucene engine). Nothing here is faked
except the embedding *model*: `HashedBagOfWords` implements the Embedder port deterministically, so the
nearest neighbours can be computed by brute force and compared with what OpenSearch's k-NN returns."""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import threading
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opensearchpy import OpenSearch

from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer
from offprompt.adapters.opensearch_client import build_opensearch_client
from offprompt.adapters.opensearch_text import EMBED_BATCH, OpenSearchTextStore, document_id, index_definition
from offprompt.adapters.tokenizer import TiktokenTokenizer
from offprompt.artifacts import BaseArtifact, Reference, TextArtifact
from offprompt.errors import DependencyUnavailable, InvalidInput
from offprompt.ports import TextScope, TextStore

TOKENIZER = BpeOpenAiTokenizer()  # the text store's tokenizer (composition/task_memory.py)
REFERENCE = TiktokenTokenizer()  # bounds are checked with tiktoken's own counts
DIMENSION: int = index_definition()["mappings"]["properties"]["embedding"]["dimension"]
SCOPE = TextScope("tenant-a", "TaskMemory", "ns-1")
WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
]
PHRASE = "the quick brown fox jumps over the lazy dog"


class HashedBagOfWords:
    """A deterministic Embedder: each lowercase word adds +-1 to a hashed coordinate; unit length."""

    dimensions = DIMENSION

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return [self.vector(t) for t in texts]

    @staticmethod
    def vector(text: str) -> list[float]:
        v = [0.0] * DIMENSION
        for word in re.findall(r"\w+", text.lower()):
            h = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "big")
            v[h % DIMENSION] += 1.0 if (h >> 32) & 1 else -1.0
        norm = math.sqrt(sum(x * x for x in v)) or 1.0
        return [x / norm for x in v]


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@pytest.fixture
def store(opensearch_client: OpenSearch, opensearch_index: str) -> OpenSearchTextStore:
    return OpenSearchTextStore(opensearch_client, opensearch_index, TOKENIZER)


@pytest.fixture
def embedder() -> HashedBagOfWords:
    return HashedBagOfWords()


@pytest.fixture
def vector_store(
    opensearch_client: OpenSearch, opensearch_index: str, embedder: HashedBagOfWords
) -> OpenSearchTextStore:
    return OpenSearchTextStore(opensearch_client, opensearch_index, TOKENIZER, embedder=embedder, refresh=True)


def count_docs(client: OpenSearch, index: str, **terms: Any) -> int:
    client.indices.refresh(index=index)
    query = {"bool": {"filter": [{"term": {k: v}} for k, v in terms.items()]}} if terms else {"match_all": {}}
    return int(client.count(index=index, body={"query": query})["count"])


def layout(store: TextStore, scope: TextScope, start: int, artifacts: list[TextArtifact]) -> list[tuple[int, int]]:
    counts = store.store(scope, start, artifacts)
    assert len(counts) == len(artifacts)
    return [(start + i, n) for i, n in enumerate(counts)]


def assert_same(loaded: list[TextArtifact], stored: list[TextArtifact]) -> None:
    assert [a.to_json() for a in loaded] == [a.to_json() for a in stored]
    assert [type(a) for a in loaded] == [TextArtifact] * len(stored)


def test_the_store_implements_the_port(store: OpenSearchTextStore) -> None:
    port: TextStore = store
    assert port is store


# ------------------------------------------------------------------------------------------ store + load


def test_store_then_load_is_byte_exact(store: OpenSearchTextStore) -> None:
    artifacts = [
        TextArtifact("hello world"),
        TextArtifact("", name="empty"),
        TextArtifact("   \n\t ", name="blank"),
        TextArtifact(
            "caf\u00e9 \U0001f468\u200d\U0001f469\u200d\U0001f467 \u6f22\u5b57 \u05e9\u05dc\u05d5\u05dd"
            " e\u0301 <|endoftext|>\r\n",
            id="fixed-id",
            name="call_9 output",
            meta={
                "float": 0.1,
                "big": 2**70,
                "exp": 1e-7,
                "nested": [1, {"deep": None, "t": True}],
                "unicode": "\u00fc\U0001f600",
                "empty": {},
            },
            reference=Reference(id="ref-1", title="A \u00fcber page", authors=["X", "\u5c71"], url="https://e.x/?q=1"),
        ),
        TextArtifact("x" * 10_000 + " y" * 3000),
    ]
    lay = layout(store, SCOPE, 0, artifacts)
    assert [n for _, n in lay][:3] == [1, 1, 1]
    assert lay[4][1] > 1
    # No refresh: load reads with real-time mget.
    assert_same(store.load(SCOPE, lay), artifacts)
    assert_same(store.load(SCOPE, [lay[3], lay[0]]), [artifacts[3], artifacts[0]])
    # What Griptape would read back is the same artifact.
    assert BaseArtifact.from_json(store.load(SCOPE, [lay[3]])[0].to_json()).to_dict() == artifacts[3].to_dict()


def test_document_layout(store: OpenSearchTextStore, opensearch_client: OpenSearch, opensearch_index: str) -> None:
    artifact = TextArtifact("one two three " * 400, meta={"k": "v"})
    [count] = store.store(SCOPE, 7, [artifact])
    assert count > 1
    docs = opensearch_client.mget(
        index=opensearch_index, body={"ids": [document_id(SCOPE, 7, c) for c in range(count)]}
    )
    sources = [d["_source"] for d in docs["docs"]]
    assert [s["chunk"] for s in sources] == list(range(count))
    assert {(s["tenant"], s["memory"], s["namespace"], s["position"], s["artifact_id"]) for s in sources} == {
        ("tenant-a", "TaskMemory", "ns-1", 7, artifact.id)
    }
    envelope = artifact.to_dict()
    del envelope["value"]
    assert json.loads(sources[0]["artifact"]) == envelope
    assert all("artifact" not in s and "embedding" not in s for s in sources[1:])
    assert "".join(s["text"] for s in sources) == artifact.value
    assert all(REFERENCE.count_tokens(s["text"]) <= 512 for s in sources)


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2**32), megabytes=st.sampled_from([1, 2, 3]))
def test_a_multi_megabyte_unicode_text_round_trips(
    opensearch_client: OpenSearch, opensearch_index: str, seed: int, megabytes: int
) -> None:
    rng = random.Random(seed)
    alphabet = (
        [chr(c) for c in range(0x20, 0x7F)] * 8
        + ["\n", "\n\n", "\t", "\u00a0", "\r\n", "<|endoftext|>", "e\u0301", "\U0001f600", "\U0001f468\u200d\U0001f469"]
        + [chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(50)]
        + [chr(rng.randint(0x0590, 0x06FF)) for _ in range(50)]
        + [chr(rng.randint(0x10000, 0x10FFFF)) for _ in range(50)]
    )
    text = "".join(rng.choices(alphabet, k=megabytes * 700_000))
    scope = TextScope("tenant-a", "TaskMemory", f"big-{seed}")
    # A small byte cap forces many bulk requests.
    store = OpenSearchTextStore(opensearch_client, opensearch_index, TOKENIZER, bulk_max_bytes=512 * 1024)
    artifact = TextArtifact(text, name="page")
    [count] = store.store(scope, 0, [artifact])
    assert count > 100
    [loaded] = store.load(scope, [(0, count)])
    assert loaded.value == text
    assert loaded.to_json() == artifact.to_json()


def stored_in_bulks(
    store: OpenSearchTextStore, artifacts: list[TextArtifact]
) -> tuple[list[tuple[int, int]], list[int]]:
    """Store `artifacts` at position 0: their layout, and how many documents each bulk request carried."""
    sizes: list[int] = []
    original = store.client.bulk

    def counting_bulk(*args: Any, **kwargs: Any) -> Any:
        sizes.append(kwargs["body"].count(b"\n") // 2)
        return original(*args, **kwargs)

    store.client.bulk = counting_bulk  # type: ignore[method-assign]
    try:
        return layout(store, SCOPE, 0, artifacts), sizes
    finally:
        del store.client.bulk  # type: ignore[method-assign]


def test_a_large_text_in_small_bulk_requests(opensearch_client: OpenSearch, opensearch_index: str) -> None:
    store = OpenSearchTextStore(opensearch_client, opensearch_index, TOKENIZER, bulk_max_docs=7)
    artifacts = [TextArtifact(" ".join(random.Random(i).choices(WORDS, k=2000))) for i in range(5)]
    lay, sizes = stored_in_bulks(store, artifacts)
    total = sum(n for _, n in lay)
    assert len(sizes) == math.ceil(total / 7)
    assert_same(store.load(SCOPE, lay), artifacts)


def test_an_embedded_batch_is_indexed_while_the_next_is_embedded(
    opensearch_client: OpenSearch, opensearch_index: str
) -> None:
    """With an embedder, the first EMBED_BATCH documents leave as soon as they are embedded (no request is in
    flight), so OpenSearch indexes them while the store embeds the rest. Before, the first request left only when
    the second batch was embedded and would have overflowed the request: every embedding before any indexing."""
    started = threading.Event()
    calls: list[int] = []

    class WaitsForTheFirstRequest(HashedBagOfWords):
        def embed(self, texts: Sequence[str]) -> list[list[float]]:
            calls.append(len(texts))
            if len(calls) == 2:  # the second batch: the first must already be on its way to OpenSearch
                assert started.wait(10), "the first bulk request was not sent before the second batch was embedded"
            return super().embed(texts)

    store = OpenSearchTextStore(opensearch_client, opensearch_index, TOKENIZER, embedder=WaitsForTheFirstRequest())
    real_bulk = store.client.bulk

    def bulk(*args: Any, **kwargs: Any) -> Any:
        started.set()
        return real_bulk(*args, **kwargs)

    store.client.bulk = bulk  # type: ignore[method-assign]
    artifact = TextArtifact(" ".join(random.Random(7).choices(WORDS, k=40_000)))
    lay, sizes = stored_in_bulks(store, [artifact])  # counts, then restores the client's own bulk
    assert calls[0] == EMBED_BATCH and len(calls) >= 2
    assert sizes[0] == EMBED_BATCH and sum(sizes) == lay[0][1]
    assert_same(store.load(SCOPE, lay), [artifact])


def test_same_text_in_two_namespaces_does_not_overwrite(store: OpenSearchTextStore) -> None:
    """Griptape's OpenSearch driver ids ignore the namespace, so B's upsert replaces A's document."""
    a, b = TextScope("t", "m", "ns-a"), TextScope("t", "m", "ns-b")
    in_a, in_b = TextArtifact("same text", name="a"), TextArtifact("same text", name="b")
    store.store(a, 0, [in_a])
    store.store(b, 0, [in_b])
    assert_same(store.load(a, [(0, 1)]), [in_a])
    assert_same(store.load(b, [(0, 1)]), [in_b])
    assert document_id(a, 0, 0) != document_id(b, 0, 0)


def test_store_is_idempotent_on_retry(
    store: OpenSearchTextStore, opensearch_client: OpenSearch, opensearch_index: str
) -> None:
    artifacts = [TextArtifact("retry me " * 500), TextArtifact("and me")]
    first = store.store(SCOPE, 3, artifacts)
    second = store.store(SCOPE, 3, artifacts)
    assert first == second
    assert count_docs(opensearch_client, opensearch_index) == sum(first)
    assert_same(store.load(SCOPE, [(3, first[0]), (4, first[1])]), artifacts)


def test_a_missing_chunk_is_an_error_not_a_short_text(
    store: OpenSearchTextStore, opensearch_client: OpenSearch, opensearch_index: str
) -> None:
    [count] = store.store(SCOPE, 0, [TextArtifact("word " * 3000)])
    assert count >= 3
    opensearch_client.delete(index=opensearch_index, id=document_id(SCOPE, 0, 1))
    with pytest.raises(DependencyUnavailable, match=r"chunk 1 of the artifact at position 0 .* is missing"):
        store.load(SCOPE, [(0, count)])
    with pytest.raises(DependencyUnavailable, match="missing"):
        store.load(SCOPE, [(0, count + 1)])  # a layout claiming more chunks than were stored


def test_load_validates_the_layout(store: OpenSearchTextStore) -> None:
    assert store.load(SCOPE, []) == []
    for bad in ([(0, 0)], [(-1, 1)], [(0,)], [("0", 1)]):
        with pytest.raises(InvalidInput):
            store.load(SCOPE, bad)  # type: ignore[arg-type]


def test_store_refuses_what_is_not_text(store: OpenSearchTextStore) -> None:
    from offprompt.artifacts import InfoArtifact

    with pytest.raises(InvalidInput, match="TextArtifact"):
        store.store(SCOPE, 0, [InfoArtifact("info")])  # type: ignore[list-item]
    with pytest.raises(InvalidInput, match="surrogates"):
        store.store(SCOPE, 0, [BaseArtifact.from_dict({"type": "TextArtifact", "value": "a\ud800b"})])  # type: ignore[list-item]
    with pytest.raises(InvalidInput):
        store.store(SCOPE, -1, [TextArtifact("x")])


# ---------------------------------------------------------------------------------------------- tenancy


def test_tenants_never_see_each_others_text(vector_store: OpenSearchTextStore) -> None:
    a = TextScope("tenant-a", "TaskMemory", "shared-name")
    b = TextScope("tenant-b", "TaskMemory", "shared-name")
    secret = TextArtifact(f"tenant a secret: {PHRASE}")
    [count] = vector_store.store(a, 0, [secret])
    with pytest.raises(DependencyUnavailable, match="missing"):
        vector_store.load(b, [(0, count)])
    for mode in ("bm25", "knn", "hybrid"):
        assert vector_store.search(b, PHRASE, 10, mode) == []  # type: ignore[arg-type]
        assert [h.artifact_id for h in vector_store.search(a, PHRASE, 10, mode)] == [secret.id]  # type: ignore[arg-type]
    # Tenant B's own text at the same (memory, namespace, position) is another document.
    own = TextArtifact("tenant b text")
    vector_store.store(b, 0, [own])
    assert_same(vector_store.load(a, [(0, count)]), [secret])
    assert_same(vector_store.load(b, [(0, 1)]), [own])


# ----------------------------------------------------------------------------------------------- search


def corpus(rng: random.Random, n: int) -> list[TextArtifact]:
    return [TextArtifact(" ".join(rng.choices(WORDS, k=rng.randint(5, 15)))) for _ in range(n)]


def test_bm25_puts_the_exact_phrase_first(
    store: OpenSearchTextStore, opensearch_client: OpenSearch, opensearch_index: str
) -> None:
    rng = random.Random(1)
    words = [w for w in PHRASE.split() if w != "the"]
    artifacts = corpus(rng, 100)
    artifacts += [
        TextArtifact(" ".join(rng.sample(words, k=len(words) - 2) + rng.choices(WORDS, k=5))) for _ in range(30)
    ]
    target = TextArtifact(f"charlie delta {PHRASE} echo")
    artifacts.insert(57, target)
    other = TextScope("tenant-a", "TaskMemory", "other")
    store.store(other, 0, [TextArtifact(PHRASE)])  # a perfect match in another namespace must not show up
    store.store(SCOPE, 0, artifacts)
    opensearch_client.indices.refresh(index=opensearch_index)

    hits = store.search(SCOPE, PHRASE, 10, "bm25")
    assert len(hits) == 10
    assert (hits[0].artifact_id, hits[0].position, hits[0].chunk, hits[0].text) == (target.id, 57, 0, target.value)
    assert hits[0].score > hits[1].score
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(h.artifact_id != "other" for h in hits)
    assert len(store.search(SCOPE, PHRASE, 100, "bm25")) == 31
    # Query syntax is never interpreted (no 400, no operators): match analyzes the text as plain words.
    plain = store.search(SCOPE, "fox and lazy or", 10, "bm25")
    assert plain
    assert store.search(SCOPE, 'fox AND "lazy" OR ( [ { \\ / : ~2 ^3 *', 10, "bm25") == plain


def test_knn_returns_the_true_nearest_neighbours(vector_store: OpenSearchTextStore, embedder: HashedBagOfWords) -> None:
    rng = random.Random(2)
    artifacts = corpus(rng, 150)
    vector_store.store(SCOPE, 0, artifacts)
    vector_store.store(TextScope("tenant-a", "TaskMemory", "decoys"), 0, [TextArtifact("alpha bravo charlie")] * 5)
    query = "alpha bravo charlie"
    q = embedder.vector(query)
    similarity = {i: cosine(q, embedder.vector(a.value)) for i, a in enumerate(artifacts)}
    best = sorted(similarity.values(), reverse=True)[:10]

    hits = vector_store.search(SCOPE, query, 10, "knn")
    positions = [h.position for h in hits]
    # Brute force: the same similarities in the same order; any document strictly closer than the 10th is
    # returned (several documents may tie with the 10th: the bag-of-words similarities are discrete).
    assert [similarity[p] for p in positions] == pytest.approx(best)
    assert len(set(positions)) == 10
    assert {i for i, sim in similarity.items() if sim > best[-1] + 1e-9} <= set(positions)
    assert best[0] > best[-1]  # a meaningful ranking, not all ties
    for hit in hits:
        assert hit.score == pytest.approx((1 + similarity[hit.position]) / 2, abs=1e-4)
        assert hit.text == artifacts[hit.position].value


def test_hybrid_is_the_reciprocal_rank_fusion_of_both(vector_store: OpenSearchTextStore) -> None:
    rng = random.Random(3)
    artifacts = corpus(rng, 120)
    vector_store.store(SCOPE, 0, artifacts)
    query = "golf hotel india"
    depth = 20  # max(2 * top_k, 20)
    bm25 = vector_store.search(SCOPE, query, depth, "bm25")
    knn = vector_store.search(SCOPE, query, depth, "knn")
    fused: dict[int, float] = {}
    for ranked in (bm25, knn):
        for rank, hit in enumerate(ranked, start=1):
            fused[hit.position] = fused.get(hit.position, 0.0) + 1 / (60 + rank)
    expected = sorted(fused, key=lambda p: (-fused[p], p))[:5]

    hits = vector_store.search(SCOPE, query, 5, "hybrid")
    assert [h.position for h in hits] == expected
    assert [h.score for h in hits] == pytest.approx([fused[p] for p in expected])
    assert all(h.text == artifacts[h.position].value for h in hits)


def test_search_validates_its_input(store: OpenSearchTextStore, vector_store: OpenSearchTextStore) -> None:
    for top_k in (0, 1001, -1, True, 2.0):  # the store accepts the service's search depth (offprompt.limits)
        with pytest.raises(InvalidInput, match="top_k"):
            store.search(SCOPE, "x", top_k, "bm25")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="knn search needs an embedder"):
        store.search(SCOPE, "x", 5, "knn")
    with pytest.raises(InvalidInput, match="hybrid search needs an embedder"):
        store.search(SCOPE, "x", 5, "hybrid")
    with pytest.raises(InvalidInput, match="mode"):
        vector_store.search(SCOPE, "x", 5, "fuzzy")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="too long"):
        store.search(SCOPE, "x " * 600, 5, "bm25")
    for query in ("", "   "):
        with pytest.raises(InvalidInput, match="query"):
            store.search(SCOPE, query, 5, "bm25")
    # The longest accepted query, every character its own term, is not refused by OpenSearch.
    assert store.search(SCOPE, "\u6f22" * 1000, 5, "bm25") == []
    assert store.search(SCOPE, " ".join("abcdefghij"[i % 10] + str(i) for i in range(250))[:1000], 5, "bm25") == []


def test_search_excludes_empty_and_blank_chunks_from_knn(vector_store: OpenSearchTextStore) -> None:
    artifacts = [TextArtifact(""), TextArtifact("  "), TextArtifact("alpha")]
    vector_store.store(SCOPE, 0, artifacts)
    assert [h.position for h in vector_store.search(SCOPE, "alpha", 10, "knn")] == [2]
    assert_same(vector_store.load(SCOPE, [(0, 1), (1, 1), (2, 1)]), artifacts)


# ----------------------------------------------------------------------------------------------- delete


def test_delete_removes_exactly_one_namespace(
    store: OpenSearchTextStore, opensearch_client: OpenSearch, opensearch_index: str
) -> None:
    scopes = [TextScope(t, m, n) for t in ("t1", "t2") for m in ("m1", "m2") for n in ("n1", "n2")]
    counts = {}
    for scope in scopes:
        counts[scope] = sum(store.store(scope, 0, [TextArtifact("delete me " * 700), TextArtifact("short")]))
    victim = TextScope("t1", "m1", "n2")
    # No refresh in between: delete must still see what store just wrote.
    assert store.delete(victim) == counts[victim]
    assert store.delete(victim) == 0
    for scope in scopes:
        expected = 0 if scope == victim else counts[scope]
        assert (
            count_docs(
                opensearch_client, opensearch_index, tenant=scope.tenant, memory=scope.memory, namespace=scope.namespace
            )
            == expected
        )
    with pytest.raises(DependencyUnavailable, match="missing"):
        store.load(victim, [(0, 1)])


# ----------------------------------------------------------------------------------------------- errors


@pytest.fixture
def strict_index_without_envelope(opensearch_client: OpenSearch) -> Iterator[str]:
    """An index whose (strict) mapping lacks `artifact`: chunk 0 of every artifact is rejected, others pass."""
    name = f"offprompt-test-{uuid.uuid4().hex}"
    definition = index_definition()
    del definition["mappings"]["properties"]["artifact"]
    opensearch_client.indices.create(index=name, body=definition)
    yield name
    opensearch_client.indices.delete(index=name, ignore_unavailable=True)


@pytest.mark.parametrize("bulk_max_docs,rejected", [(500, "rejected 2 of"), (3, "rejected 1 of 3 ")])
def test_a_partially_failed_bulk_is_an_error(
    opensearch_client: OpenSearch, strict_index_without_envelope: str, bulk_max_docs: int, rejected: str
) -> None:
    """Chunk 0 of each artifact is refused, the other chunks are accepted: the store must still fail, whether
    the failing request is the only one or one of many sent while the next was being prepared."""
    store = OpenSearchTextStore(
        opensearch_client, strict_index_without_envelope, TOKENIZER, bulk_max_docs=bulk_max_docs
    )
    with pytest.raises(DependencyUnavailable) as raised:
        store.store(SCOPE, 0, [TextArtifact("many chunks " * 2000), TextArtifact("one")])
    assert rejected in raised.value.message
    assert "position 0 chunk 0" in raised.value.message
    assert "strict_dynamic_mapping_exception" in raised.value.message
    assert raised.value.details["error"] == "strict_dynamic_mapping_exception"


def test_a_wrong_embedding_dimension_is_an_error(opensearch_client: OpenSearch, opensearch_index: str) -> None:
    class Small(HashedBagOfWords):
        dimensions = 8

        def embed(self, texts: Sequence[str]) -> list[list[float]]:
            return [[0.5] * 8 for _ in texts]

    store = OpenSearchTextStore(opensearch_client, opensearch_index, TOKENIZER, embedder=Small())
    with pytest.raises(DependencyUnavailable, match="mapper_parsing_exception"):
        store.store(SCOPE, 0, [TextArtifact("text")])


def test_a_closed_index_is_dependency_unavailable(
    store: OpenSearchTextStore, opensearch_client: OpenSearch, opensearch_index: str
) -> None:
    store.store(SCOPE, 0, [TextArtifact("before")])
    opensearch_client.indices.close(index=opensearch_index)
    try:
        for call in (
            lambda: store.store(SCOPE, 1, [TextArtifact("after")]),
            lambda: store.load(SCOPE, [(0, 1)]),
            lambda: store.search(SCOPE, "before", 3, "bm25"),
            lambda: store.delete(SCOPE),
        ):
            with pytest.raises(DependencyUnavailable, match="index_closed_exception"):
                call()
    finally:
        opensearch_client.indices.open(index=opensearch_index)


def test_a_missing_index_is_dependency_unavailable(opensearch_client: OpenSearch) -> None:
    store = OpenSearchTextStore(opensearch_client, f"offprompt-missing-{uuid.uuid4().hex}", TOKENIZER)
    for call in (
        lambda: store.load(SCOPE, [(0, 1)]),
        lambda: store.search(SCOPE, "x", 3, "bm25"),
        lambda: store.delete(SCOPE),
    ):
        with pytest.raises(DependencyUnavailable):
            call()


def test_connection_refused_is_dependency_unavailable() -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = build_opensearch_client(f"http://127.0.0.1:{port}", max_retries=1, timeout=2)
    store = OpenSearchTextStore(lambda: client, "offprompt-text", TOKENIZER, embedder=HashedBagOfWords())
    for call in (
        lambda: store.store(SCOPE, 0, [TextArtifact("x")]),
        lambda: store.load(SCOPE, [(0, 1)]),
        lambda: store.search(SCOPE, "x", 3, "hybrid"),
        lambda: store.delete(SCOPE),
        store.ensure_index,
    ):
        with pytest.raises(DependencyUnavailable, match="cannot reach OpenSearch"):
            call()


# ------------------------------------------------------------------------------------------------ index


def test_ensure_index_creates_it_once(opensearch_client: OpenSearch, opensearch_url: str) -> None:
    name = f"offprompt-test-{uuid.uuid4().hex}"

    class Small(HashedBagOfWords):
        dimensions = 256

    store = OpenSearchTextStore(lambda: build_opensearch_client(opensearch_url), name, TOKENIZER, embedder=Small())
    try:
        assert store.ensure_index() is True
        assert store.ensure_index() is False  # already there (as after losing a race)
        mapping = opensearch_client.indices.get_mapping(index=name)[name]["mappings"]
        assert mapping["properties"]["embedding"]["dimension"] == 256
        assert mapping["properties"]["embedding"]["method"]["engine"] == "lucene"
        assert mapping["dynamic"] == "strict"
    finally:
        opensearch_client.indices.delete(index=name, ignore_unavailable=True)


def test_the_first_store_into_an_existing_index_only_checks_it(
    opensearch_client: OpenSearch, opensearch_index: str, opensearch_url: str
) -> None:
    # A create of an index that exists is a cluster-state task the cluster manager refuses (on the first store of
    # every Lambda environment); whether it exists is a HEAD any node answers (issue 34).
    client = build_opensearch_client(opensearch_url)
    sent: list[str] = []
    perform = client.transport.perform_request

    def counted(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        sent.append(f"{method} {url.split('?')[0].replace(opensearch_index, 'INDEX')}")
        return perform(method, url, *args, **kwargs)

    client.transport.perform_request = counted  # type: ignore[method-assign]
    store = OpenSearchTextStore(client, opensearch_index, TOKENIZER)
    store.store(TextScope("t", "m", f"ns-{uuid.uuid4().hex[:8]}"), 0, [TextArtifact("hello")])
    assert sent == ["HEAD /INDEX", "POST /INDEX/_bulk"]


# ----------------------------------------------------------------------------------------------- client


@pytest.mark.parametrize("auth,service", [("sigv4-es", "es"), ("sigv4-aoss", "aoss")])
def test_sigv4_clients_sign_every_request(opensearch_url: str, auth: str, service: str) -> None:
    from opensearchpy import Urllib3AWSV4SignerAuth

    client = build_opensearch_client(opensearch_url, auth)  # type: ignore[arg-type]
    connection = client.transport.get_connection()
    assert isinstance(connection.http_auth, Urllib3AWSV4SignerAuth)
    assert connection.http_auth.service == service
    headers = connection.http_auth("GET", f"{opensearch_url}/_cluster/health", None, {})
    assert headers["Authorization"].startswith("AWS4-HMAC-SHA256 Credential=testing/")
    assert f"/us-east-1/{service}/aws4_request" in headers["Authorization"]
    assert headers["X-Amz-Content-SHA256"]  # Serverless requires the payload hash header (ADR 0030, C13)
    assert client.cluster.health()["status"] in ("green", "yellow")  # the local node ignores the signature


def test_client_configuration_errors() -> None:
    from offprompt.config import ConfigurationError

    for url in ("localhost:9200", "ftp://host", "http://"):
        with pytest.raises(ConfigurationError, match="URL"):
            build_opensearch_client(url)
    with pytest.raises(ConfigurationError, match="AUTH"):
        build_opensearch_client("https://search.example.com", "basic")  # type: ignore[arg-type]
    client = build_opensearch_client("https://search-x.us-east-1.es.amazonaws.com")
    connection = client.transport.get_connection()
    assert (connection.host, connection.use_ssl) == ("https://search-x.us-east-1.es.amazonaws.com:443", True)


# ------------------------------------------------------------------------- index creation and visibility


def test_first_store_creates_a_missing_index_from_the_definition(opensearch_client: OpenSearch) -> None:
    # A deployed stack has no step that creates the index: without this, the first bulk write would create it
    # with dynamic mappings (no strict schema, no knn_vector), silently.
    index = f"offprompt-test-missing-{uuid.uuid4().hex[:8]}"
    store = OpenSearchTextStore(opensearch_client, index, TOKENIZER)
    try:
        store.store(TextScope("t", "m", "ns"), 0, [TextArtifact("hello")])
        mapping = opensearch_client.indices.get_mapping(index=index)[index]["mappings"]
        assert mapping["dynamic"] == "strict"
        assert mapping["properties"]["embedding"]["type"] == "knn_vector"
        assert mapping["properties"]["tenant"]["type"] == "keyword"
    finally:
        opensearch_client.indices.delete(index=index, ignore_unavailable=True)


def test_the_service_store_is_searchable_when_asked(
    opensearch_client: OpenSearch, opensearch_index: str, opensearch_url: str
) -> None:
    # ADR 0031: the store the services build answers once the text is loadable, without waiting for a refresh;
    # asked (`searchable`, what `consistency: "search"` passes), it answers once a search finds the text. With a 2 s
    # refresh interval: a plain store is not searchable at once, an asked one is.
    from offprompt.composition.task_memory import text_store_from_settings
    from offprompt.config import load_settings

    opensearch_client.indices.put_settings(index=opensearch_index, body={"index": {"refresh_interval": "2s"}})
    scope = TextScope("t", "m", "ns")
    env = {"OFFPROMPT_OPENSEARCH_URL": opensearch_url, "OFFPROMPT_OPENSEARCH_INDEX": opensearch_index}
    service_store = text_store_from_settings(load_settings(env))
    assert isinstance(getattr(service_store, "tokenizer", None), BpeOpenAiTokenizer)
    service_store.store(scope, 0, [TextArtifact("quetzalcoatl feathers")])
    assert service_store.search(scope, "quetzalcoatl", 5, "bm25") == []  # not waited for
    assert [a.value for a in service_store.load(scope, [(0, 1)])] == ["quetzalcoatl feathers"]  # loadable at once
    service_store.store(scope, 1, [TextArtifact("axolotl gills")], searchable=True)
    assert [hit.position for hit in service_store.search(scope, "axolotl", 5, "bm25")] == [1]
