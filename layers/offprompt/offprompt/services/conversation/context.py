"""What every conversation use case takes: the ports (runs in DynamoDB, large run bodies in S3, the tokenizer,
the summarizer) and the settings that shape them. Built by `offprompt.composition.conversation`."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Literal

from offprompt.ports import BlobStore, RunStore, Summarizer, Tokenizer

# Runs whose JSON is larger than this go to S3 (DynamoDB items stop at 400 KB; moto at 405,000 B).
INLINE_RUN_BYTES = 350_000


class Conversation:
    def __init__(
        self,
        runs: RunStore,
        tokenizer: Tokenizer,
        *,
        blobs: BlobStore | None = None,
        summarizer: Summarizer | None = None,
        summarize_mode: Literal["inline", "async", "off"] = "async",
        clock: Callable[[], float] = time.time,
        inline_run_bytes: int = INLINE_RUN_BYTES,
        encodings: Callable[[str], Tokenizer] | None = None,
    ) -> None:
        self.runs = runs
        self.tokenizer = tokenizer  # counts stored at write time (ADR 0013: eager cl100k_base)
        self.encodings = encodings  # other tiktoken encodings, built on demand for prompt-stack
        self.blobs = blobs
        self.summarizer = summarizer
        self.summarize_mode = summarize_mode
        self.clock = clock
        self.inline_run_bytes = inline_run_bytes


def now_iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
