"""Conversation memory logic, Griptape-equal and I/O-free: messages of a run, autoprune, summary prompts.

- `run_messages(run)` = Griptape's `to_prompt_stack` pair: `add_user_message(run.input)`,
  `add_assistant_message(run.output)`.
- `select_history(...)` = the result of `BaseConversationMemory.add_to_prompt_stack` with autoprune
  (contract §3.3), but reading runs newest-first and stopping once the budget is spent: the stack's count is
  the sum of its messages' costs (stored per-run counts + separators, "token arithmetic" below), so the plan
  also carries the stack's exact token count; with counts of another encoding, a bisection over exact counts.
- `PreparedRun`: a run's two messages, their separator costs and their JSON, computed once per stored run.
- `render_summarize_prompt(summary, runs)` = Griptape's `memory/conversation/summarize_conversation.j2`.
"""

from __future__ import annotations

import functools
import itertools
import json
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

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
    return message_counts(user, assistant, tokenizer)


def message_counts(user: Message, assistant: Message, tokenizer: Tokenizer) -> tuple[int, int]:
    return tokenizer.count_tokens(render_message(user)), tokenizer.count_tokens(render_message(assistant))


#: Bytes of a stored run's JSON that are not its two texts (types, ids, names, meta), about.
RUN_JSON_OVERHEAD = 400


def estimated_tokens(size: int) -> int:
    """A run's tokens guessed from its stored JSON's bytes (about 4 per token in English prose, after the JSON's own
    keys): only to size reads (the thread's `run_tokens`), never to choose what a prompt holds (docs/adr/0040)."""
    return max(1, (size - RUN_JSON_OVERHEAD) // 4)


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


class PreparedRun:
    """A run's two prompt messages and what prompt-stack derives from them, each computed once.

    Built once per stored run and cached by the service (by the run's stored JSON), so a warm prompt-stack
    builds no Message, renders nothing and serializes no message again. Treat as immutable: the messages are
    shared by every stack that includes the run.
    """

    __slots__ = ("_counts", "_json", "_separators", "messages", "run")

    def __init__(self, run: Run) -> None:
        self.run = run
        user, assistant = run_messages(run)
        self.messages = (user, assistant)
        self._separators: dict[tuple[type, str], tuple[int, int]] = {}
        self._counts: dict[tuple[type, str], tuple[int, int]] = {}
        self._json: tuple[str, str] | None = None

    def counts(self, tokenizer: Tokenizer) -> tuple[int, int]:
        """`run_token_counts` of the run, per encoding, counted once: what a reader uses for a run stored uncounted
        (docs/adr/0040)."""
        key = (type(tokenizer), tokenizer.encoding_name)
        hit = self._counts.get(key)
        if hit is None:
            hit = self._counts[key] = message_counts(*self.messages, tokenizer)
        return hit

    def separators(self, tokenizer: Tokenizer) -> tuple[int, int]:
        """Tokens the separator after each rendered message adds (see "token arithmetic"), per encoding."""
        key = (type(tokenizer), tokenizer.encoding_name)
        hit = self._separators.get(key)
        if hit is None:
            user, assistant = self.messages
            hit = (
                separator_tokens(render_message(user), tokenizer),
                separator_tokens(render_message(assistant), tokenizer),
            )
            self._separators[key] = hit
        return hit

    def messages_json(self) -> tuple[str, str]:
        """`json.dumps(message.to_dict())` of the two messages, as a PromptStack's JSON holds them."""
        if self._json is None:
            user, assistant = self.messages
            self._json = (json.dumps(user.to_dict()), json.dumps(assistant.to_dict()))
        return self._json


@dataclass(slots=True)
class HistoryRun:
    """A candidate run for the prompt, newest-first; the run itself is loaded only if it is considered.

    `prepare` (optional) loads the run already prepared (a cache); without it the run is prepared from `load`.
    """

    seq: int
    input_tokens: int  # stored count of the rendered user message ("User: {input}")
    output_tokens: int  # stored count of the rendered assistant message ("Assistant: {output}")
    load: Callable[[], Run]
    _run: Run | None = field(default=None, repr=False)
    prepare: Callable[[], PreparedRun] | None = field(default=None, repr=False)
    _prepared: PreparedRun | None = field(default=None, repr=False)

    @property
    def run(self) -> Run:
        if self._run is None:
            self._run = self._prepared.run if self._prepared is not None else self.load()
        return self._run

    @property
    def prepared(self) -> PreparedRun:
        if self._prepared is None:
            self._prepared = self.prepare() if self.prepare is not None else PreparedRun(self.run)
        return self._prepared

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
    # Exact tokens of the rendered stack (base + these messages) when the arithmetic gives it (None otherwise)
    tokens: int | None = None

    def messages_json(self) -> list[str]:
        """`json.dumps(m.to_dict())` of each message in `messages`, the runs' from their prepared JSON."""
        out = [json.dumps(self.messages[0].to_dict())] if self.with_summary else []
        for r in self.runs:
            out.extend(r.prepared.messages_json())
        return out


def _stack_fits(
    base: Sequence[Message],
    summary: str | None,
    newest_first: Sequence[HistoryRun],
    tokenizer: Tokenizer,
    max_tokens: int,
) -> bool:
    """Griptape's test on the whole rendered stack: base + summary + these runs (oldest first)."""
    memory = history_messages(summary, newest_first[::-1])
    return _fits(max_tokens, tokenizer.count_tokens(render_messages([*base, *memory])))


def _prefix_fits(
    base: Sequence[Message],
    summary: str | None,
    newest_first: Sequence[HistoryRun],
    tokenizer: Tokenizer,
    max_tokens: int,
    n: int,
) -> bool:
    """`_stack_fits` with the newest n runs (bisection's test; n >= 1)."""
    return _stack_fits(base, summary, newest_first[:n], tokenizer, max_tokens)


def _read_up_to(source: Iterator[HistoryRun], have: list[HistoryRun], want: int) -> list[HistoryRun]:
    """`have` plus newest-first runs from `source` until there are `want` (fewer when the source ends)."""
    return have + list(itertools.islice(source, max(0, want - len(have))))


def _largest_fitting(fits: Callable[[int], bool], lo: int, hi: int) -> tuple[int, int]:
    """The largest n in [lo, hi) with fits(n), given fits(lo) and not fits(hi); and how many checks it took."""
    checks = 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        checks += 1
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo, checks


def _select_by_search(
    base: Sequence[Message],
    source: Iterator[HistoryRun],
    tokenizer: Tokenizer,
    summary: str | None,
    max_tokens: int,
) -> HistoryPlan:
    """The largest fitting n by whole-stack counts: read doubling batches (at least 8) while everything read
    fits, so a few rounds cover any ratio between the stored counts' encoding and this tokenizer, then bisect."""
    candidates: list[HistoryRun] = []  # newest first
    known_fit = counts = 0  # the largest n known to fit; whole-stack counts made
    while True:
        want = max(8, 2 * len(candidates))
        candidates = _read_up_to(source, candidates, want)
        if not candidates:
            break
        counts += 1
        if not _stack_fits(base, summary, candidates, tokenizer, max_tokens):
            break
        known_fit = len(candidates)
        if len(candidates) < want:  # the source is exhausted and everything fits
            break

    fits = functools.partial(_prefix_fits, base, summary, candidates, tokenizer, max_tokens)
    n, checks = (known_fit, 0) if known_fit == len(candidates) else _largest_fitting(fits, known_fit, len(candidates))
    counts += checks
    read = len(candidates)
    if n == 0:
        if summary and not candidates:
            counts += 1
            if _stack_fits(base, summary, [], tokenizer, max_tokens):
                return HistoryPlan([summary_message(summary)], [], True, counts, read)
        return HistoryPlan([], [], False, counts, read)
    chosen = candidates[:n][::-1]
    return HistoryPlan(history_messages(summary, chosen), chosen, bool(summary), counts, read)


class _Candidate(NamedTuple):
    """A run read from the source with its exact cost in the rendered stack and its two messages."""

    history: HistoryRun
    messages: tuple[Message, Message]
    cost: int


def history_messages(summary: str | None, runs: Sequence[HistoryRun]) -> list[Message]:
    """Summary (if any) then the runs' pairs, oldest first: Griptape's to_prompt_stack(n)."""
    messages = [summary_message(summary)] if summary else []
    for r in runs:
        messages.extend(r.prepared.messages)
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


# Counts of short texts (a system prompt sent with every request, the trailer), by tokenizer and text.
_COUNT_CACHE: dict[tuple[type, str, str], int] = {}
_COUNT_CACHE_SIZE = 256
_COUNT_CACHED_CHARS = 4096


def short_text_count(text: str, tokenizer: Tokenizer) -> int:
    """`tokenizer.count_tokens(text)`, remembered for short texts (the same system prompt comes every time)."""
    if len(text) > _COUNT_CACHED_CHARS:
        return tokenizer.count_tokens(text)
    key = (type(tokenizer), tokenizer.encoding_name, text)
    hit = _COUNT_CACHE.get(key)
    if hit is None:
        if len(_COUNT_CACHE) >= _COUNT_CACHE_SIZE:
            _COUNT_CACHE.clear()
        hit = _COUNT_CACHE[key] = tokenizer.count_tokens(text)
    return hit


def message_cost(message: Message, tokenizer: Tokenizer) -> int:
    """Exact tokens the message adds to a rendered stack (itself + the following separator)."""
    rendered = render_message(message)
    return short_text_count(rendered, tokenizer) + separator_tokens(rendered, tokenizer)


def candidate(history: HistoryRun, tokenizer: Tokenizer) -> _Candidate:
    """Load the run and price its two messages with the stored counts plus their separators."""
    prepared = history.prepared
    user_separator, assistant_separator = prepared.separators(tokenizer)
    cost = history.input_tokens + user_separator + history.output_tokens + assistant_separator
    return _Candidate(history, prepared.messages, cost)


def _capped(newest_first: Iterator[HistoryRun], last_n: int | None) -> Iterator[HistoryRun]:
    return newest_first if last_n is None else itertools.islice(newest_first, max(last_n, 0))


def _plan(
    summary: str | None, chosen_newest_first: Sequence[_Candidate], counts: int, read: int, tokens: int | None
) -> HistoryPlan:
    """The memory messages for the chosen runs (oldest first), built from the messages already made."""
    if not chosen_newest_first:
        return HistoryPlan([], [], False, counts, read, tokens)
    messages = [summary_message(summary)] if summary else []
    for c in reversed(chosen_newest_first):
        messages.extend(c.messages)
    runs = [c.history for c in reversed(chosen_newest_first)]
    return HistoryPlan(messages, runs, bool(summary), counts, read, tokens)


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
    if not estimates_exact:
        if max_tokens is None:
            everything = [candidate_unpriced(h) for h in candidates]
            return _plan(summary, everything, 0, len(everything), None)
        return _select_by_search(base, candidates, tokenizer, summary, max_tokens)

    additive = all(starts_fresh(m) for m in base)
    base_cost = sum(message_cost(m, tokenizer) for m in base) + short_text_count(TRAILER, tokenizer)
    summary_cost = message_cost(summary_message(summary), tokenizer) if summary else 0
    if max_tokens is None:
        everything = [candidate(h, tokenizer) for h in candidates]
        total = base_cost + (summary_cost + sum(c.cost for c in everything) if everything else 0)
        return _plan(summary, everything, 0, len(everything), total if additive else None)

    fixed = base_cost + summary_cost
    taken, beyond = _take_within_budget(candidates, tokenizer, fixed, max_tokens)
    read = len(taken) + (beyond is not None)
    if not additive:
        estimated = (taken, beyond)
        taken, beyond, counts, extra = _adjust_by_full_counts(
            base, candidates, tokenizer, summary, max_tokens, estimated
        )
        read += extra
        if taken or not summary or beyond is not None:
            return _plan(summary, taken, counts, read, None)
        # No run at all: the summary alone, when it fits (a run that does not fit drops both).
        if _fits(max_tokens, _exact_count(base, summary, [], tokenizer)):
            return HistoryPlan([summary_message(summary)], [], True, counts + 1, read)
        return HistoryPlan([], [], False, counts + 1, read)
    if taken:
        return _plan(summary, taken, 0, read, fixed + sum(c.cost for c in taken))
    if summary and beyond is None and _fits(max_tokens, fixed):
        # No run at all: the summary alone, when it fits (a run that does not fit drops both).
        return HistoryPlan([summary_message(summary)], [], True, 0, read, fixed)
    return HistoryPlan([], [], False, 0, read, base_cost)


def candidate_unpriced(history: HistoryRun) -> _Candidate:
    """A run taken without a budget: its messages, no token count."""
    return _Candidate(history, history.prepared.messages, 0)
