"""A fork is metered for its own writes, not for the history it shares (docs/adr/0037): forking adds no run and no
stored bytes, runs added to the fork are charged as runs are; another tenant's key cannot fork or read the thread."""

from __future__ import annotations

from typing import Any

from hosted_support import Deployment, call, new_key


def _usage(token: str) -> Any:
    status, usage, _ = call("account", "usage_http.json", token, path="/usage", method="GET")
    assert status == 200, usage
    return usage


def _fork(token: str, thread: str, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
    path = f"/threads/{thread}/fork"
    return call("threads", "thread_fork_http.json", token, path=path, method="POST", body=body, thread_id=thread)


def test_a_fork_charges_its_own_writes_only(stack: Deployment) -> None:
    token = new_key("acme")
    items = [{"role": "user", "content": "x" * 2_000} for _ in range(3)]
    path = "/threads/s/items"
    status, body, _ = call(
        "threads", "thread_items_add_http.json", token, path=path, method="POST", body={"items": items}, thread_id="s"
    )
    assert status == 201, body
    before = _usage(token)
    status, forked, _ = _fork(token, "s", {"thread_id": "s-fork"})
    assert status == 201 and forked["through_seq"] == 3, forked
    after = _usage(token)
    assert after["totals"]["runs_added"] == before["totals"]["runs_added"] == 3
    assert after["stored_bytes"] == before["stored_bytes"]  # the shared history is not charged again
    status, page, _ = call(
        "threads", "thread_items_get_http.json", token, path="/threads/s-fork/items", method="GET", thread_id="s-fork"
    )
    assert status == 200 and page["items"] == items
    theirs = new_key("umbrella")
    status, refused, _ = _fork(theirs, "s", {"thread_id": "mine"})
    assert status == 404 and refused["code"] == "not_found", refused
