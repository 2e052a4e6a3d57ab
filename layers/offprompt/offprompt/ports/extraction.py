"""Extraction strategies (docs/adr/0051): the model extraction asks, each thread's status, the deferrer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class ModelRequest:
    """One extraction's question: the prompt (system, user) an HTTP model reads, and the same content structured,
    for the local rule-based stand-in: the new turns (run id, text) and what the namespace holds (key, text)."""

    system: str
    user: str
    turns: tuple[tuple[str, str], ...]
    known: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ModelAnswer:
    text: str
    input_tokens: int = 0
    output_tokens: int = 0


class ModelUnavailable(Exception):
    """The model did not answer (timeout, connection refused, 5xx/429 after the retries): nothing was decided."""


class ExtractionModel(Protocol):
    """The model extraction asks (`OFFPROMPT_EXTRACTION_MODEL`: `rules` | `openai:<model>` | `bedrock:<id>`)."""

    label: str

    def complete(self, request: ModelRequest) -> ModelAnswer:
        """The model's answer text (the operations contract is checked by the caller); ModelUnavailable."""
        ...


@dataclass
class ExtractionStatus:
    """Where one strategy stands on one thread."""

    thread_id: str
    strategy: str
    processed_through_seq: int = 0
    records_written: int = 0
    last_error: str | None = None
    paused: str | None = None  # why extraction is paused (the plan's extraction tokens), None when it is not
    failures: int = 0  # consecutive failed attempts (model down, malformed answers): the retry's backoff
    updated_at: str | None = None
    lease: str | None = None  # the attempt holding the thread (until `lease_until`, epoch seconds)
    lease_until: float = 0.0


class ExtractionLeaseTaken(Exception):
    """Another attempt holds the (thread, strategy), or the status moved since it was read."""


class ExtractionStore(Protocol):
    """A tenant's strategies and each thread's extraction status (DynamoDB, the tenant's `XTR#` partition)."""

    def put_strategy(self, tenant: str, strategy: dict[str, Any], *, max_strategies: int) -> dict[str, Any]:
        """Create or replace; `created_at` kept from the stored one. InvalidInput past `max_strategies`."""
        ...

    def get_strategy(self, tenant: str, name: str) -> dict[str, Any] | None: ...

    def list_strategies(self, tenant: str) -> list[dict[str, Any]]: ...

    def delete_strategy(self, tenant: str, name: str) -> bool: ...

    def statuses(self, tenant: str, thread_id: str) -> dict[str, ExtractionStatus]: ...

    def claim(self, tenant: str, status: ExtractionStatus, lease: str, until: float, now: float) -> None:
        """Take the (thread, strategy) for one attempt: conditioned on no live lease and on the status being the one
        read (its `processed_through_seq`); ExtractionLeaseTaken otherwise."""
        ...

    def save(self, tenant: str, status: ExtractionStatus, *, lease: str | None) -> None:
        """Write the status (releasing the lease); with `lease`, only while that lease holds (else
        ExtractionLeaseTaken and nothing written)."""
        ...


class Deferrer(Protocol):
    """Ask again later: a delayed message to the extraction queue (SQS), at most 15 minutes ahead."""

    def defer(self, message: dict[str, Any], seconds: float) -> None: ...
