"""The local stack's two stand-ins for Titan in one index, on the real OpenSearch node (docs/adr/0070).

Conversation search embeds with all-MiniLM-L6-v2 (384-d); task memory with wordllama zero-padded to 384. Both write
the same `embedding` field of one index; each k-NN query filters to its own kind, so neither is ever compared with
the other's vectors. And the stack reads an existing index's width: one made with wordllama's 256-d vectors keeps
wordllama everywhere.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from offprompt.adapters.opensearch_conversations import OpenSearchConversationIndex
from offprompt.adapters.opensearch_text import OpenSearchTextStore
from offprompt.adapters.tokenizer import TiktokenTokenizer
from offprompt.artifacts import TextArtifact
from offprompt.ports import ConversationDoc, TextScope
from offprompt_local.embedder import LocalWordLlamaEmbedder
from offprompt_local.minilm import LocalMiniLmEmbedder, padded
from offprompt_local.stack import LocalStack

SCOPE = TextScope("alice", "TaskMemory", "notes")
NOTES = ["A recipe for banana bread.", "The automobile was parked in the garage.", "Quarterly tax deadlines."]
RUNS = [
    "Can you suggest a podcast for the drive? I spend 45 minutes each way getting to the office.",
    "What spices go well with roasted carrots?",
    "We adopted a rescue dog last week and named him Biscuit.",
]


@pytest.fixture
def index(opensearch_client: Any) -> Iterator[str]:
    name = f"offprompt-two-embedders-{uuid.uuid4().hex}"
    yield name
    opensearch_client.indices.delete(index=name, ignore_unavailable=True)


def run(seq: int, text: str) -> ConversationDoc:
    return ConversationDoc("alice", "t1", "run", seq, f"r{seq}", 1000.0 + seq, text, "Sure.", "", "")


def test_task_memory_and_conversations_share_the_index_each_with_its_embedder(
    opensearch_client: Any, index: str
) -> None:
    minilm = LocalMiniLmEmbedder()
    store = OpenSearchTextStore(
        opensearch_client, index, TiktokenTokenizer(), padded(LocalWordLlamaEmbedder(), 384), refresh="wait_for"
    )
    assert store.ensure_index() is True
    mapping = opensearch_client.indices.get_mapping(index=index)
    assert next(iter(mapping.values()))["mappings"]["properties"]["embedding"]["dimension"] == 384
    store.store(SCOPE, 0, [TextArtifact(n) for n in NOTES])
    conversations = OpenSearchConversationIndex(opensearch_client, index, minilm)
    conversations.index([run(i, text) for i, text in enumerate(RUNS)])
    opensearch_client.indices.refresh(index=index)

    hits = store.search(SCOPE, "car", 3, "knn")  # task memory: wordllama's semantics, its own documents only
    assert hits and hits[0].text == NOTES[1] and {h.text for h in hits} <= set(NOTES)
    found = conversations.candidates(
        "alice",
        bm25_query="commute job",
        embed_query="How long is my commute to work?",
        threads=None,
        thread_prefix=None,
        since=None,
        until=None,
        size=3,
        mode="knn",
    )
    assert [c.doc.seq for c in found][:1] == [0]  # no shared word: MiniLM's meaning, runs only
    assert {c.doc.kind for c in found} == {"run"}


def test_the_stack_reads_the_width_of_an_existing_index(
    opensearch_client: Any, opensearch_url: str, index: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OFFPROMPT_OPENSEARCH_URL", opensearch_url)
    stack = LocalStack(api_port=0, index=index)
    assert stack._index_dimension() is None  # no index yet: the embedders decide
    old = OpenSearchTextStore(opensearch_client, index, TiktokenTokenizer(), LocalWordLlamaEmbedder())
    assert old.ensure_index() is True
    assert stack._index_dimension() == 256  # made before ADR 0070: configure_embeddings keeps wordllama
