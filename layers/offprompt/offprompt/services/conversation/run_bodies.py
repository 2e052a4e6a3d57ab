"""Run bodies: inline in the run item, or offloaded to S3 when larger than `inline_run_bytes` (where: the storage
layout, behind `RunBodyStore.put_body`). Reading a body back is the run-body store's (`Conversation.bodies.run_json`,
adapters/s3.S3RunBodies); decoding it is here, with a cache of decoded runs."""

from __future__ import annotations

import functools

from offprompt.memory.run import Run

# Decoded runs, by their stored JSON (the content itself, so a hit is always the same run). A warm prompt-stack
# reads mostly the runs the previous one read; decoding them again was a third of its CPU. Treat as immutable.
DECODED_RUNS_CACHED = 1024


@functools.lru_cache(maxsize=DECODED_RUNS_CACHED)
def decode_stored_run(run_json: str) -> Run:
    return Run.from_stored_json(run_json)
