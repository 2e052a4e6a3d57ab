"""An in-memory TextStore for unit tests of service logic (integration tests use the real OpenSearch store).

Chunks are fixed-size character slices; documents keep the artifact envelope so load is byte-exact.
BM25 is approximated by counting query-term occurrences. Its rules (limits, refusals, errors) are the real
store's: tests/integration/test_text_store_contract.py runs one contract against both.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from offprompt.artifacts import BaseArtifact, TextArtifact
from offprompt.errors import DependencyUnavailable, InvalidInput
from offprompt.limits import MAX_QUERY_CHARS, MAX_SEARCH_DEPTH, SEARCH_MODES
from offprompt.ports import SearchHit, SearchMode, TextScope


class InMemoryTextStore:
    def __init__(self, chunk_chars: int = 1000) -> None:
        self.chunk_chars = chunk_chars
        self.docs: dict[tuple[TextScope, int, int], dict[str, object]] = {}
        self.calls: list[str] = []

    def store(
        self, scope: TextScope, start_position: int, artifacts: Sequence[TextArtifact], *, searchable: bool = False
    ) -> list[int]:
        self.calls.append("store")
        counts = []
        for offset, artifact in enumerate(artifacts):
            text = artifact.value
            pieces = [text[i : i + self.chunk_chars] for i in range(0, len(text), self.chunk_chars)] or [""]
            envelope = artifact.to_dict()
            envelope["value"] = ""
            for chunk, piece in enumerate(pieces):
                self.docs[(scope, start_position + offset, chunk)] = {
                    "text": piece,
                    "artifact_id": artifact.id,
                    "envelope": json.dumps(envelope) if chunk == 0 else None,
                }
            counts.append(len(pieces))
        return counts

    def load(self, scope: TextScope, layout: Sequence[tuple[int, int]]) -> list[TextArtifact]:
        self.calls.append("load")
        out = []
        for position, chunks in layout:
            if isinstance(chunks, bool) or not isinstance(chunks, int) or chunks < 1:
                raise InvalidInput(f"chunk count must be at least 1, got {chunks}")
            missing = [c for c in range(chunks) if (scope, position, c) not in self.docs]
            if missing:  # as OpenSearch's mget: a committed layout whose documents are gone is the store's failure
                raise DependencyUnavailable(f"text store is missing position {position} chunk {missing[0]}")
            docs = [self.docs[(scope, position, c)] for c in range(chunks)]
            data = json.loads(str(docs[0]["envelope"]))
            data["value"] = "".join(str(d["text"]) for d in docs)
            artifact = BaseArtifact.from_dict(data)
            assert isinstance(artifact, TextArtifact)
            out.append(artifact)
        return out

    def wait_searchable(self, scope: TextScope, start: int, counts: Sequence[int]) -> bool:
        return True  # searchable as soon as stored (this store has no index to refresh)

    def search(self, scope: TextScope, query: str, top_k: int, mode: SearchMode) -> list[SearchHit]:
        self.calls.append("search")
        # The real store's rules (offprompt.limits), so the fake cannot accept what OpenSearch refuses.
        if not query.strip() or len(query) > MAX_QUERY_CHARS:
            raise InvalidInput(f"query must be 1 to {MAX_QUERY_CHARS} characters")
        if isinstance(top_k, bool) or not 1 <= top_k <= MAX_SEARCH_DEPTH:
            raise InvalidInput(f"top_k must be an integer from 1 to {MAX_SEARCH_DEPTH}")
        if mode not in SEARCH_MODES:
            raise InvalidInput(f"mode must be one of {', '.join(SEARCH_MODES)}")
        if mode != "bm25":  # like the real store without an embedder; vector search is tested on OpenSearch
            raise InvalidInput(f"{mode} search needs an embedder, and none is configured")
        terms = query.lower().split()
        hits = []
        for (s, position, chunk), doc in self.docs.items():
            if s != scope:
                continue
            text = str(doc["text"])
            score = float(sum(text.lower().count(t) for t in terms))
            if score > 0:
                hits.append(SearchHit(str(doc["artifact_id"]), position, chunk, text, score))
        hits.sort(key=lambda h: (-h.score, h.position, h.chunk))
        return hits[:top_k]

    def delete(self, scope: TextScope) -> int:
        self.calls.append("delete")
        keys = [k for k in self.docs if k[0] == scope]
        for k in keys:
            del self.docs[k]
        return len(keys)

    def count(self, scope: TextScope | None = None) -> int:
        return sum(1 for k in self.docs if scope is None or k[0] == scope)
