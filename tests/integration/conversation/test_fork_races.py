"""Sweeps racing forks on conversation threads, deterministically (docs/concurrency.md, docs/adr/0041): the other
operation runs inside the window — between a sweep's read and its removal, or between a fork's read and its
write — by a hook on the RunStore, not by a sleep. Every fork that answered 201 reads the history it was made
with; max_runs pruning and a pop never remove what a live fork reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest
from conversation_api import Api
from test_thread_forks import add, fork, run_ids

from offprompt.composition.conversation import default_service


def run_inside(monkeypatch: pytest.MonkeyPatch, method: str, action: Callable[[], Any]) -> list[Any]:
    """Run `action` once, the first time the RunStore's `method` is called, just before it runs: the window."""
    runs = default_service().runs
    real = getattr(runs, method)
    outcome: list[Any] = []

    def hooked(*args: Any, **kwargs: Any) -> Any:
        if not outcome:
            outcome.append(action())
        return real(*args, **kwargs)

    monkeypatch.setattr(runs, method, hooked)
    return outcome


def items(api: Api, thread: str, suffix: str = "", body: Any = None) -> tuple[int, Any]:
    template = {"": "thread_items_get_http.json", "/pop": "thread_items_pop_http.json"}
    if body is not None:
        template[""] = "thread_items_add_http.json"
    method = "GET" if suffix == "" and body is None else "POST"
    path = f"/threads/{quote(thread, safe='')}/items{suffix}"
    return api.http(api.threads, template[suffix], method, path, body=body, thread_id=thread)


def pruning_thread(api: Api) -> None:
    """max_runs 2 and 10 runs: the 11th add prunes r1 (PRUNE_SLACK 8)."""
    api.thread("PUT", "p", {"max_runs": 2})
    add(api, "p", *[f"r{i}" for i in range(1, 11)])


# ---- max_runs pruning (add-run re-reads the thread, then deletes) vs a fork -------------------------------------
def test_a_fork_inside_a_prunes_window_keeps_what_it_reads(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    pruning_thread(api)
    raced = run_inside(monkeypatch, "delete_runs", lambda: fork(api, "p", {"thread_id": "f", "after_run_id": "r1"}))
    add(api, "p", "r11")
    status, body = raced[0]
    assert status == 201, body
    assert run_ids(api, "f") == ["r1"]


def test_a_fork_planned_before_a_prune_and_written_after_it_reads_its_history_or_is_404(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    pruning_thread(api)
    raced = run_inside(monkeypatch, "fork_thread", lambda: add(api, "p", "r11"))
    status, body = fork(api, "p", {"thread_id": "f", "after_run_id": "r1"})
    assert raced == [None]
    if status == 404:  # the prune came first: r1 is gone, the fork is refused and writes nothing
        assert body["code"] == "run_not_found" and api.thread("GET", "f")[0] == 404
        return
    assert status == 201, body
    assert run_ids(api, "f") == ["r1"]


# ---- items.pop vs a fork -----------------------------------------------------------------------------------------
MSGS = [{"role": "user", "content": f"m{i}"} for i in range(3)]


def test_a_fork_inside_a_pops_window_keeps_what_it_reads(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    assert items(api, "s", body={"items": MSGS})[0] == 201
    raced = run_inside(monkeypatch, "pop_run", lambda: fork(api, "s", {"thread_id": "sf"}))
    status, body = items(api, "s", "/pop")
    assert raced[0][0] == 201, raced
    assert raced[0][1]["through_seq"] == 3
    assert status == 409 and body["code"] == "item_shared", body  # the newest is the fork's now
    assert items(api, "sf")[1]["items"] == MSGS


def test_a_fork_planned_before_a_pop_and_written_after_it_reads_its_history(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert items(api, "s", body={"items": MSGS})[0] == 201
    raced = run_inside(monkeypatch, "fork_thread", lambda: items(api, "s", "/pop"))
    status, body = fork(api, "s", {"thread_id": "sf"})
    assert raced[0][1]["item"] == MSGS[2]
    assert status == 201, body
    assert items(api, "sf")[1]["items"] == MSGS[:2]
    assert body["through_seq"] == 2


# ---- bounded, seeded, concurrent: forks against pops and max_runs pruning, threads on the atomic moto server ------
def test_forks_racing_pops_and_prunes_keep_every_answered_history(aws_over_http: dict[str, Any]) -> None:
    """6 rounds, each 4 requests started together (a barrier) in a seeded random mix: forks of a session-items
    thread (its newest item) and pops of it; a fork of a max_runs thread after its oldest run and the add that
    prunes that run. Every fork that answered reads the history it was made with — the items through its
    `through_seq`, the pruned thread's r1 — and still reads it after the parents are popped as far as they go."""
    import random
    import threading
    from concurrent.futures import ThreadPoolExecutor

    api = Api()
    rng = random.Random(302)
    for round_ in range(6):
        s, p = f"s{round_}", f"p{round_}"
        assert items(api, s, body={"items": MSGS})[0] == 201
        api.thread("PUT", p, {"max_runs": 2})
        add(api, p, *[f"r{i}" for i in range(1, 11)])
        kinds = ["fork_items", "pop", rng.choice(["fork_items", "pop"]), rng.choice(["fork_runs", "pop"])]
        if "fork_runs" in kinds:
            kinds.append("prune")
        rng.shuffle(kinds)
        barrier = threading.Barrier(len(kinds))

        def run(n: int, kind: str, s: str = s, p: str = p, barrier: threading.Barrier = barrier) -> Any:
            barrier.wait()
            if kind == "fork_items":
                return fork(api, s, {"thread_id": f"{s}-f{n}"})
            if kind == "fork_runs":
                return fork(api, p, {"thread_id": f"{p}-f{n}", "after_run_id": "r1"})
            if kind == "pop":
                return items(api, s, "/pop")
            add(api, p, "r11")
            return None

        with ThreadPoolExecutor(len(kinds)) as pool:
            outcomes = list(zip(kinds, pool.map(run, range(len(kinds)), kinds), strict=True))
        forks: list[tuple[str, Any]] = []
        for kind, outcome in outcomes:
            if kind == "pop":
                status, body = outcome
                assert status == 200 or (status == 409 and body["code"] == "item_shared"), (round_, kinds, body)
            elif kind.startswith("fork"):
                status, body = outcome
                if kind == "fork_runs" and status == 404:
                    assert body["code"] == "run_not_found", (round_, kinds, body)  # the prune came first
                    continue
                assert status == 201, (round_, kinds, body)
                forks.append((kind, body))
        for _ in MSGS:  # the parent pops what no fork reads (409 item_shared at the first item a fork reads)
            items(api, s, "/pop")
        for kind, body in forks:
            if kind == "fork_items":
                got = items(api, body["thread_id"])[1]["items"]
                assert got == MSGS[: body["through_seq"]], (round_, kinds, body, got)
            else:
                assert run_ids(api, body["thread_id"]) == ["r1"], (round_, kinds, body)


# ---- a Griptape Cloud PATCH that trims the list vs a fork (cloud_threads: the list's dropped runs are deleted) -----
def cloud_thread_of_three(api: Api) -> tuple[Any, str]:
    from test_cloud_threads import Cloud, message, new_thread

    cloud = Cloud()
    thread = new_thread(cloud)
    assert cloud.patch(thread, {"messages": [message(1), message(2), message(3)]})[0] == 200
    return cloud, thread


def test_a_patch_that_trims_the_list_never_deletes_what_a_fork_reads(api: Api) -> None:
    from test_cloud_threads import message

    cloud, thread = cloud_thread_of_three(api)
    assert fork(api, thread, {"thread_id": "f"})[0] == 201
    status, body = cloud.patch(thread, {"messages": [message(2), message(3), message(4)]})
    assert status == 200, body
    assert run_ids(api, "f") == ["run-1", "run-2", "run-3"]
    # the parent keeps run-1 while the fork reads it (as max_runs pruning does, ADR 0037), then trims it
    assert api.thread("DELETE", "f")[0] == 204
    assert cloud.patch(thread, {"messages": [message(3), message(4), message(5)]})[0] == 200
    assert run_ids(api, thread) == ["run-3", "run-4", "run-5"]


def test_a_fork_inside_a_patchs_trim_window_keeps_what_it_reads(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_cloud_threads import message

    cloud, thread = cloud_thread_of_three(api)
    raced = run_inside(monkeypatch, "delete_runs", lambda: fork(api, thread, {"thread_id": "f"}))
    status, body = cloud.patch(thread, {"messages": [message(2), message(3), message(4)]})
    assert status == 200, body
    assert raced[0][0] == 201, raced
    assert run_ids(api, "f") == ["run-1", "run-2", "run-3", "run-4"]  # forked after run-4 was appended
