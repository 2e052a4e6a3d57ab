"""GET /threads on moto: a tenant's threads through the TenantRoots index, by id, paged, by prefix; another
tenant sees none; bad input is the usual 4xx on HTTP and direct invocation (docs/adr/0038)."""

from __future__ import annotations

import copy
from typing import Any

import boto3
import pytest
from conversation_api import TABLE, Api, load_event, text_run

from offprompt.adapters.dynamodb_runs import DynamoDbRunStore
from offprompt.errors import SchemaInvalid


def listing(api: Api, tenant: str = "tenant-a", **query: str) -> tuple[int, Any]:
    return api.http(api.threads, "thread_list_http.json", "GET", "/threads", query=query, tenant=tenant)


def make_threads(api: Api, names: list[str], tenant: str = "tenant-a") -> None:
    for name in names:
        assert api.post_run(name, text_run(f"r-{name}", "q", "a"), tenant=tenant)[0] == 201


def test_threads_by_id_in_pages_and_by_prefix(api: Api) -> None:
    names = [f"chat-{i}" for i in range(5)] + ["other-1", "other-2", "chat#x", "chat%y"]
    make_threads(api, names)
    api.thread("PUT", "configured", {"max_runs": 3})  # made by PUT, no run yet: listed too
    status, page = listing(api, limit="3")
    assert status == 200 and len(page["threads"]) == 3
    seen = [t["thread_id"] for t in page["threads"]]
    while page["next_cursor"]:
        status, page = listing(api, limit="3", cursor=page["next_cursor"])
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
    status, page = listing(api, prefix="chat-", limit="100")
    assert [t["thread_id"] for t in page["threads"]] == [f"chat-{i}" for i in range(5)]
    assert page["next_cursor"] is None
    assert [t["thread_id"] for t in listing(api, prefix="chat#")[1]["threads"]] == ["chat#x"]
    assert [t["thread_id"] for t in listing(api, prefix="chat%")[1]["threads"]] == ["chat%y"]
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
    assert [t["thread_id"] for t in out["threads"]] == ["d-1", "d-2"]
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
    threads, after = store.list_threads("tenant-a", limit=5)
    assert [t.thread_id for t in threads] == [f"x-{i:02d}" for i in range(5)] and after is not None
    assert [c for c in calls if c[0] != "query"] == [("batch_get_item", 5)]  # the page's items, not the 30
    assert calls.count(("query", 0)) == 8 and all(op != "scan" for op, _ in calls)
    threads, after = store.list_threads("tenant-a", limit=100, after=after)
    assert [t.thread_id for t in threads] == [f"x-{i:02d}" for i in range(5, 30)] and after is None
