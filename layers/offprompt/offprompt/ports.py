"""Ports: what the services need from the outside world, as Protocols. Adapters implement them.

Services take ports in their constructors; tests may pass in-memory fakes for pure logic, but every adapter
is also tested against the real thing (moto for DynamoDB/S3, the local OpenSearch node, tiktoken's BPE).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from offprompt.artifacts import TextArtifact


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


class BlobStore(Protocol):
    """Opaque bytes by key (S3). Keys are built by the services from digests, never from raw client input."""

    def put(self, key: str, data: bytes, *, content_type: str = "application/octet-stream") -> None: ...

    def get(self, key: str) -> bytes: ...

    def size(self, key: str) -> int | None:
        """The object's size, or None when it does not exist."""
        ...

    def delete_prefix(self, prefix: str) -> int: ...

    def presign_get(self, key: str, expires_in: int) -> str: ...

    def presign_put(self, key: str, expires_in: int) -> str: ...


@dataclass(frozen=True)
class TextScope:
    """Where a text lives: one namespace of one memory of one tenant."""

    tenant: str
    memory: str
    namespace: str


@dataclass(frozen=True)
class SearchHit:
    artifact_id: str
    position: int
    chunk: int
    text: str
    score: float


SearchMode = Literal["bm25", "knn", "hybrid"]


class TextStore(Protocol):
    """Text artifacts split into token-bounded chunks, one document per chunk (OpenSearch)."""

    def store(self, scope: TextScope, start_position: int, artifacts: Sequence[TextArtifact]) -> list[int]:
        """Index artifacts at positions start_position, start_position + 1, ...; return each one's chunk count.

        Idempotent: document ids are deterministic (tenant, memory, namespace, position, chunk), so a retry
        overwrites rather than duplicates. Visible to `load` as soon as it returns.
        """
        ...

    def load(self, scope: TextScope, layout: Sequence[tuple[int, int]]) -> list[TextArtifact]:
        """The artifacts at the given (position, chunk_count) pairs, in that order, byte-exact."""
        ...

    def search(self, scope: TextScope, query: str, top_k: int, mode: SearchMode) -> list[SearchHit]: ...

    def delete(self, scope: TextScope) -> int:
        """Delete every document of the namespace; return how many were deleted."""
        ...
