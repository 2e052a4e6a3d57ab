"""`POST /threads/search` through the threads handler (moto) on the REAL conversation index: ADR 0048's
`OpenSearchConversationIndex` on the local OpenSearch node, with the local word embedder (issue 31 item 2,
docs/adr/0049). Documents come from the table's stream through the real stream indexer function
(`conversation_index.handler`, ADR 0048), pumped by the test: left unpumped while runs change (the index lagging),
and pumped after. Either way a deleted, pruned or expired run is never a hit; a fork finds the history it shares; a
foreign tenant finds nothing; consistency "search" waits for a document the index has not made searchable yet.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from conversation_api import TABLE, Api, text_run
from search_support import add, fork, ids, search
from test_conversation_index_consistency import Stream

from offprompt.adapters.opensearch_conversations import OpenSearchConversationIndex
from offprompt.composition.conversation import default_service
from offprompt.composition.conversation_index import set_conversation_index_override
from offprompt_local.embedder import LocalWordLlamaEmbedder

pytestmark = pytest.mark.opensearch


@pytest.fixture(scope="module")
def wordllama() -> LocalWordLlamaEmbedder:
    return LocalWordLlamaEmbedder()


@pytest.fixture
def api(aws_over_http: dict[str, Any]) -> Api:
    """The handlers over the local substrate's moto server: its table has the stream the indexer reads."""
    return Api()


@pytest.fixture
def stream(api: Api) -> Stream:
    return Stream(TABLE)


@pytest.fixture
def real_index(api: Api, opensearch_client: Any, wordllama: LocalWordLlamaEmbedder) -> Iterator[Any]:
    name = f"offprompt-search-{uuid.uuid4().hex}"
    index = OpenSearchConversationIndex(opensearch_client, name, wordllama)
    set_conversation_index_override(index)
    yield index
    set_conversation_index_override(None)
    opensearch_client.indices.delete(index=name, ignore_unavailable=True)


def settle(index: Any) -> None:
    index.client.indices.refresh(index=index.index_name)


@pytest.mark.parametrize("mode", ["hybrid", "bm25", "knn"])
def test_deleted_pruned_and_expired_runs_are_never_hits_on_the_real_index(
    api: Api, real_index: Any, stream: Stream, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    add(api, "gone", ("g1", "the giraffe is tall", "yes"))
    add(api, "pruned", *[(f"p{i}", f"giraffe fact number {i}", "ok") for i in range(1, 5)])
    assert api.thread("PUT", "expiring", {"retention_days": 1})[0] == 200
    add(api, "expiring", ("e1", "giraffe that expires", "soon"))
    add(api, "kept", ("k1", "a giraffe in the zoo", "nice"))
    stream.pump()
    settle(real_index)
    _, body, _ = search(api, {"query": "giraffe", "limit": 20, "mode": mode})
    assert len(body["hits"]) == 7, body

    assert api.thread("DELETE", "gone")[0] == 204  # the index still holds every document below
    assert api.thread("PUT", "pruned", {"max_runs": 2})[0] == 200
    later = time.time() + 3 * 86_400
    monkeypatch.setattr(default_service(), "clock", lambda: later)
    _, body, _ = search(api, {"query": "giraffe", "limit": 20, "mode": mode})
    assert sorted(ids(body)) == [("kept", "k1"), ("pruned", "p3"), ("pruned", "p4")]
    assert real_index.indexed_through("tenant-a", ["gone", "pruned", "expiring"]) == {
        "gone": 1,
        "pruned": 4,
        "expiring": 1,
    }  # fmt: skip  (the index lagged: every document was still there)
    stream.pump()  # the index catches up (the thread delete's documents go); the answer is the same
    settle(real_index)
    _, again, _ = search(api, {"query": "giraffe", "limit": 20, "mode": mode})
    assert sorted(ids(again)) == sorted(ids(body))
    assert "gone" not in real_index.indexed_through("tenant-a", ["gone"])


def test_a_fork_finds_its_shared_history_on_the_real_index(api: Api, real_index: Any, stream: Stream) -> None:
    add(api, "base", ("b1", "kyoto temples", "yes"), ("b2", "kyoto food", "yum"), ("b3", "kyoto after the fork", "no"))
    fork(api, "base", {"thread_id": "user-fork", "after_run_id": "b2"})
    add(api, "user-fork", ("f1", "kyoto in the fork", "mine"))
    stream.pump()
    settle(real_index)
    for scope in ({"thread_ids": ["user-fork"]}, {"thread_prefix": "user-"}):
        _, body, _ = search(api, {"query": "kyoto", **scope})
        assert sorted(ids(body)) == [("user-fork", "b1"), ("user-fork", "b2"), ("user-fork", "f1")], scope
        assert all(h["run"]["id"] == h["run_id"] for h in body["hits"])


def test_a_foreign_tenant_finds_nothing_on_the_real_index(api: Api, real_index: Any, stream: Stream) -> None:
    add(api, "secret", ("s1", "my bank pin is 4321", "noted"))
    add(api, "secret", ("x1", "bank pin of another tenant", "noted"), tenant="tenant-b")
    stream.pump()
    settle(real_index)
    _, mine, _ = search(api, {"query": "bank pin"})
    _, theirs, _ = search(api, {"query": "bank pin"}, tenant="tenant-b")
    assert ids(mine) == [("secret", "s1")] and ids(theirs) == [("secret", "x1")]
    _, nobody, _ = search(api, {"query": "bank pin"}, tenant="tenant-c")
    assert nobody == {"hits": []}


def test_consistency_search_makes_a_new_document_searchable_on_the_real_index(
    api: Api, real_index: Any, stream: Stream
) -> None:
    add(api, "fresh", ("n1", "the narwhal has a tusk", "true"))
    real_index.ensure_index()
    real_index.client.indices.put_settings(index=real_index.index_name, body={"index": {"refresh_interval": "-1"}})
    stream.pump()
    _, body, _ = search(api, {"query": "narwhal"})
    assert body == {"hits": []}  # indexed, not searchable yet
    status, body, headers = search(api, {"query": "narwhal", "consistency": "search", "thread_ids": ["fresh"]})
    assert status == 200 and ids(body) == [("fresh", "n1")]
    assert headers["X-Offprompt-Searchable"] == "true"


def test_context_on_the_real_index(api: Api, real_index: Any, stream: Stream) -> None:
    add(api, "ctx", *[(f"c{i}", f"line {i}" + (" heron" if i == 2 else ""), "ok") for i in range(1, 4)])
    api.post_run("ctx", text_run("c4", "line 4", "ok"))
    stream.pump()
    settle(real_index)
    _, body, _ = search(api, {"query": "heron", "context": 1, "mode": "bm25", "limit": 1})
    (hit,) = body["hits"]  # c2 (c3 is a candidate too: its document holds the turn before it as context)
    assert hit["run_id"] == "c2"
    assert [c["run_id"] for c in hit["context"]] == ["c1", "c3"]
