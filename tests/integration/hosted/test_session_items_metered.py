"""Framework session items are metered as runs are (docs/adr/0033): each append's charge is in its own write (429 and
nothing stored when the plan refuses it), a pop takes its item's bytes off the gauge, and a foreign key sees nothing."""

from __future__ import annotations

from typing import Any

from hosted_support import Deployment, all_items, call, new_key


def _add(token: str, thread: str, items: list[Any]) -> tuple[int, Any, dict[str, str]]:
    path = f"/threads/{thread}/items"
    return call(
        "threads",
        "thread_items_add_http.json",
        token,
        path=path,
        method="POST",
        body={"items": items},
        thread_id=thread,
    )


def _usage(token: str) -> Any:
    status, usage, _ = call("account", "usage_http.json", token, path="/usage", method="GET")
    assert status == 200, usage
    return usage


def _entries(stack: Deployment) -> list[dict[str, Any]]:
    return [i for i in all_items(stack.table) if i["sk"]["S"].startswith(("RUN#", "RUNID#"))]


def test_items_are_charged_refused_over_quota_and_released_by_a_pop(stack: Deployment) -> None:
    token = new_key("acme", stored_bytes=5_000, runs_per_day=10)
    status, body, _ = _add(token, "s", [{"role": "user", "content": "x" * 1_000}, {"role": "user", "content": "hi"}])
    assert status == 201, body
    usage = _usage(token)
    assert usage["totals"]["runs_added"] == 2 and usage["stored_bytes"] > 1_000, usage
    stored = usage["stored_bytes"]
    before = _entries(stack)
    status, body, _ = _add(token, "s", [{"role": "user", "content": "y" * 6_000}])  # past stored_bytes
    assert status == 429 and body["code"] == "quota_exceeded", body
    assert _entries(stack) == before
    assert _usage(token)["stored_bytes"] == stored
    status, popped, _ = call(
        "threads", "thread_items_pop_http.json", token, path="/threads/s/items/pop", method="POST", thread_id="s"
    )
    assert status == 200 and popped["item"] == {"role": "user", "content": "hi"}
    assert _usage(token)["stored_bytes"] < stored


def test_another_tenants_key_sees_and_pops_nothing(stack: Deployment) -> None:
    mine, theirs = new_key("acme"), new_key("umbrella")
    assert _add(mine, "s", [{"role": "user", "content": "secret"}])[0] == 201
    status, page, _ = call(
        "threads", "thread_items_get_http.json", theirs, path="/threads/s/items", method="GET", thread_id="s"
    )
    assert status == 200 and page["items"] == []
    status, popped, _ = call(
        "threads", "thread_items_pop_http.json", theirs, path="/threads/s/items/pop", method="POST", thread_id="s"
    )
    assert status == 200 and popped["item"] is None
    status, page, _ = call(
        "threads", "thread_items_get_http.json", mine, path="/threads/s/items", method="GET", thread_id="s"
    )
    assert page["items"] == [{"role": "user", "content": "secret"}]
