"""Use case: prompt-stack — the thread's history as Griptape messages, within a token budget (Griptape's
`Conversation memory → PromptStack`). Handler: functions/prompt_stack.

Runs are read newest first in budget-sized Query pages (`newest_first`, `history_page_size`); which of them fit
is `offprompt.memory.conversation.select_history` (pure).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from offprompt.artifacts import BaseArtifact
from offprompt.errors import InvalidInput
from offprompt.identifiers import check_identifier
from offprompt.memory.conversation import HistoryRun, PreparedRun, select_history
from offprompt.memory.run import Run
from offprompt.memory.tokenizers import CHARS_PREFIX, CharsTokenizer, tokenizer_name
from offprompt.ports import StoredRun, ThreadState, Tokenizer
from offprompt.prompt import PromptStack
from offprompt.prompt.render import render_messages
from offprompt.services.conversation.context import Conversation
from offprompt.services.conversation.errors import ThreadKindMismatch, require_run
from offprompt.services.conversation.requests import PromptStackRequest
from offprompt.services.conversation.results import PromptStackResult
from offprompt.services.conversation.run_bodies import decode_stored_run
from offprompt.services.conversation.run_cache import prepare_stored_run

# prompt-stack Query pages: the first assumes runs of the thread's average size (its run_tokens / next_seq; on
# threads without run_tokens, PRIOR_RUN_TOKENS), later ones use the average of the runs read so far (stored counts)
# to read about what the rest of the budget holds; each page adds 10% and one run.
PRIOR_RUN_TOKENS = 100
RUN_SEPARATOR_TOKENS = 2  # each run adds two "\n\n" separators (1 token each in cl100k)
MIN_HISTORY_PAGE, MAX_HISTORY_PAGE = 8, 200


def history_page_size(
    budget: int | None, tokens_read: int, runs_read: int, cap_left: int | None, prior: float | None = None
) -> int:
    """Items for the next newest-first Query page of a prompt-stack (bytes read ≈ bytes returned).

    `prior`: the thread's average tokens per run (separators included), when known, for the first page."""
    if budget is None:
        size = MAX_HISTORY_PAGE if runs_read else 100
    elif runs_read == 0 and prior:
        size = max(MIN_HISTORY_PAGE, int(budget * 1.1 / prior) + 1)
    elif runs_read == 0:
        size = max(MIN_HISTORY_PAGE, min(MAX_HISTORY_PAGE, budget // PRIOR_RUN_TOKENS + 1))
    else:
        left = budget - tokens_read
        size = 1 if left <= 0 else -(-left * runs_read * 11 // (tokens_read * 10 or 1)) + 1
    size = max(1, min(size, MAX_HISTORY_PAGE))
    return size if cap_left is None else max(1, min(size, cap_left))


def prompt_stack(conv: Conversation, tenant: str, thread_id: str, request: PromptStackRequest) -> PromptStack:
    return build_prompt_stack(conv, tenant, thread_id, request).stack


def build_prompt_stack(
    conv: Conversation, tenant: str, thread_id: str, request: PromptStackRequest
) -> PromptStackResult:
    """The stack with its token count (exact from the stored counts when the arithmetic allows, else counted)
    and its JSON built from cached per-run JSON."""
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
    tokenizer = tokenizer_for(conv, request)
    state = conv.runs.get_thread(tenant, thread_id)
    if state is None:
        if request.as_of_run is not None:  # no thread holds that run: as on a thread that lacks it
            require_run(None, thread_id, request.as_of_run)
        return PromptStackResult(stack, tokenizer.count_tokens(render_messages(stack.messages)), None, index)
    if state.kind != "runs":  # a framework session's items are not Griptape runs (docs/adr/0033)
        raise ThreadKindMismatch(thread_id, state.kind)
    summary_memory = state.memory_type == "summary"
    top = None
    if request.as_of_run is not None:  # time travel: the thread as it was right after that run (docs/adr/0037)
        seq = conv.runs.run_seq(tenant, thread_id, request.as_of_run, state.ancestry)
        top = require_run(seq, thread_id, request.as_of_run)
    # A summary covering runs past `top` did not exist then: as of an earlier run, the runs are read instead.
    summary = state.summary if summary_memory and (top is None or state.summary_through_seq <= top) else None
    cap = request.last_n
    if not summary_memory and state.max_runs is not None:
        cap = state.max_runs if cap is None else min(cap, state.max_runs)
    lo = state.summary_through_seq + 1 if summary is not None else 1
    prior = state.run_tokens / state.next_seq + RUN_SEPARATOR_TOKENS if state.run_tokens and state.next_seq else None
    source = newest_first(conv, state, lo, cap, request.max_tokens, prior, top)
    plan = select_history(
        list(stack.messages),
        source,
        tokenizer,
        summary=summary,
        max_tokens=request.max_tokens,
        last_n=cap,
        estimates_exact=tokenizer.encoding_name == conv.tokenizer.encoding_name,
    )
    stack.messages[index:index] = plan.messages
    tokens = plan.tokens if plan.tokens is not None else tokenizer.count_tokens(render_messages(stack.messages))
    return PromptStackResult(stack, tokens, plan, index)


def tokenizer_for(conv: Conversation, request: PromptStackRequest) -> Tokenizer:
    name = tokenizer_name(model=request.model, tokenizer=request.tokenizer)
    if name is None or name == conv.tokenizer.encoding_name:
        return conv.tokenizer
    if name.startswith(CHARS_PREFIX):
        return CharsTokenizer.parse(name)
    if conv.encodings is None:
        raise InvalidInput(f"this deployment counts only {conv.tokenizer.encoding_name}")
    return conv.encodings(name)


def prompt_tokens(conv: Conversation, stack: PromptStack, request: PromptStackRequest) -> int:
    """Tokens of the stack as a prompt driver renders it (what `max_tokens` budgets), counted as `request` asks."""
    return tokenizer_for(conv, request).count_tokens(render_messages(stack.messages))


def newest_first(
    conv: Conversation,
    state: ThreadState,
    lo: int,
    cap: int | None,
    budget: int | None,
    prior: float | None = None,
    top: int | None = None,
) -> Iterator[HistoryRun]:
    """Runs newest first (through a fork's ancestry, in the RunStore), up to `top`, in Query pages sized so that the
    bytes read track what the prompt returns; a page is read only when select_history asks for more runs."""
    hi: int | None = top
    now = int(conv.clock())
    tokens = read = 0
    while cap is None or read < cap:
        limit = history_page_size(budget, tokens, read, None if cap is None else cap - read, prior)
        runs, after = conv.runs.page_runs(
            state.tenant,
            state.thread_id,
            lo=lo,
            hi=hi,
            newest_first=True,
            limit=limit,
            now_epoch=now,
            ancestry=state.ancestry,
        )
        for r in runs:
            read += 1
            # A run stored uncounted (docs/adr/0040) is counted here, once per process (the prepared-run cache), in
            # the stored counts' encoding: select_history prices every run read, and the next page is sized by them.
            user, assistant = (
                (r.input_tokens, r.output_tokens) if r.counted else _prepare(conv, r).counts(conv.tokenizer)
            )
            tokens += user + assistant + RUN_SEPARATOR_TOKENS
            yield HistoryRun(
                r.seq,
                user,
                assistant,
                load=functools.partial(_load, conv, r),
                prepare=functools.partial(_prepare, conv, r),
            )
        if after is None or after <= lo:
            return
        hi = after - 1


def _load(conv: Conversation, stored: StoredRun) -> Run:
    """A run select_history considers, decoded (its body read from the run-body store when offloaded)."""
    return decode_stored_run(conv.bodies.run_json(stored))


def _prepare(conv: Conversation, stored: StoredRun) -> PreparedRun:
    """The run with its prompt messages, from the per-process cache (`run_cache`)."""
    return prepare_stored_run(conv.bodies.run_json(stored))


def _artifact(value: str | dict[str, Any], field: str) -> str | BaseArtifact:
    if isinstance(value, str):
        return value
    from offprompt.errors import ArtifactError

    try:
        return BaseArtifact.from_dict(value)
    except ArtifactError as exc:
        raise ArtifactError(f"{field}: {exc.message}") from None
