"""Conversation search through the threads handler over moto (issue 31 item 2, docs/adr/0049): `POST /threads/search`
and the direct `search_threads`.

The index here is the in-memory fake (tests/fakes/conversation_index.py), fed from what DynamoDB holds the way the
stream indexer would (`index_stored`), then left stale on purpose: the claims are about what the use case does with
candidates — the threads a search covers (a fork's shared history, a prefix, named threads), every hit checked
against DynamoDB (a deleted, pruned, expired, popped or foreign run is never answered however far the index lags),
the consistency wait and its header, the answer's shape, refusals. The OpenSearch adapter and the stream indexer are
tested with the use case on the real node in test_thread_search_opensearch.py.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from conversation_api import Api, text_run
from fakes.conversation_index import FakeConversationIndex
from search_support import add, direct, dynamodb_calls, fork, ids, index_stored, mcp, search

from offprompt.composition.conversation import default_service
from offprompt.ports import ConversationDoc
from offprompt.services.conversation import search as search_module


def test_a_hit_is_the_run_as_list_runs_answers_it_best_first(api: Api, index: FakeConversationIndex) -> None:
    add(api, "u1-s1", ("r1", "I am flying to Tokyo in May", "Enjoy Tokyo!"), ("r2", "my cat is Mochi", "Cute"))
    add(api, "u1-s2", ("r3", "Tokyo sushi tips?", "sushi at Tsukiji"), ("r4", "Tokyo", "ok"))
    index_stored(index, "tenant-a", "u1-s1", "u1-s2")

    status, body, headers = search(api, {"query": "Tokyo sushi"})
    assert status == 200, body
    assert "X-Offprompt-Searchable" not in headers
    assert ids(body)[0] == ("u1-s2", "r3")  # both words
    assert set(ids(body)) == {("u1-s2", "r3"), ("u1-s1", "r1"), ("u1-s2", "r4")}
    _, runs = api.runs("u1-s2")
    listed = {r["run"]["id"]: r for r in runs["runs"]}
    first = body["hits"][0]
    assert first["run"] == listed["r3"]["run"]  # Griptape Run JSON exactly as GET runs answers it
    assert first["seq"] == listed["r3"]["seq"] and first["created_at"] == listed["r3"]["created_at"]
    assert isinstance(first["score"], float) and "context" not in first and "item" not in first

    # limit
    _, body, _ = search(api, {"query": "Tokyo", "limit": 1})
    assert len(body["hits"]) == 1


def test_deleted_pruned_expired_and_popped_runs_are_never_answered_while_the_index_lags(
    api: Api, index: FakeConversationIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(api, "gone", ("g1", "zebra facts", "stripes"))
    add(api, "pruned", *[(f"p{i}", f"zebra run {i}", "ok") for i in range(1, 5)])
    status, _ = api.post_run("expiring", text_run("e1", "zebra expiring", "soon"))
    assert status == 201
    status, out = api.http(
        api.threads, "thread_items_add_http.json", "POST", "/threads/items-1/items",
        body={"items": [{"role": "user", "content": "zebra item one"}, {"role": "user", "content": "zebra two"}]},
        thread_id="items-1",
    )  # fmt: skip
    assert status == 201, out
    index_stored(index, "tenant-a", "gone", "pruned", "expiring", "items-1")
    _, body, _ = search(api, {"query": "zebra", "limit": 100})
    assert len(body["hits"]) == 8

    # the index still holds every document below: only DynamoDB says they are gone
    assert api.thread("DELETE", "gone")[0] == 204
    assert api.thread("PUT", "pruned", {"max_runs": 2})[0] == 200  # p1, p2 hidden at once (pruned on next add)
    popped = api.http(
        api.threads, "thread_items_pop_http.json", "POST", "/threads/items-1/items/pop", thread_id="items-1"
    )
    assert popped[0] == 200
    service = default_service()
    status, _ = api.thread("PUT", "expiring", {"retention_days": 1})
    assert status == 200
    add(api, "expiring", ("e2", "zebra later", "x"))  # written with retention: expires in a day
    index_stored(index, "tenant-a", "expiring")
    later = time.time() + 3 * 86_400
    monkeypatch.setattr(service, "clock", lambda: later)

    _, body, _ = search(api, {"query": "zebra", "limit": 100})
    found = sorted(ids(body))
    assert ("gone", "g1") not in found
    assert ("pruned", "p1") not in found and ("pruned", "p2") not in found
    assert ("pruned", "p3") in found and ("pruned", "p4") in found
    assert ("expiring", "e2") not in found  # expired (the clock moved past its expires_at)
    assert ("expiring", "e1") in found  # written before the retention: never expires
    item_hits = [h for h in body["hits"] if h["thread_id"] == "items-1"]
    assert [h["item"] for h in item_hits] == [{"role": "user", "content": "zebra item one"}]  # the popped one gone
    assert all("run" not in h for h in item_hits)
    assert len(index.docs) == 9  # nothing was taken out of the index: the verification did it all


def test_a_fork_finds_its_shared_history_up_to_its_fork_point(api: Api, index: FakeConversationIndex) -> None:
    add(api, "base", ("b1", "kyoto temples", "yes"), ("b2", "kyoto food", "yum"), ("b3", "kyoto after fork", "no"))
    fork(api, "base", {"thread_id": "user-fork", "after_run_id": "b2"})
    add(api, "user-fork", ("f1", "kyoto in the fork", "mine"))
    index_stored(index, "tenant-a", "base", "user-fork")

    _, body, _ = search(api, {"query": "kyoto", "thread_ids": ["user-fork"], "limit": 10})
    assert sorted(ids(body)) == [("user-fork", "b1"), ("user-fork", "b2"), ("user-fork", "f1")]
    # the index was asked for the fork and its ancestor up to the fork point: no document was copied
    cuts = {(c.thread_id, c.through_seq) for c in index.calls[-1]["threads"]}
    assert cuts == {("user-fork", None), ("base", 2)}

    # under a prefix that holds the fork but not its parent: the same shared history
    _, body, _ = search(api, {"query": "kyoto", "thread_prefix": "user-"})
    assert sorted(ids(body)) == [("user-fork", "b1"), ("user-fork", "b2"), ("user-fork", "f1")]
    # the whole tenant: each run once, in the thread that holds it
    _, body, _ = search(api, {"query": "kyoto"})
    assert sorted(ids(body)) == [("base", "b1"), ("base", "b2"), ("base", "b3"), ("user-fork", "f1")]
    # the parent named: its own runs only
    _, body, _ = search(api, {"query": "kyoto", "thread_ids": ["base"]})
    assert sorted(ids(body)) == [("base", "b1"), ("base", "b2"), ("base", "b3")]


def test_a_foreign_tenant_finds_nothing(api: Api, index: FakeConversationIndex) -> None:
    add(api, "secret", ("s1", "my bank pin is 1234", "noted"))
    index_stored(index, "tenant-a", "secret")
    # a document that claims tenant-b holds tenant-a's run (a corrupt or stale index): DynamoDB has no such run
    index.index([ConversationDoc("tenant-b", "secret", "run", 1, "s1", time.time(), "bank pin", "")])
    _, body, _ = search(api, {"query": "bank pin"}, tenant="tenant-b")
    assert body == {"hits": []}
    _, body, _ = search(api, {"query": "bank pin", "thread_ids": ["secret"]}, tenant="tenant-b")
    assert body == {"hits": []}
    _, body, _ = search(api, {"query": "bank pin"})
    assert ids(body) == [("secret", "s1")]


def test_every_hit_is_checked_with_batch_reads_not_one_read_per_hit(api: Api, index: FakeConversationIndex) -> None:
    add(api, "many", *[(f"m{i}", f"pelican {i}", "ok") for i in range(1, 31)])
    index_stored(index, "tenant-a", "many")
    client = default_service().runs.client  # type: ignore[attr-defined]
    calls: list[str] = []

    def count(model: Any, **_: Any) -> None:
        calls.append(model.name)

    client.meta.events.register("before-call.dynamodb", count)
    try:
        _, body, _ = search(api, {"query": "pelican", "limit": 30})
    finally:
        client.meta.events.unregister("before-call.dynamodb", count)
    assert len(body["hits"]) == 30
    assert calls == ["BatchGetItem", "BatchGetItem"]  # the thread items, then the 30 runs


def test_a_prefix_search_reads_each_thread_once_and_only_the_runs_it_may_answer(
    api: Api, index: FakeConversationIndex
) -> None:
    """Search p95 (issue 31): a prefix search over a user's ~20 sessions reads the threads of the candidates it checks
    once (strongly consistent; none listed, docs/adr/0064) and checks about `limit` candidates, not every one
    proposed."""
    sessions = [f"u7-s{i}" for i in range(1, 21)]
    for n, thread in enumerate(sessions):
        add(api, thread, *[(f"r{n}-{i}", f"pelican {n} {i}", "ok") for i in range(3)])
    index_stored(index, "tenant-a", *sessions)
    with dynamodb_calls() as made:
        _, body, _ = search(api, {"query": "pelican", "thread_prefix": "u7-", "limit": 5})
    assert len(body["hits"]) == 5
    calls = [
        (name, len(request["Keys"]), bool(request.get("ConsistentRead")))
        for name, params in made
        if name == "BatchGetItem"
        for request in params["RequestItems"].values()
    ]
    threads, *checks = calls
    assert threads[0] == "BatchGetItem" and threads[1] <= search_module.verify_first(5) and threads[2]  # not all 20
    assert checks == [("BatchGetItem", search_module.verify_first(5), True)]  # the first candidates' runs, no threads
    assert search_module.verify_first(5) < 60


def test_a_prefix_search_lists_no_threads_and_reads_only_the_threads_of_its_candidates(
    api: Api, index: FakeConversationIndex
) -> None:
    """Search p95 (issue 31, docs/adr/0064): a prefix search does not list the threads under its prefix (no Query of
    the tenant indexes, no read of a thread no candidate is in); it finds the forks under the prefix with one key
    Query of the tenant's fork registry, so a fork whose parent lies outside the prefix still finds its shared
    history."""
    sessions = [f"u8-s{i}" for i in range(20)]
    for n, thread in enumerate(sessions):
        add(api, thread, *[(f"r{n}-{i}", f"{'pelican' if n < 2 else 'gull'} {n} {i}", "ok") for i in range(3)])
    add(api, "elsewhere", ("e1", "pelican shared with the fork", "ok"), ("e2", "pelican after the fork", "ok"))
    fork(api, "elsewhere", {"thread_id": "u8-fork", "after_run_id": "e1"})
    index_stored(index, "tenant-a", *sessions, "elsewhere", "u8-fork")
    with dynamodb_calls() as calls:
        _, body, _ = search(api, {"query": "pelican", "thread_prefix": "u8-", "limit": 10})
    assert sorted(ids(body)) == sorted(
        [*((f"u8-s{n}", f"r{n}-{i}") for n in range(2) for i in range(3)), ("u8-fork", "e1")]
    )
    assert [name for name, _ in calls if name not in ("Query", "BatchGetItem")] == []
    queries = [params for name, params in calls if name == "Query"]
    assert [q for q in queries if "IndexName" in q] == []  # no listing through TenantActivity / TenantRoots
    assert len(queries) == 1 and "begins_with" in queries[0]["KeyConditionExpression"]  # the fork registry
    read = {
        key["pk"]["S"].rsplit("#", 1)[-1]
        for name, params in calls
        if name == "BatchGetItem"
        for request in params["RequestItems"].values()
        for key in request["Keys"]
        if key["sk"]["S"] == "#THREAD"
    }
    assert read <= {"u8-s0", "u8-s1", "u8-fork", "elsewhere"}  # the candidates' threads, never the 18 others


def test_context_answers_the_runs_around_each_hit_in_the_thread_searched(
    api: Api, index: FakeConversationIndex
) -> None:
    add(api, "ctx", *[(f"c{i}", f"line {i}" + (" heron" if i == 3 else ""), "ok") for i in range(1, 7)])
    index_stored(index, "tenant-a", "ctx")
    _, body, _ = search(api, {"query": "heron", "context": 2})
    (hit,) = body["hits"]
    assert hit["run_id"] == "c3"
    assert [(c["seq"], c["run_id"]) for c in hit["context"]] == [(1, "c1"), (2, "c2"), (4, "c4"), (5, "c5")]
    assert hit["context"][0]["run"]["input"]["value"] == "line 1"


def test_consistency_search_waits_for_the_index_and_says_when_it_gave_up(
    api: Api, index: FakeConversationIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(api, "wait", ("w1", "ibis one", "ok"))
    index.lag = True
    index.lag_calls = 3  # the stream indexer catches up on the third look
    index_stored(index, "tenant-a", "wait")
    status, body, _ = search(api, {"query": "ibis"})
    assert status == 200 and body == {"hits": []}  # without the wait: not searchable yet
    status, body, headers = search(api, {"query": "ibis", "consistency": "search", "thread_ids": ["wait"]})
    assert status == 200 and ids(body) == [("wait", "w1")]
    assert headers["X-Offprompt-Searchable"] == "true" and index.through_calls == 3

    add(api, "wait", ("w2", "ibis two", "ok"))
    index.lag_calls = None  # never catches up
    index_stored(index, "tenant-a", "wait")
    monkeypatch.setattr(search_module, "SEARCH_CONSISTENCY_WAIT_S", 0.3)
    started = time.monotonic()
    status, body, headers = search(api, {"query": "ibis", "consistency": "search", "thread_prefix": "wa"})
    assert time.monotonic() - started < 2.0
    assert status == 200 and ids(body) == [("wait", "w1")]
    assert headers["X-Offprompt-Searchable"] == "false"
    assert direct(api, query="ibis", consistency="search") == {"hits": body["hits"], "searchable": False}


def test_direct_search_answers_the_same_hits(api: Api, index: FakeConversationIndex) -> None:
    add(api, "d", ("d1", "owl", "hoot"))
    index_stored(index, "tenant-a", "d")
    _, body, _ = search(api, {"query": "owl"})
    assert direct(api, query="owl") == body


@pytest.mark.parametrize(
    ("request_body", "status", "code"),
    [
        ({}, 422, "schema_invalid"),
        ({"query": ""}, 422, "schema_invalid"),
        ({"query": "x" * 2001}, 422, "schema_invalid"),
        ({"query": "a", "limit": 0}, 422, "schema_invalid"),
        ({"query": "a", "limit": 101}, 422, "schema_invalid"),
        ({"query": "a", "thread_ids": [f"t{i}" for i in range(101)]}, 422, "schema_invalid"),
        ({"query": "a", "thread_ids": []}, 422, "schema_invalid"),
        ({"query": "a", "mode": "fuzzy"}, 422, "schema_invalid"),
        ({"query": "a", "consistency": "strong"}, 422, "schema_invalid"),
        ({"query": "a", "context": -1}, 422, "schema_invalid"),
        ({"query": "a", "context": 11}, 422, "schema_invalid"),
        ({"query": "a", "unknown": 1}, 422, "schema_invalid"),
        ({"query": 5}, 422, "schema_invalid"),
        ({"query": "   "}, 400, "invalid_input"),
        ({"query": "a", "since": "yesterday"}, 400, "invalid_input"),
        ({"query": "a", "since": "2026-01-02T00:00:00Z", "until": "2026-01-01T00:00:00Z"}, 400, "invalid_input"),
        ({"query": "a", "thread_ids": ["a/b"]}, 400, "invalid_input"),
    ],
)
def test_bad_requests_get_the_same_status_and_code_on_both_doors(
    api: Api, index: FakeConversationIndex, request_body: dict[str, Any], status: int, code: str
) -> None:
    got, body, _ = search(api, request_body)
    assert (got, body["code"]) == (status, code), body
    assert direct(api, **request_body)["code"] == code
    assert index.calls == []


def test_since_and_until_reach_the_index_as_epoch_seconds(api: Api, index: FakeConversationIndex) -> None:
    search(api, {"query": "a", "since": "2026-01-01T00:00:00Z", "until": "2026-01-02T00:00:00+00:00"})
    assert (index.calls[-1]["since"], index.calls[-1]["until"]) == (1767225600.0, 1767312000.0)


def test_the_mcp_tool_answers_the_route_s_hits_and_its_refusals(api: Api, index: FakeConversationIndex) -> None:
    add(api, "m-1", ("k1", "the wifi password is hunter2", "saved"))
    api.http(
        api.threads, "thread_items_add_http.json", "POST", "/threads/m-2/items",
        body={"items": [{"role": "user", "content": "the wifi is slow"}]}, thread_id="m-2",
    )  # fmt: skip
    index_stored(index, "tenant-a", "m-1", "m-2")
    _, body, _ = search(api, {"query": "wifi password", "thread_prefix": "m-"})
    result = mcp({"query": "wifi password", "thread_prefix": "m-"})
    assert result["isError"] is False and result["structuredContent"] == body
    lines = result["content"][0]["text"].splitlines()
    assert lines[0].startswith("[m-1 #1, ") and lines[0].endswith("] user: the wifi password is hunter2")
    assert lines[1] == "  assistant: saved"
    assert lines[2].endswith('{"role": "user", "content": "the wifi is slow"}')

    for arguments, code in [({"query": ""}, "schema_invalid"), ({"query": " "}, "invalid_input"),
                            ({"query": "a", "thread_ids": ["a/b"]}, "invalid_input")]:  # fmt: skip
        refused = mcp(arguments)
        assert refused["isError"] is True and refused["structuredContent"]["code"] == code, refused
