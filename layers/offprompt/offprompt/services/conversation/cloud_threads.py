"""Griptape Cloud's Threads API over offprompt's threads and runs (no second store). See docs/adr/0012.

Griptape's `GriptapeCloudConversationMemoryDriver` creates or finds a thread (by id or alias), then on every
turn PATCHes the *whole* message list (already trimmed to `max_runs`, oldest first) with the memory's `meta`
merged into the body's top level. Here a message is a run (`metadata.run_id` is the run id) and a PATCH is a
diff, not a rewrite:

- the newest stored run is looked up (one query); the messages after it in the list are appended;
- the list's first message names the oldest run to keep (one read of its run-id record); every stored run
  older than it is deleted (those are the ones Griptape trimmed);
- top-level keys other than `messages`/`name`/`alias`/`metadata` become the thread's `metadata` (with
  `metadata` itself), so `SummaryConversationMemory`'s `summary` / `summary_index` come back on GET.

So a PATCH costs O(new + removed runs), whatever the thread's length. When the newest stored run is not in the
list at all, the list replaces everything stored (delete all, append all): still what "replace" means.

All or nothing, in this order: every message is parsed and checked first (a bad one is a 400 before anything is
written), the day's runs quota is checked for all the new runs at once (a 429 before anything is written), the new
runs are appended (each charged in its own write; should a racing request take the quota meanwhile, the runs this
PATCH appended are deleted again before the 429), and only then are the trimmed runs deleted. A PATCH cut by its
time budget answers 503 `dependency_timeout` saying how many of the list's runs are stored (`details`); the list is
a prefix of itself then, so repeating the same PATCH converges to it.

HTTP-free: plain dicts in, plain dicts out, library errors for bad input.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from offprompt.errors import (
    Conflict,
    DependencyTimeout,
    DependencyUnavailable,
    InvalidInput,
    NotFound,
    OffpromptError,
    PayloadTooLarge,
    QuotaExceeded,
)
from offprompt.identifiers import check_identifier
from offprompt.limits import DEFAULT_CLOUD_PAGE_SIZE as DEFAULT_PAGE_SIZE
from offprompt.limits import MAX_CLOUD_PAGE_SIZE as MAX_PAGE_SIZE
from offprompt.limits import MAX_PATCH_MESSAGES as MAX_MESSAGES
from offprompt.limits import MAX_THREAD_METADATA_BYTES as MAX_METADATA_BYTES
from offprompt.limits import MAX_THREAD_NAME_CHARS as MAX_NAME_CHARS
from offprompt.metering import Meter, runs_quota_exceeded
from offprompt.ports import StoredRun, ThreadChanged, ThreadDeleting, ThreadState
from offprompt.services.conversation.add_run import parse_run, run_batches, store_batch
from offprompt.services.conversation.context import Conversation, now_iso
from offprompt.services.conversation.errors import ThreadDeleted, ThreadKindMismatch
from offprompt.services.conversation.results import AddRunResult
from offprompt.services.conversation.thread_admin import delete_thread, visible_floor

#: Trims sent back by a thread that changed under them (a fork, a pop) before the request gives up with a 503.
_TRIM_ATTEMPTS = 5

# Keys of a PATCH body that are not the memory's meta.
_BODY_FIELDS = ("messages", "name", "alias", "metadata")
_TEXT_ARTIFACT = "TextArtifact"


class CloudThreadIn(BaseModel):
    """`POST /api/threads` body (Griptape's driver sends `{name, alias}`); other keys are ignored."""

    model_config = ConfigDict(extra="ignore")

    name: str | None = Field(default=None, max_length=MAX_NAME_CHARS)
    alias: str | None = None
    metadata: dict[str, Any] | None = None


class CloudThreadPatch(BaseModel):
    """`PATCH /api/threads/{id}` body: the whole message list (a diff is derived), name, metadata; any other
    top-level key is the memory's meta (Griptape's driver merges it there) and becomes the thread's metadata."""

    model_config = ConfigDict(extra="allow")

    messages: list[dict[str, Any]] | None = Field(default=None, max_length=MAX_MESSAGES)
    name: str | None = Field(default=None, max_length=MAX_NAME_CHARS)
    alias: str | None = None
    metadata: dict[str, Any] | None = None


class CloudThreadsService:
    """The `/api/threads` use cases, over the conversation ports (its RunStore, BlobStore) and the add-run use case."""

    def __init__(self, conversation: Conversation) -> None:
        self.conversation = conversation
        self.runs = conversation.runs

    # ---- threads --------------------------------------------------------------------------------------
    def create(self, tenant: str, body: Any) -> dict[str, Any]:
        body = _object(body, "request body")
        name = _name(body.get("name"))
        alias = body.get("alias")
        metadata = _metadata(body.get("metadata"))
        thread_id = str(uuid.uuid4())
        if alias is not None:
            alias = check_identifier("alias", alias)
            self._claim(tenant, alias, thread_id)
        fields = {"name": name or thread_id}
        if alias is not None:
            fields["alias"] = alias
        if metadata is not None:
            fields["metadata_json"] = metadata
        state = self._set_fields(tenant, thread_id, fields)
        return self.view(state)

    def get(self, tenant: str, thread_id: str) -> dict[str, Any]:
        return self.view(self._state(tenant, thread_id))

    def find(self, tenant: str, query: dict[str, str]) -> dict[str, Any]:
        alias = query.get("alias")
        if alias is None:
            raise InvalidInput("listing threads needs ?alias= (offprompt keeps no tenant-wide thread index)")
        alias = check_identifier("alias", alias)
        threads = []
        target = self.runs.alias_target(tenant, alias)
        if target is not None:
            state = self.runs.get_thread(tenant, target)
            if state is not None and state.alias == alias:
                threads.append(self.view(state))
        pagination = {"page": 1, "page_size": MAX_PAGE_SIZE, "total_count": len(threads), "total_pages": 1}
        return {"threads": threads, "pagination": pagination}

    def patch(self, tenant: str, thread_id: str, body: Any, *, meter: Meter | None = None) -> dict[str, Any]:
        body = _object(body, "request body")
        state = self._state(tenant, thread_id)
        fields: dict[str, str] = {}
        if "name" in body:
            fields["name"] = _name(body["name"]) or thread_id
        if body.get("alias") is not None and body["alias"] != state.alias:
            raise InvalidInput("a thread's alias is set when it is created and cannot be changed")
        meta = {k: v for k, v in body.items() if k not in _BODY_FIELDS}
        if "metadata" in body or meta:
            merged = dict(_object(body.get("metadata") or {}, "metadata"))
            merged.update(meta)
            fields["metadata_json"] = _metadata(merged) or "{}"
        if "messages" in body:
            self._replace_messages(tenant, thread_id, body["messages"], meter)
        if fields or "messages" in body:
            state = self._set_fields(tenant, thread_id, fields)
        return self.view(state)

    def _set_fields(self, tenant: str, thread_id: str, fields: dict[str, str]) -> ThreadState:
        try:
            return self.runs.set_thread_fields(tenant, thread_id, fields, self._now())
        except ThreadDeleting:  # a delete of the thread is unfinished (or won a race with this write)
            raise ThreadDeleted(thread_id) from None

    def delete(self, tenant: str, thread_id: str) -> None:
        """Delete the thread (runs, blobs) and release its alias; idempotent."""
        check_identifier("thread_id", thread_id)
        state = self.runs.get_thread(tenant, thread_id)
        delete_thread(self.conversation, tenant, thread_id)
        if state is not None and state.alias is not None:
            self.runs.release_alias(tenant, state.alias, thread_id)

    def view(self, state: ThreadState) -> dict[str, Any]:
        return {
            "thread_id": state.thread_id,
            "name": state.name or state.thread_id,
            "alias": state.alias,
            "metadata": json.loads(state.metadata_json) if state.metadata_json else {},
            "created_at": state.created_at,
            "updated_at": state.updated_at or state.created_at,
        }

    # ---- messages -------------------------------------------------------------------------------------
    def messages(self, tenant: str, thread_id: str, query: dict[str, str]) -> dict[str, Any]:
        state = self._state(tenant, thread_id)
        if state.kind != "runs":  # a framework session's items are not Griptape runs (docs/adr/0033)
            raise ThreadKindMismatch(thread_id, state.kind)
        page = _positive(query.get("page"), "page", 1)
        page_size = _positive(query.get("page_size"), "page_size", DEFAULT_PAGE_SIZE)
        if page_size > MAX_PAGE_SIZE:
            raise InvalidInput(f"page_size must be between 1 and {MAX_PAGE_SIZE}")
        floor = visible_floor(self.conversation, state, None)
        skip = (page - 1) * page_size
        # a fork's messages include the runs it shares (docs/adr/0037)
        now = int(self.conversation.clock())
        keys = list(
            self.runs.iter_keys(tenant, thread_id, lo=floor, newest_first=False, now_epoch=now, ancestry=state.ancestry)
        )
        chosen = keys[skip : skip + page_size]
        messages = []
        for index, key in enumerate(chosen, start=skip):
            stored = self.runs.get_run(tenant, thread_id, key.seq, state.ancestry) if key.run_json is None else key
            if stored is None:  # deleted between the two reads
                continue
            messages.append(self._message(thread_id, index, stored))
        total = len(keys)
        pagination = {
            "page": page,
            "page_size": page_size,
            "total_count": total,
            "total_pages": (total + page_size - 1) // page_size,
        }
        return {"messages": messages, "pagination": pagination}

    def _message(self, thread_id: str, index: int, stored: StoredRun) -> dict[str, Any]:
        run = json.loads(self.conversation.bodies.run_json(stored))
        metadata = dict(run.get("meta") or {})
        metadata["run_id"] = run["id"]
        return {
            "message_id": run["id"],
            "thread_id": thread_id,
            "index": index,
            "input": json.dumps(run["input"]),
            "output": json.dumps(run["output"]),
            "metadata": metadata,
            "created_at": stored.created_at,
        }

    def _replace_messages(self, tenant: str, thread_id: str, messages: Any, meter: Meter | None) -> None:
        if not isinstance(messages, list):
            raise InvalidInput("messages must be a list")
        if len(messages) > MAX_MESSAGES:
            raise InvalidInput(f"at most {MAX_MESSAGES} messages per PATCH")
        runs = [_message_run(m, i) for i, m in enumerate(messages)]
        ids = [r["id"] for r in runs]
        if len(set(ids)) != len(ids):
            raise InvalidInput("two messages carry the same metadata.run_id")
        parsed = []
        for i, run in enumerate(runs):  # every message checked before anything is written
            try:
                parsed.append(parse_run(thread_id, run))
            except OffpromptError as exc:
                exc.message = f"messages[{i}]: {exc.message}"
                raise
        tail = self._newest(tenant, thread_id)
        if tail is None:
            first_new, keep_from = 0, None
        elif tail.run_id in ids:
            first_new = ids.index(tail.run_id) + 1
            keep_from = self.runs.run_seq(tenant, thread_id, ids[0])
            if keep_from is None:
                raise Conflict(
                    "the message list keeps the newest stored run but starts with a run that is not stored; "
                    "send the list Griptape keeps (oldest runs dropped, new runs appended)"
                )
        else:  # the list shares nothing with the newest stored run: it replaces everything
            first_new, keep_from = 0, tail.seq + 1
        new = parsed[first_new:]
        limit = meter.plan.runs_per_day if meter is not None else 0
        if meter is not None and limit and new and meter.runs_today + len(new) > limit:  # all the new runs, or none
            raise runs_quota_exceeded(meter.plan, meter.now)
        appended: list[AddRunResult] = []
        in_flight = 0  # the runs of a batch whose transaction was sent: a timed-out answer leaves its outcome unknown
        try:
            for batch in run_batches(new):
                in_flight = len(batch)
                appended += store_batch(self.conversation, tenant, thread_id, batch, meter=meter)
                in_flight = 0
            if keep_from is not None:
                self._delete_before(tenant, thread_id, keep_from)
        except QuotaExceeded:  # a racing request took the quota: this PATCH leaves nothing of its own
            self._remove_appended(tenant, thread_id, appended)
            raise
        except DependencyTimeout as exc:
            stored = first_new + len(appended)
            # the trimmed runs are deleted only after every new run is appended: nothing of this request committed
            # unless a batch did, or (no new runs) a delete may have
            if not appended and (new or keep_from is None):
                raise
            # a batch is one transaction: the one in flight is stored whole or not at all (its answer never came)
            maybe = f" (and perhaps the next {in_flight}: their write was not answered in time)" if in_flight else ""
            raise DependencyTimeout(
                f"this request's time budget ran out after {stored} of the {len(messages)} messages were stored"
                f"{maybe}{'' if keep_from is None else ' (older runs may remain)'}: repeat the same request to "
                "finish it",
                details={
                    **exc.details,
                    "committed": True,
                    "runs_stored": stored,
                    "runs_maybe_stored": in_flight,
                    "runs_requested": len(messages),
                },
            ) from None

    def _remove_appended(self, tenant: str, thread_id: str, appended: list[AddRunResult]) -> None:
        """Delete the runs this request appended (not the ones it found stored: replays)."""
        found = [self.runs.get_run(tenant, thread_id, r.seq) for r in appended if not r.replayed]
        stored = [r for r in found if r is not None]
        if stored:
            self.runs.delete_runs(tenant, thread_id, stored)
        for r in stored:
            if r.blob_key:
                self.conversation.bodies.drop(r.blob_key)

    def _delete_before(self, tenant: str, thread_id: str, seq: int) -> None:
        """Delete every stored run older than `seq` (already-deleted ones cost nothing: O(removed)), but none a
        live fork reads: as max_runs pruning, a trim keeps the runs at or below the forks' hold, and each page is
        deleted at the thread's version it was planned with, so a fork made meanwhile sends it back to read the
        thread again (docs/concurrency.md)."""
        changed = 0
        while True:
            state = self.runs.get_thread(tenant, thread_id)
            if state is None:
                return
            lo = state.fork_hold + 1 if state.fork_count > 0 else 1
            if lo >= seq:
                return
            old, _ = self.runs.page_runs(
                tenant, thread_id, lo=lo, hi=seq - 1, newest_first=False, limit=100, now_epoch=0, keys_only=True
            )
            if not old:
                return
            try:
                self.runs.delete_runs(tenant, thread_id, old, version=state.version)
            except ThreadDeleting:
                return
            except ThreadChanged:
                changed += 1
                if changed >= _TRIM_ATTEMPTS:
                    raise DependencyUnavailable(
                        "the thread kept changing (forks, deletes) while this request trimmed it; repeat the same "
                        "request to finish it"
                    ) from None
                continue
            for r in old:
                if r.blob_key:
                    self.conversation.bodies.drop(r.blob_key)

    def _newest(self, tenant: str, thread_id: str) -> StoredRun | None:
        hi: int | None = None
        while True:
            runs, after = self.runs.page_runs(
                tenant, thread_id, lo=1, hi=hi, newest_first=True, limit=1, now_epoch=0, keys_only=True
            )
            if runs:
                return runs[0]
            if after is None or after <= 1:
                return None
            hi = after - 1

    # ---- helpers --------------------------------------------------------------------------------------
    def _state(self, tenant: str, thread_id: str) -> ThreadState:
        check_identifier("thread_id", thread_id)
        state = self.runs.get_thread(tenant, thread_id)
        if state is None:
            raise NotFound(f'thread "{thread_id[:100]}" does not exist')
        return state

    def _claim(self, tenant: str, alias: str, thread_id: str) -> None:
        if self.runs.claim_alias(tenant, alias, thread_id):
            return
        holder = self.runs.alias_target(tenant, alias)
        if holder is not None:
            state = self.runs.get_thread(tenant, holder)
            if state is not None and state.alias == alias:
                raise Conflict(f'alias "{alias[:100]}" already names thread {holder}', details={"thread_id": holder})
            # the alias points at a deleted (or never completed) thread: take it over, atomically
            if self.runs.claim_alias(tenant, alias, thread_id, replace=holder):
                return
        raise Conflict(f'alias "{alias[:100]}" was taken concurrently; retry')

    def _now(self) -> str:
        return now_iso(self.conversation.clock())


def _object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidInput(f"{what} must be a JSON object")
    return value


def _name(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_NAME_CHARS:
        raise InvalidInput(f"name must be a string of at most {MAX_NAME_CHARS} characters")
    return value


def _metadata(value: Any) -> str | None:
    if value is None:
        return None
    text = json.dumps(_object(value, "metadata"), separators=(",", ":"))
    if len(text.encode("utf-8")) > MAX_METADATA_BYTES:
        raise PayloadTooLarge(f"thread metadata is larger than {MAX_METADATA_BYTES} bytes")
    return text


def _positive(value: str | None, name: str, default: int) -> int:
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise InvalidInput(f"{name} must be a positive integer") from None
    if number < 1:
        raise InvalidInput(f"{name} must be a positive integer")
    return number


def _artifact(value: Any, where: str) -> dict[str, Any]:
    """A message's input/output: Griptape sends an artifact's JSON; plain text becomes a TextArtifact."""
    if isinstance(value, dict):
        return value
    if not isinstance(value, str):
        raise InvalidInput(f"{where} must be a string (an artifact's JSON, or text)")
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and "type" in parsed:
        return parsed
    return {"type": _TEXT_ARTIFACT, "value": value}


def _message_run(message: Any, index: int) -> dict[str, Any]:
    """A message as offprompt's Run JSON: run id from `metadata.run_id`, the rest of `metadata` (and any
    top-level extra keys, where Griptape's driver merges `run.meta`) as the run's meta."""
    message = _object(message, f"messages[{index}]")
    metadata = dict(_object(message.get("metadata") or {}, f"messages[{index}].metadata"))
    extra = {k: v for k, v in message.items() if k not in ("input", "output", "metadata", "message_id", "index")}
    run_id = metadata.pop("run_id", None)
    inp = _artifact(message.get("input"), f"messages[{index}].input")
    out = _artifact(message.get("output"), f"messages[{index}].output")
    if run_id is None:  # no id: derive one from the content, so resending the same message is a no-op
        run_id = hashlib.sha256(json.dumps([inp, out], sort_keys=True).encode()).hexdigest()[:32]
    run_id = check_identifier("metadata.run_id", run_id)
    meta = {**metadata, **extra} or None
    return {"type": "Run", "id": run_id, "meta": meta, "input": inp, "output": out}
