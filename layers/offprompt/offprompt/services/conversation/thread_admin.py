"""Use case: thread admin — read, configure and delete a thread, and list its runs (paged by an opaque cursor).
Handler: functions/threads."""

from __future__ import annotations

import json
from typing import Any, Literal

from offprompt.errors import InvalidInput, NotFound
from offprompt.identifiers import check_identifier, digest
from offprompt.limits import MAX_LIST_LIMIT
from offprompt.memory.records import check_label
from offprompt.ports import ThreadDeleting, ThreadHasForks, ThreadState, WrongThreadKind
from offprompt.services.conversation.context import Conversation, now_iso
from offprompt.services.conversation.cursor import (
    decode_cursor,
    decode_listing_cursor,
    encode_cursor,
    encode_listing_cursor,
)
from offprompt.services.conversation.errors import (
    SettingNotForItems,
    ThreadDeleted,
    ThreadForked,
    ThreadKindMismatch,
    require_run,
)
from offprompt.services.conversation.requests import ThreadConfigRequest
from offprompt.services.conversation.run_cache import prepare_stored_run


def get_thread(conv: Conversation, tenant: str, thread_id: str) -> dict[str, Any]:
    check_identifier("thread_id", thread_id)
    state = conv.runs.get_thread(tenant, thread_id)
    if state is None:
        raise NotFound(f'thread "{thread_id[:100]}" does not exist')
    if state.ancestry:  # a fork: its own runs are counted on its item, the shared ones are counted by reading keys
        now = int(conv.clock())
        keys = conv.runs.iter_keys(tenant, thread_id, lo=1, newest_first=True, now_epoch=now, ancestry=state.ancestry)
        seqs = [r.seq for r in keys]
        floor = visible_floor(conv, state, seqs)
        own = state.run_count if state.run_count is not None else sum(1 for s in seqs if s > state.ancestry[0][1])
        return _thread_view(state, stored=own, visible=sum(1 for s in seqs if s >= floor))
    if state.run_count is not None:  # kept on the thread item: no run read (docs/adr/0021)
        return _thread_view(state, stored=state.run_count, visible=_visible_count(conv, state, state.run_count))
    seqs, every = _count_runs(conv, state)
    if every is not None:  # a thread older than the count, none of its runs expiring: count once, remember it
        conv.runs.record_run_count(state, every)
    floor = visible_floor(conv, state, seqs)
    visible = [s for s in seqs if s >= floor]
    return _thread_view(state, stored=len(seqs), visible=len(visible))


def _count_runs(conv: Conversation, state: ThreadState) -> tuple[list[int], int | None]:
    """The seqs of the visible (not expired) runs, newest first, and — when no run expires — the number of
    stored runs to remember as the thread's run count (None when a run expires: it must be counted each time)."""
    now = int(conv.clock())
    seqs: list[int] = []
    stored = 0
    expiring = False
    # now_epoch=0: expired runs TTL has not deleted yet are seen (they are stored), then skipped
    for r in conv.runs.iter_keys(state.tenant, state.thread_id, lo=1, newest_first=True, now_epoch=0):
        stored += 1
        if r.expires_at is not None:
            expiring = True
            if r.expires_at <= now:
                continue
        seqs.append(r.seq)
    return seqs, None if expiring else stored


def _visible_count(conv: Conversation, state: ThreadState, stored: int) -> int:
    """How many of the thread's `stored` runs max_runs leaves visible (no run expires: `run_count` is trusted)."""
    if state.max_runs is None:
        return stored
    if state.memory_type != "summary":
        return min(stored, state.max_runs)
    floor = visible_floor(conv, state, None)  # summary memory also keeps the unsummarized runs
    now = int(conv.clock())
    keys = conv.runs.iter_keys(
        state.tenant, state.thread_id, lo=floor, newest_first=False, now_epoch=now, ancestry=state.ancestry
    )
    return sum(1 for _ in keys)


def configure(conv: Conversation, tenant: str, thread_id: str, request: ThreadConfigRequest) -> dict[str, Any]:
    check_identifier("thread_id", thread_id)
    changes = {name: getattr(request, name) for name in request.model_fields_set}
    for name in ("memory_type", "offset"):
        if name in changes and changes[name] is None:
            raise InvalidInput(f"{name} cannot be null")
    if changes.get("actor_id") is not None:
        check_label(changes["actor_id"], "actor_id")
    runs_only = runs_only_settings(changes)
    try:
        state = conv.runs.configure(tenant, thread_id, changes, now_iso(conv.clock()), runs_only=bool(runs_only))
    except ThreadDeleting:
        raise ThreadDeleted(thread_id) from None
    except WrongThreadKind:
        raise SettingNotForItems(thread_id, runs_only) from None
    return get_thread(conv, state.tenant, state.thread_id)


def runs_only_settings(changes: dict[str, Any]) -> list[str]:
    """The settings among `changes` only a runs thread honours: max_runs, summary memory and its offset (a
    framework session's items are never pruned by count nor summarized, docs/adr/0033)."""
    return sorted(
        name
        for name, value in changes.items()
        if value is not None and (name in ("max_runs", "offset") or (name == "memory_type" and value == "summary"))
    )


def delete_thread(conv: Conversation, tenant: str, thread_id: str) -> int:
    check_identifier("thread_id", thread_id)
    try:  # marked: adds in flight can no longer commit; refused (nothing changed) while forks read its runs
        deleted = conv.runs.delete_thread(tenant, thread_id)
    except ThreadHasForks:
        raise ThreadForked(thread_id) from None
    if conv.blobs is not None:
        conv.blobs.drop_thread(tenant, thread_id)
    conv.runs.release_thread(tenant, thread_id)  # only now may the id be used again
    return deleted


def list_runs(
    conv: Conversation,
    tenant: str,
    thread_id: str,
    *,
    limit: int = 20,
    cursor: str | None = None,
    order: str = "asc",
    as_of_run: str | None = None,
) -> dict[str, Any]:
    """A page of the thread's visible runs (a fork's include the runs it shares); with `as_of_run`, of the thread
    as it was right after that run (docs/adr/0037)."""
    check_identifier("thread_id", thread_id)
    if order not in ("asc", "desc"):
        raise InvalidInput('order must be "asc" or "desc"')
    if not 1 <= limit <= MAX_LIST_LIMIT:
        raise InvalidInput(f"limit must be between 1 and {MAX_LIST_LIMIT}")
    binding = digest(tenant, thread_id)[:32] if as_of_run is None else digest(tenant, thread_id, as_of_run)[:32]
    after: int | None = None
    floor: int | None = None
    if cursor is not None:
        after, floor = decode_cursor(cursor, binding, order)
    state = conv.runs.get_thread(tenant, thread_id)
    if state is None:
        if as_of_run is not None:  # no thread holds that run: as on a thread that lacks it
            require_run(None, thread_id, as_of_run)
        return {"runs": [], "next_cursor": None}
    if state.kind != "runs":  # a framework session's items: GET /threads/{thread_id}/items (docs/adr/0033)
        raise ThreadKindMismatch(thread_id, state.kind)
    top = None
    if as_of_run is not None:  # time travel: the thread as it was right after that run (docs/adr/0037)
        top = require_run(conv.runs.run_seq(tenant, thread_id, as_of_run, state.ancestry), thread_id, as_of_run)
    if floor is None:
        floor = visible_floor(conv, state, None, top)
    newest_first = order == "desc"
    if newest_first:
        lo, hi = floor, (after - 1 if after is not None else top)
    else:
        lo, hi = max(floor, (after or 0) + 1), top
    if hi is not None and hi < lo:
        return {"runs": [], "next_cursor": None}
    runs, last = conv.runs.page_runs(
        tenant,
        thread_id,
        lo=lo,
        hi=hi,
        newest_first=newest_first,
        limit=limit,
        now_epoch=int(conv.clock()),
        ancestry=state.ancestry,
    )
    summary_memory = state.memory_type == "summary"
    items = []
    for r in runs:
        run_json = conv.bodies.run_json(r)
        # A run stored uncounted (docs/adr/0040) is counted here, once per process (the prepared-run cache).
        input_tokens, output_tokens = (
            (r.input_tokens, r.output_tokens) if r.counted else prepare_stored_run(run_json).counts(conv.tokenizer)
        )
        entry: dict[str, Any] = {
            "seq": r.seq,
            "run": json.loads(run_json),
            "created_at": r.created_at,
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "size": r.size,
        }
        if summary_memory:
            entry["summarized"] = r.seq <= state.summary_through_seq
        items.append(entry)
    next_cursor = encode_cursor(binding, order, last, floor) if last is not None else None
    return {"runs": items, "next_cursor": next_cursor}


def visible_floor(
    conv: Conversation, state: ThreadState, seqs_newest_first: list[int] | None, top: int | None = None
) -> int:
    """The smallest visible seq: max_runs keeps the newest N (summary memory: never unsummarized runs); `top`:
    of the thread as it was right after that seq (time travel: the summary then covered nothing past it)."""
    if state.max_runs is None:
        return 1
    if seqs_newest_first is None:
        seqs_newest_first = []
        now = int(conv.clock())
        keys = conv.runs.iter_keys(
            state.tenant, state.thread_id, lo=1, hi=top, newest_first=True, now_epoch=now, ancestry=state.ancestry
        )
        for r in keys:
            seqs_newest_first.append(r.seq)
            if len(seqs_newest_first) >= state.max_runs:
                break
    floor = seqs_newest_first[state.max_runs - 1] if len(seqs_newest_first) >= state.max_runs else 1
    if state.memory_type == "summary":
        summarized = state.summary_through_seq if top is None or state.summary_through_seq <= top else 0
        floor = min(floor, summarized + 1)
    return max(floor, 1)


def list_threads(
    conv: Conversation,
    tenant: str,
    *,
    limit: int = 20,
    cursor: str | None = None,
    prefix: str | None = None,
    order: Literal["activity", "id"] = "activity",
) -> dict[str, Any]:
    """A page of the tenant's threads, the most recently written first (`activity`: its last add, append or
    settings change; docs/adr/0054) or in thread-id order (`id`: ids escaped as stored keys, `#` and `%` sort as
    escapes), optionally only those whose id starts with `prefix`; `next_cursor` (bound to the tenant, the prefix
    and the order) reads the next page, None at the end. Only the page's threads are read (docs/adr/0038). Each
    entry is the thread's configuration and counts without its summary text (GET /threads/{id} has it)."""
    if not 1 <= limit <= MAX_LIST_LIMIT:
        raise InvalidInput(f"limit must be between 1 and {MAX_LIST_LIMIT}")
    binding = digest(tenant, prefix or "", order)[:32]
    after = decode_listing_cursor(cursor, binding) if cursor is not None else None
    threads, position = conv.runs.list_threads(tenant, limit=limit, after=after, prefix=prefix or None, order=order)
    next_cursor = encode_listing_cursor(binding, position) if position is not None else None
    return {"threads": [_listed_view(t) for t in threads], "next_cursor": next_cursor}


def _listed_view(state: ThreadState) -> dict[str, Any]:
    return {
        "thread_id": state.thread_id,
        "kind": state.kind,
        "name": state.name,
        "alias": state.alias,
        "memory_type": state.memory_type,
        "max_runs": state.max_runs,
        "retention_days": state.retention_days,
        "actor_id": state.actor_id,
        "created_at": state.created_at,
        "updated_at": state.updated_at,
        "last_seq": state.next_seq,
        "stored_runs": state.run_count,
    }


def _thread_view(state: ThreadState, *, stored: int, visible: int) -> dict[str, Any]:
    summary = None
    if state.summary is not None:
        summary = {
            "text": state.summary,
            "through_seq": state.summary_through_seq,
            "version": state.summary_version,
            "updated_at": state.summary_updated_at,
        }
    return {
        "thread_id": state.thread_id,
        "kind": state.kind,
        "memory_type": state.memory_type,
        "max_runs": state.max_runs,
        "offset": state.offset,
        "retention_days": state.retention_days,
        "actor_id": state.actor_id,
        "created_at": state.created_at,
        "updated_at": state.updated_at,
        "last_seq": state.next_seq,
        "stored_runs": stored,
        "visible_runs": visible,
        "summary": summary,
        "fork": _fork_view(state),
    }


def _fork_view(state: ThreadState) -> dict[str, Any] | None:
    """What a fork reads below its own runs (None for a thread that is no fork) and the forks reading it."""
    if not state.ancestry and state.fork_of is None and not state.fork_count:
        return None
    return {
        "forked_from": state.fork_of,
        "ancestry": [{"thread_id": t, "through_seq": n} for t, n in state.ancestry],
        "live_forks": state.fork_count,
    }
