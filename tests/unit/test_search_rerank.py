"""Conversation search's optional rerank step (docs/adr/0068), pure logic: which candidates the model reads and
what of them, the order it answers, the fused order kept when it fails."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from offprompt.errors import DependencyTimeout, DependencyUnavailable
from offprompt.limits import RERANK_MAX_TEXTS, RERANK_TEXT_CHARS
from offprompt.memory import recall
from offprompt.ports import ConversationCandidate, ConversationDoc
from offprompt.services.conversation.rerank import Ranked, reordered, rerank, rerank_count, rerank_text


def _ranked(n: int, *, long: bool = False) -> Ranked:
    docs = [
        ConversationDoc(
            "t",
            f"thread-{i % 3}",
            "run",
            i + 1,
            f"r{i}",
            1000.0 + i,
            f"in {i}" + "x" * (3000 if long else 0),
            f"out {i}",
        )
        for i in range(n)
    ]
    return [(ConversationCandidate(d, bm25=1.0), float(n - i)) for i, d in enumerate(docs)]


class ScriptedReranker:
    max_texts = RERANK_MAX_TEXTS

    def __init__(self, answer: Sequence[tuple[int, float]] | Exception | None = None) -> None:
        self.answer = answer
        self.calls: list[tuple[str, list[str], int]] = []

    def rerank(self, query: str, texts: Sequence[str], top_n: int) -> list[tuple[int, float]]:
        self.calls.append((query, list(texts), top_n))
        if isinstance(self.answer, Exception):
            raise self.answer
        if self.answer is None:  # reverse order: the last sent is the best
            return [(i, 1.0 - i / len(texts)) for i in reversed(range(len(texts)))]
        return list(self.answer)


def _ids(ranked: Ranked) -> list[str]:
    return [c.doc.ref_id for c, _ in ranked]


def test_the_model_orders_the_best_candidates_and_the_rest_follow_in_fused_order() -> None:
    ranked = _ranked(6)
    out = reordered(ranked, [(2, 0.9), (0, 0.4)])
    assert _ids(out.ranked) == ["r2", "r0", "r1", "r3", "r4", "r5"]
    assert [s for _, s in out.ranked] == [4.0, 6.0, 5.0, 3.0, 2.0, 1.0]  # each keeps its fused score
    assert out.scores == {("thread-2", "run", 3): 0.9, ("thread-0", "run", 1): 0.4} and out.ok


def test_how_many_candidates_the_model_reads() -> None:
    assert rerank_count(10, RERANK_MAX_TEXTS) == recall.candidate_count(10) == 50
    assert rerank_count(100, RERANK_MAX_TEXTS) == RERANK_MAX_TEXTS  # 500 candidates: one billed query of 100
    assert rerank_count(10, 20) == 20  # never more than the model takes


def test_what_the_model_reads_of_a_candidate_is_bounded() -> None:
    ranked = _ranked(120, long=True)
    model = ScriptedReranker()
    out = rerank(model, "which run", ranked, limit=100)
    ((query, texts, top_n),) = model.calls
    assert query == "which run" and len(texts) == top_n == RERANK_MAX_TEXTS
    assert texts[0] == ("in 0" + "x" * 3000 + "\nout 0")[:RERANK_TEXT_CHARS] and len(texts[0]) == RERANK_TEXT_CHARS
    assert rerank_text(ranked[1][0].doc).startswith("in 1x")
    # the 100 sent, reversed; the 20 never sent after them in fused order, without a model score
    assert _ids(out.ranked) == [f"r{i}" for i in reversed(range(100))] + [f"r{i}" for i in range(100, 120)]
    assert len(out.scores) == 100 and out.ok


@pytest.mark.parametrize(
    "failure", [DependencyUnavailable("Bedrock rerank failed: ThrottlingException"), DependencyTimeout("t")]
)
def test_a_failed_model_leaves_the_fused_order(failure: Exception, caplog: pytest.LogCaptureFixture) -> None:
    ranked = _ranked(5)
    out = rerank(ScriptedReranker(failure), "q", ranked, limit=10)
    assert out.ranked == ranked and out.scores == {} and out.ok is False
    assert "the rerank model failed" in caplog.text


def test_an_error_that_is_not_the_models_is_not_swallowed() -> None:
    with pytest.raises(KeyError):
        rerank(ScriptedReranker(KeyError("bug")), "q", _ranked(3), limit=10)


def test_no_candidates_no_call() -> None:
    model = ScriptedReranker()
    out = rerank(model, "q", [], limit=10)
    assert out.ranked == [] and out.ok and model.calls == []
