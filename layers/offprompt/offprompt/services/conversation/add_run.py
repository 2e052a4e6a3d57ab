"""Use case: add-run — append a run to a thread (idempotent by run id), then prune what max_runs hides and, in
inline mode, summarize. Handler: functions/add_run (also the `/api/threads` messages route, `cloud_threads`).

Order: validate → count tokens (only when the tokenizer is loaded already or the run is metered; else the run is
stored uncounted and its readers count it, docs/adr/0040) → allocate a seq (DynamoDB counter) → offload a large
body to S3 (`RunBodyStore.put_body`) → put the run item (conditional on the run id) → best-effort follow-ups.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from offprompt.errors import Conflict, PayloadTooLarge
from offprompt.identifiers import canonical_hash, check_identifier
from offprompt.memory.conversation import estimated_tokens, run_token_counts
from offprompt.memory.run import Run
from offprompt.metering import Charge, Meter
from offprompt.ports import RunIdTaken, StoredRun, ThreadChanged, ThreadDeleting, ThreadState, WrongThreadKind
from offprompt.prompt.prompt_stack import to_message_content
from offprompt.services.conversation.context import Conversation, now_iso
from offprompt.services.conversation.errors import ThreadDeleted, ThreadKindMismatch
from offprompt.services.conversation.requests import RunIn
from offprompt.services.conversation.results import AddRunResult
from offprompt.services.conversation.summarize import summarize
from offprompt.validation import validate

logger = logging.getLogger("offprompt.services.conversation.service")

# max_runs pruning in add-run: at most this many old runs deleted per add, keeping this many extra.
PRUNE_BATCH = 5
PRUNE_SLACK = 8
DAY = 86_400


def request_hash(payload: Any) -> str:
    """SHA-256 of the request as sent, in canonical JSON (sorted keys, no whitespace)."""
    return canonical_hash(payload)


def add_run(
    conv: Conversation, tenant: str, thread_id: str, payload: Any, *, meter: Meter | None = None
) -> AddRunResult:
    """Append the run `payload` describes. `meter` (hosted mode): the run is charged to it in its own write."""
    return store_run(conv, tenant, thread_id, parse_run(thread_id, payload), meter=meter)


def parse_run(thread_id: str, payload: Any) -> ParsedRun:
    """Everything add-run checks before it writes: the request's shape (422), identifiers and the artifacts (400),
    the run's JSON and its idempotency hash. Pure: a request refused here has changed nothing."""
    validate(RunIn, payload)  # the request's shape first (422), as the HTTP route's Body() does
    check_identifier("thread_id", thread_id)
    if isinstance(payload, dict) and payload.get("id") is not None:
        check_identifier("run id", payload["id"])
    run = Run.from_dict(payload)
    for artifact in (run.input, run.output):  # each must be able to become a message, counted or not (ADR 0040)
        to_message_content(artifact)
    return ParsedRun(run, run.to_json(), request_hash(payload))


@dataclass(frozen=True)
class ParsedRun:
    run: Run
    body: str  # the run as stored (Griptape JSON)
    content_hash: str  # of the request as sent


def store_run(
    conv: Conversation, tenant: str, thread_id: str, parsed: ParsedRun, *, meter: Meter | None = None
) -> AddRunResult:
    run, body, content_hash = parsed.run, parsed.body, parsed.content_hash
    data = body.encode("utf-8")
    input_tokens, output_tokens, counted = add_counts(conv, run, meter)
    tokens = input_tokens + output_tokens if counted else estimated_tokens(len(data))
    blob_key = None
    if len(data) > conv.inline_run_bytes and conv.blobs is None:
        raise PayloadTooLarge(f"run is larger than {conv.inline_run_bytes} bytes and no bucket is configured")

    now = conv.clock()
    try:
        state = conv.runs.allocate_seq(tenant, thread_id, now_iso(now), tokens=tokens)
    except ThreadDeleting:
        raise ThreadDeleted(thread_id) from None
    except WrongThreadKind as wrong:
        raise ThreadKindMismatch(thread_id, wrong.kind) from None
    seq, generation = state.next_seq, state.generation or ""
    if len(data) > conv.inline_run_bytes:
        assert conv.blobs is not None
        blob_key = conv.blobs.put_body(tenant, thread_id, run.id, data, generation)
    stored = StoredRun(
        seq=seq,
        run_id=run.id,
        content_hash=content_hash,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        counted=counted,
        size=len(data),
        created_at=now_iso(now),
        run_json=None if blob_key else body,
        blob_key=blob_key,
        expires_at=int(now) + state.retention_days * DAY if state.retention_days else None,
        memory_type=state.memory_type,
    )
    # Hosted mode: the run's usage is charged in the run's own write, under the plan's limits (429, nothing stored).
    stored_in = "bytes_stored_s3" if blob_key else "bytes_stored_dynamodb"
    charge = (
        meter.charge(
            stored_bytes=stored.size,
            runs_added=1,
            tokens_stored=input_tokens + output_tokens,
            **{stored_in: stored.size},
        )
        if meter is not None
        else None
    )
    try:
        conv.runs.put_run(tenant, thread_id, stored, generation, charge=charge)
    except ThreadDeleting:
        if blob_key:
            conv.bodies.drop(blob_key)
        raise ThreadDeleted(thread_id) from None
    except RunIdTaken as taken:
        _burned(conv, tenant, thread_id)
        first = conv.runs.get_run(tenant, thread_id, taken.seq)
        if blob_key and (first is None or first.blob_key != blob_key):
            conv.bodies.drop(blob_key)  # ours is not the first run's body (an exact retry rewrote that one)
        stored_json = conv.bodies.run_json(first) if first is not None else None
        # The same request as sent, or exactly the run the first request stored (a client re-posting
        # what it got back): both are retries. Anything else under the same id is a conflict.
        if stored_json is None or (taken.content_hash != content_hash and stored_json != body):
            raise Conflict(
                f'run id "{run.id[:100]}" is already stored in this thread with different content',
                details={"seq": taken.seq},
            ) from None
        return AddRunResult(json.loads(stored_json), taken.seq, replayed=True)
    except Exception:
        _burned(conv, tenant, thread_id)
        if blob_key:
            conv.bodies.drop(blob_key)
        raise

    if meter is not None and charge is not None:
        meter.settle(charge)
    _after_add(conv, state, seq)
    return AddRunResult(run.to_dict(), seq, replayed=False)


def add_counts(conv: Conversation, run: Run, meter: Meter | None) -> tuple[int, int, bool]:
    """(input tokens, output tokens, counted): counted when it is cheap — the process's tokenizer is loaded already
    (a warm environment, or one restored from a SnapStart snapshot primed with it) — or when the tokens are charged
    (hosted mode meters `tokens_stored`). Otherwise (0, 0, False): add-run does not build the tokenizer (~120 ms of
    a fresh environment's first request) for counts that only prompt-stack and list-runs read; they count a run
    stored uncounted themselves, once per environment and run (docs/adr/0040)."""
    if meter is None and conv.count_on_add is not None and not conv.count_on_add():
        return 0, 0, False
    return (*run_token_counts(run, conv.tokenizer), True)


#: Runs per batch of `store_batch`: two items each, plus the thread's counts and the charge, in one transaction of
#: at most 100 items; and at most this many bytes of run JSON (a transaction carries at most 4 MB).
BATCH_RUNS = 32
BATCH_BYTES = 3_000_000


def run_batches(parsed: list[ParsedRun]) -> list[list[ParsedRun]]:
    """`parsed` in order, cut into batches `store_batch` can write in one transaction."""
    batches: list[list[ParsedRun]] = []
    size = 0
    for run in parsed:
        length = len(run.body.encode("utf-8"))
        if not batches or len(batches[-1]) >= BATCH_RUNS or size + length > BATCH_BYTES:
            batches.append([])
            size = 0
        batches[-1].append(run)
        size += length
    return batches


def store_batch(
    conv: Conversation, tenant: str, thread_id: str, batch: list[ParsedRun], *, meter: Meter | None = None
) -> list[AddRunResult]:
    """Append the runs of `batch` in order, as one seq allocation and one transaction (all or none) instead of two
    writes per run. A batch holding a run id already stored (a retry, or a conflicting reuse) is stored run by run
    instead, each with add-run's own answer (replayed, or 409)."""
    counted = [(p, *add_counts(conv, p.run, meter), p.body.encode("utf-8")) for p in batch]
    if conv.blobs is None and any(len(data) > conv.inline_run_bytes for *_, data in counted):
        raise PayloadTooLarge(f"a run is larger than {conv.inline_run_bytes} bytes and no bucket is configured")
    now = conv.clock()
    tokens = sum(i + o if exact else estimated_tokens(len(data)) for _, i, o, exact, data in counted)
    try:
        state = conv.runs.allocate_seq(tenant, thread_id, now_iso(now), tokens=tokens, count=len(batch))
    except ThreadDeleting:
        raise ThreadDeleted(thread_id) from None
    except WrongThreadKind as wrong:
        raise ThreadKindMismatch(thread_id, wrong.kind) from None
    first, generation = state.next_seq - len(batch) + 1, state.generation or ""
    expires = int(now) + state.retention_days * DAY if state.retention_days else None
    stored: list[StoredRun] = []
    bodies: list[str] = []
    try:
        for k, (parsed, input_tokens, output_tokens, exact, data) in enumerate(counted):
            blob_key = None
            if len(data) > conv.inline_run_bytes:
                assert conv.blobs is not None
                blob_key = conv.blobs.put_body(tenant, thread_id, parsed.run.id, data, generation)
                bodies.append(blob_key)
            stored.append(
                StoredRun(
                    seq=first + k,
                    run_id=parsed.run.id,
                    content_hash=parsed.content_hash,
                    input_tokens=input_tokens,
                    output_tokens=output_tokens,
                    counted=exact,
                    size=len(data),
                    created_at=now_iso(now),
                    run_json=None if blob_key else parsed.body,
                    blob_key=blob_key,
                    expires_at=expires,
                    memory_type=state.memory_type,
                )
            )
        charge = run_charge(meter, stored, tokens)
        conv.runs.put_runs(tenant, thread_id, stored, generation, charge=charge)
    except ThreadDeleting:
        _drop(conv, bodies)
        raise ThreadDeleted(thread_id) from None
    except RunIdTaken:  # a run of the batch is stored already: add-run's answer for each, one by one
        _burned(conv, tenant, thread_id, len(batch))
        _drop(conv, bodies)
        return [store_run(conv, tenant, thread_id, parsed, meter=meter) for parsed in batch]
    except Exception:
        _burned(conv, tenant, thread_id, len(batch))
        _drop(conv, bodies)
        raise
    if meter is not None and charge is not None:
        meter.settle(charge)
    _after_add(conv, state, state.next_seq)
    return [AddRunResult(p.run.to_dict(), r.seq, replayed=False) for p, r in zip(batch, stored, strict=True)]


def run_charge(meter: Meter | None, stored: list[StoredRun], tokens: int) -> Charge | None:
    """What storing `stored` (runs or session items) charges the tenant: committed in their own transaction."""
    if meter is None:
        return None
    in_s3 = sum(r.size for r in stored if r.blob_key)
    in_dynamodb = sum(r.size for r in stored if not r.blob_key)
    return meter.charge(
        stored_bytes=in_s3 + in_dynamodb,
        runs_added=len(stored),
        tokens_stored=tokens,
        bytes_stored_s3=in_s3,
        bytes_stored_dynamodb=in_dynamodb,
    )


def _drop(conv: Conversation, keys: list[str]) -> None:
    for key in keys:
        conv.bodies.drop(key)


def _after_add(conv: Conversation, state: ThreadState, seq: int) -> None:
    """Best-effort follow-ups of a committed add: never fail the add."""
    try:
        prune(conv, state, seq)
    except Exception:
        logger.exception("max_runs pruning failed (retried on a later add)")
    if (
        conv.summarize_mode == "inline"
        and state.memory_type == "summary"
        and seq - state.summary_through_seq > state.offset
    ):
        try:
            summarize(conv, state.tenant, state.thread_id)
        except Exception:
            logger.exception("inline summarization failed; the runs stay in the prompt")


def prune(conv: Conversation, state: ThreadState, seq: int) -> int:
    """Delete up to PRUNE_BATCH runs that max_runs certainly hides (the oldest), with their ids and blobs.

    `seq - s - burned_seqs` is a lower bound of the runs newer than s, so a run is deleted only when at
    least `max_runs + PRUNE_SLACK` runs are certainly newer. Summary memory never deletes a run that the
    summary does not cover yet.
    """
    if state.max_runs is None:
        return 0
    # Only the thread's own runs are deleted (a fork's shared runs are its ancestors'), and while live forks read
    # this thread's runs, none at or below `fork_hold` (docs/adr/0037). The state is add's: read by its allocation.
    lo = state.fork_hold + 1 if state.fork_count > 0 else 0
    hi = seq - state.max_runs - state.burned_seqs - PRUNE_SLACK
    if state.memory_type == "summary":
        hi = min(hi, state.summary_through_seq)
    if hi < max(lo, 1):
        return 0
    old, _ = conv.runs.page_runs(
        state.tenant,
        state.thread_id,
        lo=lo,
        hi=hi,
        newest_first=False,
        limit=PRUNE_BATCH,
        now_epoch=0,
        keys_only=True,
    )
    if not old:
        return 0
    fresh = conv.runs.get_thread(state.tenant, state.thread_id)  # a fork made since the add's allocation holds runs
    if fresh is None:
        return 0
    if fresh.fork_count > 0:
        old = [r for r in old if r.seq > fresh.fork_hold]
        if not old:
            return 0
    try:  # conditioned on the version read: a fork since then (docs/concurrency.md) leaves the runs to a later add
        conv.runs.delete_runs(state.tenant, state.thread_id, old, version=fresh.version)
    except ThreadChanged:
        return 0
    for r in old:
        if r.blob_key:
            conv.bodies.drop(r.blob_key)
    return len(old)


def _burned(conv: Conversation, tenant: str, thread_id: str, count: int = 1) -> None:
    try:
        conv.runs.record_burned(tenant, thread_id, count)
    except Exception:
        logger.exception("could not record a burned sequence number")
