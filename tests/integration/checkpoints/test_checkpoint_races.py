"""Deletes and prunes racing copies, deterministically (docs/concurrency.md, docs/adr/0041): the other operation runs
inside the window — after the sweep's read, before its removal, or between a copy's read and its write — by a hook on
the store, not by a sleep. Every copy that answered reads what its source showed when it was made; a copy of a
thread being deleted is 404, as if the delete had finished."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from checkpoints_support import table_items
from test_checkpoints_store import T, by_id, cid, copy, ids, latest, put, writes

from offprompt.adapters.layout import CHECKPOINT_THREAD_SK
from offprompt.services.checkpoints.context import Checkpoints
from offprompt.services.checkpoints.delete import delete_thread
from offprompt.services.checkpoints.errors import CheckpointNotFound, CheckpointThreadNotFound
from offprompt.services.checkpoints.prune import keep_latest


def run_inside(ck: Checkpoints, monkeypatch: pytest.MonkeyPatch, method: str, action: Callable[[], Any]) -> list[Any]:
    """Run `action` once, the first time the store's `method` is called, just before it runs: the window."""
    real = getattr(ck.store, method)
    outcome: list[Any] = []

    def hooked(*args: Any, **kwargs: Any) -> Any:
        if not outcome:
            try:
                outcome.append(action())
            except Exception as exc:  # the racing operation's answer, checked by the test
                outcome.append(exc)
        return real(*args, **kwargs)

    monkeypatch.setattr(ck.store, method, hooked)
    return outcome


def history(ck: Checkpoints, thread: str, n: int) -> None:
    for i in range(1, n + 1):
        put(ck, thread, i)
        writes(ck, thread, i, "t", [(0, "c", f"w{i}".encode())])


def assert_copy_reads(ck: Checkpoints, answer: Any, thread: str, expected: list[str]) -> None:
    """201 means the copy reads its history: its latest, every checkpoint and their writes."""
    assert isinstance(answer, dict), answer
    assert latest(ck, thread)["checkpoint_id"] == expected[0]
    assert ids(ck, thread) == expected
    assert len(latest(ck, thread)["pending_writes"]) == 1


# ---- issue 30, item 1: DELETE then, within 40 ms, POST .../copy → 204 and 201, yet the copy read nothing ----------
def test_a_copy_inside_a_deletes_window_is_refused_or_reads_its_history(
    ck: Checkpoints, monkeypatch: pytest.MonkeyPatch, aws: dict[str, Any]
) -> None:
    history(ck, "src", 3)
    raced = run_inside(ck, monkeypatch, "delete_items", lambda: copy(ck, "src", "dst"))
    assert delete_thread(ck, T, "src") is True
    (answer,) = raced
    with pytest.raises(CheckpointNotFound):
        latest(ck, "src")
    if isinstance(answer, CheckpointThreadNotFound):  # the delete came first: the copy is 404, nothing written
        assert not any(i["pk"]["S"].endswith("#dst") for i in table_items(aws["dynamodb"]))
        return
    assert_copy_reads(ck, answer, "dst", [cid(3), cid(2), cid(1)])


def test_a_copy_planned_before_a_delete_and_written_after_it_is_404(
    ck: Checkpoints, monkeypatch: pytest.MonkeyPatch, aws: dict[str, Any]
) -> None:
    history(ck, "src", 3)
    raced = run_inside(ck, monkeypatch, "copy", lambda: delete_thread(ck, T, "src"))
    with pytest.raises(CheckpointThreadNotFound):
        copy(ck, "src", "dst")
    assert raced == [True]
    assert table_items(aws["dynamodb"]) == []


# ---- the same read-then-delete shape: prune keep_latest ----------------------------------------------------------
def test_a_copy_inside_a_prunes_window_reads_its_history(ck: Checkpoints, monkeypatch: pytest.MonkeyPatch) -> None:
    history(ck, "src", 3)
    raced = run_inside(ck, monkeypatch, "delete_items", lambda: copy(ck, "src", "dst"))
    keep_latest(ck, T, "src")
    assert ids(ck, "src") == [cid(3)]
    assert_copy_reads(ck, raced[0], "dst", [cid(3), cid(2), cid(1)])


def test_a_copy_planned_before_a_prune_and_written_after_it_reads_what_the_source_shows(
    ck: Checkpoints, monkeypatch: pytest.MonkeyPatch
) -> None:
    history(ck, "src", 3)
    raced = run_inside(ck, monkeypatch, "copy", lambda: keep_latest(ck, T, "src"))
    answer = copy(ck, "src", "dst")
    assert raced[0]["strategy"] == "keep_latest"
    assert_copy_reads(ck, answer, "dst", ids(ck, "src"))


def test_a_copy_of_a_copy_inside_its_delete_keeps_what_it_reads_of_the_source(
    ck: Checkpoints, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`mid` (a copy of `src`, which is deleted and kept for it) is deleted while a copy of mid is being made: the
    copy is 404, or it holds mid and src and reads the whole history however the collection of src goes."""
    history(ck, "src", 3)
    copy(ck, "src", "mid")
    delete_thread(ck, T, "src")  # hidden: mid reads it
    raced = run_inside(ck, monkeypatch, "own_items", lambda: copy(ck, "mid", "late"))
    delete_thread(ck, T, "mid")
    if isinstance(raced[0], CheckpointThreadNotFound):
        assert ids(ck, "src") == [] and ids(ck, "mid") == []
        return
    assert_copy_reads(ck, raced[0], "late", [cid(3), cid(2), cid(1)])


def test_a_delete_that_crashed_mid_sweep_leaves_its_fence_and_a_retry_converges(
    ck: Checkpoints, monkeypatch: pytest.MonkeyPatch, aws: dict[str, Any]
) -> None:
    history(ck, "src", 3)
    real = ck.store.delete_items

    def crash(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the Lambda died mid-sweep")

    monkeypatch.setattr(ck.store, "delete_items", crash)
    with pytest.raises(RuntimeError):
        delete_thread(ck, T, "src")
    monkeypatch.setattr(ck.store, "delete_items", real)
    state = ck.store.thread(T, "src")
    assert state is not None and state.deleting
    with pytest.raises(CheckpointThreadNotFound):  # fenced: no copy takes a hold on what is being deleted
        copy(ck, "src", "dst")
    keep_latest(ck, T, "src")  # a prune leaves a thread being deleted alone
    assert delete_thread(ck, T, "src") is True
    assert table_items(aws["dynamodb"]) == []
    put(ck, "src", 7)  # a put after the delete makes the thread live anew
    assert ids(ck, "src") == [cid(7)]


# ---- bounded, seeded, concurrent: copies against deletes and prunes, threads against moto ---------------------
@pytest.fixture
def ck_over_http(moto_server: str, monkeypatch: pytest.MonkeyPatch) -> Checkpoints:
    """Checkpoints on the local substrate's moto server, where each DynamoDB request is atomic as in DynamoDB (moto
    in-process is not thread-safe: concurrency claims made on it prove less than they say)."""
    import boto3
    from checkpoints_support import BUCKET, TABLE, Clock

    from offprompt.adapters.dynamodb_checkpoints import DynamoDbCheckpointStore
    from offprompt.adapters.s3 import S3CheckpointBlobs
    from offprompt_local import resources

    monkeypatch.setenv("AWS_ENDPOINT_URL", moto_server)
    ddb, s3 = boto3.client("dynamodb"), boto3.client("s3")
    resources.create_table(ddb, TABLE)
    s3.create_bucket(Bucket=BUCKET)
    return Checkpoints(DynamoDbCheckpointStore(TABLE, client=ddb), S3CheckpointBlobs(BUCKET, client=s3), clock=Clock())


def test_copies_racing_deletes_and_prunes_keep_every_answered_history(ck_over_http: Checkpoints) -> None:
    """12 rounds, each 3 operations started together (a barrier) on one source of 3 checkpoints: copies, a delete,
    a prune, in a seeded random mix. Every copy that answered reads its whole history (the source's 3, or its latest
    alone after a prune), by latest, by list and by id with its writes, and keeps reading it once every other
    thread is deleted; a refused copy wrote nothing."""
    import random
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from offprompt.errors import DependencyUnavailable

    ck = ck_over_http
    rng = random.Random(301)
    full, pruned = [cid(3), cid(2), cid(1)], [cid(3)]
    for round_ in range(12):
        src = f"src{round_}"
        history(ck, src, 3)
        kinds = ["copy", rng.choice(["delete", "prune"]), rng.choice(["copy", "delete", "prune"])]
        rng.shuffle(kinds)
        barrier = threading.Barrier(len(kinds))

        def run(n: int, kind: str, src: str = src, barrier: threading.Barrier = barrier) -> tuple[str, str, Any]:
            target = f"{src}-copy{n}"
            barrier.wait()
            try:
                if kind == "copy":
                    return kind, target, copy(ck, src, target)
                if kind == "delete":
                    return kind, target, delete_thread(ck, T, src)
                return kind, target, keep_latest(ck, T, src)
            except (CheckpointThreadNotFound, DependencyUnavailable) as exc:
                return kind, target, exc

        with ThreadPoolExecutor(len(kinds)) as pool:
            outcomes = list(pool.map(run, range(len(kinds)), kinds))
        answered = []
        for kind, target, answer in outcomes:
            if kind != "copy":
                assert not isinstance(answer, Exception), (round_, kinds, answer)
            elif isinstance(answer, Exception):
                assert ck.store.thread(T, target) is None, (round_, kinds, answer)
            else:
                assert answer["through"] == {"": cid(3)}
                seen = ids(ck, target)
                assert seen in (full, pruned), (round_, kinds, seen)
                answered.append((target, seen))
        delete_thread(ck, T, src)
        for target, seen in answered:
            assert_copy_reads(ck, {}, target, seen)
            for n in range(1, 4):
                if cid(n) in seen:
                    assert [w["channel"] for w in by_id(ck, target, n)["pending_writes"]] == ["c"]
        for target, _seen in answered:
            delete_thread(ck, T, target)


# ---- a put or writes planned before a whole-thread delete and written after it (CI, 2026-12-05: the gauge counted
# a 500 KB checkpoint no one could read — the put wrote into a partition whose thread item the delete had removed) --
def orphans(ddb: Any) -> list[str]:
    """Checkpoint items whose thread has no root item: stored, metered, and unreadable."""
    items = table_items(ddb)
    roots = {i["pk"]["S"] for i in items if i["sk"]["S"] == CHECKPOINT_THREAD_SK}
    return [i["sk"]["S"] for i in items if i["pk"]["S"].startswith("CKP#") and i["pk"]["S"] not in roots]


def test_a_put_planned_before_a_delete_and_written_after_it_is_stored_in_a_live_thread(
    ck: Checkpoints, monkeypatch: pytest.MonkeyPatch, aws: dict[str, Any]
) -> None:
    history(ck, "src", 2)
    raced = run_inside(ck, monkeypatch, "put_checkpoint", lambda: delete_thread(ck, T, "src"))
    put(ck, "src", 7)
    assert raced == [True]
    assert orphans(aws["dynamodb"]) == []
    assert ids(ck, "src") == [cid(7)]  # the put came after the delete: the thread lives anew, holding it alone


def test_writes_planned_before_a_delete_and_written_after_it_are_stored_in_a_live_thread(
    ck: Checkpoints, monkeypatch: pytest.MonkeyPatch, aws: dict[str, Any]
) -> None:
    history(ck, "src", 2)
    raced = run_inside(ck, monkeypatch, "put_writes", lambda: delete_thread(ck, T, "src"))
    assert writes(ck, "src", 2, "t9", [(0, "c", b"late")]) == 1
    assert raced == [True]
    assert orphans(aws["dynamodb"]) == []
    put(ck, "src", 2)
    assert [w["channel"] for w in latest(ck, "src")["pending_writes"]] == ["c"]


def test_a_put_onto_a_thread_whose_delete_crashed_finishes_the_delete_first(
    ck: Checkpoints, monkeypatch: pytest.MonkeyPatch, aws: dict[str, Any]
) -> None:
    history(ck, "src", 3)

    def crash(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the Lambda died mid-sweep")

    real = ck.store.delete_items
    monkeypatch.setattr(ck.store, "delete_items", crash)
    with pytest.raises(RuntimeError):
        delete_thread(ck, T, "src")
    monkeypatch.setattr(ck.store, "delete_items", real)
    put(ck, "src", 7)
    writes(ck, "src", 7, "t", [(0, "c", b"w")])
    assert ids(ck, "src") == [cid(7)]  # not beside the history the begun delete was removing
    assert orphans(aws["dynamodb"]) == []
    state = ck.store.thread(T, "src")
    assert state is not None and not state.deleting
