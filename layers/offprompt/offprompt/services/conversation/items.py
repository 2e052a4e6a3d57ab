"""Use case: framework session items — append, read the newest, pop the last (docs/adr/0033).
Handler: functions/threads (`/threads/{thread_id}/items`); clients: `offprompt_client.openai_agents`, `.strands`.

An item (an OpenAI Agents SDK input item, a Strands message: a JSON object) is stored as a run whose body is the
item's JSON: same partition, `RUN#{seq}` order, run-id idempotency, S3 offload past 350 KB, retention, metering,
export and erase as every run. The thread's kind ("items") is fixed by its first append; a runs route on it, or
this route on a runs thread, is a 409 `thread_kind_mismatch` (the kind check is in the seq allocation's condition).

- append: one seq allocation per ≤32 items, one transaction per batch (add-run's `put_runs`); the item ids are
  `{request_id}.{index}`, so a retried request (same `request_id`) answers the first seqs of what it stored (an
  item popped since included: its id stays taken, it is never stored again) and stores the rest;
- newest: one GetItem (the thread's kind) + one Query of `limit` items, newest first, returned oldest first;
- pop: read the newest item, delete it conditioned on it still being there (`RunStore.pop_run`); a pop that lost
  the race to another reads the next newest and tries again, so two pops never return the same item.
"""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

from offprompt.errors import Conflict, DependencyUnavailable, PayloadTooLarge
from offprompt.identifiers import canonical_hash, check_identifier
from offprompt.limits import DEFAULT_RUNS_LIMIT, MAX_APPEND_ITEMS, MAX_INLINE_RESPONSE_BYTES, MAX_ITEMS_LIMIT
from offprompt.memory.items import without_orphan_results
from offprompt.metering import Meter
from offprompt.ports import RunIdTaken, StoredRun, ThreadChanged, ThreadDeleting, ThreadState, WrongThreadKind
from offprompt.services.conversation.add_run import run_charge
from offprompt.services.conversation.context import Conversation, now_iso
from offprompt.services.conversation.errors import ItemShared, ThreadDeleted, ThreadKindMismatch
from offprompt.services.conversation.requests import ItemsIn, ItemsQuery

logger = logging.getLogger("offprompt.services.conversation.items")

DAY = 86_400
#: Items per transaction of an append (two items each, the thread's counts and the charge ≤ 100) and bytes.
BATCH_ITEMS = MAX_APPEND_ITEMS
BATCH_BYTES = 3_000_000
#: Pops that lost a race before this one gives up (503: safe to retry).
POP_ATTEMPTS = 25
KIND = "items"
#: Items per Query page of a budgeted read (it stops as soon as the budget is spent).
PAGE = 100


def append_items(
    conv: Conversation, tenant: str, thread_id: str, request: ItemsIn, *, meter: Meter | None = None
) -> dict[str, Any]:
    """Append `request.items` in order. Returns `{"seqs": [...], "replayed": n}`."""
    check_identifier("thread_id", thread_id)
    request_id = request.request_id or uuid.uuid4().hex
    check_identifier("request_id", request_id)
    entries = []
    for index, item in enumerate(request.items):
        body = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
        entries.append((f"{request_id}.{index}", body, canonical_hash(item)))
    if conv.blobs is None and any(len(b.encode("utf-8")) > conv.inline_run_bytes for _, b, _ in entries):
        raise PayloadTooLarge(f"an item is larger than {conv.inline_run_bytes} bytes and no bucket is configured")
    seqs: list[int] = []
    replayed = 0
    for batch in _batches(entries):
        stored, again = _store(conv, tenant, thread_id, batch, meter)
        seqs.extend(stored)
        replayed += again
    return {"seqs": seqs, "replayed": replayed}


def _batches(entries: list[tuple[str, str, str]]) -> list[list[tuple[str, str, str]]]:
    batches: list[list[tuple[str, str, str]]] = []
    size = 0
    for entry in entries:
        length = len(entry[1].encode("utf-8"))
        if not batches or len(batches[-1]) >= BATCH_ITEMS or size + length > BATCH_BYTES:
            batches.append([])
            size = 0
        batches[-1].append(entry)
        size += length
    return batches


def _allocate(conv: Conversation, tenant: str, thread_id: str, now: float, tokens: int, count: int) -> ThreadState:
    try:
        return conv.runs.allocate_seq(tenant, thread_id, now_iso(now), tokens=tokens, count=count, kind=KIND)
    except ThreadDeleting:
        raise ThreadDeleted(thread_id) from None
    except WrongThreadKind as wrong:
        raise ThreadKindMismatch(thread_id, wrong.kind) from None


def _store(
    conv: Conversation, tenant: str, thread_id: str, batch: list[tuple[str, str, str]], meter: Meter | None
) -> tuple[list[int], int]:
    """One batch as one allocation and one transaction; a batch holding an item id already stored (a retry) is
    stored item by item instead, each replayed (same content) or stored anew."""
    counted = [
        (item_id, body, h, conv.tokenizer.count_tokens(body), body.encode("utf-8")) for item_id, body, h in batch
    ]
    tokens = sum(c[3] for c in counted)
    now = conv.clock()
    state = _allocate(conv, tenant, thread_id, now, tokens, len(batch))
    first, generation = state.next_seq - len(batch) + 1, state.generation or ""
    expires = int(now) + state.retention_days * DAY if state.retention_days else None
    stored: list[StoredRun] = []
    bodies: list[str] = []
    try:
        for k, (item_id, body, content_hash, count, data) in enumerate(counted):
            blob_key = None
            if len(data) > conv.inline_run_bytes:
                assert conv.blobs is not None
                blob_key = conv.blobs.put_body(tenant, thread_id, item_id, data, generation)
                bodies.append(blob_key)
            stored.append(
                StoredRun(
                    seq=first + k,
                    run_id=item_id,
                    content_hash=content_hash,
                    input_tokens=count,
                    output_tokens=0,
                    size=len(data),
                    created_at=now_iso(now),
                    run_json=None if blob_key else body,
                    blob_key=blob_key,
                    expires_at=expires,
                    memory_type="buffer",  # never summarized (the summarizer's stream filter skips buffer runs)
                    thread_kind=KIND,
                )
            )
        charge = run_charge(meter, stored, tokens)
        conv.runs.put_runs(tenant, thread_id, stored, generation, charge=charge)
    except ThreadDeleting:
        _drop(conv, bodies)
        raise ThreadDeleted(thread_id) from None
    except RunIdTaken as taken:
        _burned(conv, tenant, thread_id, len(batch))
        # A big body is named by the item's id, bytes and the thread's generation: an exact retry rewrote the
        # stored item's own body, which must stay; item by item, each store or replay keeps or drops its own.
        if len(batch) == 1:
            return _replay(conv, tenant, thread_id, batch[0], taken, bodies[0] if bodies else None)
        seqs: list[int] = []
        replayed = 0
        for entry in batch:
            one, again = _store(conv, tenant, thread_id, [entry], meter)
            seqs.extend(one)
            replayed += again
        return seqs, replayed
    except Exception:
        _burned(conv, tenant, thread_id, len(batch))
        _drop(conv, bodies)
        raise
    if meter is not None and charge is not None:
        meter.settle(charge)
    return [r.seq for r in stored], 0


def _replay(
    conv: Conversation,
    tenant: str,
    thread_id: str,
    entry: tuple[str, str, str],
    taken: RunIdTaken,
    uploaded: str | None,
) -> tuple[list[int], int]:
    """The first answer for an item id already taken: its seq, whether the item is still stored or was popped since
    (a popped item's id stays taken, so a retry never stores it again); other content under the id is a 409."""
    item_id, _, content_hash = entry
    if taken.content_hash != content_hash:
        raise Conflict(
            f'request_id "{item_id.rsplit(".", 1)[0][:100]}" was used for other items in this thread',
            details={"seq": taken.seq},
        )
    if uploaded:
        first = conv.runs.get_run(tenant, thread_id, taken.seq)
        if first is None or first.blob_key != uploaded:
            conv.bodies.drop(uploaded)  # ours is not the stored item's body
    return [taken.seq], 1


def newest_items(conv: Conversation, tenant: str, thread_id: str, query: ItemsQuery) -> dict[str, Any]:
    """The newest `query.limit` items (before seq `query.before`), oldest first, and `next_before`: the seq to
    pass as `before` for the items older than these (None when there are none). With `query.max_tokens`, the
    newest whose stored token counts fit it, starting after any tool result whose call did not fit. A page stops
    short of `limit` rather than pass Lambda's response limit (`next_before` then continues)."""
    check_identifier("thread_id", thread_id)
    state = conv.runs.get_thread(tenant, thread_id)
    if state is None:
        return {"items": [], "seqs": [], "next_before": None, "tokens": 0}
    _check_kind(state)
    budget = query.max_tokens
    limit = query.limit or (MAX_ITEMS_LIMIT if budget is not None else DEFAULT_RUNS_LIMIT)
    now = int(conv.clock())
    hi = query.before - 1 if query.before is not None else None
    found: list[tuple[StoredRun, Any]] = []
    tokens = size = 0
    more = True  # whether older items may remain below the oldest one returned
    while more and len(found) < limit:
        if hi is not None and hi < 1:
            more = False
            break
        want = limit - len(found)
        page, last = conv.runs.page_runs(
            tenant,
            thread_id,
            ancestry=state.ancestry,  # a fork's items include those it shares (docs/adr/0037)
            lo=1,
            hi=hi,
            newest_first=True,
            limit=want if budget is None else min(want, PAGE),
            now_epoch=now,
        )
        for r in page:
            if len(found) >= limit:
                break
            if budget is not None and tokens + r.input_tokens > budget:
                more = False  # the budget is spent: nothing older is wanted
                break
            if found and size + r.size > MAX_INLINE_RESPONSE_BYTES:
                break  # the next page starts here
            found.append((r, json.loads(conv.bodies.run_json(r))))
            tokens += r.input_tokens
            size += r.size
        else:
            if last is None:
                more = False
            hi = (last - 1) if last is not None else hi
            continue
        break
    found.reverse()
    if budget is not None:
        found = found[without_orphan_results([item for _, item in found]) :]
        tokens = sum(r.input_tokens for r, _ in found)
    return {
        "items": [item for _, item in found],
        "seqs": [r.seq for r, _ in found],
        "next_before": found[0][0].seq if found and more and found[0][0].seq > 1 else None,
        "tokens": tokens,
    }


def pop_item(conv: Conversation, tenant: str, thread_id: str) -> dict[str, Any]:
    """Remove the newest item and return it: `{"item": ..., "seq": n}`, or `{"item": None}` when there is none.

    Only an item the thread owns and no live fork reads is removed: when the newest item is shared (a fork's
    ancestor's, or one of this thread's that a fork reads), 409 `item_shared` and nothing is removed (ADR 0037)."""
    check_identifier("thread_id", thread_id)
    for _attempt in range(POP_ATTEMPTS):
        state = conv.runs.get_thread(tenant, thread_id)  # its version and holds: the plan the pop is made on
        if state is None:
            return {"item": None, "seq": None}
        _check_kind(state)
        now = int(conv.clock())
        page, _ = conv.runs.page_runs(
            tenant, thread_id, lo=1, hi=None, newest_first=True, limit=1, now_epoch=now, ancestry=state.ancestry
        )
        if not page:
            return {"item": None, "seq": None}
        newest = page[0]
        if (state.ancestry and newest.seq <= state.ancestry[0][1]) or (
            state.fork_count > 0 and newest.seq <= state.fork_hold
        ):
            raise ItemShared(thread_id, newest.seq)
        body = conv.bodies.run_json(newest)
        try:
            won = conv.runs.pop_run(tenant, thread_id, newest, version=state.version)
        except ThreadDeleting:
            return {"item": None, "seq": None}  # cleared meanwhile: nothing left to pop
        except ThreadChanged:
            continue  # a fork took a hold (or another pop went first) since the read: read the thread again
        if won:
            if newest.blob_key:
                conv.bodies.drop(newest.blob_key)
            return {"item": json.loads(body), "seq": newest.seq}
    raise DependencyUnavailable("the thread's last item kept being popped by concurrent requests; retry")


def _check_kind(state: ThreadState) -> None:
    if state.kind != KIND and state.next_seq > 0:
        raise ThreadKindMismatch(state.thread_id, state.kind)


# Its own store calls (not add_run's helpers): this use case reaches its stores through no other module.
def _drop(conv: Conversation, keys: list[str]) -> None:
    for k in keys:
        conv.bodies.drop(k)


def _burned(conv: Conversation, tenant: str, thread_id: str, count: int) -> None:
    try:
        conv.runs.record_burned(tenant, thread_id, count)
    except Exception:
        logger.exception("could not record a burned sequence number")
