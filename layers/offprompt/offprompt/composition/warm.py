"""Priming: what a warm environment of a function family holds, built before its first request.

The families' own priming is next to their services (`composition.conversation.prime_conversation`,
`composition.task_memory.prime_task_memory`), so a function imports only its own family's. Run by Lambda
SnapStart's before-snapshot hook (`register_snapstart`, docs/adr/0040), so that every environment
restored from the snapshot starts with it: the service objects, the boto3 clients (their service models loaded),
the cl100k_base tokenizer (ranks read and hash-checked, tiktoken's CoreBPE built) and the library's pydantic
models (built on first use otherwise, ADR 0016). The local stack runs the conversation priming at start, as a
long-lived warm environment. Nothing here runs at import time.
"""

from __future__ import annotations

from collections.abc import Callable


def prime_models() -> int:
    """Build the library's and the handlers' pydantic models whose build is deferred to first use; how many."""
    from pydantic import BaseModel

    built = 0
    pending: list[type[BaseModel]] = list(BaseModel.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.__module__.startswith(("offprompt.", "api_common.")) and not cls.__pydantic_complete__:
            cls.model_rebuild(force=True)
            built += 1
    return built


def register_snapstart(prime: Callable[[], None]) -> bool:
    """Prime with `prime` before Lambda snapshots this environment (SnapStart on); False, nothing done, elsewhere."""
    from offprompt.adapters.snapstart import register

    return register(prime, _restored)


def _restored() -> None:
    """After a restore: nothing beyond the adapter's own refresh (random seed, connections)."""
