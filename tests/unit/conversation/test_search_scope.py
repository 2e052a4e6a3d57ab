"""The conversation search's pure parts (docs/adr/0049): which threads a search covers and through which searched
thread a run is visible (a fork's shared history up to its fork point), and the merge of two candidate queries."""

from __future__ import annotations

from offprompt.ports import ConversationCandidate, ConversationDoc, ThreadCut, ThreadState
from offprompt.services.conversation.search import _merged, _Scope


def state(thread: str, *ancestry: tuple[str, int]) -> ThreadState:
    return ThreadState("t", thread, exists=True, ancestry=tuple(ancestry))


def scoped(threads: list[ThreadState], prefix: str | None = None) -> _Scope:
    scope = _Scope({s.thread_id: s for s in threads}, prefix)
    for s in threads:
        for ancestor, through in s.ancestry:
            scope.shared.setdefault(ancestor, []).append((s.thread_id, through))
    return scope


def test_a_fork_adds_each_ancestor_up_to_where_it_reads_it() -> None:
    # fork-2 forked from fork-1 after seq 7, which was forked from base after seq 3
    scope = scoped([state("fork-2", ("fork-1", 7), ("base", 3))])
    assert scope.cuts() == [ThreadCut("fork-2"), ThreadCut("fork-1", 7), ThreadCut("base", 3)]
    assert scope.viewers("base", 3) == ["fork-2"] and scope.viewers("base", 4) == []
    assert scope.viewers("fork-1", 7) == ["fork-2"] and scope.viewers("fork-1", 8) == []
    assert scope.viewers("fork-2", 9) == ["fork-2"]
    assert scope.viewers("elsewhere", 1) == []


def test_a_thread_searched_itself_is_read_whole_and_answers_as_its_own_first() -> None:
    scope = scoped([state("base"), state("fork", ("base", 2)), state("late", ("base", 5))])
    assert scope.cuts() == [ThreadCut("base"), ThreadCut("fork"), ThreadCut("late")]
    assert scope.viewers("base", 2) == ["base", "fork", "late"]
    assert scope.viewers("base", 4) == ["base", "late"]
    # two forks of one ancestor, the ancestor not searched: the cut is the deepest reader's
    other = scoped([state("fork", ("base", 2)), state("late", ("base", 5))])
    assert ThreadCut("base", 5) in (other.cuts() or [])


def test_a_prefix_covers_its_threads_and_asks_separately_for_ancestors_outside_it() -> None:
    scope = scoped([state("u1-a"), state("u1-fork", ("u1-a", 2)), state("u1-copy", ("shared-base", 4))], "u1-")
    assert scope.outside_prefix() == [ThreadCut("shared-base", 4)]
    assert scope.searched("u1-new-thread")  # not listed yet: the prefix still covers it
    assert not scope.searched("u2-a") and not scope.searched("shared-base")
    assert scope.viewers("shared-base", 4) == ["u1-copy"]
    assert scope.viewers("u1-a", 2) == ["u1-a", "u1-fork"]


def test_named_threads_cover_only_themselves_and_the_tenant_everything() -> None:
    named = scoped([state("a")])
    assert named.searched("a") and not named.searched("b")
    everything = _Scope(None, None)
    assert everything.cuts() is None and everything.searched("any") and everything.viewers("any", 1) == ["any"]


def test_two_queries_merge_by_document_keeping_each_retriever_s_score() -> None:
    def doc(thread: str, seq: int) -> ConversationDoc:
        return ConversationDoc("t", thread, "run", seq, f"r{seq}", 1.0, "in", "out")

    first = [ConversationCandidate(doc("a", 1), bm25=2.0), ConversationCandidate(doc("a", 2), knn=0.5)]
    second = [ConversationCandidate(doc("a", 1), knn=0.9), ConversationCandidate(doc("b", 1), bm25=1.0)]
    merged = {(c.doc.thread_id, c.doc.seq): (c.bm25, c.knn) for c in _merged([first, second])}
    assert merged == {("a", 1): (2.0, 0.9), ("a", 2): (None, 0.5), ("b", 1): (1.0, None)}
