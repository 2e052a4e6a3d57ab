"""GET /threads on moto: a tenant's threads through the TenantRoots index, newest first, paged, by prefix; another
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


def test_threads_newest_first_in_pages_and_by_prefix(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter(f"2026-01-01T00:00:{i:02d}+00:00" for i in range(60))
    monkeypatch.setattr("offprompt.services.conversation.add_run.now_iso", lambda _t: next(clock), raising=False)
    names = [f"chat-{i}" for i in range(5)] + ["other-1", "other-2"]
    make_threads(api, names)
    api.thread("PUT", "configured", {"max_runs": 3})  # made by PUT, no run yet: listed too
    status, page = listing(api, limit="3")
    assert status == 200
    seen = [t["thread_id"] for t in page["threads"]]
    while page["next_cursor"]:
        status, page = listing(api, limit="3", cursor=page["next_cursor"])
        assert status == 200
        seen += [t["thread_id"] for t in page["threads"]]
    assert sorted(seen) == sorted([*names, "configured"]) and len(seen) == len(set(seen))
    assert seen.index("other-2") < seen.index("other-1") < seen.index("chat-4") < seen.index("chat-0")
    status, page = listing(api, prefix="chat-", limit="100")
    assert [t["thread_id"] for t in page["threads"]] == [f"chat-{i}" for i in range(4, -1, -1)]
    assert page["next_cursor"] is None
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
    assert [t["thread_id"] for t in out["threads"]] == ["d-2", "d-1"]
    bad = copy.deepcopy(load_event("thread_list_direct.json"))
    bad["limit"] = 1000
    with pytest.raises(SchemaInvalid):
        api.threads(bad, None)


def test_the_listing_queries_the_index_never_scans(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    make_threads(api, ["x-1"])
    store = DynamoDbRunStore(TABLE, boto3.client("dynamodb"))
    calls: list[str] = []
    real = store._call

    def spy(operation: str, **params: Any) -> Any:
        calls.append(operation)
        return real(operation, **params)

    monkeypatch.setattr(store, "_call", spy)
    assert [t.thread_id for t in store.list_threads("tenant-a")] == ["x-1"]
    assert "scan" not in calls and calls.count("query") == 8 and "batch_get_item" in calls


def test_threads_created_in_the_same_millisecond_page_by_id(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ties on created_at are broken by thread id, so a cursor between two of them skips and repeats none."""
    monkeypatch.setattr(
        "offprompt.services.conversation.add_run.now_iso", lambda _t: "2026-01-01T00:00:00.000Z", raising=False
    )
    make_threads(api, ["tie-c", "tie-a", "tie-b"])
    seen: list[str] = []
    cursor = None
    while True:
        _, page = listing(api, limit="1", **({"cursor": cursor} if cursor else {}))
        seen += [t["thread_id"] for t in page["threads"]]
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert seen == ["tie-a", "tie-b", "tie-c"]
