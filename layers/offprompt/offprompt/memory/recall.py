"""Recall ranking for conversation search (docs/adr/0048, issue 31): pure logic, no I/O.

The search use case asks the index for candidates (BM25 and k-NN, each its own top N) with the queries
`retrieval_queries` derives, then `rank` orders them. Everything that decides recall and does not need I/O lives
here: query preparation, fusion of the retrievers' scores, the turns around a hit, field weights the index applies
(`FIELD_WEIGHTS`), ties newest first. `bench/bench_recall.py` measures it.

This first version is plain reciprocal-rank fusion; the tuned ranking replaces it behind the same functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from offprompt.ports import ConversationCandidate

#: BM25 boosts of the indexed text fields (the index's multi_match uses them).
FIELD_WEIGHTS: dict[str, float] = {"input_text": 1.0, "output_text": 1.0, "meta_text": 0.5, "context_text": 0.3}
#: How many candidates each retriever proposes for a search answering `limit` hits.
CANDIDATES_PER_HIT = 5
MIN_CANDIDATES = 50
RRF_K = 60


@dataclass(frozen=True)
class RetrievalQueries:
    bm25: str
    embed: str


def retrieval_queries(query: str) -> RetrievalQueries:
    """What each retriever is asked for a user's query."""
    text = " ".join(query.split())
    return RetrievalQueries(bm25=text, embed=text)


def candidate_count(limit: int) -> int:
    return max(MIN_CANDIDATES, limit * CANDIDATES_PER_HIT)


def rank(
    query: str, candidates: Sequence[ConversationCandidate], limit: int
) -> list[tuple[ConversationCandidate, float]]:
    """The best `limit` candidates, best first, each with its score; ties newest first."""
    fused: dict[tuple[str, str, int], float] = {}
    for field in ("bm25", "knn"):
        scored = [c for c in candidates if getattr(c, field) is not None]
        scored.sort(key=lambda c: -float(getattr(c, field)))
        for position, c in enumerate(scored):
            key = (c.doc.thread_id, c.doc.kind, c.doc.seq)
            fused[key] = fused.get(key, 0.0) + 1.0 / (RRF_K + position + 1)
    by_key = {(c.doc.thread_id, c.doc.kind, c.doc.seq): c for c in candidates}
    ordered = sorted(by_key, key=lambda k: (-fused.get(k, 0.0), -by_key[k].doc.created_at))
    return [(by_key[k], fused.get(k, 0.0)) for k in ordered[:limit]]
