"""What prompt-stack answers without recounting or re-serializing: the plan's exact token count and the stack's
JSON assembled from each run's cached message JSON equal a full count and `json.dumps(stack.to_dict())`."""

from __future__ import annotations

import json
from collections.abc import Iterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from offprompt.adapters.tokenizer import TiktokenTokenizer
from offprompt.artifacts import TextArtifact
from offprompt.memory.conversation import HistoryRun, PreparedRun, select_history
from offprompt.memory.run import Run
from offprompt.prompt import PromptStack, render_message, render_messages
from offprompt.prompt.prompt_stack import prompt_stack_json

TOKENIZER = TiktokenTokenizer()
WORDS = st.sampled_from(["hello", "world", " ", "  ", "\n", "\n\n", "Paris", "?", ".", "é", "😀", "123", "\t", "a b"])
TEXT = st.one_of(
    st.lists(WORDS, max_size=12).map("".join),
    st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=30),
)
HISTORY = st.lists(st.tuples(TEXT, TEXT), max_size=12)


def runs_of(history: list[tuple[str, str]]) -> list[Run]:
    return [
        Run(id=f"r{i}", input=TextArtifact(q, id=f"i{i}"), output=TextArtifact(a, id=f"o{i}"))
        for i, (q, a) in enumerate(history)
    ]


def newest_first(runs: list[Run], shared: dict[int, PreparedRun]) -> Iterator[HistoryRun]:
    """Like the service: each run comes prepared from a cache shared across requests."""
    for seq in range(len(runs), 0, -1):
        run = runs[seq - 1]
        history = HistoryRun.of(seq, run, TOKENIZER)
        history.prepare = lambda seq=seq, run=run: shared.setdefault(seq, PreparedRun(run))
        yield history


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    HISTORY,
    st.one_of(st.none(), TEXT),
    st.one_of(st.none(), TEXT),
    st.one_of(st.none(), st.integers(min_value=1, max_value=260)),
    st.one_of(st.none(), TEXT.filter(bool)),
    st.booleans(),
)
def test_plan_tokens_and_json_equal_a_full_count_and_dump(
    history: list[tuple[str, str]],
    system: str | None,
    user_input: str | None,
    budget: int | None,
    summary: str | None,
    memory_first: bool,
) -> None:
    runs = runs_of(history)
    shared: dict[int, PreparedRun] = {}
    for _ in range(2):  # the second time every run's JSON and separators come from the shared PreparedRun
        stack = PromptStack()
        if system is not None:
            stack.add_system_message(TextArtifact(system, id="sys"))
        if user_input is not None:
            stack.add_user_message(TextArtifact(user_input, id="inp"))
        index = 0 if memory_first else (1 if system is not None else 0)
        base = list(stack.messages)
        plan = select_history(base, newest_first(runs, shared), TOKENIZER, summary=summary, max_tokens=budget)
        stack.messages[index:index] = plan.messages

        parts = [json.dumps(m.to_dict()) for m in base]
        parts[index:index] = plan.messages_json()
        assert prompt_stack_json(parts) == json.dumps(stack.to_dict())

        exact = TOKENIZER.count_tokens(render_messages(stack.messages))
        if plan.tokens is not None:
            assert plan.tokens == exact
        if all(render_message(m)[:1].strip() for m in base):  # each renders starting with a non-space: exact sums
            assert plan.tokens is not None


def test_empty_stack_json() -> None:
    assert prompt_stack_json([]) == json.dumps(PromptStack().to_dict())


def test_prepared_run_is_built_once_per_process_cache_entry() -> None:
    from offprompt.services.conversation.run_cache import PreparedRunCache

    cache = PreparedRunCache(max_entries=2, max_chars=10_000)
    stored = [r.to_json() for r in runs_of([("q1", "a1"), ("q2", "a2"), ("q3", "a3")])]
    first = cache.get(stored[0])
    assert cache.get(stored[0]) is first  # a hit is the same object
    cache.get(stored[1])
    cache.get(stored[2])  # evicts the least recently used (stored[0])
    assert cache.get(stored[0]) is not first
    big = PreparedRunCache(max_entries=10, max_chars=len(stored[0]) + len(stored[1]))
    for s in stored:
        big.get(s)
    assert len(big._entries) == 2  # bounded by characters of stored JSON, not only by entries
