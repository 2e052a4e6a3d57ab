"""The models the services call: a tokenizer, a summarizer (an LLM call), an embedder."""

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
