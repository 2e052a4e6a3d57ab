"""Amazon Bedrock's Rerank API (`bedrock-agent-runtime`, operation Rerank) as the `Reranker` port: conversation
search's optional rerank step (docs/adr/0068). The client is injected (tests: a scripted server) or built lazily.

One call per search: the query, and the texts as INLINE TEXT documents, at most `max_texts` (100: Bedrock bills a
rerank "query" per 100 document chunks; the API itself takes 1,000 documents and 32,000 characters a text: longer
ones are cut here, though the caller sends far less). A throttled, refused or failed call is DependencyUnavailable
(`aws_call`: "Bedrock rerank failed: <code>"), and so is an answer that is not one relevance score per index sent
(botocore's own parser raises AttributeError or TypeError on some malformed bodies: caught here).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from offprompt.errors import DependencyUnavailable
from offprompt.limits import RERANK_MAX_TEXTS

from .aws_errors import aws_call
from .clients import aws_client

#: The API's bound on a query's and a document's text (botocore's service model: RerankTextDocument.text).
API_TEXT_CHARS = 32_000
UNREADABLE = "Bedrock rerank answered an unreadable result"


class BedrockReranker:
    """`model` is a model id (`amazon.rerank-v1:0`, `cohere.rerank-v3-5:0`: the foundation model's ARN in the
    client's region is sent) or a model ARN (sent as is)."""

    max_texts = RERANK_MAX_TEXTS

    def __init__(self, model: str, client: Any | None = None) -> None:
        self.model = model
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = aws_client("bedrock-agent-runtime")
        return self._client

    def model_arn(self) -> str:
        if self.model.startswith("arn:"):
            return self.model
        meta = self.client.meta
        return f"arn:{meta.partition}:bedrock:{meta.region_name}::foundation-model/{self.model}"

    def rerank(self, query: str, texts: Sequence[str], top_n: int) -> list[tuple[int, float]]:
        if not texts or top_n < 1:
            return []
        if len(texts) > self.max_texts:
            raise ValueError(f"at most {self.max_texts} texts a call, not {len(texts)}")
        sources = [
            {"type": "INLINE", "inlineDocumentSource": {"type": "TEXT", "textDocument": {"text": _text(t)}}}
            for t in texts
        ]
        config = {"numberOfResults": min(top_n, len(texts)), "modelConfiguration": {"modelArn": self.model_arn()}}
        try:
            with aws_call("Bedrock rerank"):
                out = self.client.rerank(
                    queries=[{"type": "TEXT", "textQuery": {"text": _text(query)}}],
                    sources=sources,
                    rerankingConfiguration={"type": "BEDROCK_RERANKING_MODEL", "bedrockRerankingConfiguration": config},
                )
        except (AttributeError, TypeError, ValueError, KeyError) as exc:  # botocore's parser on a malformed body
            raise DependencyUnavailable(UNREADABLE) from exc
        return scores_of(out, len(texts))


def _text(text: str) -> str:
    """A text the API takes: 1 to API_TEXT_CHARS characters."""
    return text[:API_TEXT_CHARS] if text.strip() else "-"


def scores_of(out: Any, sent: int) -> list[tuple[int, float]]:
    """The answer's (index, relevance score) pairs, best first (ties: the order sent); DependencyUnavailable when it
    is not a list of distinct indexes into what was sent, each with a finite score."""
    results = out.get("results") if isinstance(out, dict) else None
    if not isinstance(results, list):
        raise DependencyUnavailable("Bedrock rerank answered no results")
    pairs: dict[int, float] = {}
    for result in results:
        index = result.get("index") if isinstance(result, dict) else None
        score = result.get("relevanceScore") if isinstance(result, dict) else None
        if (
            not isinstance(index, int)
            or isinstance(index, bool)
            or not 0 <= index < sent
            or index in pairs
            or not isinstance(score, int | float)
            or isinstance(score, bool)
            or not math.isfinite(score)
        ):
            raise DependencyUnavailable(UNREADABLE)
        pairs[index] = float(score)
    return sorted(pairs.items(), key=lambda p: (-p[1], p[0]))
