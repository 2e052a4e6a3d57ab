"""The conversation index (`OpenSearchConversationIndex`, docs/adr/0048) on the REAL local OpenSearch node, as a managed
domain (`provisioned`) and through the Serverless-faithful proxy (`serverless`: no custom ids, no refresh, no
delete-by-query; the proxy records anything else it was sent), in the one index task memory and records share.

What only the real index shows: a document indexed twice is one document (a retried stream batch), another tenant's
documents are never candidates, a fork's cut stops at its seq, deletes and thread deletes leave nothing, and the
text store's and the record index's searches never see conversation documents (nor the reverse)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from offprompt.adapters.opensearch_client import build_opensearch_client
from offprompt.adapters.opensearch_conversations import OpenSearchConversationIndex
from offprompt.adapters.opensearch_records import OpenSearchRecordIndex
from offprompt.errors import InvalidInput
from offprompt.memory import recall
from offprompt.ports import ConversationDoc, RecordDoc, ThreadCut
from offprompt_local.embedder import LocalWordLlamaEmbedder
from offprompt_local.pytest_plugin import serverless_refresh

pytestmark = pytest.mark.opensearch


class Subject:
    def __init__(self, index: OpenSearchConversationIndex, settle: Callable[[], None], node: Any, name: str) -> None:
        self.index, self.settle, self.node, self.name = index, settle, node, name

    def documents(self, tenant: str) -> int:
        self.node.indices.refresh(index=self.name)
        body = {"query": {"bool": {"filter": [{"term": {"tenant": tenant}}]}}}
        return int(self.node.count(index=self.name, body=body)["count"])

    def found(self, tenant: str, query: str, **options: Any) -> list[tuple[str, int]]:
        options = {"threads": None, "thread_prefix": None, "since": None, "until": None, "size": 20, **options}
        mode = options.pop("mode", "bm25")
        hits = self.index.candidates(tenant, bm25_query=query, embed_query=query, mode=mode, **options)
        return sorted((c.doc.thread_id, c.doc.seq) for c in hits)


@pytest.fixture(scope="module")
def wordllama() -> LocalWordLlamaEmbedder:
    return LocalWordLlamaEmbedder()


@pytest.fixture(params=["provisioned", "serverless"])
def subject(
    request: pytest.FixtureRequest, opensearch_client: Any, wordllama: LocalWordLlamaEmbedder
) -> Iterator[Subject]:
    node = opensearch_client
    name = f"offprompt-conv-{uuid.uuid4().hex}"
    if request.param == "provisioned":
        yield Subject(
            OpenSearchConversationIndex(node, name, wordllama), lambda: node.indices.refresh(index=name), node, name
        )
        node.indices.delete(index=name, ignore_unavailable=True)
        return
    proxy: Any = request.getfixturevalue("aoss_proxy")
    refused = len(proxy.refusals)
    client = build_opensearch_client(proxy.url)
    index = OpenSearchConversationIndex(client, name, wordllama, mode="serverless")
    yield Subject(index, serverless_refresh(node, name), node, name)
    client.close()
    node.indices.delete(index=name, ignore_unavailable=True)
    assert proxy.refusals[refused:] == [], "the serverless conversation index sent what OpenSearch Serverless refuses"


def doc(
    thread: str, seq: int, user: str, assistant: str = "ok", *, tenant: str = "alice", at: float = 1000.0
) -> ConversationDoc:
    return ConversationDoc(tenant, thread, "run", seq, f"r{seq}", at + seq, user, assistant, "", "")


def test_runs_are_found_by_their_words_and_only_the_tenants(subject: Subject) -> None:
    subject.index.index([doc("t1", 1, "I moved to Tokyo last spring"), doc("t1", 2, "my cat is called Miso")])
    subject.index.index([doc("t9", 1, "Tokyo is where I live", tenant="bob")])
    subject.settle()
    assert subject.found("alice", "tokyo") == [("t1", 1)]
    assert subject.found("alice", "cats") == [("t1", 2)]  # stemmed: "cats" finds "cat"
    assert subject.found("bob", "tokyo") == [("t9", 1)]
    assert subject.found("carol", "tokyo") == []
    hit = subject.index.candidates(
        "alice",
        bm25_query="tokyo",
        embed_query="tokyo",
        threads=None,
        thread_prefix=None,
        since=None,
        until=None,
        size=5,
        mode="hybrid",
    )
    assert [(c.doc.ref_id, c.bm25 is not None, c.knn is not None) for c in hit if c.doc.seq == 1] == [
        ("r1", True, True)
    ]
    assert hit[0].doc.input_text in ("I moved to Tokyo last spring", "my cat is called Miso")


def test_indexing_a_run_again_replaces_its_document(subject: Subject) -> None:
    subject.index.index([doc("t1", 1, "first text about kayaks")])
    subject.settle()
    subject.index.index([doc("t1", 1, "first text about kayaks")])  # a retried stream batch
    subject.settle()  # (Serverless replaces only the copies search sees: a retry comes after the first try's refresh)
    subject.index.index([doc("t1", 1, "edited text about canoes")])  # a MODIFY
    subject.settle()
    assert subject.documents("alice") == 1
    assert subject.found("alice", "canoes") == [("t1", 1)]
    assert subject.found("alice", "kayaks") == []


def test_a_run_indexed_twice_within_a_refresh_is_one_candidate(subject: Subject) -> None:
    subject.index.index([doc("t1", 1, "llamas in the andes")])
    subject.index.index([doc("t1", 1, "llamas in the andes")])
    subject.settle()
    assert subject.found("alice", "llamas") == [("t1", 1)]
    assert subject.documents("alice") == (1 if subject.index.mode == "provisioned" else 2)


def test_deleted_runs_and_threads_leave_no_document(subject: Subject) -> None:
    subject.index.index([doc("t1", s, f"note {s} about sailing") for s in (1, 2, 3)] + [doc("t2", 1, "sailing too")])
    subject.settle()
    subject.index.delete("alice", "t1", "run", [2, 7])  # a missing seq is fine
    subject.settle()
    assert subject.found("alice", "sailing") == [("t1", 1), ("t1", 3), ("t2", 1)]
    subject.index.delete_thread("alice", "t1")
    subject.settle()
    assert subject.found("alice", "sailing") == [("t2", 1)]
    assert subject.documents("alice") == 1


def test_cuts_prefix_and_time_window(subject: Subject) -> None:
    subject.index.index([doc("u1-s1", s, f"hiking trip {s}") for s in (1, 2, 3)] + [doc("u1-s2", 1, "hiking boots")])
    subject.index.index([doc("u2-s1", 1, "hiking alone")])
    subject.settle()
    # a fork of u1-s1 at seq 2 searches its parent only through 2
    assert subject.found("alice", "hiking", threads=[ThreadCut("u1-s1", 2)]) == [("u1-s1", 1), ("u1-s1", 2)]
    both = [ThreadCut("u1-s1", 1), ThreadCut("u2-s1")]
    assert subject.found("alice", "hiking", threads=both) == [("u1-s1", 1), ("u2-s1", 1)]
    assert subject.found("alice", "hiking", thread_prefix="u1-") == [
        ("u1-s1", 1),
        ("u1-s1", 2),
        ("u1-s1", 3),
        ("u1-s2", 1),
    ]
    assert subject.found("alice", "hiking", threads=[]) == []
    assert subject.found("alice", "hiking", thread_prefix="u1-s1", since=1002.0, until=1003.0) == [("u1-s1", 2)]
    assert subject.found("alice", "hiking", mode="knn", threads=[ThreadCut("u1-s1", 1)]) == [("u1-s1", 1)]


def test_indexed_through_is_the_highest_seq_per_thread(subject: Subject) -> None:
    assert subject.index.indexed_through("alice", ["t1"], refresh=True) == {}  # no index yet
    subject.index.index([doc("t1", 1, "a"), doc("t1", 4, "b"), doc("t2", 2, "c"), doc("t3", 9, "d", tenant="bob")])
    subject.settle()
    assert subject.index.indexed_through("alice", ["t1", "t2", "t3"], refresh=True) == {"t1": 4, "t2": 2}


def test_conversation_documents_stay_out_of_record_searches_and_records_out_of_candidates(subject: Subject) -> None:
    subject.index.ensure_index()  # (with the embedder's dimension)
    records = OpenSearchRecordIndex(subject.index.client, subject.name, None, mode=subject.index.mode)
    records.index(RecordDoc("alice", ("users",), "k", 1, "loves penguins", 1.0, write_id="w"))
    subject.index.index([doc("t1", 1, "penguins everywhere")])
    subject.settle()
    assert [h.key for h in records.search("alice", ("users",), "penguins", size=10)] == ["k"]
    assert subject.found("alice", "penguins") == [("t1", 1)]


def test_bad_arguments_are_refused_before_any_request(subject: Subject) -> None:
    with pytest.raises(InvalidInput):
        subject.found("alice", " ")
    with pytest.raises(InvalidInput):
        subject.found("alice", "x", size=0)
    with pytest.raises(InvalidInput):
        subject.index.index([ConversationDoc("alice", "t", "other", 1, "r", 1.0, "", "")])  # type: ignore[arg-type]
    bm25_only = OpenSearchConversationIndex(subject.index.client, subject.name, None, mode=subject.index.mode)
    with pytest.raises(InvalidInput):
        bm25_only.candidates(
            "alice",
            bm25_query="x",
            embed_query="x",
            threads=None,
            thread_prefix=None,
            since=None,
            until=None,
            size=5,
            mode="knn",
        )


def test_hybrid_without_an_embedder_is_bm25_alone(subject: Subject) -> None:
    """The search route's default mode works on a deployment without EmbeddingModelId (ADR 0049): BM25 candidates
    only, never a 400 (it was one)."""
    subject.index.index([doc("t1", 1, "my sister lives in Reykjavik")])
    subject.settle()
    bm25_only = OpenSearchConversationIndex(subject.index.client, subject.name, None, mode=subject.index.mode)
    found = bm25_only.candidates(
        "alice", bm25_query="reykjavik", embed_query="reykjavik", threads=None, thread_prefix=None,
        since=None, until=None, size=5, mode="hybrid",
    )  # fmt: skip
    assert [(c.doc.seq, c.bm25 is not None, c.knn) for c in found] == [(1, True, None)]


def test_the_vector_is_what_recall_says_a_run_embeds(subject: Subject, wordllama: LocalWordLlamaEmbedder) -> None:
    """A document's vector is the embedding of `recall.embedding_text` (the user's side, the other cut to its length:
    docs/adr/0050), not of the whole run: the ranking was measured on that vector, and the whole run's cost the
    LongMemEval slice 0.03 recall@10 through the stack (docs/adr/0062)."""
    run = doc("t1", 1, "I adopted a greyhound called Pixel", "Greyhounds are lovely. " * 60)
    subject.index.index([run])
    subject.settle()
    body = {"query": {"bool": {"filter": [{"term": {"tenant": "alice"}}]}}, "_source": ["embedding"]}
    [hit] = subject.node.search(index=subject.name, body=body)["hits"]["hits"]
    [expected] = wordllama.embed([recall.embedding_text(run)])
    assert hit["_source"]["embedding"] == pytest.approx(list(expected), abs=1e-5)


@pytest.mark.parametrize("serverless", [False, True])
def test_tenant_documents_page_an_index_created_before_the_conversation_fields(
    opensearch_client: Any, serverless: bool
) -> None:
    """An index made by an earlier version (no thread_id, kind, seq in its mapping): export and erase still page it,
    and the conversation index adds its fields on its first write."""
    from offprompt.adapters.opensearch_text import index_definition
    from offprompt.adapters.tenant_documents import OpenSearchTenantDocuments

    name = f"offprompt-old-{uuid.uuid4().hex}"
    old = index_definition()
    for field in (
        "thread_id",
        "kind",
        "seq",
        "ref_id",
        "created_at",
        "input_text",
        "output_text",
        "meta_text",
        "context_text",
    ):
        del old["mappings"]["properties"][field]
    opensearch_client.indices.create(index=name, body=old)
    try:
        opensearch_client.index(
            index=name,
            body={"tenant": "alice", "memory": "m", "namespace": "n", "position": 0, "chunk": 0, "text": "x"},
            refresh=True,
        )
        documents = OpenSearchTenantDocuments(opensearch_client, name)
        assert [source["memory"] for _, source in documents.scan("alice")] == ["m"]
        if serverless:
            found = [h for page in documents._visible("alice") for h in page]
            assert len(found) == 1
        index = OpenSearchConversationIndex(opensearch_client, name, None)
        index.index([doc("t1", 1, "added later")])
        opensearch_client.indices.refresh(index=name)
        assert [source.get("memory") for _, source in documents.scan("alice")] == ["m"]  # exports leave it out
        assert documents.count("alice") == 2
    finally:
        opensearch_client.indices.delete(index=name, ignore_unavailable=True)
