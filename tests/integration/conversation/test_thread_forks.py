"""Thread forks and time travel (issue 23, docs/adr/0037): `POST /threads/{thread_id}/fork` and `as_of_run`.

The claims: a fork shares the parent's runs without copying them (the same DynamoDB writes for a 10-run and a
2,000-run parent); every read walks the ancestry (list runs, prompt-stack, items, the Cloud messages view, fork of
fork); what either side adds after the fork stays its own; `as_of_run` is the thread right after that run, on the
parent and on a fork; max_runs pruning and deletes never remove what a live fork reads; refused requests (404,
409, 422) write nothing; a retried fork converges.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

import pytest
from conversation_api import TABLE, Api, all_items, text_run

from offprompt.adapters.dynamodb_runs import _run_item as run_item
from offprompt.adapters.layout import thread_pk
from offprompt.composition.conversation import default_service
from offprompt.errors import NotFound, SchemaInvalid
from offprompt.limits import MAX_FORK_DEPTH
from offprompt.ports import StoredRun
from offprompt.services.conversation.errors import ThreadExistsConflict

WRITES = {"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"}


def fork(api: Api, thread: str, body: dict[str, Any] | None = None, *, tenant: str = "tenant-a") -> tuple[int, Any]:
    path = f"/threads/{quote(thread, safe='')}/fork"
    return api.http(
        api.threads, "thread_fork_http.json", "POST", path, body=body or {}, tenant=tenant, thread_id=thread
    )


def add(api: Api, thread: str, *ids: str) -> None:
    for run_id in ids:
        status, body = api.post_run(thread, text_run(run_id, f"question {run_id}", f"answer {run_id}"))
        assert status == 201, body


def run_ids(api: Api, thread: str, **query: str) -> list[str]:
    status, body = api.runs(thread, limit="100", **query)
    assert status == 200, body
    return [r["run"]["id"] for r in body["runs"]]


def stack_ids(api: Api, thread: str, **request: Any) -> list[str]:
    status, body = api.prompt_stack(thread, request)
    assert status == 200, body
    return [m["content"][0]["artifact"]["value"].split()[-1] for m in body["messages"] if m["role"] == "user"]


@contextmanager
def counted_writes() -> Iterator[list[str]]:
    """The DynamoDB write calls the service's client makes (botocore events)."""
    client = default_service().runs.client  # type: ignore[attr-defined]
    calls: list[str] = []

    def count(model: Any, **_: Any) -> None:
        if model.name in WRITES:
            calls.append(model.name)

    client.meta.events.register("before-call.dynamodb", count)
    try:
        yield calls
    finally:
        client.meta.events.unregister("before-call.dynamodb", count)


def bulk_thread(tenant: str, thread: str, n: int) -> None:
    """A thread of `n` runs written 25 items per BatchWriteItem (the adapter's own run items; a transaction per
    32 runs is slow on moto for thousands): fast to build a long history."""
    runs = default_service().runs
    state = runs.allocate_seq(tenant, thread, "2026-01-01T00:00:00Z", count=n)
    pk = thread_pk(tenant, thread)
    items = [
        run_item(pk, StoredRun(seq=s, run_id=f"b{s}", content_hash="h", input_tokens=3, output_tokens=3, size=10,
                               run_json=f'{{"type":"Run","id":"b{s}"}}'), tenant, thread, metered_bytes=0)
        for s in range(1, n + 1)
    ]  # fmt: skip
    client = runs.client  # type: ignore[attr-defined]
    for k in range(0, n, 25):
        puts = [{"PutRequest": {"Item": item}} for item in items[k : k + 25]]
        client.batch_write_item(RequestItems={TABLE: puts})
    assert state.next_seq == n


def thread_items(ddb: Any, thread: str) -> list[dict[str, Any]]:
    return [i for i in all_items(ddb) if i["pk"]["S"].endswith(f"#TH#{thread}")]


def test_fork_shares_the_parent_runs_and_each_side_keeps_its_own(api: Api, aws: dict[str, Any]) -> None:
    add(api, "p", "r1", "r2", "r3")
    status, body = fork(api, "p", {"thread_id": "f"})
    assert status == 201, body
    assert body["forked_from"] == "p" and body["through_seq"] == 3 and body["after_run_id"] == "r3"
    assert body["ancestry"] == [{"thread_id": "p", "through_seq": 3}] and not body["replayed"]
    # no run copied: the fork's partition holds its thread item only
    assert [i["sk"]["S"] for i in thread_items(aws["dynamodb"], "f")] == ["#THREAD"]
    assert run_ids(api, "f") == ["r1", "r2", "r3"]
    add(api, "f", "f4")
    add(api, "p", "p4")
    assert run_ids(api, "f") == ["r1", "r2", "r3", "f4"]
    assert run_ids(api, "p") == ["r1", "r2", "r3", "p4"]
    assert run_ids(api, "f", order="desc") == ["f4", "r3", "r2", "r1"]
    assert stack_ids(api, "f") == ["r1", "r2", "r3", "f4"]
    assert stack_ids(api, "p") == ["r1", "r2", "r3", "p4"]
    # paging through the segment boundary with a cursor
    status, page = api.runs("f", limit="2", order="desc")
    assert [r["run"]["id"] for r in page["runs"]] == ["f4", "r3"]
    status, page = api.runs("f", limit="2", order="desc", cursor=page["next_cursor"])
    assert [r["run"]["id"] for r in page["runs"]] == ["r2", "r1"]
    status, thread = api.thread("GET", "f")
    assert thread["fork"]["forked_from"] == "p" and thread["stored_runs"] == 1 and thread["visible_runs"] == 4
    assert api.thread("GET", "p")[1]["fork"]["live_forks"] == 1


def test_fork_writes_the_same_whatever_the_history_length(api: Api) -> None:
    bulk_thread("tenant-a", "small", 10)
    bulk_thread("tenant-a", "large", 2_000)
    with counted_writes() as small:
        assert fork(api, "small", {"thread_id": "small-f"})[0] == 201
    with counted_writes() as large:
        assert fork(api, "large", {"thread_id": "large-f"})[0] == 201
    assert small == large == ["TransactWriteItems", "PutItem"]  # the fork, then its audit entry (ADR 0056)
    _, page = api.runs("large-f", limit="3", order="desc")
    assert [r["seq"] for r in page["runs"]] == [2000, 1999, 1998]


def test_fork_of_fork_and_fork_at_an_ancestor_run(api: Api) -> None:
    add(api, "g", "g1", "g2", "g3")
    assert fork(api, "g", {"thread_id": "p", "after_run_id": "g2"})[0] == 201
    add(api, "p", "p3")
    status, body = fork(api, "p", {"thread_id": "c"})
    assert status == 201 and body["ancestry"] == [
        {"thread_id": "p", "through_seq": 3},
        {"thread_id": "g", "through_seq": 2},
    ]
    add(api, "c", "c4")
    assert run_ids(api, "c") == ["g1", "g2", "p3", "c4"]
    assert stack_ids(api, "c", max_tokens=100_000) == ["g1", "g2", "p3", "c4"]
    # a fork after a run the parent shares reads that run's owner directly
    status, body = fork(api, "p", {"thread_id": "d", "after_run_id": "g1"})
    assert status == 201 and body["ancestry"] == [{"thread_id": "g", "through_seq": 1}]
    assert run_ids(api, "d") == ["g1"]
    # g3 (added to g after p forked) is not p's: p cannot fork after it
    status, body = fork(api, "p", {"thread_id": "e", "after_run_id": "g3"})
    assert status == 404 and body["code"] == "run_not_found"


def test_fork_depth_is_bounded(api: Api, aws: dict[str, Any]) -> None:
    add(api, "t0", "r0")
    for depth in range(1, MAX_FORK_DEPTH + 1):
        add(api, f"t{depth - 1}", f"x{depth}")  # each level owns a run: the chain grows
        assert fork(api, f"t{depth - 1}", {"thread_id": f"t{depth}"})[0] == 201
    add(api, f"t{MAX_FORK_DEPTH}", "last")
    before = all_items(aws["dynamodb"])
    status, body = fork(api, f"t{MAX_FORK_DEPTH}", {"thread_id": "too-deep"})
    assert status == 409 and body["code"] == "fork_too_deep"
    assert all_items(aws["dynamodb"]) == before
    assert run_ids(api, f"t{MAX_FORK_DEPTH}")[:2] == ["r0", "x1"]


def test_as_of_run_on_the_parent_and_on_a_fork(api: Api) -> None:
    add(api, "p", "r1", "r2", "r3")
    fork(api, "p", {"thread_id": "f", "after_run_id": "r2"})
    add(api, "f", "f3", "f4")
    assert run_ids(api, "p", as_of_run="r2") == ["r1", "r2"]
    assert run_ids(api, "f", as_of_run="r1") == ["r1"]
    assert run_ids(api, "f", as_of_run="f3") == ["r1", "r2", "f3"]
    assert run_ids(api, "f", as_of_run="f3", order="desc") == ["f3", "r2", "r1"]
    assert stack_ids(api, "f", as_of_run="f3") == ["r1", "r2", "f3"]
    assert stack_ids(api, "p", as_of_run="r1") == ["r1"]
    # r3 is the parent's after the fork point; a thread that does not exist holds no run either
    for thread, run in (("f", "r3"), ("p", "f3"), ("p", "nope"), ("no-such-thread", "r1")):
        status, body = api.runs(thread, as_of_run=run)
        assert status == 404 and body["code"] == "run_not_found", (thread, run, body)
        status, body = api.prompt_stack(thread, {"as_of_run": run})
        assert status == 404 and body["code"] == "run_not_found"


def test_max_runs_pruning_on_the_parent_keeps_shared_runs(api: Api) -> None:
    api.thread("PUT", "p", {"max_runs": 2})
    add(api, "p", *[f"r{i}" for i in range(1, 6)])
    assert fork(api, "p", {"thread_id": "f"})[0] == 201
    add(api, "p", *[f"s{i}" for i in range(1, 30)])  # enough to prune far past the fork point
    assert run_ids(api, "p") == ["s28", "s29"]
    assert run_ids(api, "f", order="desc")[:2] == ["r5", "r4"]  # the fork's own max_runs (2) shows its newest
    stored = default_service().runs.page_runs(
        "tenant-a", "p", lo=1, hi=5, newest_first=False, limit=10, now_epoch=0, keys_only=True
    )[0]
    assert [r.run_id for r in stored] == ["r1", "r2", "r3", "r4", "r5"]  # every shared run kept
    after_fork, _ = default_service().runs.page_runs(
        "tenant-a", "p", lo=6, hi=None, newest_first=False, limit=100, now_epoch=0, keys_only=True
    )
    assert len(after_fork) < 29  # runs past the fork point are pruned as ever


def test_delete_rules(api: Api, aws: dict[str, Any]) -> None:
    add(api, "p", "r1", "r2")
    fork(api, "p", {"thread_id": "f"})
    add(api, "f", "f3")  # g reads f's own run: it holds f (a fork of f at r2 would read p directly)
    fork(api, "f", {"thread_id": "g"})
    before = all_items(aws["dynamodb"])
    status, body = api.thread("DELETE", "p")
    assert status == 409 and body["code"] == "thread_has_forks"
    assert all_items(aws["dynamodb"]) == before
    assert api.thread("DELETE", "f")[1]["code"] == "thread_has_forks"
    assert api.thread("DELETE", "g")[0] == 204
    assert api.thread("DELETE", "g")[0] == 204  # a retried delete releases nothing twice
    assert api.thread("GET", "f")[1]["fork"]["live_forks"] == 0
    assert api.thread("GET", "p")[1]["fork"]["live_forks"] == 1
    assert api.thread("DELETE", "f")[0] == 204
    assert api.thread("DELETE", "p")[0] == 204
    assert all_items(aws["dynamodb"]) == []


def test_refused_forks_write_nothing(api: Api, aws: dict[str, Any]) -> None:
    add(api, "p", "r1")
    add(api, "other", "o1")
    before = all_items(aws["dynamodb"])
    cases = [
        ("missing", {"thread_id": "x"}, 404, "not_found"),
        ("p", {"thread_id": "x", "after_run_id": "nope"}, 404, "run_not_found"),
        ("p", {"thread_id": "other"}, 409, "thread_exists"),
        ("p", {"thread_id": "x", "extra": 1}, 422, "schema_invalid"),
        ("p", {"thread_id": 5}, 422, "schema_invalid"),
        ("p", {"thread_id": "p"}, 400, "invalid_input"),
    ]
    for thread, body, status, code in cases:
        got, answer = fork(api, thread, body)
        assert (got, answer["code"]) == (status, code), (thread, body, answer)
    assert all_items(aws["dynamodb"]) == before


def test_a_fork_onto_its_parents_ancestor_is_thread_exists(api: Api, aws: dict[str, Any]) -> None:
    """Issue 30 item 7: the target is a thread the fork would hold (the parent's ancestor): 409 `thread_exists`, as
    for any existing target, not a transaction that names one item twice (503 forever); invoked directly alike."""
    add(api, "p0", "r1")
    assert fork(api, "p0", {"thread_id": "f1"})[0] == 201  # f1 reads p0's runs and has none of its own
    assert fork(api, "f1", {"thread_id": "f2"})[0] == 201
    add(api, "f2", "r2")  # f2 holds runs of its own: the fork's ancestry starts with f2
    before = all_items(aws["dynamodb"])
    for parent, target in (("f1", "p0"), ("f2", "p0"), ("f2", "f1")):
        status, answer = fork(api, parent, {"thread_id": target})
        assert (status, answer["code"]) == (409, "thread_exists"), (parent, target, answer)
        event = {"tenant": "tenant-a", "thread_id": parent, "action": "fork", "new_thread_id": target}
        with pytest.raises(ThreadExistsConflict):
            api.threads(event, None)
    assert all_items(aws["dynamodb"]) == before


def test_a_retried_fork_converges(api: Api) -> None:
    add(api, "p", "r1", "r2")
    status, first = fork(api, "p", {"request_id": "req-1"})
    assert status == 201 and not first["replayed"]
    add(api, "p", "r3")  # the newest run moved: the retry still answers the fork made first
    status, again = fork(api, "p", {"request_id": "req-1"})
    assert status == 201 and again == {**first, "replayed": True}
    status, named = fork(api, "p", {"thread_id": "n", "after_run_id": "r1"})
    status, named_again = fork(api, "p", {"thread_id": "n", "after_run_id": "r1"})
    assert named_again == {**named, "replayed": True}
    assert fork(api, "p", {"thread_id": "n", "after_run_id": "r2"})[1]["code"] == "thread_exists"
    assert api.thread("GET", "p")[1]["fork"]["live_forks"] == 2


def test_direct_invocation_forks_too(api: Api) -> None:
    add(api, "thread-1", "r1")
    with pytest.raises(SchemaInvalid):
        api.threads({"tenant": "tenant-a", "thread_id": "thread-1", "action": "fork", "extra": None}, None)
    out = api.threads({"tenant": "tenant-a", "thread_id": "thread-1", "action": "fork", "request_id": "d1"}, None)
    assert out["forked_from"] == "thread-1" and out["through_seq"] == 1
    with pytest.raises(NotFound):
        api.threads({"tenant": "tenant-a", "thread_id": "nope", "action": "fork"}, None)
    named = {"tenant": "tenant-a", "thread_id": "thread-1", "action": "fork", "new_thread_id": "d2"}
    assert api.threads(named, None)["thread_id"] == "d2"


def _items(api: Api, thread: str, method: str, suffix: str, body: Any = None) -> tuple[int, Any]:
    template = {"": "thread_items_get_http.json", "/pop": "thread_items_pop_http.json"}
    if body is not None:
        template[""] = "thread_items_add_http.json"
    path = f"/threads/{quote(thread, safe='')}/items{suffix}"
    return api.http(api.threads, template[suffix], method, path, body=body, thread_id=thread)


def test_session_items_fork_and_pop_only_what_is_not_shared(api: Api, aws: dict[str, Any]) -> None:
    msgs = [{"role": "user", "content": f"m{i}"} for i in range(4)]
    assert _items(api, "s", "POST", "", {"items": msgs[:2]})[0] == 201
    status, body = fork(api, "s", {"thread_id": "sf"})
    assert status == 201 and body["kind"] == "items"
    assert _items(api, "sf", "POST", "", {"items": msgs[2:]})[0] == 201
    assert _items(api, "sf", "GET", "")[1]["items"] == msgs
    assert _items(api, "sf", "POST", "/pop")[1]["item"] == msgs[3]
    assert _items(api, "sf", "POST", "/pop")[1]["item"] == msgs[2]
    before = all_items(aws["dynamodb"])
    status, body = _items(api, "sf", "POST", "/pop")  # the newest is the parent's now
    assert status == 409 and body["code"] == "item_shared"
    status, body = _items(api, "s", "POST", "/pop")  # and the parent's newest is read by the fork
    assert status == 409 and body["code"] == "item_shared"
    assert all_items(aws["dynamodb"]) == before
    assert _items(api, "sf", "GET", "")[1]["items"] == msgs[:2]


def test_summary_and_settings_are_the_fork_own(api: Api) -> None:
    api.thread("PUT", "p", {"max_runs": 3, "retention_days": 7})
    add(api, "p", "r1")
    fork(api, "p", {"thread_id": "f"})
    api.thread("PUT", "f", {"max_runs": 10})
    assert api.thread("GET", "p")[1]["max_runs"] == 3
    forked = api.thread("GET", "f")[1]
    assert forked["max_runs"] == 10 and forked["retention_days"] == 7


def test_the_cloud_messages_view_of_a_fork_walks_its_ancestry(api: Api) -> None:
    from offprompt.composition.conversation import default_cloud_threads

    add(api, "p", "r1", "r2", "r3")
    fork(api, "p", {"thread_id": "f", "after_run_id": "r2"})
    add(api, "f", "f3")
    first = default_cloud_threads().messages("tenant-a", "f", {"page_size": "2"})
    assert [m["message_id"] for m in first["messages"]] == ["r1", "r2"]
    assert first["pagination"]["total_count"] == 3
    second = default_cloud_threads().messages("tenant-a", "f", {"page_size": "2", "page": "2"})
    assert [(m["message_id"], m["index"]) for m in second["messages"]] == [("f3", 2)]


def test_a_summary_is_copied_only_when_it_covers_nothing_past_the_fork_point(api: Api) -> None:
    runs = default_service().runs
    api.thread("PUT", "p", {"memory_type": "summary", "offset": 1})
    add(api, "p", "r1", "r2", "r3")
    assert runs.commit_summary("tenant-a", "p", summary="S12", through_seq=2, expected_version=0, now="t")
    fork(api, "p", {"thread_id": "late", "after_run_id": "r3"})
    fork(api, "p", {"thread_id": "early", "after_run_id": "r1"})
    assert api.thread("GET", "late")[1]["summary"]["text"] == "S12"
    assert api.thread("GET", "early")[1]["summary"] is None
    assert stack_ids(api, "early") == ["r1"]  # no summary: the shared run itself
    assert stack_ids(api, "p", as_of_run="r1") == ["r1"]  # time travel before the summary: the runs, no summary


class DeleteDuringFork:
    """Wraps the service's RunStore: runs `during` once, right before the next fork_thread commits."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.during: Any = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def fork_thread(self, *args: Any, **kwargs: Any) -> Any:
        if self.during is not None:
            during, self.during = self.during, None
            during()
        return self.inner.fork_thread(*args, **kwargs)


def test_a_parent_deleted_while_a_fork_is_in_flight_leaves_no_fork(api: Api, aws: dict[str, Any]) -> None:
    add(api, "p", "r1")
    service = default_service()
    racing = DeleteDuringFork(service.runs)
    service.runs = racing  # type: ignore[assignment]
    racing.during = lambda: api.thread("DELETE", "p")
    status, body = fork(api, "p", {"thread_id": "f"})
    assert status == 404 and body["code"] == "not_found", body  # the delete won: the fork read the thread anew
    assert all_items(aws["dynamodb"]) == []


def test_a_fork_made_while_a_delete_reads_the_parent_wins(api: Api, aws: dict[str, Any]) -> None:
    add(api, "p", "r1")
    runs = default_service().runs
    real_get = runs._thread_item  # type: ignore[attr-defined]  # the delete's read of the thread item
    calls = {"n": 0}

    def get_then_fork(pk: str) -> Any:
        item = real_get(pk)
        if pk.endswith("#TH#p") and calls["n"] == 0:
            calls["n"] += 1
            assert fork(api, "p", {"thread_id": "f"})[0] == 201  # lands between the delete's read and its mark
        return item

    runs._thread_item = get_then_fork  # type: ignore[attr-defined]
    status, body = api.thread("DELETE", "p")
    runs._thread_item = real_get  # type: ignore[attr-defined]
    assert status == 409 and body["code"] == "thread_has_forks", body
    assert run_ids(api, "f") == ["r1"] and run_ids(api, "p") == ["r1"]
