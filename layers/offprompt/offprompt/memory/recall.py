"""Recall ranking for conversation search (docs/adr/0050, issue 31): pure logic, no I/O.

The search use case asks the index for candidates (BM25 and k-NN, each its own top N) with the queries
`retrieval_queries` derives, then `rank` orders them. Everything that decides recall and does not need I/O lives
here: query preparation, fusion of the retrievers' scores, the speaker cue, one thread not crowding out the others,
field weights the index applies (`FIELD_WEIGHTS`), what the index embeds (`embedding_text`), ties newest first.
`bench/bench_recall.py` measures it; docs/adr/0050 records what each part is worth.

The score of a candidate, in order:
1. each retriever's score, min-max normalised over its own candidates (absent: 0), weighted and added;
2. + `W_SELF_STATEMENT` when the query is about a person and the run has someone state something about themselves
   (a first-person sentence that is not a question): asked in the first person ("my", "I"), the user's side;
   asked about someone by name ("Where did Maya move?"), either side (two people talking, each about themselves);
3. the n-th candidate of one thread (0-based, in score order) is multiplied by `THREAD_DECAY ** n`, so a long
   conversation about one topic does not fill every place when the evidence is spread over sessions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from offprompt.ports import ConversationCandidate, ConversationDoc

#: BM25 boosts of the indexed text fields (the index's multi_match, type `most_fields`, uses them).
FIELD_WEIGHTS: dict[str, float] = {"input_text": 1.0, "output_text": 1.0, "meta_text": 0.5, "context_text": 0.3}
#: How many candidates each retriever proposes for a search answering `limit` hits.
CANDIDATES_PER_HIT = 5
MIN_CANDIDATES = 50

#: Weights of the score's parts (module doc; docs/adr/0050 and 0070 have the measurements behind each).
W_BM25 = 1.0
W_KNN = 0.75
W_SELF_STATEMENT = 0.5
THREAD_DECAY = 0.7

#: Words a question is made of that say nothing about what it asks (question words, pronouns, auxiliaries): BM25
#: is asked for the rest, so "what did I say about X" does not score every run in which someone says anything.
_QUERY_STOP_WORDS = """
    a about above after again all also am an and any are as at be been before being both but by can could did do
    does doing done during each else ever few for from had has have having he her here hers him his how i if in into
    is it its just me might mine more most much must my myself no nor not now of off on once only or other our ours
    out over own please recall remember said same say she should so some such tell than that the their them then
    there these they this those through to told too under until up very was we were what when where which while who
    whom whose why will with would you your yours
"""
QUERY_STOP = frozenset(_QUERY_STOP_WORDS.split())
_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_FIRST_PERSON = re.compile(r"\b(?:i|my|me|mine|myself|we|our|us|i'm|i've|i'd|i'll)\b")
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")


@dataclass(frozen=True)
class RetrievalQueries:
    bm25: str
    embed: str


def content_words(text: str) -> list[str]:
    """The words of a text that carry its meaning: lowercased, question words, pronouns and auxiliaries dropped."""
    return [w for w in (m.lower().replace("\u2019", "'") for m in _WORD.findall(text)) if w not in QUERY_STOP]


def retrieval_queries(query: str) -> RetrievalQueries:
    """What each retriever is asked for a user's query: BM25 its content words (the whole query when it has none),
    the embedder the whole query (an embedding is not thrown off by "what did I", and keeps what it can of it)."""
    text = " ".join(query.split())
    return RetrievalQueries(bm25=" ".join(content_words(text)) or text, embed=text)


def candidate_count(limit: int) -> int:
    return max(MIN_CANDIDATES, limit * CANDIDATES_PER_HIT)


#: The assistant's side is embedded up to the user's side's length, and at least this many characters.
EMBED_OTHER_SIDE_MIN_CHARS = 200


def embedding_text(doc: ConversationDoc) -> str:
    """What the index embeds for a document: the user's side, then the other side cut to the same length (at least
    `EMBED_OTHER_SIDE_MIN_CHARS`).

    A pooled embedding of a whole run is dominated by the assistant's long answer, and the questions are mostly about
    what the user said (docs/adr/0050: the whole run costs 0.06 to 0.10 recall@10 on the LongMemEval slice); between
    two people whose turns are short, both are embedded whole. BM25 covers every word of both sides anyway."""
    other = doc.output_text[: max(len(doc.input_text), EMBED_OTHER_SIDE_MIN_CHARS)]
    return f"{doc.input_text}\n{other}".strip()


Key = tuple[str, str, int]


def _key(c: ConversationCandidate) -> Key:
    return (c.doc.thread_id, c.doc.kind, c.doc.seq)


def _normalised(scores: dict[Key, float]) -> dict[Key, float]:
    """Min-max over one retriever's candidates: its best is 1, its worst 0 (all equal: 1)."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    return {k: (v - low) / (high - low) if high > low else 1.0 for k, v in scores.items()}


def states_about_self(text: str) -> bool:
    """Whether a text has a first-person sentence that is not a question ("I adopted a dog", "my rent is ...")."""
    for sentence in _SENTENCE.findall(text):
        s = sentence.strip().lower()
        if s and not s.endswith("?") and _FIRST_PERSON.search(s):
            return True
    return False


def names_someone(query: str) -> bool:
    """Whether a query asks about someone by name: a capitalised word after its first ("When did Maya move?")."""
    return any(w[:1].isupper() and w[1:2].islower() for w in query.split()[1:])


def rank(
    query: str, candidates: Sequence[ConversationCandidate], limit: int
) -> list[tuple[ConversationCandidate, float]]:
    """The best `limit` candidates, best first, each with its score; ties newest first."""
    by_key: dict[Key, ConversationCandidate] = {}
    for c in candidates:
        by_key[_key(c)] = c
    bm25 = _normalised({_key(c): c.bm25 for c in candidates if c.bm25 is not None})
    knn = _normalised({_key(c): c.knn for c in candidates if c.knn is not None})
    first_person = _FIRST_PERSON.search(query.lower()) is not None
    about_someone = not first_person and names_someone(query)
    score: dict[Key, float] = {}
    for k, c in by_key.items():
        s = W_BM25 * bm25.get(k, 0.0) + W_KNN * knn.get(k, 0.0)
        if (first_person and states_about_self(c.doc.input_text)) or (
            about_someone and (states_about_self(c.doc.input_text) or states_about_self(c.doc.output_text))
        ):
            s += W_SELF_STATEMENT
        score[k] = s
    order = sorted(by_key, key=lambda k: (-score[k], -by_key[k].doc.created_at))
    seen: dict[str, int] = {}
    for k in order:
        n = seen.get(k[0], 0)
        score[k] *= THREAD_DECAY**n
        seen[k[0]] = n + 1
    order.sort(key=lambda k: (-score[k], -by_key[k].doc.created_at))
    return [(by_key[k], score[k]) for k in order[:limit]]
