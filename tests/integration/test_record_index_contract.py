"""One contract for the RecordIndex port (docs/adr/0034-records.md), run against the in-memory fake the records use
cases' unit tests use and against the real OpenSearch adapter on the local node, in both its modes: `provisioned`
(deterministic ids, the index refreshed before a search with `wait_for_refresh`) and `serverless` through the
Serverless-faithful proxy (server-assigned ids, no refresh: searches follow `settle()`, one refresh interval; every
Serverless-mode test also checks that the proxy refused nothing the adapter sent).

Then what only the real index can show: records and task-memory text chunks share the index without ever answering
each other's searches, an index created before records existed gets the record fields, and the tenant erase and
export (`tenant_documents.py`) cover records.
"""

from __future__ import annotations

import itertools
import math
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fakes.record_index import InMemoryRecordIndex

from offprompt.adapters import tenant_documents
from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer
from offprompt.adapters.layout import record_doc_id
from offprompt.adapters.opensearch_client import build_opensearch_client
from offprompt.adapters.opensearch_records import RECORD_FIELDS, OpenSearchRecordIndex
from offprompt.adapters.opensearch_text import OpenSearchTextStore, S3TextRecords, index_definition
from offprompt.adapters.tenant_documents import OpenSearchTenantDocuments
from offprompt.artifacts import TextArtifact
from offprompt.errors import InvalidInput
from offprompt.limits import MAX_QUERY_CHARS, MAX_SEARCH_DEPTH
from offprompt.ports import Embedder, RecordDoc, RecordIndex, TextScope
from offprompt_local.embedder import LocalWordLlamaEmbedder
from offprompt_local.pytest_plugin import serverless_refresh

pytestmark = pytest.mark.opensearch
KINDS = ["fake", "provisioned", "serverless"]


class Subject:
    """The index under test, how to let search catch up with writes, and its mode."""

    def __init__(self, index: RecordIndex, settle: Callable[[], None], kind: str) -> None:
        self.index = index
        self.settle = settle
        self.kind = kind

    def search(self, tenant: str, prefix: tuple[str, ...], query: str, **options: Any) -> list[tuple[Any, ...]]:
        options.setdefault("size", 10)
        hits = self.index.search(tenant, prefix, query, wait_for_refresh=True, **options)
        return [(h.namespace, h.key, h.version) for h in hits]


@pytest.fixture(scope="module")
def wordllama() -> LocalWordLlamaEmbedder:
    return LocalWordLlamaEmbedder()


def _subject(request: pytest.FixtureRequest, kind: str, embedder: Embedder | None) -> Iterator[Subject]:
    if kind == "fake":
        yield Subject(InMemoryRecordIndex(embedder), lambda: None, kind)
        return
    node: Any = request.getfixturevalue("opensearch_client")
    name = f"offprompt-records-{uuid.uuid4().hex}"
    if kind == "provisioned":
        yield Subject(OpenSearchRecordIndex(node, name, embedder), lambda: None, kind)
        node.indices.delete(index=name, ignore_unavailable=True)
        return
    proxy: Any = request.getfixturevalue("aoss_proxy")
    refused = len(proxy.refusals)
    client = build_opensearch_client(proxy.url)
    yield Subject(
        OpenSearchRecordIndex(client, name, embedder, mode="serverless"), serverless_refresh(node, name), kind
    )
    client.close()
    node.indices.delete(index=name, ignore_unavailable=True)
    assert proxy.refusals[refused:] == [], "the serverless record index sent what OpenSearch Serverless refuses"


@pytest.fixture(params=KINDS)
def subject(request: pytest.FixtureRequest) -> Iterator[Subject]:
    yield from _subject(request, request.param, None)


@pytest.fixture(params=KINDS)
def semantic(request: pytest.FixtureRequest, wordllama: LocalWordLlamaEmbedder) -> Iterator[Subject]:
    yield from _subject(request, request.param, wordllama)


def tenant() -> str:
    return f"tenant-{uuid.uuid4().hex[:8]}"


def doc(t: str, namespace: tuple[str, ...], key: str, text: str, version: int = 1, at: float = 100.0) -> RecordDoc:
    return RecordDoc(t, namespace, key, version, text, at)


# ------------------------------------------------------------------------------------------------ the contract


def test_index_returns_the_id_and_a_repeated_index_is_one_candidate(subject: Subject) -> None:
    t = tenant()
    first = subject.index.index(doc(t, ("prefs",), "coffee", "likes espresso"))
    second = subject.index.index(doc(t, ("prefs",), "coffee", "likes espresso"))
    assert isinstance(first, str) and first and isinstance(second, str) and second
    if subject.kind != "serverless":  # deterministic ids; Serverless assigns its own
        assert first == second == record_doc_id(t, ("prefs",), "coffee", 1, "")
        other = subject.index.index(RecordDoc(t, ("prefs",), "coffee", 1, "likes espresso", 100.0, "w2"))
        assert other == record_doc_id(t, ("prefs",), "coffee", 1, "w2") != first  # another writer's own document
        subject.index.delete(t, [other])
    subject.settle()
    assert subject.search(t, ("prefs",), "espresso") == [(("prefs",), "coffee", 1)]


def test_bm25_orders_best_first_and_respects_size(subject: Subject) -> None:
    t = tenant()
    ns = ("notes",)
    subject.index.index(doc(t, ns, "a", "apple"))
    subject.index.index(doc(t, ns, "b", "apple apple apple banana"))
    subject.index.index(doc(t, ns, "c", "banana"))
    subject.index.index(doc(t, ns, "d", "apple banana"))
    subject.settle()
    hits = subject.index.search(t, ns, "apple", size=10, wait_for_refresh=True)
    assert {h.key for h in hits} == {"a", "b", "d"}
    assert hits[0].key == "b"
    assert all(x.score >= y.score for x, y in itertools.pairwise(hits))
    assert len(subject.search(t, ns, "apple", size=1)) == 1
    assert subject.search(t, ns, "zebra") == []


def test_the_prefix_is_label_wise(subject: Subject) -> None:
    t = tenant()
    for namespace in [("a", "b"), ("a", "b", "c"), ("a", "bc"), ("x",)]:
        subject.index.index(doc(t, namespace, "k", f"needle in {'.'.join(namespace)}"))
    subject.settle()
    assert sorted(subject.search(t, ("a", "b"), "needle")) == [(("a", "b"), "k", 1), (("a", "b", "c"), "k", 1)]
    assert len(subject.search(t, ("a",), "needle")) == 3
    assert len(subject.search(t, (), "needle")) == 4  # the empty prefix: every namespace of the tenant
    assert subject.search(t, ("a", "b", "c", "d"), "needle") == []
    assert subject.search(t, ("b",), "needle") == []


def test_a_tenant_never_sees_another_tenants_records(subject: Subject) -> None:
    mine, theirs = tenant(), tenant()
    subject.index.index(doc(mine, ("facts",), "k", "the shared secret word"))
    subject.index.index(doc(theirs, ("facts",), "k", "the shared secret word"))
    subject.index.index(doc(theirs, ("facts",), "other", "shared only theirs"))
    subject.settle()
    assert subject.search(mine, ("facts",), "shared") == [(("facts",), "k", 1)]
    assert subject.search(mine, (), "theirs") == []


def test_a_superseded_version_is_a_candidate_only_inside_its_window(subject: Subject) -> None:
    t = tenant()
    ns = ("profile",)
    v1 = subject.index.index(doc(t, ns, "city", "lives in paris", version=1, at=100.0))
    subject.index.index(doc(t, ns, "city", "lives in berlin", version=2, at=200.0))
    subject.index.supersede(t, v1, 200.0)
    subject.settle()
    assert subject.search(t, ns, "lives") == [(ns, "city", 2)]
    assert subject.search(t, ns, "lives", as_of=150.0) == [(ns, "city", 1)]
    assert subject.search(t, ns, "lives", as_of=100.0) == [(ns, "city", 1)]  # valid_from is inclusive
    assert subject.search(t, ns, "lives", as_of=200.0) == [(ns, "city", 2)]  # valid_to is exclusive
    assert subject.search(t, ns, "lives", as_of=250.0) == [(ns, "city", 2)]
    assert subject.search(t, ns, "lives", as_of=99.5) == []
    assert subject.search(t, ns, "paris") == []  # the old text is no current candidate


@pytest.fixture(params=["fake", "provisioned"])
def deterministic(request: pytest.FixtureRequest) -> Iterator[Subject]:
    """The kinds with deterministic ids (Serverless assigns a new id to every index call: its caller indexes a
    version once, and search keeps one hit per version)."""
    yield from _subject(request, request.param, None)


def test_a_retried_index_does_not_reopen_a_superseded_version(deterministic: Subject) -> None:
    subject = deterministic
    t = tenant()
    ns = ("profile",)
    v1 = subject.index.index(doc(t, ns, "city", "lives in paris"))
    subject.index.supersede(t, v1, 150.0)
    assert subject.index.index(doc(t, ns, "city", "lives in paris")) == v1
    subject.settle()
    assert subject.search(t, ns, "paris") == []


def test_delete_by_id_and_missing_ids_are_fine(subject: Subject) -> None:
    t = tenant()
    ns = ("todo",)
    gone = subject.index.index(doc(t, ns, "a", "buy milk"))
    kept = subject.index.index(doc(t, ns, "b", "buy bread"))
    subject.index.delete(t, [gone, "no-such-document"])
    subject.index.delete(t, [gone])
    subject.index.delete(t, [])
    subject.index.supersede(t, "no-such-document", 1.0)
    subject.settle()
    assert subject.search(t, ns, "buy") == [(ns, "b", 1)]
    subject.index.delete(t, [kept])
    subject.settle()
    assert subject.search(t, ns, "buy") == []


def test_a_search_before_anything_was_indexed_finds_nothing(subject: Subject) -> None:
    assert subject.search(tenant(), ("a",), "anything") == []


@pytest.mark.parametrize(
    ("prefix", "query", "options"),
    [
        (("a",), "", {}),
        (("a",), "   ", {}),
        (("a",), "x" * (MAX_QUERY_CHARS + 1), {}),
        (("a",), "x", {"size": 0}),
        (("a",), "x", {"size": MAX_SEARCH_DEPTH + 1}),
        (("a",), "x", {"size": True}),
        (("a",), "x", {"mode": "fuzzy"}),
        (("a",), "x", {"mode": "knn"}),
        (("a",), "x", {"mode": "hybrid"}),
        (("a",), "x", {"as_of": math.nan}),
        (("a.b",), "x", {}),
        (("",), "x", {}),
    ],
)
def test_search_refuses_bad_arguments(subject: Subject, prefix: Any, query: str, options: dict[str, Any]) -> None:
    options.setdefault("size", 5)
    with pytest.raises(InvalidInput):
        subject.index.search("t", prefix, query, **options)


@pytest.mark.parametrize(
    "bad",
    [
        RecordDoc("", ("a",), "k", 1, "text", 1.0),
        RecordDoc("t", (), "k", 1, "text", 1.0),
        RecordDoc("t", ("a.b",), "k", 1, "text", 1.0),
        RecordDoc("t", ("a",), "", 1, "text", 1.0),
        RecordDoc("t", ("a",), "k", -1, "text", 1.0),
        RecordDoc("t", ("a",), "k", 1, "", 1.0),
        RecordDoc("t", ("a",), "k", 1, "text", math.inf),
    ],
)
def test_index_refuses_a_malformed_document(subject: Subject, bad: RecordDoc) -> None:
    with pytest.raises(InvalidInput):
        subject.index.index(bad)


@pytest.mark.parametrize("mode", ["knn", "hybrid"])
def test_vector_modes_find_by_meaning_within_the_scope(semantic: Subject, mode: str) -> None:
    t = tenant()
    ns = ("kb",)
    texts = {
        "bread": "A recipe for banana bread with walnuts and cinnamon.",
        "tax": "Quarterly tax filing deadlines for small businesses.",
        "car": "The automobile was parked in the garage overnight.",
        "plants": "Photosynthesis converts sunlight into chemical energy in plants.",
    }
    for key, text in texts.items():
        semantic.index.index(doc(t, ns, key, text))
    semantic.index.index(doc(tenant(), ns, "car", "The automobile was parked in the garage overnight."))
    old = semantic.index.index(doc(t, ("kb", "old"), "car", "A vehicle, a motor car, an automobile.", at=10.0))
    semantic.index.supersede(t, old, 50.0)
    semantic.settle()
    hits = semantic.search(t, ns, "car", mode=mode, size=3)
    assert hits[0] == (ns, "car", 1)  # "car" shares no word with it: BM25 alone cannot find it
    assert len(hits) == 3 and len(set(hits)) == 3
    assert semantic.search(t, ("kb", "old"), "car", mode=mode, as_of=20.0) == [(("kb", "old"), "car", 1)]
    assert semantic.search(t, ("kb", "old"), "car", mode=mode) == []


# ------------------------------------------------------------------------------- the real index only


@pytest.fixture(params=["provisioned", "serverless"])
def shared(request: pytest.FixtureRequest) -> Iterator[tuple[OpenSearchTextStore, OpenSearchRecordIndex, Subject]]:
    """A text store and a record index on ONE index, as deployed (`settings.opensearch_index`)."""
    node: Any = request.getfixturevalue("opensearch_client")
    name = f"offprompt-shared-{uuid.uuid4().hex}"
    tokenizer = BpeOpenAiTokenizer()
    if request.param == "provisioned":
        texts = OpenSearchTextStore(node, name, tokenizer, refresh=True)
        records = OpenSearchRecordIndex(node, name, None)
        yield texts, records, Subject(records, lambda: None, "provisioned")
        node.indices.delete(index=name, ignore_unavailable=True)
        return
    import boto3

    request.getfixturevalue("moto_aws")
    proxy: Any = request.getfixturevalue("aoss_proxy")
    refused = len(proxy.refusals)
    s3 = boto3.client("s3", region_name="us-east-1")
    s3.create_bucket(Bucket="shared-texts")
    client = build_opensearch_client(proxy.url)
    texts = OpenSearchTextStore(client, name, tokenizer, mode="serverless", records=S3TextRecords("shared-texts", s3))
    records = OpenSearchRecordIndex(client, name, None, mode="serverless")
    yield texts, records, Subject(records, serverless_refresh(node, name), "serverless")
    client.close()
    node.indices.delete(index=name, ignore_unavailable=True)
    assert proxy.refusals[refused:] == []


def test_text_searches_never_return_records_and_record_searches_never_return_chunks(
    shared: tuple[OpenSearchTextStore, OpenSearchRecordIndex, Subject],
) -> None:
    texts, records, subject = shared
    t = tenant()
    scope = TextScope(t, "TaskMemory", "notes")
    # A record whose namespace path equals the text namespace, and a chunk with the same words.
    texts.store(scope, 0, [TextArtifact(value="the shared needle words")])
    records.index(doc(t, ("notes",), "TaskMemory", "the shared needle words"))
    subject.settle()
    assert [(h.position, h.chunk) for h in texts.search(scope, "needle", 10, "bm25")] == [(0, 0)]
    assert subject.search(t, ("notes",), "needle") == [(("notes",), "TaskMemory", 1)]
    assert subject.search(t, (), "needle") == [(("notes",), "TaskMemory", 1)]


def test_an_index_created_before_records_gets_the_record_fields(
    shared: tuple[OpenSearchTextStore, OpenSearchRecordIndex, Subject], opensearch_client: Any
) -> None:
    texts, records, subject = shared
    old = index_definition(serverless=subject.kind == "serverless")
    for name in RECORD_FIELDS:
        del old["mappings"]["properties"][name]
    if subject.kind == "serverless":
        records.client.indices.create(index=records.index_name, body=old)  # through the proxy, as a deployment
    else:
        opensearch_client.indices.create(index=records.index_name, body=old)
    t = tenant()
    texts.store(TextScope(t, "TaskMemory", "ns"), 0, [TextArtifact(value="older text")])  # the text store's own path
    records.index(doc(t, ("facts",), "k", "a record after the upgrade"))
    mapping = opensearch_client.indices.get_mapping(index=records.index_name)[records.index_name]["mappings"]
    assert set(RECORD_FIELDS) <= set(mapping["properties"])
    assert mapping["dynamic"] == "strict"
    assert records.ensure_index() is False  # idempotent: exists, the fields are there already
    assert records.ensure_index() is False
    subject.settle()
    assert subject.search(t, ("facts",), "upgrade") == [(("facts",), "k", 1)]


def test_the_creation_path_is_idempotent(
    shared: tuple[OpenSearchTextStore, OpenSearchRecordIndex, Subject], opensearch_client: Any
) -> None:
    texts, records, _ = shared
    assert records.ensure_index() is True
    assert records.ensure_index() is False
    assert texts.ensure_index() is False  # the text store finds the one index records created
    mapping = opensearch_client.indices.get_mapping(index=records.index_name)[records.index_name]["mappings"]
    assert set(RECORD_FIELDS) <= set(mapping["properties"])


def test_the_tenant_erase_and_export_cover_records(
    shared: tuple[OpenSearchTextStore, OpenSearchRecordIndex, Subject], monkeypatch: pytest.MonkeyPatch
) -> None:
    texts, records, subject = shared
    t, other = tenant(), tenant()
    texts.store(TextScope(t, "TaskMemory", "ns"), 0, [TextArtifact(value=f"chunk {n}") for n in range(3)])
    for n in range(4):
        records.index(doc(t, ("facts", f"n{n % 2}"), f"k{n}", f"record {n}", version=1))
        records.index(doc(t, ("facts", f"n{n % 2}"), f"k{n}", f"record {n} again", version=2))
    records.index(doc(other, ("facts",), "k", "not erased"))
    subject.settle()
    serverless = subject.kind == "serverless"
    documents = OpenSearchTenantDocuments(
        records.client, records.index_name, serverless=serverless, records=texts.records
    )
    monkeypatch.setattr(tenant_documents, "SEARCH_PAGE_DOCS", 3)  # pages end inside the records: the key is unique
    scanned = [doc_id for doc_id, _ in documents.scan(t)]
    assert len(scanned) == len(set(scanned)) == 3 + 8
    assert sum(1 for _, source in documents.scan(t) if source.get("doc_kind") == "record") == 8
    assert documents.count(t) == 11
    if serverless:
        monkeypatch.setattr(tenant_documents, "SWEEP_PAGE", 3)
    assert documents.delete(t) == 11
    subject.settle()
    assert documents.count(t) == 0
    assert subject.search(t, (), "record") == []
    assert subject.search(other, (), "erased") == [(("facts",), "k", 1)]
