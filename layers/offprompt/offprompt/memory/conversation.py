"""Conversation memory logic, Griptape-equal and I/O-free: messages of a run, autoprune, summary prompts.

- `run_messages(run)` = Griptape's `to_prompt_stack` pair: `add_user_message(run.input)`,
  `add_assistant_message(run.output)`.
- `select_history(...)` = the result of `BaseConversationMemory.add_to_prompt_stack` with autoprune
  (contract §3.3), but reading runs newest-first and stopping once the budget is spent: stored per-run token
  counts give an estimate, then the rendered text of the returned stack is counted exactly (±1 run).
- `render_summarize_prompt(summary, runs)` = Griptape's `memory/conversation/summarize_conversation.j2`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from offprompt.ports import Tokenizer
from offprompt.prompt import Message, PromptStack, render_message, render_messages
from offprompt.prompt.render import SEPARATOR

from .run import Run

SUMMARY_PREFIX = "Summary of the conversation so far: "


def run_messages(run: Run) -> list[Message]:
    """The user/assistant pair Griptape's ConversationMemory.to_prompt_stack adds for one run."""
    stack = PromptStack()
    stack.add_user_message(run.input)
    stack.add_assistant_message(run.output)
    return stack.messages


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
    """A candidate run for the prompt, newest-first; the run itself is loaded only if it is returned."""

    seq: int
    input_tokens: int
    output_tokens: int
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


@dataclass
class HistoryPlan:
    messages: list[Message]
    runs: list[HistoryRun]  # oldest first, the runs whose messages are in `messages`
    with_summary: bool
    exact_counts: int = 0  # how many times the rendered stack was tokenized
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


def history_messages(summary: str | None, runs: Sequence[HistoryRun]) -> list[Message]:
    """Summary (if any) then the runs' pairs, oldest first: Griptape's to_prompt_stack(n)."""
    messages = [summary_message(summary)] if summary else []
    for r in runs:
        messages.extend(run_messages(r.run))
    return messages


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
    memory) comes first and is dropped only together with the last run.

    `estimates_exact=False`: the runs' stored counts are of another encoding than `tokenizer` (ADR 0013); they
    only bound how many runs are read, and n is found by binary search over exact counts (O(log n) counts).
    """
    cap = last_n if last_n is not None else None
    taken: list[HistoryRun] = []  # newest first
    pending: list[HistoryRun] = []  # read but not (yet) taken, newest first
    read = 0

    def pull() -> HistoryRun | None:
        nonlocal read
        if pending:
            return pending.pop(0)
        if cap is not None and len(taken) >= cap:
            return None
        nxt = next(newest_first, None)
        if nxt is not None:
            read += 1
        return nxt

    if max_tokens is None:
        while (r := pull()) is not None:
            taken.append(r)
        chosen = list(reversed(taken))
        return HistoryPlan(history_messages(summary, chosen), chosen, bool(summary), 0, read)

    if not estimates_exact:
        return _select_by_search(base, pull, tokenizer, summary, max_tokens, lambda: read)

    sep = tokenizer.count_tokens(SEPARATOR)
    counts = 0

    def fits(runs_newest_first: Sequence[HistoryRun]) -> bool:
        nonlocal counts
        if not runs_newest_first and not summary:
            return True
        counts += 1
        mem = history_messages(summary, list(reversed(runs_newest_first)))
        return max_tokens - tokenizer.count_tokens(render_messages([*base, *mem])) > 0

    # Estimate with the stored counts: each run adds "\n\n" + user + "\n\n" + assistant.
    estimate = tokenizer.count_tokens(render_messages(base))
    if summary:
        estimate += sep + tokenizer.count_tokens(render_message(summary_message(summary)))
    while (r := pull()) is not None:
        cost = 2 * sep + r.input_tokens + r.output_tokens
        if estimate + cost < max_tokens:
            taken.append(r)
            estimate += cost
        else:
            pending.append(r)
            break

    # Verify exactly on the returned stack only, adjusting by one run at a time.
    if taken and not fits(taken):
        while taken:
            pending.insert(0, taken.pop())
            if taken and fits(taken):
                break
    else:
        while (r := pull()) is not None:
            if fits([*taken, r]):
                taken.append(r)
            else:
                pending.insert(0, r)
                break
    if not taken:
        # No run fits. A summary alone is an option only when there are no unsummarized runs at all.
        if summary and not pending and fits([]):
            return HistoryPlan([summary_message(summary)], [], True, counts, read)
        return HistoryPlan([], [], False, counts, read)
    chosen = list(reversed(taken))
    return HistoryPlan(history_messages(summary, chosen), chosen, bool(summary), counts, read)
