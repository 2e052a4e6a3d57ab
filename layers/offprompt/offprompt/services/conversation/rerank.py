"""Conversation search's optional rerank step (docs/adr/0068, issue 31 item 3): part of the search use case
(`search.py`), off unless a rerank model is set (`OFFPROMPT_RERANK_MODEL_ID`).

The fused ranking's best `rerank_count(limit)` candidates (`recall.candidate_count(limit)`, at most the model's
`max_texts`) are sent with their text as the index holds it (`rerank_text`: both sides, RERANK_TEXT_CHARS at most)
and answered in the model's order, each with its `rerank_score`; the rest follow in fused order. Every hit is
still checked against DynamoDB afterwards, in that order. When the model fails the search answers the fused order
(`Reranked.ok` False: a log line here, a metric and the header `X-Offprompt-Reranked: false` in the handlers).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from offprompt.errors import DependencyUnavailable
from offprompt.limits import RERANK_TEXT_CHARS
from offprompt.memory import recall
from offprompt.ports import ConversationCandidate, ConversationDoc, Reranker

logger = logging.getLogger("offprompt.services.conversation.rerank")

Ranked = list[tuple[ConversationCandidate, float]]
DocKey = tuple[str, str, int]  # (thread, kind, seq): one indexed document


@dataclass
class Reranked:
    ranked: Ranked
    #: The model's score of each candidate it scored.
    scores: dict[DocKey, float] = field(default_factory=dict)
    #: True: the model ordered the best candidates; False: it failed and the fused order stands.
    ok: bool = True


def doc_key(doc: ConversationDoc) -> DocKey:
    return (doc.thread_id, doc.kind, doc.seq)


def rerank_text(doc: ConversationDoc) -> str:
    """What the model reads of a candidate: the user's side, then the other side, cut to RERANK_TEXT_CHARS."""
    return f"{doc.input_text}\n{doc.output_text}".strip()[:RERANK_TEXT_CHARS]


def rerank_count(limit: int, max_texts: int) -> int:
    """How many of the fused ranking's best candidates the model reorders for a search answering `limit` hits."""
    return min(max_texts, recall.candidate_count(limit))


def reordered(ranked: Ranked, order: Sequence[tuple[int, float]]) -> Reranked:
    """`ranked` with the candidates `order` names (indexes into it, best first) moved to the front in that order,
    the rest after them in their own order."""
    chosen = [i for i, _ in order]
    taken = set(chosen)
    out = [ranked[i] for i in chosen] + [c for i, c in enumerate(ranked) if i not in taken]
    return Reranked(out, {doc_key(ranked[i][0].doc): score for i, score in order})


def rerank(reranker: Reranker, query: str, ranked: Ranked, limit: int) -> Reranked:
    """The fused ranking reordered by the model; unchanged (`ok` False) when the model fails."""
    top = ranked[: rerank_count(limit, reranker.max_texts)]
    if not top:
        return Reranked(ranked)
    try:
        order = reranker.rerank(query, [rerank_text(c.doc) for c, _ in top], len(top))
    except DependencyUnavailable as exc:
        logger.warning("conversation search: the rerank model failed, answering the fused order (%s)", exc)
        return Reranked(ranked, ok=False)
    return reordered(ranked, order)
