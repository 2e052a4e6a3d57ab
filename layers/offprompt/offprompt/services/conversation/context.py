"""What every conversation use case takes: the ports (runs in DynamoDB, large run bodies in S3, the tokenizer,
the summarizer) and the settings that shape them. Built by `offprompt.composition.conversation`.

`bodies` reads any run's body (`run_json`) and drops orphaned ones: the S3 run-body store when a bucket is set
(`blobs`), else `InlineRunBodies` (every run is inline: add-run refuses larger ones)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Literal

from offprompt.errors import DependencyUnavailable
from offprompt.ports import RunBodyStore, RunStore, StoredRun, Summarizer, Tokenizer

# Runs whose JSON is larger than this go to S3 (DynamoDB items stop at 400 KB; moto at 405,000 B).
INLINE_RUN_BYTES = 350_000


class Conversation:
    def __init__(
        self,
        runs: RunStore,
        tokenizer: Tokenizer,
        *,
        blobs: RunBodyStore | None = None,
        summarizer: Summarizer | None = None,
        summarize_mode: Literal["inline", "async", "off"] = "async",
        clock: Callable[[], float] = time.time,
        inline_run_bytes: int = INLINE_RUN_BYTES,
        encodings: Callable[[str], Tokenizer] | None = None,
        count_on_add: Callable[[], bool] | None = None,
    ) -> None:
        self.runs = runs
        self.tokenizer = tokenizer  # counts stored at write time (ADR 0013: eager cl100k_base) when cheap (0040)
        # Whether add-run counts a run now (True) or stores it uncounted for its readers to count (docs/adr/0040):
        # production asks whether the tokenizer is loaded already; None: always count.
        self.count_on_add = count_on_add
        self.encodings = encodings  # other tiktoken encodings, built on demand for prompt-stack
        self.blobs = blobs
        self.bodies: RunBodyStore | InlineRunBodies = blobs if blobs is not None else InlineRunBodies()
        self.summarizer = summarizer
        self.summarize_mode = summarize_mode
        self.clock = clock
        self.inline_run_bytes = inline_run_bytes


class InlineRunBodies:
    """The run bodies of a deployment without a bucket: all inline in their items."""

    def run_json(self, stored: StoredRun) -> str:
        if stored.run_json is None:
            raise DependencyUnavailable(f"run {stored.seq} has no body")
        return stored.run_json

    def drop(self, key: str) -> None:
        """Nothing is offloaded without a bucket: nothing to drop."""

    def drop_thread(self, tenant: str, thread_id: str) -> None:
        """Nothing is offloaded without a bucket: nothing to drop."""


def now_iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
