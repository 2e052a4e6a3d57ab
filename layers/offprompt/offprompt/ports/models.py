"""The models the services call: a tokenizer, a summarizer (an LLM call), an embedder, a reranker."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Tokenizer(Protocol):
    encoding_name: str

    def count_tokens(self, text: str) -> int: ...

    def encode(self, text: str) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


class Summarizer(Protocol):
    """Turns Griptape's rendered summarize-conversation prompt into a summary (an LLM call)."""

    def summarize(self, prompt: str) -> str: ...


class Embedder(Protocol):
    dimensions: int

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


class Reranker(Protocol):
    """Orders texts by their relevance to a query (a cross-encoder model; conversation search's optional step,
    docs/adr/0068)."""

    #: The most texts one call takes (the caller sends at most this many).
    max_texts: int

    def rerank(self, query: str, texts: Sequence[str], top_n: int) -> list[tuple[int, float]]:
        """The best `top_n` texts, best first: each its index into `texts` and the model's relevance score.
        DependencyUnavailable when the model cannot answer (throttled, unavailable, an unreadable answer)."""
        ...
