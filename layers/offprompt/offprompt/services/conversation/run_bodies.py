"""Run bodies: inline in the run item, or offloaded to S3 when larger than `inline_run_bytes` (blob offload:
`body_key` names the object; `thread_prefix` holds all of a thread's). Reading a body back is the run-body store's
(`Conversation.bodies.run_json`, adapters/s3.S3RunBodies); decoding it is here, with a cache of decoded runs."""

from __future__ import annotations

import functools
import hashlib

from offprompt.identifiers import digest
from offprompt.memory.run import Run

# Decoded runs, by their stored JSON (the content itself, so a hit is always the same run). A warm prompt-stack
# reads mostly the runs the previous one read; decoding them again was a third of its CPU. Treat as immutable.
DECODED_RUNS_CACHED = 1024


@functools.lru_cache(maxsize=DECODED_RUNS_CACHED)
def decode_stored_run(run_json: str) -> Run:
    return Run.from_stored_json(run_json)


def thread_prefix(tenant: str, thread_id: str) -> str:
    """S3 prefix of everything a thread owns (delete removes by prefix)."""
    return f"t/{digest(tenant)}/threads/{digest(tenant, thread_id)}/"


def body_key(tenant: str, thread_id: str, run_id: str, data: bytes, generation: str) -> str:
    """Where a large run's body goes in S3 (add-run puts it there)."""
    # Named by the bytes it holds (a retry's generated ids make other bytes, so it never overwrites the
    # first run's body) and the generation (a straggler never touches a later incarnation's body).
    body_hash = hashlib.sha256(data).hexdigest()
    return f"{thread_prefix(tenant, thread_id)}runs/{digest(run_id, body_hash, generation)}.json"
