"""GET /threads on moto: a tenant's threads through the TenantRoots index, by id, paged, by prefix; another
tenant sees none; bad input is the usual 4xx on HTTP and direct invocation (docs/adr/0038)."""

from __future__ import annotations

import copy
import time
from typing import Any

import boto3
import pytest
from conversation_api import TABLE, Api, load_event, text_run

from offprompt.adapters.dynamodb_runs import DynamoDbRunStore
from offprompt.errors import SchemaInvalid


def next_millisecond() -> None:
    """Activity is kept to the millisecond: the next write must fall in a later one (no fixed sleep)."""
    start = int(time.time() * 1000)
    while int(time.time() * 1000) == start:
        time.sleep(0.0002)


def listing(api: Api, tenant: str = "tenant-a", **query: str) -> tuple[int, Any]:
    return api.http(api.threads, "thread_list_http.json", "GET", "/threads", query=query, tenant=tenant)


def make_threads(api: Api, names: list[str], tenant: str = "tenant-a") -> None:
    for name in names:
        assert api.post_run(name, text_run(f"r-{name}", "q", "a"), tenant=tenant)[0] == 201


def test_threads_by_id_in_pages_and_by_prefix(api: Api) -> None:
    names = [f"chat-{i}" for i in range(5)] + ["other-1", "other-2", "chat#x", "chat%y"]
    make_threads(api, names)
    api.thread("PUT", "configured", {"max_runs": 3})  # made by PUT, no run yet: listed too
    status, page = listing(api, limit="3", order="id")
    assert status == 200 and len(page["threads"]) == 3
    seen = [t["thread_id"] for t in page["threads"]]
    while page["next_cursor"]:
        status, page = listing(api, limit="3", cursor=page["next_cursor"], order="id")
        assert status == 200
        seen += [t["thread_id"] for t in page["threads"]]
    # id order, `#` and `%` sorting as their escapes (%23, %25), which keep prefixes
    assert seen == [
        "chat#x",
        "chat%y",
        "chat-0",
        "chat-1",
        "chat-2",
        "chat-3",
        "chat-4",
        "configured",
        "other-1",
        "other-2",
    ]
    status, page = listing(api, prefix="chat-", limit="100", order="id")
    assert [t["thread_id"] for t in page["threads"]] == [f"chat-{i}" for i in range(5)]
    assert page["next_cursor"] is None
    for order in ("id", "activity"):
        assert [t["thread_id"] for t in listing(api, prefix="chat#", order=order)[1]["threads"]] == ["chat#x"]
        assert [t["thread_id"] for t in listing(api, prefix="chat%", order=order)[1]["threads"]] == ["chat%y"]
    entry = page["threads"][0]
    assert entry["last_seq"] == 1 and entry["kind"] == "runs" and "summary" not in entry


def test_another_tenant_sees_none_and_deleted_threads_leave(api: Api) -> None:
    make_threads(api, ["mine-1", "mine-2"])
    assert listing(api, tenant="tenant-b") == (200, {"threads": [], "next_cursor": None})
    assert api.thread("DELETE", "mine-1")[0] == 204
    _, page = listing(api)
    assert [t["thread_id"] for t in page["threads"]] == ["mine-2"]


def test_a_cursor_is_bound_to_its_tenant_and_prefix(api: Api) -> None:
    make_threads(api, ["a-1", "a-2", "a-3"])
    _, page = listing(api, limit="1")
    cursor = page["next_cursor"]
    assert cursor
    for tenant, query in (("tenant-b", {}), ("tenant-a", {"prefix": "a-"})):
        status, body = listing(api, tenant=tenant, cursor=cursor, **query)
        assert status == 400 and body["code"] == "invalid_input", body
    assert listing(api, cursor="not-base64!")[0] == 400
    status, body = listing(api, limit="0")
    assert status == 422 and body["code"] == "schema_invalid"


def test_direct_invocation_is_the_same_listing(api: Api) -> None:
    make_threads(api, ["d-1", "d-2"])
    out = api.threads(load_event("thread_list_direct.json"), None)
    assert [t["thread_id"] for t in out["threads"]] == ["d-2", "d-1"]  # the most recently written first
    bad = copy.deepcopy(load_event("thread_list_direct.json"))
    bad["limit"] = 1000
    with pytest.raises(SchemaInvalid):
        api.threads(bad, None)


def test_the_listing_queries_the_index_never_scans_and_reads_only_the_page(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_threads(api, [f"x-{i:02d}" for i in range(30)])
    store = DynamoDbRunStore(TABLE, boto3.client("dynamodb"))
    calls: list[tuple[str, int]] = []
    real = store._call

    def spy(operation: str, **params: Any) -> Any:
        keys = len(params["RequestItems"][TABLE]["Keys"]) if operation == "batch_get_item" else 0
        calls.append((operation, keys))
        return real(operation, **params)

    monkeypatch.setattr(store, "_call", spy)
    threads, after = store.list_threads("tenant-a", limit=5, order="id")
    assert [t.thread_id for t in threads] == [f"x-{i:02d}" for i in range(5)] and after is not None
    assert [c for c in calls if c[0] != "query"] == [("batch_get_item", 5)]  # the page's items, not the 30
    assert calls.count(("query", 0)) == 8 and all(op != "scan" for op, _ in calls)
    threads, after = store.list_threads("tenant-a", limit=100, after=after, order="id")
    assert [t.thread_id for t in threads] == [f"x-{i:02d}" for i in range(5, 30)] and after is None
    calls.clear()  # by activity: each shard asked for the page's size (+1), never the whole tenant
    threads, after = store.list_threads("tenant-a", limit=5)
    assert len(threads) == 5 and after is not None
    assert [c for c in calls if c[0] != "query"] == [("batch_get_item", 5)]
    assert calls.count(("query", 0)) == 8 and all(op != "scan" for op, _ in calls)
    rest, end = store.list_threads("tenant-a", limit=100, after=after)
    assert end is None and len(rest) == 25 and not {t.thread_id for t in rest} & {t.thread_id for t in threads}


def test_threads_are_listed_most_recently_written_first_and_paged_in_that_order(api: Api) -> None:
    """Issue 33, friction 1: the docs said newest first while the listing was by id. Ids whose alphabetical order
    differs from their activity order: the last write decides (an add, an append of items, a settings change)."""
    for name in ["b-thread", "c-thread", "a-thread", "d-thread"]:
        make_threads(api, [name])
        next_millisecond()
    assert api.post_run("b-thread", text_run("r-b2", "q", "a"))[0] == 201  # b written last
    next_millisecond()
    status, page = listing(api)
    assert status == 200
    assert [t["thread_id"] for t in page["threads"]] == ["b-thread", "d-thread", "a-thread", "c-thread"]
    assert all(t["updated_at"] for t in page["threads"])  # a thread that only received runs has one too
    assert api.thread("PUT", "c-thread", {"retention_days": 3})[0] == 200
    seen, cursor = [], None
    while True:
        _, page = listing(api, limit="1", **({"cursor": cursor} if cursor else {}))
        seen += [t["thread_id"] for t in page["threads"]]
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert seen == ["c-thread", "b-thread", "d-thread", "a-thread"]
    by_id = [t["thread_id"] for t in listing(api, order="id")[1]["threads"]]
    assert by_id == ["a-thread", "b-thread", "c-thread", "d-thread"]
    assert [t["thread_id"] for t in listing(api, prefix="a-")[1]["threads"]] == ["a-thread"]
    status, body = listing(api, order="random")
    assert status == 422 and body["code"] == "schema_invalid"


def test_threads_written_before_the_activity_index_are_listed_once_backfilled(api: Api) -> None:
    """A thread item without `activity` (written before docs/adr/0054) is not in the activity listing until
    `offprompt-admin backfill-index --all` gives it one, from its updated (or created) time; by id it always is."""
    from offprompt.adapters.tenant_items import DynamoDbTenantItems

    def backfill_all() -> int:  # what `backfill-index --all` does to the table (services.tenant_data.backfill)
        items = DynamoDbTenantItems(TABLE, client=ddb)
        roots, _tenants = items.unindexed_roots_of_all()
        return items.set_index_attribute(roots)

    for name in ("old-1", "old-2", "new-1"):
        make_threads(api, [name])
        next_millisecond()
    ddb = boto3.client("dynamodb")
    for item in ddb.scan(TableName=TABLE)["Items"]:
        if item["sk"]["S"] == "#THREAD" and item["thread_id"]["S"].startswith("old-"):
            ddb.update_item(
                TableName=TABLE, Key={"pk": item["pk"], "sk": item["sk"]}, UpdateExpression="REMOVE activity"
            )
    assert [t["thread_id"] for t in listing(api)[1]["threads"]] == ["new-1"]
    assert len(listing(api, order="id")[1]["threads"]) == 3
    assert backfill_all() == 2
    assert [t["thread_id"] for t in listing(api)[1]["threads"]] == ["new-1", "old-2", "old-1"]
    assert backfill_all() == 0
