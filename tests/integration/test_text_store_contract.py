"""One contract for the TextStore port, run against the in-memory fake the unit tests use and against the real
OpenSearch adapter, so the fake cannot drift from the real store's rules (issue 11, "one contract test suite").

What is compared is the port's observable behaviour: byte-exact round trips, idempotent stores, scope isolation,
search ordering and limits, the errors for what the store refuses, and delete. Chunk boundaries differ by design
(characters in the fake, tokens in OpenSearch), so counts are checked for consistency with `load`, not equality.

The OpenSearch adapter runs twice: against the node as a managed domain is used (`opensearch`: deterministic ids,
refresh on store) and in its Serverless mode through the Serverless-faithful proxy (`serverless`: server-generated
ids, no refresh, S3 text records in moto; docs/adr/0028). Serverless search sees a store only after the collection's
refresh interval, so searches follow `settle()` (a no-op for the others); load and delete need no wait. Every
Serverless-mode test also checks that the proxy refused nothing the adapter sent.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fakes.text_store import InMemoryTextStore

from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer
from offprompt.adapters.opensearch_client import build_opensearch_client
from offprompt.adapters.opensearch_text import OpenSearchTextStore, S3TextRecords
from offprompt.artifacts import TextArtifact
from offprompt.errors import DependencyUnavailable, InvalidInput
from offprompt.limits import MAX_QUERY_CHARS, MAX_SEARCH_DEPTH
from offprompt.ports import TextScope, TextStore
from offprompt_local.pytest_plugin import serverless_refresh

pytestmark = pytest.mark.opensearch


@pytest.fixture(params=["fake", "opensearch", "serverless"])
def store(request: pytest.FixtureRequest) -> Iterator[TextStore]:
    if request.param == "fake":
        yield InMemoryTextStore(chunk_chars=200)
        return
    if request.param == "serverless":
        yield from _serverless_store(request)
        return
    client: Any = request.getfixturevalue("opensearch_client")
    index: str = request.getfixturevalue("opensearch_index")
    yield OpenSearchTextStore(client, index, BpeOpenAiTokenizer(), chunk_tokens=50, refresh=True)


def _serverless_store(request: pytest.FixtureRequest) -> Iterator[TextStore]:
    import boto3

    request.getfixturevalue("moto_aws")
    proxy: Any = request.getfixturevalue("aoss_proxy")
    node: Any = request.getfixturevalue("opensearch_client")
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket="contract-texts")
    index = f"offprompt-aoss-{uuid.uuid4().hex}"
    refused = len(proxy.refusals)
    client = build_opensearch_client(proxy.url)
    records = S3TextRecords("contract-texts", client=s3)
    yield OpenSearchTextStore(client, index, BpeOpenAiTokenizer(), chunk_tokens=50, mode="serverless", records=records)
    client.close()
    node.indices.delete(index=index, ignore_unavailable=True)
    assert proxy.refusals[refused:] == [], "the serverless store sent what OpenSearch Serverless refuses"


@pytest.fixture
def settle(store: TextStore, request: pytest.FixtureRequest) -> Callable[[], None]:
    """Wait until search sees every store and delete made so far (Serverless: the refresh its interval would do)."""
    if getattr(store, "mode", None) != "serverless":
        return lambda: None
    return serverless_refresh(request.getfixturevalue("opensearch_client"), store.index)


def scope(namespace: str = "ns", tenant: str = "tenant-a") -> TextScope:
    return TextScope(tenant, "TaskMemory", f"{namespace}-{uuid.uuid4().hex[:6]}")


def text(value: str, **extra: Any) -> TextArtifact:
    return TextArtifact(value=value, **extra)


LONG = " ".join(f"word{n} alpha" for n in range(400))


def test_store_then_load_is_byte_exact(store: TextStore) -> None:
    s = scope()
    artifacts = [
        text("hello world", name="a"),
        text(LONG, name="long", meta={"k": [1, 2, {"x": None}]}),
        text("ünï cødé 😀 \u00a0 \t\n", name="uni"),
        text("", name="empty"),
    ]
    counts = store.store(s, 1, artifacts)
    assert len(counts) == len(artifacts) and all(c >= 1 for c in counts)
    assert counts[1] > 1  # long text is chunked by both
    loaded = store.load(s, list(zip(range(1, 5), counts, strict=True)))
    assert [a.to_json() for a in loaded] == [a.to_json() for a in artifacts]


def test_store_is_idempotent_for_a_retry(store: TextStore, settle: Callable[[], None]) -> None:
    s = scope()
    artifacts = [text(LONG, name="long"), text("beta gamma", name="b")]
    first = store.store(s, 1, artifacts)
    assert store.store(s, 1, artifacts) == first
    settle()
    hits = store.search(s, "gamma", 10, "bm25")
    assert [(h.position, h.chunk) for h in hits] == [(2, 0)]


def test_scopes_are_isolated(store: TextStore, settle: Callable[[], None]) -> None:
    mine, other_ns, other_tenant = scope("a"), scope("b"), scope("a", tenant="tenant-b")
    store.store(mine, 1, [text("shared secret words")])
    store.store(other_ns, 1, [text("shared other words")])
    store.store(other_tenant, 1, [text("shared tenant words")])
    settle()
    assert [h.text for h in store.search(mine, "shared", 10, "bm25")] == ["shared secret words"]
    assert store.delete(mine) == 1
    settle()
    assert store.search(mine, "shared", 10, "bm25") == []
    assert len(store.search(other_ns, "shared", 10, "bm25")) == 1
    assert len(store.search(other_tenant, "shared", 10, "bm25")) == 1


def test_search_orders_by_score_then_position_and_respects_top_k(store: TextStore, settle: Callable[[], None]) -> None:
    s = scope()
    store.store(s, 1, [text("apple"), text("apple apple apple banana"), text("banana"), text("apple banana")])
    settle()
    hits = store.search(s, "apple", 10, "bm25")
    assert {h.position for h in hits} == {1, 2, 4}
    assert hits[0].position == 2
    assert all(a.score >= b.score for a, b in itertools.pairwise(hits))
    assert all(h.artifact_id and h.chunk == 0 and "apple" in h.text for h in hits)
    assert len(store.search(s, "apple", 1, "bm25")) == 1
    assert store.search(s, "zebra", 5, "bm25") == []


@pytest.mark.parametrize("query", ["", "   ", "x" * (MAX_QUERY_CHARS + 1)])
def test_search_refuses_an_empty_or_too_long_query(store: TextStore, query: str) -> None:
    with pytest.raises(InvalidInput):
        store.search(scope(), query, 5, "bm25")


@pytest.mark.parametrize("top_k", [0, -1, MAX_SEARCH_DEPTH + 1, True])
def test_search_refuses_top_k_out_of_range(store: TextStore, top_k: Any) -> None:
    with pytest.raises(InvalidInput):
        store.search(scope(), "x", top_k, "bm25")


def test_search_accepts_the_limits(store: TextStore, settle: Callable[[], None]) -> None:
    s = scope()
    store.store(s, 1, [text("limit words")])
    settle()
    assert len(store.search(s, "x " * (MAX_QUERY_CHARS // 2 - 3) + "limit", MAX_SEARCH_DEPTH, "bm25")) == 1


def test_search_refuses_an_unknown_mode_and_vector_modes_without_an_embedder(store: TextStore) -> None:
    with pytest.raises(InvalidInput):
        store.search(scope(), "x", 5, "fuzzy")  # type: ignore[arg-type]
    for mode in ("knn", "hybrid"):
        with pytest.raises(InvalidInput):
            store.search(scope(), "x", 5, mode)  # type: ignore[arg-type]


def test_delete_counts_chunks_and_is_idempotent(store: TextStore, settle: Callable[[], None]) -> None:
    s = scope()
    counts = store.store(s, 1, [text(LONG), text("short")])
    assert store.delete(s) == sum(counts)  # at once: the serverless store deletes what it recorded, seen or not
    assert store.delete(s) == 0
    settle()
    assert store.search(s, "alpha", 5, "bm25") == []


def test_loading_what_is_not_there_is_dependency_unavailable(store: TextStore) -> None:
    s = scope()
    store.store(s, 1, [text("here")])
    with pytest.raises(DependencyUnavailable):
        store.load(s, [(2, 1)])
    with pytest.raises(InvalidInput):
        store.load(s, [(1, 0)])
