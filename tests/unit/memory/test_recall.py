"""offprompt.memory.recall: the conversation-search ranking (docs/adr/0050), pure logic on hand-made candidates."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from offprompt.memory import recall
from offprompt.ports import ConversationCandidate, ConversationDoc


def doc(thread: str = "u-s0", seq: int = 0, user: str = "", assistant: str = "", at: float = 0.0) -> ConversationDoc:
    return ConversationDoc(
        tenant="t", thread_id=thread, kind="run", seq=seq, ref_id=f"{thread}:{seq}", created_at=at,
        input_text=user, output_text=assistant,
    )  # fmt: skip


def cand(d: ConversationDoc, bm25: float | None = None, knn: float | None = None) -> ConversationCandidate:
    return ConversationCandidate(d, bm25=bm25, knn=knn)


def order(ranked: list[tuple[ConversationCandidate, float]]) -> list[tuple[str, int]]:
    return [(c.doc.thread_id, c.doc.seq) for c, _ in ranked]


def test_bm25_is_asked_the_content_words_and_the_embedder_the_whole_question() -> None:
    q = recall.retrieval_queries("  What did I tell you about   my trip to Tokyo? ")
    assert q.bm25 == "trip tokyo"
    assert q.embed == "What did I tell you about my trip to Tokyo?"


def test_a_query_of_only_question_words_goes_to_bm25_whole() -> None:
    assert recall.retrieval_queries("what did you say?").bm25 == "what did you say?"


def test_content_words_keep_apostrophes_and_fold_the_typographic_one() -> None:
    assert recall.content_words("Where's Rachel\u2019s new flat") == ["where's", "rachel's", "new", "flat"]


def test_candidate_count_grows_with_the_limit_above_a_floor() -> None:
    assert recall.candidate_count(1) == recall.MIN_CANDIDATES
    assert recall.candidate_count(100) == 100 * recall.CANDIDATES_PER_HIT


def test_a_run_both_retrievers_rank_high_beats_one_only_one_does() -> None:
    both, lexical, dense = doc("a", 0), doc("b", 0), doc("c", 0)
    ranked = recall.rank(
        "tokyo trip",
        [cand(both, bm25=8.0, knn=0.90), cand(lexical, bm25=9.0), cand(dense, knn=0.95), cand(doc("d", 0), 1.0, 0.5)],
        10,
    )
    assert order(ranked)[0] == ("a", 0)
    assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)


def test_scores_are_normalised_per_retriever_so_their_scales_do_not_matter() -> None:
    """BM25 scores in the tens and k-NN scores below 1 weigh the same: only their spread within the candidates."""
    candidates = [cand(doc("a", 0), bm25=40.0, knn=0.50), cand(doc("b", 0), bm25=10.0, knn=0.60)]
    scaled = [cand(c.doc, bm25=c.bm25 / 100 if c.bm25 else None, knn=c.knn) for c in candidates]
    assert order(recall.rank("x", candidates, 2)) == order(recall.rank("x", scaled, 2))


def test_equal_scores_come_newest_first() -> None:
    old, new = doc("a", 0, at=100.0), doc("b", 0, at=200.0)
    assert order(recall.rank("x", [cand(old, 1.0, 0.5), cand(new, 1.0, 0.5)], 2)) == [("b", 0), ("a", 0)]


def test_the_same_run_proposed_twice_is_one_hit_and_the_limit_holds() -> None:
    d = doc("a", 0)
    ranked = recall.rank("x", [cand(d, bm25=2.0), cand(d, knn=0.7), *(cand(doc("b", i), 1.0) for i in range(5))], 3)
    assert len(ranked) == 3 and order(ranked).count(("a", 0)) == 1


def first_of(query: str, told: ConversationDoc, asked: ConversationDoc) -> tuple[str, int]:
    """The top hit for `query` when `asked` scores a little above `told` in both retrievers (and a filler below)."""
    filler = doc("c", 0, user="Thanks!")
    candidates = [cand(told, bm25=5.8, knn=0.84), cand(asked, bm25=6.0, knn=0.85), cand(filler, 1.0, 0.5)]
    return order(recall.rank(query, candidates, 2))[0]


def test_a_first_person_question_prefers_what_the_user_said_about_themselves() -> None:
    statement = doc("a", 0, user="We adopted a puppy last week and named him Biscuit.")
    question = doc("b", 0, user="What should I feed a puppy?")
    assert first_of("What is my dog called?", statement, question) == ("a", 0)
    # Not asked about a person: no cue, the retrievers decide.
    assert first_of("What is the dog called?", statement, question) == ("b", 0)


def test_a_question_about_someone_by_name_prefers_what_either_side_said_about_themselves() -> None:
    told = doc("a", 0, user="How was your weekend?", assistant="Great, I finally moved to Denver last week.")
    asked = doc("b", 0, user="Is Denver expensive?", assistant="Rents in Denver rose again, see the map.")
    assert first_of("Where did Maya move to?", told, asked) == ("a", 0)
    assert first_of("where did the office move to?", told, asked) == ("b", 0)


def test_states_about_self() -> None:
    assert recall.states_about_self("How do I fix a tap? By the way, my sister moved to Denver.")
    assert not recall.states_about_self("How do I fix a tap? Can you help me?")
    assert not recall.states_about_self("The weather is nice.")


def test_one_thread_does_not_take_every_place() -> None:
    """Runs of one long conversation on a topic decay, so the best run of another session gets in."""
    crowd = [cand(doc("a", i), bm25=10.0 - i * 0.1, knn=0.9) for i in range(4)]
    other = cand(doc("b", 7), bm25=9.0, knn=0.88)
    filler = cand(doc("c", 0), bm25=1.0, knn=0.5)
    top = order(recall.rank("topic", [*crowd, other, filler], 2))
    assert top == [("a", 0), ("b", 7)]


def test_the_index_embeds_the_user_side_and_as_much_of_the_other() -> None:
    essay = "word " * 400
    user = "my rent went up to $1,800 a month. " * 10
    assert recall.embedding_text(doc(user=user, assistant=essay)) == f"{user}\n{essay[: len(user)]}".strip()
    short = recall.embedding_text(doc(user="I moved to Denver.", assistant="Oh nice, I grew up there!"))
    assert short == "I moved to Denver.\nOh nice, I grew up there!"
    cut = recall.embedding_text(doc(user="hi", assistant="w" * 2000))
    assert len(cut) == len("hi\n") + recall.EMBED_OTHER_SIDE_MIN_CHARS
    assert recall.embedding_text(doc(user="  ", assistant="a greeting")) == "a greeting"


def test_names_someone() -> None:
    assert recall.names_someone("When did Maya go to Lisbon?")
    assert not recall.names_someone("When did I go there?")
    assert not recall.names_someone("What is the capital?")


scores = st.one_of(st.none(), st.floats(min_value=0, max_value=50, allow_nan=False))


@given(
    st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 5), scores, scores), max_size=20),
    st.integers(1, 10),
    st.sampled_from(["what did I say about rent", "rent", ""]),
)
def test_rank_returns_distinct_candidates_best_first(rows: list, limit: int, query: str) -> None:
    candidates = [cand(doc(t, s, user="I pay rent."), b, k) for t, s, b, k in rows]
    ranked = recall.rank(query, candidates, limit)
    keys = order(ranked)
    assert len(keys) == len(set(keys)) == min(limit, len({(t, s) for t, s, _, _ in rows}))
    assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)
