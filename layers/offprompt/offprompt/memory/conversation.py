"""Conversation memory logic, Griptape-equal and I/O-free: messages of a run, autoprune, summary prompts.

- `run_messages(run)` = Griptape's `to_prompt_stack` pair: `add_user_message(run.input)`,
  `add_assistant_message(run.output)`.
- `select_history(...)` = the result of `BaseConversationMemory.add_to_prompt_stack` with autoprune
  (contract §3.3), but reading runs newest-first and stopping once the budget is spent: stored per-run token
  counts give an estimate, then the rendered text of the returned stack is counted exactly (±1 run).
- `render_summarize_prompt(summary, runs)` = Griptape's `memory/conversation/summarize_conversation.j2`.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from offprompt.artifacts import BaseArtifact, TextArtifact
from offprompt.ports import Tokenizer
from offprompt.prompt import Message, PromptStack, render_message, render_messages
from offprompt.prompt.contents import TextMessageContent
from offprompt.prompt.message import Usage
from offprompt.prompt.render import SEPARATOR, TRAILER

from .run import Run

SUMMARY_PREFIX = "Summary of the conversation so far: "


def run_messages(run: Run) -> list[Message]:
    """The user/assistant pair Griptape's ConversationMemory.to_prompt_stack adds for one run."""
    return [_message(run.input, Message.USER_ROLE), _message(run.output, Message.ASSISTANT_ROLE)]


def _message(artifact: BaseArtifact, role: str) -> Message:
    """`PromptStack.add_message(artifact, role)`; a TextArtifact (already validated) is wrapped without
    re-validation, as `to_message_content` would wrap it."""
    if type(artifact) is TextArtifact:
        content = [TextMessageContent.model_construct(artifact=artifact)]
        return Message.model_construct(content=content, role=role, usage=Usage())
    stack = PromptStack()
    return stack.add_message(artifact, role)


def run_token_counts(run: Run, tokenizer: Tokenizer) -> tuple[int, int]:
    """Tokens of the run's rendered user and assistant messages, as the prompt drivers render them."""
    user, assistant = run_messages(run)
    return tokenizer.count_tokens(render_message(user)), tokenizer.count_tokens(render_message(assistant))


def summary_message(summary: str) -> Message:
    """Griptape's `memory/conversation/summary.j2` (rendered output is rstripped), sent as a user message."""
    return Message(f"{SUMMARY_PREFIX}{summary}".rstrip(), role=Message.USER_ROLE)


def render_summarize_prompt(summary: str | None, runs: Sequence[Run]) -> str:
    """Griptape's `summarize_conversation.j2` (trim_blocks, lstrip_blocks, output rstripped)."""
    if summary:
        head = f'Conversation summary:\n"""\n{summary}\n"""\n\nUpdate the summary with this:\n\n'
    else:
        head = "Summarize the following conversation:\n\n"
    body = "".join(f"Human: {run.input.to_text()}\nAssistant: {run.output.to_text()}\n" for run in runs)
    return (head + body).rstrip()


def runs_to_summarize(unsummarized: Sequence[Run], offset: int) -> list[Run]:
    """Griptape's `try_add_run` choice: all unsummarized runs but the newest `offset`."""
    return list(unsummarized[: max(0, len(unsummarized) - offset)])


@dataclass
class HistoryRun:
    """A candidate run for the prompt, newest-first; the run itself is loaded only if it is considered."""

    seq: int
    input_tokens: int  # stored count of the rendered user message ("User: {input}")
    output_tokens: int  # stored count of the rendered assistant message ("Assistant: {output}")
    load: Callable[[], Run]
    _run: Run | None = field(default=None, repr=False)

    @property
    def run(self) -> Run:
        if self._run is None:
            self._run = self.load()
        return self._run

    @classmethod
    def of(cls, seq: int, run: Run, tokenizer: Tokenizer) -> HistoryRun:
        i, o = run_token_counts(run, tokenizer)
        return cls(seq=seq, input_tokens=i, output_tokens=o, load=lambda: run, _run=run)


@dataclass(frozen=True)
class HistoryPlan:
    messages: list[Message]
    runs: list[HistoryRun]  # oldest first, the runs whose messages are in `messages`
    with_summary: bool
    exact_counts: int = 0  # how many times a whole rendered stack was tokenized (0 on the additive path)
    candidates_read: int = 0  # runs pulled from the source (returned + at most one that did not fit)


def _select_by_search(
    base: Sequence[Message],
    pull: Callable[[], HistoryRun | None],
    tokenizer: Tokenizer,
    summary: str | None,
    max_tokens: int,
    read: Callable[[], int],
) -> HistoryPlan:
    counts = 0

    def fits(n: int) -> bool:
        nonlocal counts
        if n == 0 and not summary:
            return True
        counts += 1
        mem = history_messages(summary, list(reversed(candidates[:n])))
        return max_tokens - tokenizer.count_tokens(render_messages([*base, *mem])) > 0

    candidates: list[HistoryRun] = []  # newest first
    known_fit = 0  # the largest n known to fit
    exhausted = False
    while True:
        # read more candidates: double what is known to fit (at least 8), so a few rounds cover any ratio
        # between the stored counts' encoding and this tokenizer
        want = max(8, 2 * len(candidates))
        while len(candidates) < want and (r := pull()) is not None:
            candidates.append(r)
        exhausted = len(candidates) < want
        if not candidates or not fits(len(candidates)):
            break
        known_fit = len(candidates)
        if exhausted:
            break
    lo, hi = known_fit, len(candidates)  # fits(lo); not fits(hi) unless lo == hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    n = hi if hi == lo else lo
    if n == 0:
        if summary and not candidates and fits(0):
            return HistoryPlan([summary_message(summary)], [], True, counts, read())
        return HistoryPlan([], [], False, counts, read())
    chosen = list(reversed(candidates[:n]))
    return HistoryPlan(history_messages(summary, chosen), chosen, bool(summary), counts, read())


@dataclass(frozen=True)
class _Candidate:
    """A run read from the source with its exact cost in the rendered stack and its two messages."""

    history: HistoryRun
    messages: tuple[Message, Message]
    cost: int


def history_messages(summary: str | None, runs: Sequence[HistoryRun]) -> list[Message]:
    """Summary (if any) then the runs' pairs, oldest first: Griptape's to_prompt_stack(n)."""
    messages = [summary_message(summary)] if summary else []
    for r in runs:
        messages.extend(run_messages(r.run))
    return messages


# ---- token arithmetic --------------------------------------------------------------------------------------
# Griptape counts `render_messages(stack)` = the rendered messages joined by SEPARATOR ("\n\n"), then TRAILER.
# tiktoken splits text into pre-tokens with a regex before BPE, and no pre-token can run from "\n" into a
# following letter or non-space character. So when every message but the first renders starting with a
# non-whitespace character ("User: …", "Assistant: …" always do), the pre-tokens of message m inside the stack
# are exactly those of `render(m) + SEPARATOR` alone, and
#     count(render_messages(stack)) = Σ_m count(render(m) + SEPARATOR) + count(TRAILER)        (exact)
# count(render(m) + SEPARATOR) = stored count(render(m)) + separator_tokens(render(m)): appending "\n\n" changes
# only the text's last pre-token, which ends at the text's end and starts after the last letter that is
# followed by a space or ASCII punctuation (a pre-token boundary in cl100k and o200k), so that short tail is all
# that has to be tokenized; for the common tails (".", "?", a word) the result is cached.
_TAIL_CHARS = frozenset(' .,!?;:)]}"')
_TAIL_SCAN = 64


def _is_letter_or_number(char: str) -> bool:
    return unicodedata.category(char)[0] in "LN"


def _tail(text: str) -> str:
    """The shortest suffix of `text` that starts on a pre-token boundary (or all of it when none is close)."""
    stop = max(0, len(text) - _TAIL_SCAN)
    for i in range(len(text) - 1, stop, -1):
        if text[i] in _TAIL_CHARS and text[i - 1].isalpha():
            return text[i:]
    return text


_SEPARATOR_CACHE: dict[tuple[type, str, str], int] = {}  # (tokenizer type, encoding, tail) -> tokens; a cache
_SEPARATOR_CACHE_SIZE = 4096


def _separator_tokens_of_tail(tokenizer: Tokenizer, tail: str) -> int:
    key = (type(tokenizer), tokenizer.encoding_name, tail)
    hit = _SEPARATOR_CACHE.get(key)
    if hit is None:
        if len(_SEPARATOR_CACHE) >= _SEPARATOR_CACHE_SIZE:
            _SEPARATOR_CACHE.clear()
        hit = _SEPARATOR_CACHE[key] = tokenizer.count_tokens(tail + SEPARATOR) - tokenizer.count_tokens(tail)
    return hit


def separator_tokens(text: str, tokenizer: Tokenizer) -> int:
    """count(text + SEPARATOR) - count(text), tokenizing only the text's last pre-token(s)."""
    if text and _is_letter_or_number(text[-1]):
        return _separator_tokens_of_tail(tokenizer, "")  # a letter/number pre-token never absorbs "\n\n"
    tail = _tail(text)
    if len(tail) > _TAIL_SCAN:
        return tokenizer.count_tokens(text + SEPARATOR) - tokenizer.count_tokens(text)
    return _separator_tokens_of_tail(tokenizer, tail)


def starts_fresh(message: Message) -> bool:
    """Whether the rendered message starts a new pre-token after a preceding SEPARATOR."""
    rendered = render_message(message)
    return bool(rendered) and not rendered[0].isspace()


def message_cost(message: Message, tokenizer: Tokenizer) -> int:
    """Exact tokens the message adds to a rendered stack (itself + the following separator)."""
    rendered = render_message(message)
    return tokenizer.count_tokens(rendered) + separator_tokens(rendered, tokenizer)


def candidate(history: HistoryRun, tokenizer: Tokenizer) -> _Candidate:
    """Load the run and price its two messages with the stored counts plus their separators."""
    user, assistant = run_messages(history.run)
    cost = (
        history.input_tokens
        + separator_tokens(render_message(user), tokenizer)
        + history.output_tokens
        + separator_tokens(render_message(assistant), tokenizer)
    )
    return _Candidate(history, (user, assistant), cost)


def _capped(newest_first: Iterator[HistoryRun], last_n: int | None) -> Iterator[HistoryRun]:
    return newest_first if last_n is None else itertools.islice(newest_first, max(last_n, 0))


def _plan(summary: str | None, chosen_newest_first: Sequence[_Candidate], counts: int, read: int) -> HistoryPlan:
    """The memory messages for the chosen runs (oldest first), built from the messages already made."""
    if not chosen_newest_first:
        return HistoryPlan([], [], False, counts, read)
    messages = [summary_message(summary)] if summary else []
    for c in reversed(chosen_newest_first):
        messages.extend(c.messages)
    return HistoryPlan(messages, [c.history for c in reversed(chosen_newest_first)], bool(summary), counts, read)


def _fits(max_tokens: int, tokens: int) -> bool:
    """Griptape's test: `count_input_tokens_left(text) > 0`."""
    return max_tokens - tokens > 0


def _take_within_budget(
    candidates: Iterator[HistoryRun], tokenizer: Tokenizer, fixed: int, max_tokens: int
) -> tuple[list[_Candidate], _Candidate | None]:
    """Newest-first runs while `fixed` + their costs stays within budget.

    Returns the taken candidates (newest first) and the first that did not fit (read, not taken), if any.
    """
    taken: list[_Candidate] = []
    total = fixed
    for history in candidates:
        c = candidate(history, tokenizer)
        if not _fits(max_tokens, total + c.cost):
            return taken, c
        taken.append(c)
        total += c.cost
    return taken, None


def _exact_count(base: Sequence[Message], summary: str | None, chosen: Sequence[_Candidate], tok: Tokenizer) -> int:
    """Whole-stack count of base + memory (memory after base; the fallback's check)."""
    memory = [summary_message(summary)] if summary else []
    for c in reversed(chosen):
        memory.extend(c.messages)
    return tok.count_tokens(render_messages([*base, *memory]))


def _adjust_by_full_counts(
    base: Sequence[Message],
    candidates: Iterator[HistoryRun],
    tokenizer: Tokenizer,
    summary: str | None,
    max_tokens: int,
    estimated: tuple[list[_Candidate], _Candidate | None],
) -> tuple[list[_Candidate], _Candidate | None, int, int]:
    """Fallback when a base message does not start fresh (the sum is then only an estimate): check the
    estimated choice on the whole stack and move one run at a time until Griptape's rule holds.

    Returns (taken newest first, first candidate left out or None, whole-stack counts made, extra runs read).
    """
    taken, beyond = estimated
    counts = extra = 0
    if taken:
        counts += 1
        if not _fits(max_tokens, _exact_count(base, summary, taken, tokenizer)):
            while taken:
                beyond = taken.pop()
                if not taken:
                    break
                counts += 1
                if _fits(max_tokens, _exact_count(base, summary, taken, tokenizer)):
                    break
            return taken, beyond, counts, extra
    while beyond is not None:
        counts += 1
        if not _fits(max_tokens, _exact_count(base, summary, [*taken, beyond], tokenizer)):
            break
        taken.append(beyond)
        nxt = next(candidates, None)
        extra += nxt is not None
        beyond = candidate(nxt, tokenizer) if nxt is not None else None
    return taken, beyond, counts, extra


def select_history(
    base: Sequence[Message],
    newest_first: Iterator[HistoryRun],
    tokenizer: Tokenizer,
    *,
    summary: str | None = None,
    max_tokens: int | None = None,
    last_n: int | None = None,
    estimates_exact: bool = True,
) -> HistoryPlan:
    """The memory messages Griptape's autoprune would insert, reading only the runs it returns (+1).

    Griptape keeps the largest n (from all runs down) for which
    `max_tokens - count(render(base + memory(n))) > 0`; with none, no memory at all. A summary (summary
    memory) comes first and is dropped only together with the last run. The stack's count is additive over
    messages (see "token arithmetic" above), so runs are priced with their stored counts plus their separators
    and taken newest first until the next does not fit: no whole-stack count, each run's messages built once.
    (A base message starting with whitespace breaks additivity: the sum is then checked on the whole stack.)

    `estimates_exact=False`: the runs' stored counts are of another encoding than `tokenizer` (ADR 0013); they
    only bound how many runs are read, and n is found by binary search over exact counts (O(log n) counts).
    """
    candidates = _capped(newest_first, last_n)
    if max_tokens is None:
        everything = [candidate_unpriced(h) for h in candidates]
        return _plan(summary, everything, 0, len(everything))

    if not estimates_exact:
        read = 0

        def pull() -> HistoryRun | None:
            nonlocal read
            nxt = next(candidates, None)
            read += nxt is not None
            return nxt

        return _select_by_search(base, pull, tokenizer, summary, max_tokens, lambda: read)

    additive = all(starts_fresh(m) for m in base)
    fixed = sum(message_cost(m, tokenizer) for m in base) + tokenizer.count_tokens(TRAILER)
    if summary:
        fixed += message_cost(summary_message(summary), tokenizer)
    taken, beyond = _take_within_budget(candidates, tokenizer, fixed, max_tokens)
    read = len(taken) + (beyond is not None)
    counts = 0
    if not additive:
        estimated = (taken, beyond)
        taken, beyond, counts, extra = _adjust_by_full_counts(
            base, candidates, tokenizer, summary, max_tokens, estimated
        )
        read += extra
    if taken or not summary or beyond is not None:
        return _plan(summary, taken, counts, read)
    # No run at all: the summary alone, when it fits (a run that does not fit drops both).
    if not additive:
        fixed, counts = _exact_count(base, summary, [], tokenizer), counts + 1
    if _fits(max_tokens, fixed):
        return HistoryPlan([summary_message(summary)], [], True, counts, read)
    return HistoryPlan([], [], False, counts, read)


def candidate_unpriced(history: HistoryRun) -> _Candidate:
    """A run taken without a budget: its messages, no token count."""
    user, assistant = run_messages(history.run)
    return _Candidate(history, (user, assistant), 0)
