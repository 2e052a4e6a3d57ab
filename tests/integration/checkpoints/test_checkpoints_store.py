"""LangGraph checkpoints' use cases on moto (DynamoDB + S3, the real adapters; docs/adr/0039): round trips inline and
through S3, the latest as one Query, LangGraph's writes rule, list paging, copy as a fork, deletes and prunes that
keep what live copies read, tenants apart."""

from __future__ import annotations

import os
from typing import Any

import pytest
from checkpoints_support import blob, bucket_keys, counting, items_read, table_items, unblob

from offprompt.errors import InvalidInput, PayloadTooLarge, SchemaInvalid
from offprompt.limits import MAX_FORK_DEPTH
from offprompt.services.checkpoints.context import Checkpoints
from offprompt.services.checkpoints.copy import copy_thread
from offprompt.services.checkpoints.delete import delete_thread
from offprompt.services.checkpoints.errors import (
    CheckpointNotFound,
    CheckpointShared,
    CheckpointThreadExists,
    CheckpointThreadNotFound,
    CopyTooDeep,
)
from offprompt.services.checkpoints.get import get_checkpoint
from offprompt.services.checkpoints.list import list_checkpoints
from offprompt.services.checkpoints.prune import keep_latest
from offprompt.services.checkpoints.put import put_checkpoint
from offprompt.services.checkpoints.requests import (
    CheckpointCopy,
    CheckpointList,
    CheckpointPut,
    CheckpointRead,
    WritesPut,
)
from offprompt.services.checkpoints.writes import put_writes
from offprompt.validation import validate

T = "tenant-a"


def cid(n: int) -> str:
    """uuid6-like ids: ordered as made."""
    return f"1ef{n:05d}-0000-6000-8000-000000000000"


def put(ck: Checkpoints, thread: str, n: int, data: bytes = b"state", ns: str = "", **meta: Any) -> None:
    body = {"checkpoint_ns": ns, "parent_checkpoint_id": cid(n - 1) if n > 1 else None,
            "checkpoint": blob(data), "metadata": {"step": n, **meta}}  # fmt: skip
    put_checkpoint(ck, T, thread, cid(n), validate(CheckpointPut, body))


def writes(ck: Checkpoints, thread: str, n: int, task: str, items: list[tuple[int, str, bytes]], ns: str = "") -> int:
    body = {"checkpoint_ns": ns, "task_id": task, "task_path": "",
            "writes": [{"idx": i, "channel": c, "value": blob(d)} for i, c, d in items]}  # fmt: skip
    return int(put_writes(ck, T, thread, cid(n), validate(WritesPut, body))["stored"])


def latest(ck: Checkpoints, thread: str, ns: str = "", tenant: str = T) -> dict[str, Any]:
    return get_checkpoint(ck, tenant, thread, CheckpointRead(checkpoint_ns=ns))


def by_id(ck: Checkpoints, thread: str, n: int, ns: str = "") -> dict[str, Any]:
    return get_checkpoint(ck, T, thread, CheckpointRead(checkpoint_ns=ns, checkpoint_id=cid(n)))


def ids(ck: Checkpoints, thread: str, **body: Any) -> list[str]:
    return [c["checkpoint_id"] for c in list_checkpoints(ck, T, thread, validate(CheckpointList, body))["checkpoints"]]


def copy(ck: Checkpoints, source: str, target: str) -> dict[str, Any]:
    return copy_thread(ck, T, source, CheckpointCopy(target_thread_id=target))


# ---- round trips ---------------------------------------------------------------------------------------------
def test_inline_round_trip_with_writes_sorted(ck: Checkpoints, aws: dict[str, Any]) -> None:
    put(ck, "th", 1, b"\x00\x01binary", source="input")
    assert writes(ck, "th", 1, "task-b", [(1, "b", b"B1"), (0, "a", b"B0")]) == 2
    assert writes(ck, "th", 1, "task-a", [(0, "x", b"A0")]) == 1
    got = latest(ck, "th")
    assert unblob(got["checkpoint"]) == b"\x00\x01binary" and got["checkpoint"]["type"] == "msgpack"
    assert got["metadata"] == {"step": 1, "source": "input"} and got["parent_checkpoint_id"] is None
    assert [(w["task_id"], w["idx"]) for w in got["pending_writes"]] == [("task-a", 0), ("task-b", 0), ("task-b", 1)]
    assert bucket_keys(aws["s3"]) == []


def test_a_2_mb_checkpoint_round_trips_byte_exact_through_s3(ck: Checkpoints, aws: dict[str, Any]) -> None:
    data = os.urandom(2 * 1024 * 1024)
    put(ck, "big", 1, data)
    assert len(bucket_keys(aws["s3"])) == 1
    assert all(k.startswith("checkpoints/") for k in bucket_keys(aws["s3"]))
    assert unblob(latest(ck, "big")["checkpoint"]) == data
    assert unblob(by_id(ck, "big", 1)["checkpoint"]) == data


def test_re_put_replaces_and_drops_the_replaced_blob(ck: Checkpoints, aws: dict[str, Any]) -> None:
    put(ck, "th", 1, os.urandom(400_000))
    put(ck, "th", 1, b"small now")
    assert unblob(latest(ck, "th")["checkpoint"]) == b"small now"
    assert bucket_keys(aws["s3"]) == []


def test_latest_reads_exactly_the_newest_checkpoint_and_its_writes(ck: Checkpoints, aws: dict[str, Any]) -> None:
    """ADR 0053: one Query of one item when the newest checkpoint has no writes; else that Query names it and a
    second reads exactly the rest of its items: never an older checkpoint's."""
    for n in range(1, 30):
        put(ck, "th", n, b"x" * 100)
        writes(ck, "th", n, "t", [(0, "c", b"v"), (-1, "__error__", b"e")])
    put(ck, "th", 30, os.urandom(500_000))
    with counting(aws["dynamodb"], aws["s3"]) as calls, items_read(aws["dynamodb"]) as read:
        got = latest(ck, "th")
    assert got["checkpoint_id"] == cid(30) and got["pending_writes"] == []
    assert dict(calls) == {"dynamodb.Query": 1, "s3.GetObject": 1}
    assert read == [f"C##{cid(30)}"]
    writes(ck, "th", 30, "t", [(i, "c", b"v") for i in range(12)])
    with counting(aws["dynamodb"], aws["s3"]) as calls, items_read(aws["dynamodb"]) as read:
        got = latest(ck, "th")
    assert got["checkpoint_id"] == cid(30) and len(got["pending_writes"]) == 12
    assert dict(calls) == {"dynamodb.Query": 2, "s3.GetObject": 1}
    assert len(read) == len(set(read)) == 13 and all(sk.startswith(f"C##{cid(30)}") for sk in read)
    writes(ck, "th", 30, "u", [(i, "c", b"v") for i in range(300)])  # past a page: the rest are read too
    with items_read(aws["dynamodb"]) as read:
        got = latest(ck, "th")
    assert got["checkpoint_id"] == cid(30) and len(got["pending_writes"]) == 312
    assert len(read) == len(set(read)) == 313 and all(sk.startswith(f"C##{cid(30)}") for sk in read)


def test_latest_of_a_copy_reads_only_the_newest_checkpoints_items(ck: Checkpoints, aws: dict[str, Any]) -> None:
    for n in range(1, 21):
        put(ck, "src", n)
        writes(ck, "src", n, "t", [(0, "c", b"v"), (1, "d", b"w")])
    copy(ck, "src", "dst")
    before = latest(ck, "src")
    with items_read(aws["dynamodb"]) as read:
        got = latest(ck, "dst")
    assert {**got, "thread_id": "src"} == before
    assert got["checkpoint_id"] == cid(20) and len(got["pending_writes"]) == 2
    assert [sk for sk in read if not sk.endswith("~")] and all(
        sk.startswith(f"C##{cid(20)}") for sk in read if not sk.endswith("~")
    ), read
    keep_latest(ck, T, "src")  # hidden below a floor: the thread's head names it, the answer is unchanged
    put(ck, "src", 21)
    with items_read(aws["dynamodb"]) as read:
        assert latest(ck, "src")["checkpoint_id"] == cid(21)
    assert all(sk.startswith(f"C##{cid(21)}") for sk in read if not sk.endswith("~")), read


def test_bad_input_is_refused_and_nothing_is_written(ck: Checkpoints, aws: dict[str, Any]) -> None:
    good = {"checkpoint": blob(b"x"), "metadata": {}}
    with pytest.raises(InvalidInput):
        put_checkpoint(ck, T, "th", "bad#id", validate(CheckpointPut, good))
    with pytest.raises(InvalidInput):
        put_checkpoint(ck, T, "th/x", cid(1), validate(CheckpointPut, good))
    with pytest.raises(InvalidInput):
        put_checkpoint(
            ck, T, "th", cid(1), validate(CheckpointPut, {**good, "checkpoint": {"type": "t", "data": "**"}})
        )
    with pytest.raises(PayloadTooLarge):
        put_checkpoint(
            ck, T, "th", cid(1), validate(CheckpointPut, {**good, "checkpoint": blob(b"x" * (4 * 2**20 + 1))})
        )
    with pytest.raises(PayloadTooLarge):
        put_checkpoint(ck, T, "th", cid(1), validate(CheckpointPut, {**good, "metadata": {"a": "x" * 70_000}}))
    with pytest.raises(SchemaInvalid):
        validate(CheckpointPut, {**good, "parent_checkpoint_id": "no spaces"})
    with pytest.raises(SchemaInvalid):
        validate(WritesPut, {"task_id": "t", "writes": []})
    assert table_items(aws["dynamodb"]) == [] and bucket_keys(aws["s3"]) == []


# ---- writes --------------------------------------------------------------------------------------------------
def test_writes_rule_idx_non_negative_kept_negative_replaced(ck: Checkpoints) -> None:
    put(ck, "th", 1)
    assert writes(ck, "th", 1, "t", [(0, "c", b"first"), (-1, "__error__", b"e1"), (0, "c", b"same-request")]) == 2
    assert writes(ck, "th", 1, "t", [(0, "c", b"second"), (-1, "__error__", b"e2"), (1, "d", b"new")]) == 2
    got = {(w["idx"]): unblob(w["value"]) for w in latest(ck, "th")["pending_writes"]}
    assert got == {0: b"first", -1: b"e2", 1: b"new"}


def test_writes_may_arrive_before_their_checkpoint(ck: Checkpoints, aws: dict[str, Any]) -> None:
    """LangGraph saves a checkpoint in the background while the next step's tasks run: their writes can reach the
    service before the checkpoint they belong to (its loop does not order them). They are kept, under the thread
    (its root item made, so erase and export find them), and read with the checkpoint once it is there."""
    assert writes(ck, "early", 1, "t", [(0, "c", b"v"), (-1, "__error__", b"e")]) == 2
    roots = [i for i in table_items(aws["dynamodb"]) if i["sk"]["S"] == "#CKP"]
    assert len(roots) == 1 and "tenant_dir" in roots[0]
    with pytest.raises(CheckpointNotFound):
        latest(ck, "early")  # writes alone are no checkpoint
    assert writes(ck, "early", 1, "t", [(0, "c", b"again")]) == 0  # the rule holds before the checkpoint too
    put(ck, "early", 1)
    got = {w["idx"]: unblob(w["value"]) for w in latest(ck, "early")["pending_writes"]}
    assert got == {0: b"v", -1: b"e"}
    put(ck, "th", 1)
    assert writes(ck, "th", 2, "t", [(0, "c", b"next")]) == 1
    put(ck, "th", 2)
    assert [unblob(w["value"]) for w in latest(ck, "th")["pending_writes"]] == [b"next"]


# ---- list ----------------------------------------------------------------------------------------------------
def test_list_namespaces_before_filter_limit(ck: Checkpoints) -> None:
    for n in range(1, 6):
        put(ck, "th", n, source="loop" if n % 2 else "input")
    put(ck, "th", 7, ns="child:1")
    assert ids(ck, "th", checkpoint_ns="") == [cid(n) for n in (5, 4, 3, 2, 1)]
    assert ids(ck, "th") == [cid(n) for n in (7, 5, 4, 3, 2, 1)]  # every namespace, merged by id
    assert ids(ck, "th", checkpoint_ns="", before=cid(4)) == [cid(3), cid(2), cid(1)]
    assert ids(ck, "th", checkpoint_ns="", filter={"source": "loop"}, limit=2) == [cid(5), cid(3)]
    assert ids(ck, "th", filter={"step": 7}) == [cid(7)]
    assert ids(ck, "unknown") == []


def test_list_pages_by_blob_budget_with_a_cursor(ck: Checkpoints) -> None:
    for n in range(1, 6):
        put(ck, "th", n, os.urandom(1_500_000))
    seen: list[str] = []
    body: dict[str, Any] = {"checkpoint_ns": "", "limit": 4}
    pages = 0
    while True:
        page = list_checkpoints(ck, T, "th", validate(CheckpointList, body))
        pages += 1
        assert 1 <= len(page["checkpoints"]) <= 2
        seen.extend(c["checkpoint_id"] for c in page["checkpoints"])
        if page["next_cursor"] is None:
            break
        body["cursor"] = page["next_cursor"]
    assert seen == [cid(n) for n in (5, 4, 3, 2)] and pages == 2
    with pytest.raises(InvalidInput):
        list_checkpoints(ck, T, "other", validate(CheckpointList, body))


# ---- copy ----------------------------------------------------------------------------------------------------
def test_copy_is_one_transaction_and_reads_merge(ck: Checkpoints, aws: dict[str, Any]) -> None:
    for n in range(1, 40):
        put(ck, "src", n)
    writes(ck, "src", 39, "t", [(0, "c", b"shared")])
    with counting(aws["dynamodb"]) as calls:
        out = copy(ck, "src", "dst")
    assert out == {"thread_id": "dst", "copied_from": "src", "through": {"": cid(39)}}
    assert calls["dynamodb.TransactWriteItems"] == 1
    assert sum(v for k, v in calls.items() if k in ("dynamodb.PutItem", "dynamodb.BatchWriteItem")) == 0
    assert latest(ck, "dst")["checkpoint_id"] == cid(39)
    # a write the copy adds to the shared checkpoint is the copy's; the source's later items are the source's
    writes(ck, "dst", 39, "t", [(1, "c", b"copy's own"), (0, "c", b"kept: idx 0 is stored")])
    writes(ck, "src", 39, "t", [(2, "c", b"source's later write")])
    put(ck, "src", 41)
    put(ck, "dst", 40)
    assert latest(ck, "dst")["checkpoint_id"] == cid(40)
    shared = by_id(ck, "dst", 39)
    assert {w["idx"]: unblob(w["value"]) for w in shared["pending_writes"]} == {0: b"shared", 1: b"copy's own"}
    assert {w["idx"] for w in by_id(ck, "src", 39)["pending_writes"]} == {0, 2}
    assert ids(ck, "dst")[:3] == [cid(40), cid(39), cid(38)] and len(ids(ck, "dst")) == 40
    assert latest(ck, "src")["checkpoint_id"] == cid(41)


def test_copy_errors_and_copy_of_copy_to_the_depth_limit(ck: Checkpoints) -> None:
    with pytest.raises(CheckpointThreadNotFound):
        copy(ck, "nothing", "x")
    put(ck, "c0", 1)
    put(ck, "taken", 1)
    with pytest.raises(CheckpointThreadExists):
        copy(ck, "c0", "taken")
    for depth in range(1, MAX_FORK_DEPTH):
        copy(ck, f"c{depth - 1}", f"c{depth}")
        put(ck, f"c{depth}", depth + 1)
    last = f"c{MAX_FORK_DEPTH - 1}"
    assert ids(ck, last) == [cid(n) for n in range(MAX_FORK_DEPTH, 0, -1)]
    with pytest.raises(CopyTooDeep):
        copy(ck, last, "too-deep")
    with pytest.raises(CheckpointThreadExists):
        copy(ck, "c0", "c1")


# ---- delete and prune with live copies -----------------------------------------------------------------------
def test_delete_without_copies_removes_everything(ck: Checkpoints, aws: dict[str, Any]) -> None:
    put(ck, "th", 1, os.urandom(400_000))
    writes(ck, "th", 1, "t", [(0, "c", os.urandom(400_000))])
    assert delete_thread(ck, T, "th") is True
    assert table_items(aws["dynamodb"]) == [] and bucket_keys(aws["s3"]) == []
    assert delete_thread(ck, T, "th") is False
    with pytest.raises(CheckpointNotFound):
        latest(ck, "th")


def test_deleting_a_source_keeps_what_its_copy_reads_until_the_copy_goes(ck: Checkpoints, aws: dict[str, Any]) -> None:
    put(ck, "src", 1, os.urandom(400_000))
    put(ck, "src", 2)
    copy(ck, "src", "dst")
    put(ck, "src", 3)  # after the copy: the copy never reads it
    delete_thread(ck, T, "src")
    with pytest.raises(CheckpointNotFound):
        latest(ck, "src")
    assert ids(ck, "src") == []
    assert ids(ck, "dst") == [cid(2), cid(1)] and len(unblob(by_id(ck, "dst", 1)["checkpoint"])) == 400_000
    sks = {i["sk"]["S"] for i in table_items(aws["dynamodb"]) if i["pk"]["S"].startswith("CKP#tenant-a#src")}
    assert not any(cid(3) in sk for sk in sks)  # not read by the copy: deleted at once
    put(ck, "src", 4)  # the deleted source lives anew, its old history stays hidden
    assert ids(ck, "src") == [cid(4)]
    with pytest.raises(CheckpointShared):
        put(ck, "src", 2)
    delete_thread(ck, T, "dst")  # the last copy goes: the source's shared items go with it
    assert ids(ck, "src") == [cid(4)]
    delete_thread(ck, T, "src")
    assert table_items(aws["dynamodb"]) == [] and bucket_keys(aws["s3"]) == []


def test_a_special_write_replaced_in_a_shared_checkpoint_stays_for_the_copy(ck: Checkpoints) -> None:
    put(ck, "src", 1)
    writes(ck, "src", 1, "t", [(-1, "__error__", b"before the copy")])
    copy(ck, "src", "dst")
    writes(ck, "src", 1, "t", [(-1, "__error__", b"the source's"), (-2, "__interrupt__", b"new")])
    writes(ck, "src", 1, "t", [(-1, "__error__", b"the source's again")])
    mine = {w["idx"]: unblob(w["value"]) for w in latest(ck, "src")["pending_writes"]}
    assert mine == {-1: b"the source's again", -2: b"new"}
    assert [unblob(w["value"]) for w in latest(ck, "dst")["pending_writes"]] == [b"before the copy"]
    delete_thread(ck, T, "dst")
    writes(ck, "src", 1, "t", [(-1, "__error__", b"no copy now")])  # no hold: replaced in place, newest wins
    assert {w["idx"]: unblob(w["value"]) for w in latest(ck, "src")["pending_writes"]}[-1] == b"no copy now"
    delete_thread(ck, T, "src")


def test_a_chain_of_copies_deleted_in_any_order_keeps_what_the_last_reads(ck: Checkpoints, aws: dict[str, Any]) -> None:
    put(ck, "s", 1, os.urandom(400_000))
    put(ck, "s", 2)
    copy(ck, "s", "c")
    put(ck, "c", 3)
    copy(ck, "c", "c2")
    put(ck, "c2", 4)
    delete_thread(ck, T, "s")
    delete_thread(ck, T, "c")
    assert ids(ck, "c2") == [cid(4), cid(3), cid(2), cid(1)]
    assert len(unblob(by_id(ck, "c2", 1)["checkpoint"])) == 400_000
    assert ids(ck, "s") == [] and ids(ck, "c") == []
    delete_thread(ck, T, "c2")  # the last reader: the hidden sources go with it
    assert table_items(aws["dynamodb"]) == [] and bucket_keys(aws["s3"]) == []


def test_a_copy_of_a_pruned_thread_sees_what_it_saw(ck: Checkpoints) -> None:
    for n in range(1, 4):
        put(ck, "s", n)
    copy(ck, "s", "keeper")  # holds the history: the prune hides instead of deleting
    keep_latest(ck, T, "s")
    copy(ck, "s", "c")
    assert ids(ck, "c") == [cid(3)]
    assert ids(ck, "keeper") == [cid(3), cid(2), cid(1)]


def test_prune_keep_latest_without_copies_deletes_the_rest(ck: Checkpoints, aws: dict[str, Any]) -> None:
    for n in range(1, 4):
        put(ck, "th", n)
        writes(ck, "th", n, "t", [(0, "c", b"v")])
    put(ck, "th", 9, ns="child")
    put(ck, "th", 8, ns="child")
    keep_latest(ck, T, "th")
    assert ids(ck, "th") == [cid(9), cid(3)]
    assert len(latest(ck, "th")["pending_writes"]) == 1
    assert len(table_items(aws["dynamodb"])) == 1 + 3  # the thread, two checkpoints, one write


def test_prune_a_source_hides_what_its_copy_still_reads(ck: Checkpoints, aws: dict[str, Any]) -> None:
    for n in range(1, 4):
        put(ck, "src", n)
    copy(ck, "src", "dst")
    put(ck, "src", 4)
    keep_latest(ck, T, "src")
    assert ids(ck, "src") == [cid(4)]
    assert ids(ck, "dst") == [cid(3), cid(2), cid(1)]
    with counting(aws["dynamodb"]) as calls:
        assert latest(ck, "src")["checkpoint_id"] == cid(4)
    assert calls["dynamodb.Query"] >= 1
    keep_latest(ck, T, "dst")  # a copy hides, never deletes, its sources'
    assert ids(ck, "dst") == [cid(3)]
    delete_thread(ck, T, "dst")
    sks = sorted(i["sk"]["S"] for i in table_items(aws["dynamodb"]) if i["pk"]["S"] == "CKP#tenant-a#src")
    assert [sk for sk in sks if sk.startswith("C#") and not sk.endswith("~")] == [f"C##{cid(4)}"]


# ---- tenants -------------------------------------------------------------------------------------------------
def test_another_tenant_reaches_nothing(ck: Checkpoints) -> None:
    put(ck, "th", 1)
    with pytest.raises(CheckpointNotFound):
        latest(ck, "th", tenant="tenant-b")
    assert list_checkpoints(ck, "tenant-b", "th", CheckpointList())["checkpoints"] == []
    with pytest.raises(CheckpointThreadNotFound):
        copy_thread(ck, "tenant-b", "th", CheckpointCopy(target_thread_id="mine"))
    delete_thread(ck, "tenant-b", "th")
    assert latest(ck, "th")["checkpoint_id"] == cid(1)


def test_hiding_a_thread_deleted_meanwhile_writes_no_partial_item(ck: Checkpoints, aws: dict[str, Any]) -> None:
    from offprompt.ports import CheckpointThreadChanged, CheckpointThreadState

    with pytest.raises(CheckpointThreadChanged):  # the caller reads again: the thread is gone
        ck.store.save_state(T, CheckpointThreadState("ghost", 0.0, floors={"": (cid(1), True)}), [])
    assert table_items(aws["dynamodb"]) == []


def test_two_first_puts_racing_both_store(ck: Checkpoints, monkeypatch: pytest.MonkeyPatch) -> None:
    """The loser of the thread item's creation reads again and stores its checkpoint (no 503, no lost put)."""
    put(ck, "th", 1)  # the winner
    real = ck.store.thread_and_checkpoint
    stale = iter([(None, None)])  # the loser read before the winner wrote

    def first_stale(*args: Any) -> Any:
        return next(stale, None) or real(*args)

    monkeypatch.setattr(ck.store, "thread_and_checkpoint", first_stale)
    put(ck, "th", 2)
    assert ids(ck, "th") == [cid(2), cid(1)]


@pytest.mark.parametrize("ns", ["#", "a#b|c:1", "~", "🦊" * 1024, "x" * 1024])
def test_any_namespace_is_its_own(ck: Checkpoints, ns: str) -> None:
    """Namespaces are base64url in keys (digested when long): "#", "~" or 1,024 characters never collide."""
    put(ck, "th", 1)
    put(ck, "th", 2, ns=ns)
    writes(ck, "th", 2, "t", [(0, "c", b"v")], ns=ns)
    assert latest(ck, "th", ns=ns)["checkpoint_id"] == cid(2) and latest(ck, "th")["checkpoint_id"] == cid(1)
    assert len(latest(ck, "th", ns=ns)["pending_writes"]) == 1
    assert ids(ck, "th", checkpoint_ns=ns) == [cid(2)] and ids(ck, "th") == [cid(2), cid(1)]
    page = list_checkpoints(ck, T, "th", CheckpointList(checkpoint_ns=None))["checkpoints"]
    assert [c["checkpoint_ns"] for c in page] == [ns, ""]
