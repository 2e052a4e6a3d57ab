"""Conversation memory over ports: append runs, build token-budgeted prompt stacks, configure, summarize.

HTTP-free; takes ports (RunStore, BlobStore, Tokenizer, Summarizer). See docs/adr/0004-conversation-storage.md.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any, Literal

from offprompt.artifacts import BaseArtifact
from offprompt.errors import Conflict, DependencyUnavailable, InvalidInput, NotFound, PayloadTooLarge
from offprompt.identifiers import canonical_hash, check_identifier, digest
from offprompt.limits import MAX_LIST_LIMIT
from offprompt.memory.conversation import (
    HistoryRun,
    render_summarize_prompt,
    run_token_counts,
    select_history,
)
from offprompt.memory.run import Run
from offprompt.memory.tokenizers import CHARS_PREFIX, CharsTokenizer, tokenizer_name
from offprompt.ports import (
    BlobStore,
    RunIdTaken,
    RunStore,
    StoredRun,
    Summarizer,
    ThreadDeleting,
    ThreadState,
    Tokenizer,
)
from offprompt.prompt import PromptStack
from offprompt.prompt.render import render_messages
from offprompt.services.conversation.cursor import decode_cursor, encode_cursor
from offprompt.services.conversation.errors import ThreadDeleted
from offprompt.services.conversation.requests import PromptStackRequest, RunIn, ThreadConfigRequest
from offprompt.services.conversation.results import AddRunResult, SummarizeResult
from offprompt.validation import validate

logger = logging.getLogger(__name__)

# Runs whose JSON is larger than this go to S3 (DynamoDB items stop at 400 KB; moto at 405,000 B).
INLINE_RUN_BYTES = 350_000
# max_runs pruning in add-run: at most this many old runs deleted per add, keeping this many extra.
PRUNE_BATCH = 5
PRUNE_SLACK = 8
DAY = 86_400
# prompt-stack Query pages: the first assumes runs of PRIOR_RUN_TOKENS, later ones use the average of the runs
# read so far (stored counts) to read about what the rest of the budget holds, plus one run and 10%.
PRIOR_RUN_TOKENS = 100
RUN_SEPARATOR_TOKENS = 2  # each run adds two "\n\n" separators (1 token each in cl100k)
MIN_HISTORY_PAGE, MAX_HISTORY_PAGE = 8, 200


# Decoded runs, by their stored JSON (the content itself, so a hit is always the same run). A warm prompt-stack
# reads mostly the runs the previous one read; decoding them again was a third of its CPU. Treat as immutable.
DECODED_RUNS_CACHED = 1024


@functools.lru_cache(maxsize=DECODED_RUNS_CACHED)
def decode_stored_run(run_json: str) -> Run:
    return Run.from_stored_json(run_json)


def history_page_size(budget: int | None, tokens_read: int, runs_read: int, cap_left: int | None) -> int:
    """Items for the next newest-first Query page of a prompt-stack (bytes read ≈ bytes returned)."""
    if budget is None:
        size = MAX_HISTORY_PAGE if runs_read else 100
    elif runs_read == 0:
        size = max(MIN_HISTORY_PAGE, min(MAX_HISTORY_PAGE, budget // PRIOR_RUN_TOKENS + 1))
    else:
        left = budget - tokens_read
        size = 1 if left <= 0 else -(-left * runs_read * 11 // (tokens_read * 10 or 1)) + 1
    size = max(1, min(size, MAX_HISTORY_PAGE))
    return size if cap_left is None else max(1, min(size, cap_left))


def request_hash(payload: Any) -> str:
    """SHA-256 of the request as sent, in canonical JSON (sorted keys, no whitespace)."""
    return canonical_hash(payload)


def _now_iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def thread_prefix(tenant: str, thread_id: str) -> str:
    """S3 prefix of everything a thread owns (delete removes by prefix)."""
    return f"t/{digest(tenant)}/threads/{digest(tenant, thread_id)}/"


class ConversationService:
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

    # ---- add-run --------------------------------------------------------------------------------------
    def add_run(self, tenant: str, thread_id: str, payload: Any) -> AddRunResult:
        validate(RunIn, payload)  # the request's shape first (422), as the HTTP route's Body() does
        check_identifier("thread_id", thread_id)
        if isinstance(payload, dict) and payload.get("id") is not None:
            check_identifier("run id", payload["id"])
        run = Run.from_dict(payload)
        run_json = run.to_json()
        data = run_json.encode("utf-8")
        # Idempotency covers what the client sent, not what the server generated from it (artifact ids and
        # names are minted when absent): a byte-for-byte retry gets the first result.
        content_hash = request_hash(payload)
        input_tokens, output_tokens = run_token_counts(run, self.tokenizer)
        blob_key = None
        if len(data) > self.inline_run_bytes and self.blobs is None:
            raise PayloadTooLarge(f"run is larger than {self.inline_run_bytes} bytes and no bucket is configured")

        now = self.clock()
        try:
            state = self.runs.allocate_seq(tenant, thread_id, _now_iso(now))
        except ThreadDeleting:
            raise ThreadDeleted(thread_id) from None
        seq, generation = state.next_seq, state.generation or ""
        if len(data) > self.inline_run_bytes:
            assert self.blobs is not None
            # Named by the bytes it holds (a retry's generated ids make other bytes, so it never overwrites the
            # first run's body) and the generation (a straggler never touches a later incarnation's body).
            body_hash = hashlib.sha256(data).hexdigest()
            blob_key = f"{thread_prefix(tenant, thread_id)}runs/{digest(run.id, body_hash, generation)}.json"
            self.blobs.put(blob_key, data, content_type="application/json")
        stored = StoredRun(
            seq=seq,
            run_id=run.id,
            content_hash=content_hash,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            size=len(data),
            created_at=_now_iso(now),
            run_json=None if blob_key else run_json,
            blob_key=blob_key,
            expires_at=int(now) + state.retention_days * DAY if state.retention_days else None,
            memory_type=state.memory_type,
        )
        try:
            self.runs.put_run(tenant, thread_id, stored, generation)
        except ThreadDeleting:
            if blob_key:
                self._drop_blob(blob_key)
            raise ThreadDeleted(thread_id) from None
        except RunIdTaken as taken:
            self._burned(tenant, thread_id)
            first = self.runs.get_run(tenant, thread_id, taken.seq)
            if blob_key and (first is None or first.blob_key != blob_key):
                self._drop_blob(blob_key)  # ours is not the first run's body (an exact retry rewrote that one)
            stored_json = self._run_json(first) if first is not None else None
            # The same request as sent, or exactly the run the first request stored (a client re-posting
            # what it got back): both are retries. Anything else under the same id is a conflict.
            if stored_json is None or (taken.content_hash != content_hash and stored_json != run_json):
                raise Conflict(
                    f'run id "{run.id[:100]}" is already stored in this thread with different content',
                    details={"seq": taken.seq},
                ) from None
            return AddRunResult(json.loads(stored_json), taken.seq, replayed=True)
        except Exception:
            self._burned(tenant, thread_id)
            if blob_key:
                self._drop_blob(blob_key)
            raise

        self._after_add(state, seq)
        return AddRunResult(run.to_dict(), seq, replayed=False)

    def _after_add(self, state: ThreadState, seq: int) -> None:
        """Best-effort follow-ups of a committed add: never fail the add."""
        try:
            self.prune(state, seq)
        except Exception:
            logger.exception("max_runs pruning failed (retried on a later add)")
        if (
            self.summarize_mode == "inline"
            and state.memory_type == "summary"
            and seq - state.summary_through_seq > state.offset
        ):
            try:
                self.summarize(state.tenant, state.thread_id)
            except Exception:
                logger.exception("inline summarization failed; the runs stay in the prompt")

    def prune(self, state: ThreadState, seq: int) -> int:
        """Delete up to PRUNE_BATCH runs that max_runs certainly hides (the oldest), with their ids and blobs.

        `seq - s - burned_seqs` is a lower bound of the runs newer than s, so a run is deleted only when at
        least `max_runs + PRUNE_SLACK` runs are certainly newer. Summary memory never deletes a run that the
        summary does not cover yet.
        """
        if state.max_runs is None:
            return 0
        hi = seq - state.max_runs - state.burned_seqs - PRUNE_SLACK
        if state.memory_type == "summary":
            hi = min(hi, state.summary_through_seq)
        if hi < 1:
            return 0
        old, _ = self.runs.page_runs(
            state.tenant,
            state.thread_id,
            lo=0,
            hi=hi,
            newest_first=False,
            limit=PRUNE_BATCH,
            now_epoch=0,
            keys_only=True,
        )
        if not old:
            return 0
        self.runs.delete_runs(state.tenant, state.thread_id, old)
        for r in old:
            if r.blob_key:
                self._drop_blob(r.blob_key)
        return len(old)

    def _burned(self, tenant: str, thread_id: str) -> None:
        try:
            self.runs.record_burned(tenant, thread_id)
        except Exception:
            logger.exception("could not record a burned sequence number")

    def _drop_blob(self, blob_key: str) -> None:
        try:
            if self.blobs is not None:
                self.blobs.delete_prefix(blob_key)  # keys are fixed-length digests: the prefix is the key
        except Exception:
            logger.exception("could not delete an orphaned run blob")

    def _run_json(self, stored: StoredRun) -> str:
        if stored.run_json is not None:
            return stored.run_json
        if stored.blob_key is None or self.blobs is None:
            raise DependencyUnavailable(f"run {stored.seq} has no body")
        try:
            return self.blobs.get(stored.blob_key).decode("utf-8")
        except NotFound:  # deleted under a reader that listed the run first (a concurrent thread delete)
            raise DependencyUnavailable(f"run {stored.seq} is gone (deleted concurrently?); retry") from None

    def _load_run(self, stored: StoredRun) -> Run:
        return decode_stored_run(self._run_json(stored))

    # ---- prompt-stack ---------------------------------------------------------------------------------
    def prompt_stack(self, tenant: str, thread_id: str, request: PromptStackRequest) -> PromptStack:
        check_identifier("thread_id", thread_id)
        stack = PromptStack()
        if request.system is not None:
            stack.add_system_message(_artifact(request.system, "system"))
        if request.input is not None:
            stack.add_user_message(_artifact(request.input, "input"))
        index = request.memory_index
        if index is None:
            index = 1 if request.system is not None else 0
        if index > len(stack.messages):
            raise InvalidInput(f"memory_index must be between 0 and {len(stack.messages)}")
        tokenizer = self._tokenizer_for(request)
        state = self.runs.get_thread(tenant, thread_id)
        if state is None:
            return stack
        summary_memory = state.memory_type == "summary"
        cap = request.last_n
        if not summary_memory and state.max_runs is not None:
            cap = state.max_runs if cap is None else min(cap, state.max_runs)
        lo = state.summary_through_seq + 1 if summary_memory else 1
        source = self._newest_first(tenant, thread_id, lo, cap, request.max_tokens)
        plan = select_history(
            list(stack.messages),
            source,
            tokenizer,
            summary=state.summary if summary_memory else None,
            max_tokens=request.max_tokens,
            last_n=cap,
            estimates_exact=tokenizer.encoding_name == self.tokenizer.encoding_name,
        )
        stack.messages[index:index] = plan.messages
        return stack

    def _tokenizer_for(self, request: PromptStackRequest) -> Tokenizer:
        name = tokenizer_name(model=request.model, tokenizer=request.tokenizer)
        if name is None or name == self.tokenizer.encoding_name:
            return self.tokenizer
        if name.startswith(CHARS_PREFIX):
            return CharsTokenizer.parse(name)
        if self.encodings is None:
            raise InvalidInput(f"this deployment counts only {self.tokenizer.encoding_name}")
        return self.encodings(name)

    def prompt_tokens(self, stack: PromptStack, request: PromptStackRequest) -> int:
        """Tokens of the stack as a prompt driver renders it (what `max_tokens` budgets), counted as `request` asks."""
        return self._tokenizer_for(request).count_tokens(render_messages(stack.messages))

    def _newest_first(
        self, tenant: str, thread_id: str, lo: int, cap: int | None, budget: int | None
    ) -> Iterator[HistoryRun]:
        """Runs newest first, in Query pages sized so that the bytes read track what the prompt returns."""
        hi: int | None = None
        now = int(self.clock())
        tokens = read = 0
        while cap is None or read < cap:
            limit = history_page_size(budget, tokens, read, None if cap is None else cap - read)
            runs, after = self.runs.page_runs(
                tenant, thread_id, lo=lo, hi=hi, newest_first=True, limit=limit, now_epoch=now
            )
            for r in runs:
                read += 1
                tokens += r.input_tokens + r.output_tokens + RUN_SEPARATOR_TOKENS
                yield HistoryRun(r.seq, r.input_tokens, r.output_tokens, load=functools.partial(self._load_run, r))
            if after is None or after <= lo:
                return
            hi = after - 1

    # ---- threads --------------------------------------------------------------------------------------
    def get_thread(self, tenant: str, thread_id: str) -> dict[str, Any]:
        check_identifier("thread_id", thread_id)
        state = self.runs.get_thread(tenant, thread_id)
        if state is None:
            raise NotFound(f'thread "{thread_id[:100]}" does not exist')
        seqs = [r.seq for r in self._iter_keys(tenant, thread_id, lo=1, newest_first=True)]
        floor = self._visible_floor(state, seqs)
        visible = [s for s in seqs if s >= floor]
        return self._thread_view(state, stored=len(seqs), visible=len(visible))

    def configure(self, tenant: str, thread_id: str, request: ThreadConfigRequest) -> dict[str, Any]:
        check_identifier("thread_id", thread_id)
        changes = {name: getattr(request, name) for name in request.model_fields_set}
        for name in ("memory_type", "offset"):
            if name in changes and changes[name] is None:
                raise InvalidInput(f"{name} cannot be null")
        try:
            state = self.runs.configure(tenant, thread_id, changes, _now_iso(self.clock()))
        except ThreadDeleting:
            raise ThreadDeleted(thread_id) from None
        return self.get_thread(state.tenant, state.thread_id)

    def delete_thread(self, tenant: str, thread_id: str) -> int:
        check_identifier("thread_id", thread_id)
        deleted = self.runs.delete_thread(tenant, thread_id)  # marked: adds in flight can no longer commit
        if self.blobs is not None:
            self.blobs.delete_prefix(thread_prefix(tenant, thread_id))
        self.runs.release_thread(tenant, thread_id)  # only now may the id be used again
        return deleted

    def list_runs(
        self, tenant: str, thread_id: str, *, limit: int = 20, cursor: str | None = None, order: str = "asc"
    ) -> dict[str, Any]:
        check_identifier("thread_id", thread_id)
        if order not in ("asc", "desc"):
            raise InvalidInput('order must be "asc" or "desc"')
        if not 1 <= limit <= MAX_LIST_LIMIT:
            raise InvalidInput(f"limit must be between 1 and {MAX_LIST_LIMIT}")
        binding = digest(tenant, thread_id)[:32]
        after: int | None = None
        floor: int | None = None
        if cursor is not None:
            after, floor = decode_cursor(cursor, binding, order)
        state = self.runs.get_thread(tenant, thread_id)
        if state is None:
            return {"runs": [], "next_cursor": None}
        if floor is None:
            floor = self._visible_floor(state, None)
        newest_first = order == "desc"
        if newest_first:
            lo, hi = floor, (after - 1 if after is not None else None)
        else:
            lo, hi = max(floor, (after or 0) + 1), None
        if hi is not None and hi < lo:
            return {"runs": [], "next_cursor": None}
        runs, last = self.runs.page_runs(
            tenant, thread_id, lo=lo, hi=hi, newest_first=newest_first, limit=limit, now_epoch=int(self.clock())
        )
        summary_memory = state.memory_type == "summary"
        items = []
        for r in runs:
            entry: dict[str, Any] = {
                "seq": r.seq,
                "run": json.loads(self._run_json(r)),
                "created_at": r.created_at,
                "input_tokens": r.input_tokens,
                "output_tokens": r.output_tokens,
                "size": r.size,
            }
            if summary_memory:
                entry["summarized"] = r.seq <= state.summary_through_seq
            items.append(entry)
        next_cursor = encode_cursor(binding, order, last, floor) if last is not None else None
        return {"runs": items, "next_cursor": next_cursor}

    def _iter_keys(self, tenant: str, thread_id: str, *, lo: int, newest_first: bool) -> Iterator[StoredRun]:
        hi: int | None = None
        now = int(self.clock())
        while True:
            runs, last = self.runs.page_runs(
                tenant, thread_id, lo=lo, hi=hi, newest_first=newest_first, limit=500, now_epoch=now, keys_only=True
            )
            yield from runs
            if last is None:
                return
            if newest_first:
                hi = last - 1
            else:
                lo = last + 1

    def _visible_floor(self, state: ThreadState, seqs_newest_first: list[int] | None) -> int:
        """The smallest visible seq: max_runs keeps the newest N (summary memory: never unsummarized runs)."""
        if state.max_runs is None:
            return 1
        if seqs_newest_first is None:
            seqs_newest_first = []
            for r in self._iter_keys(state.tenant, state.thread_id, lo=1, newest_first=True):
                seqs_newest_first.append(r.seq)
                if len(seqs_newest_first) >= state.max_runs:
                    break
        floor = seqs_newest_first[state.max_runs - 1] if len(seqs_newest_first) >= state.max_runs else 1
        if state.memory_type == "summary":
            floor = min(floor, state.summary_through_seq + 1)
        return max(floor, 1)

    def _thread_view(self, state: ThreadState, *, stored: int, visible: int) -> dict[str, Any]:
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
            "memory_type": state.memory_type,
            "max_runs": state.max_runs,
            "offset": state.offset,
            "retention_days": state.retention_days,
            "created_at": state.created_at,
            "updated_at": state.updated_at,
            "last_seq": state.next_seq,
            "stored_runs": stored,
            "visible_runs": visible,
            "summary": summary,
        }

    # ---- summary --------------------------------------------------------------------------------------
    def summarize(self, tenant: str, thread_id: str) -> SummarizeResult:
        """Fold all unsummarized runs but the newest `offset` into the summary (Griptape's prompt).

        Committed with a compare-and-swap on `summary_version`; a stale result is dropped, a failing
        summarizer raises and changes nothing (the runs stay in the prompt).
        """
        check_identifier("thread_id", thread_id)
        state = self.runs.get_thread(tenant, thread_id)
        if state is None or state.memory_type != "summary":
            return SummarizeResult("not_summary_memory")
        stored = list(self._iter_full(tenant, thread_id, lo=state.summary_through_seq + 1))
        to_sum = stored[: max(0, len(stored) - state.offset)]
        if not to_sum:
            return SummarizeResult("nothing_to_do", state.summary_through_seq)
        if self.summarizer is None:
            raise InvalidInput("no summarizer is configured")
        runs = [self._load_run(r) for r in to_sum]
        prompt = render_summarize_prompt(state.summary, runs)
        summary = self.summarizer.summarize(prompt)
        through = to_sum[-1].seq
        committed = self.runs.commit_summary(
            tenant,
            thread_id,
            summary=summary,
            through_seq=through,
            expected_version=state.summary_version,
            now=_now_iso(self.clock()),
        )
        if not committed:
            return SummarizeResult("stale", through, len(to_sum))
        return SummarizeResult("committed", through, len(to_sum))

    def _iter_full(self, tenant: str, thread_id: str, *, lo: int) -> Iterator[StoredRun]:
        now = int(self.clock())
        while True:
            runs, last = self.runs.page_runs(
                tenant, thread_id, lo=lo, hi=None, newest_first=False, limit=100, now_epoch=now
            )
            yield from runs
            if last is None:
                return
            lo = last + 1


def _artifact(value: str | dict[str, Any], field: str) -> str | BaseArtifact:
    if isinstance(value, str):
        return value
    from offprompt.errors import ArtifactError

    try:
        return BaseArtifact.from_dict(value)
    except ArtifactError as exc:
        raise ArtifactError(f"{field}: {exc.message}") from None
