"""Use case: the runner — a thread's new runs, through each of the tenant's enabled strategies, into records
(docs/adr/0051). Handler: functions/extraction (the extraction queue: memory events `run.added` / `items.appended`
from the bus, and the runner's own delayed checks).

For each enabled strategy, top to bottom:
1. its namespace, the template filled from the thread (`actor_id`, `thread_id`, the strategy's name); a thread without
   what it needs is skipped, and its status says why;
2. the runs after the last one processed (at most MAX_RUNS_PER_EXTRACTION); the trigger: at least `after_runs`, the
   newest `idle_seconds` old (else: a delayed check, or the next run's event);
3. the plan's extraction tokens (hosted): past them, paused with that reason in the status, nothing read or lost;
4. the (thread, strategy) claimed for this attempt (conditioned on the processed seq that was read: a replayed event,
   or a second attempt, finds the range taken or processed and does nothing);
5. what the namespace already holds (the records' search: newest first, and by text when there are many), the prompt
   of the strategy's type, the model; its tokens metered; its answer validated whole (garbage writes nothing);
6. each operation as a record write through the records' own use cases: `add`/`update` a put (a new version; history
   keeps the old one), `delete` a tombstone, `noop` nothing; an add of what the key already says is not written;
   every value carries its provenance (thread, run ids and seqs, strategy, model, time, the batch); a write whose
   batch the current version already names was this range's, written before a crash: skipped;
7. the status: processed through the range's last seq, records written, no error; the lease released.
A model that does not answer or answers garbage leaves the range unprocessed (the status says why) and asks again
later with backoff, MAX_FAILURES times; the next run's event asks again too.
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass, replace
from datetime import datetime
from itertools import islice
from typing import Any

from offprompt.errors import InvalidInput, OffpromptError, QuotaExceeded
from offprompt.events import EXTRACTION_COMPLETED, EXTRACTION_FAILED
from offprompt.identifiers import check_identifier, digest
from offprompt.limits import MAX_QUERY_CHARS
from offprompt.memory.extraction import (
    MAX_EXISTING,
    MAX_RUNS_PER_EXTRACTION,
    Known,
    MalformedAnswer,
    Operation,
    Strategy,
    Turn,
    Unresolved,
    build_prompt,
    due_in,
    parse_operations,
    render_namespace,
    strategy_of,
    turn_text,
)
from offprompt.memory.records import is_live, iso, millis
from offprompt.metering import Meter, Plan, utc_day
from offprompt.ports import (
    ExtractionLeaseTaken,
    ExtractionStatus,
    MemoryEvent,
    ModelRequest,
    ModelUnavailable,
    StoredRun,
    ThreadState,
)
from offprompt.services.extraction.context import Extractions
from offprompt.services.records.delete import delete_record
from offprompt.services.records.put import put_record
from offprompt.services.records.requests import RecordPut, RecordSearch
from offprompt.services.records.search import search_records

logger = logging.getLogger("offprompt.services.extraction.run")

#: How long one attempt holds a (thread, strategy): longer than the function's timeout.
LEASE_SECONDS = 300.0
#: Consecutive failures (model down, garbage) after which the runner stops asking again by itself.
MAX_FAILURES = 6
#: The first retry's delay; doubled per failure, at most the queue's longest delay.
RETRY_SECONDS = 30.0
MAX_DELAY_SECONDS = 900.0


@dataclass(frozen=True)
class Outcome:
    what: str
    wait: float | None = None  # seconds until it should be asked again (None: the next run's event will)
    written: int = 0


def extract_thread(ext: Extractions, tenant: str, thread_id: str) -> dict[str, Any]:
    """Every enabled strategy of the tenant on the thread; a delayed check at the soonest wait any of them needs.
    Returns `{"thread_id", "strategies": {name: {"outcome", "written", "wait"}}}`."""
    check_identifier("thread_id", thread_id)
    thread = ext.runs.get_thread(tenant, thread_id)
    strategies = [strategy_of(s) for s in ext.store.list_strategies(tenant)]
    outcomes: dict[str, Any] = {}
    if thread is None:
        return {"thread_id": thread_id, "strategies": outcomes}
    statuses = ext.store.statuses(tenant, thread_id)
    waits: list[float] = []
    for strategy in strategies:
        if not strategy.enabled:
            continue
        status = statuses.get(strategy.name) or ExtractionStatus(thread_id, strategy.name)
        outcome = _extract(ext, tenant, thread, strategy, status)
        outcomes[strategy.name] = {"outcome": outcome.what, "written": outcome.written, "wait": outcome.wait}
        if outcome.wait is not None:
            waits.append(outcome.wait)
    if waits and ext.deferrer is not None:
        ext.deferrer.defer({"tenant": tenant, "thread_id": thread_id}, min(max(1.0, min(waits)), MAX_DELAY_SECONDS))
    return {"thread_id": thread_id, "strategies": outcomes}


def namespace_of(strategy: Strategy, thread: ThreadState) -> tuple[str, ...]:
    """The strategy's namespace on this thread (Unresolved / InvalidInput when it has none)."""
    values = {"actor_id": thread.actor_id, "thread_id": thread.thread_id, "strategy": strategy.name}
    return render_namespace(strategy, values)


def _extract(
    ext: Extractions, tenant: str, thread: ThreadState, strategy: Strategy, status: ExtractionStatus
) -> Outcome:
    now = ext.clock()
    try:
        namespace = namespace_of(strategy, thread)
    except (Unresolved, InvalidInput) as exc:
        return _note(ext, tenant, status, f"skipped: {_reason(exc)}", "skipped")
    runs = list(
        islice(
            ext.runs.iter_full(
                tenant,
                thread.thread_id,
                lo=status.processed_through_seq + 1,
                now_epoch=int(now),
                ancestry=thread.ancestry,
            ),
            MAX_RUNS_PER_EXTRACTION,
        )
    )
    if not runs:
        return Outcome("up to date")
    wait = due_in(len(runs), now - _epoch(runs[-1].created_at, now), strategy)
    if wait is None:
        return Outcome("waiting for runs")
    if wait > 0:
        return Outcome("waiting for the conversation to settle", wait)
    paused = _over_plan(ext, tenant, now)
    if paused is not None:
        return _note(ext, tenant, status, None, "paused", paused=paused)
    lease = uuid.uuid4().hex
    try:
        ext.store.claim(tenant, status, lease, now + LEASE_SECONDS, now)
    except ExtractionLeaseTaken:
        return Outcome("taken by another attempt")
    try:
        return _extract_claimed(ext, tenant, thread, strategy, status, namespace, runs, lease)
    except Exception as exc:  # a store or index failing mid-way: what was written names its batch (no rewrite)
        logger.exception("extraction failed; the range stays unprocessed")
        return _failed(ext, tenant, status, lease, f"failed: {_reason(exc)}")


def _extract_claimed(
    ext: Extractions,
    tenant: str,
    thread: ThreadState,
    strategy: Strategy,
    status: ExtractionStatus,
    namespace: tuple[str, ...],
    runs: list[StoredRun],
    lease: str,
) -> Outcome:
    turns = [Turn(r.run_id, r.seq, turn_text(json.loads(ext.bodies.run_json(r)))) for r in runs]
    turns = [t for t in turns if t.text.strip()]
    written = 0
    if turns:
        known = _known(ext, tenant, namespace, turns)
        system, user = build_prompt(strategy, turns, known)
        request = ModelRequest(
            system, user, tuple((t.run_id, t.text) for t in turns), tuple((k.key, k.text) for k in known)
        )
        model = ext.model
        try:
            answer = model.complete(request)
        except ModelUnavailable as exc:
            return _failed(ext, tenant, status, lease, f"model unavailable: {_reason(exc)}")
        _meter(ext, tenant, answer.input_tokens + answer.output_tokens)
        try:
            operations = parse_operations(answer.text)
        except MalformedAnswer as exc:
            return _failed(ext, tenant, status, lease, str(exc))
        provenance = {
            "thread_id": thread.thread_id,
            "strategy": strategy.name,
            "model": model.label,
            "first_seq": runs[0].seq,
            "last_seq": runs[-1].seq,
            "batch": digest(tenant, thread.thread_id, strategy.name, runs[0].seq, runs[-1].seq)[:32],
        }
        try:
            written = _apply(ext, tenant, namespace, operations, [t.run_id for t in turns], provenance)
        except QuotaExceeded as exc:  # the plan's stored bytes: the range stays pending (what it wrote is skipped)
            return _failed(ext, tenant, status, lease, f"over the plan: {exc}; the runs stay pending")
    done = replace(
        status,
        processed_through_seq=runs[-1].seq,
        records_written=status.records_written + written,
        last_error=None,
        paused=None,
        failures=0,
        updated_at=iso(millis(ext.clock())),
    )  # a copy: a save that fails leaves the status as read (what `_failed` then writes)
    try:
        ext.store.save(tenant, done, lease=lease)
    except ExtractionLeaseTaken:  # the lease ran out and another attempt took over: its status stands
        return Outcome("lease lost", written=written)
    _publish(ext, tenant, EXTRACTION_COMPLETED, done, records_written=written, namespace=list(namespace))
    return Outcome("extracted", written=written)


def _known(ext: Extractions, tenant: str, namespace: tuple[str, ...], turns: list[Turn]) -> list[Known]:
    """What the namespace already holds: its newest records (DynamoDB: no index refresh to wait for), and, when it
    holds more than those, the ones whose text matches the new turns best."""
    newest = search_records(
        ext.records, tenant, RecordSearch(namespace_prefix=list(namespace), limit=MAX_EXISTING, refresh_ttl=False)
    )["items"]
    found = {(tuple(i["namespace"]), i["key"]): i for i in newest}
    if len(newest) >= MAX_EXISTING:
        query = " ".join(t.text for t in turns)[:MAX_QUERY_CHARS]
        matched = search_records(
            ext.records,
            tenant,
            RecordSearch(namespace_prefix=list(namespace), query=query, limit=MAX_EXISTING, refresh_ttl=False),
        )["items"]
        for item in matched:
            found.setdefault((tuple(item["namespace"]), item["key"]), item)
    return [
        Known(key, str(item["value"].get("text", "")))
        for (ns, key), item in found.items()
        if ns == namespace and isinstance(item.get("value"), dict)
    ]


def _apply(
    ext: Extractions,
    tenant: str,
    namespace: tuple[str, ...],
    operations: list[Operation],
    run_ids: list[str],
    provenance: dict[str, Any],
) -> int:
    written = 0
    touched: set[str] = set()  # keys this attempt wrote: a later operation on one is this answer's own
    meter: Meter | None = None  # built at the first write (a hosted tenant's plan read once)
    for operation in operations:
        if operation.op == "noop":
            continue
        current = ext.records.store.current(tenant, namespace, operation.key)
        live = current is not None and not current.deleted and is_live(current.expires_at, millis(ext.clock()))
        value = ext.records.bodies.value(current) if live and current is not None else None
        said = (value or {}).get("provenance") or {}
        if isinstance(said, dict) and said.get("batch") == provenance["batch"] and operation.key not in touched:
            continue  # this range wrote it already (an attempt that stopped before its status)
        touched.add(operation.key)
        if operation.op == "delete":
            if live:
                delete_record(ext.records, tenant, namespace, operation.key)
                written += 1
            continue
        if value is not None and _same(value.get("text"), operation.text):
            continue  # already known, in these words: no new version
        sources = [i for i in operation.source_run_ids if i in run_ids] or run_ids
        record = {
            "text": operation.text,
            "provenance": {
                **provenance,
                "run_ids": sources,
                "op": operation.op,
                "extracted_at": iso(millis(ext.clock())),
            },
        }
        meter = meter if meter is not None else _record_meter(ext, tenant)
        put_record(ext.records, tenant, namespace, operation.key, RecordPut(value=record, index=["text"]), meter=meter)
        written += 1
    if meter is not None and meter.pending() and ext.account is not None:
        ext.account.add_usage(tenant, utc_day(ext.clock()), meter.pending())  # the day's counters not yet written
    return written


def _record_meter(ext: Extractions, tenant: str) -> Meter | None:
    """A hosted tenant's meter for the records extraction writes: each version's bytes go on its stored-bytes gauge
    in the version's own transaction, under its plan (ADR 0042); None without an account store (self-hosted)."""
    if ext.account is None:
        return None
    found = ext.account.get_tenant(tenant)
    return Meter(tenant, Plan.from_mapping(found.plan)) if found is not None else None


def _same(stored: Any, text: str) -> bool:
    return isinstance(stored, str) and " ".join(stored.casefold().split()) == " ".join(text.casefold().split())


def _over_plan(ext: Extractions, tenant: str, now: float) -> str | None:
    """Why extraction is paused for the tenant (its plan's extraction tokens of the day are used up), or None."""
    if ext.account is None:
        return None
    record = ext.account.get_tenant(tenant)
    if record is None:
        return None
    limit = Plan.from_mapping(record.plan).extraction_tokens_per_day
    if not limit:
        return None
    day = utc_day(now)
    used = sum(counters.get("extraction_tokens", 0) for _, counters in ext.account.usage_items(tenant, day, day))
    if used < limit:
        return None
    return (
        f"the plan's {limit} extraction tokens per day are used ({used} today, UTC): extraction resumes with the "
        "next day's first run or a higher plan; no run is skipped"
    )


def _meter(ext: Extractions, tenant: str, tokens: int) -> None:
    if ext.account is not None and tokens > 0:
        ext.account.add_usage(tenant, utc_day(ext.clock()), {"extraction_tokens": tokens})


def _note(
    ext: Extractions, tenant: str, status: ExtractionStatus, error: str | None, what: str, *, paused: str | None = None
) -> Outcome:
    """Say why nothing was processed (written only when the status changes)."""
    if status.last_error != error or status.paused != paused:
        status.last_error, status.paused = error, paused
        status.updated_at = iso(millis(ext.clock()))
        ext.store.save(tenant, status, lease=None)  # unconditioned: never refused
    return Outcome(what)


def _failed(ext: Extractions, tenant: str, status: ExtractionStatus, lease: str, error: str) -> Outcome:
    """Nothing of the range is written: the error in the status, the lease released, another try after a backoff
    (none after MAX_FAILURES in a row: the next run's event asks again)."""
    status.failures += 1
    status.last_error = error
    status.updated_at = iso(millis(ext.clock()))
    try:
        ext.store.save(tenant, status, lease=lease)
    except ExtractionLeaseTaken:
        return Outcome("lease lost")
    _publish(ext, tenant, EXTRACTION_FAILED, status, error=error, failures=status.failures)
    if status.failures >= MAX_FAILURES:
        return Outcome("failed")
    return Outcome("failed", min(RETRY_SECONDS * 2 ** (status.failures - 1), MAX_DELAY_SECONDS))


def _publish(ext: Extractions, tenant: str, kind: str, status: ExtractionStatus, **detail: Any) -> None:
    """Say it on the bus (best effort: the status already says it; a lost event loses no data)."""
    if ext.publisher is None:
        return
    event = MemoryEvent(
        id=uuid.uuid4().hex,
        type=kind,
        time=iso(millis(ext.clock())) or "",
        tenant=tenant,
        detail={
            "thread_id": status.thread_id,
            "strategy": status.strategy,
            "processed_through_seq": status.processed_through_seq,
            **detail,
        },
    )
    try:
        ext.publisher.publish([event])
    except Exception:
        logger.exception("an extraction event was not published (the status says the same)")


def _reason(exc: Exception) -> str:
    return exc.message if isinstance(exc, OffpromptError) else str(exc) or type(exc).__name__


def _epoch(text: str, default: float) -> float:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return default
