"""Pure conversation logic: Griptape's summary prompts, summary choice, last_n and budget bookkeeping."""

from __future__ import annotations

import pytest

from offprompt.adapters.tokenizer import TiktokenTokenizer
from offprompt.artifacts import TextArtifact
from offprompt.memory.conversation import (
    HistoryRun,
    render_summarize_prompt,
    runs_to_summarize,
    select_history,
    summary_message,
)
from offprompt.memory.run import Run

TOKENIZER = TiktokenTokenizer()


def run(i: int, q: str | None = None, a: str | None = None) -> Run:
    return Run(id=f"r{i}", input=TextArtifact(q or f"q{i}"), output=TextArtifact(a or f"a{i}"))


@pytest.mark.parametrize("summary", [None, "", "S1", "multi\nline  "])
@pytest.mark.parametrize("n", [0, 1, 3])
def test_summarize_prompt_equals_griptape_template(summary: str | None, n: int) -> None:
    from griptape.memory.structure import Run as GRun
    from griptape.utils import J2

    runs = [run(i, f"q{i} ", f"a\n{i}") for i in range(n)]
    g_runs = [GRun.from_dict(r.to_dict()) for r in runs]
    expected = J2("memory/conversation/summarize_conversation.j2").render(summary=summary, runs=g_runs)
    assert render_summarize_prompt(summary, runs) == expected


@pytest.mark.parametrize("summary", ["S", "S  ", "x\ny"])
def test_summary_message_equals_griptape_template(summary: str) -> None:
    from griptape.utils import J2

    assert summary_message(summary).to_text() == J2("memory/conversation/summary.j2").render(summary=summary)


def test_contract_examples() -> None:
    assert (
        render_summarize_prompt(None, [run(1)]) == "Summarize the following conversation:\n\nHuman: q1\nAssistant: a1"
    )
    assert render_summarize_prompt("S1", [run(2)]) == (
        'Conversation summary:\n"""\nS1\n"""\n\nUpdate the summary with this:\n\nHuman: q2\nAssistant: a2'
    )


@pytest.mark.parametrize(("n", "offset", "expected"), [(1, 1, 0), (2, 1, 1), (4, 1, 3), (3, 2, 1), (5, 0, 5)])
def test_runs_to_summarize(n: int, offset: int, expected: int) -> None:
    runs = [run(i) for i in range(n)]
    assert runs_to_summarize(runs, offset) == runs[:expected]


def source(n: int, reads: list[int]):  # type: ignore[no-untyped-def]
    for seq in range(n, 0, -1):
        reads.append(seq)
        yield HistoryRun.of(seq, run(seq), TOKENIZER)


def test_last_n_reads_only_n_runs() -> None:
    reads: list[int] = []
    plan = select_history([], source(100, reads), TOKENIZER, last_n=3)
    assert [r.seq for r in plan.runs] == [98, 99, 100] and reads == [100, 99, 98]


def test_budget_reads_only_returned_runs_plus_one() -> None:
    reads: list[int] = []
    plan = select_history([], source(1000, reads), TOKENIZER, max_tokens=100)
    assert 0 < len(plan.runs) < 20
    assert len(reads) == len(plan.runs) + 1
    assert plan.exact_counts <= 2


def test_summary_only_when_no_unsummarized_runs() -> None:
    plan = select_history([], iter([]), TOKENIZER, summary="S", max_tokens=100)
    assert [m.to_text() for m in plan.messages] == ["Summary of the conversation so far: S"]
    none = select_history([], iter([]), TOKENIZER, summary="S", max_tokens=3)
    assert none.messages == []
