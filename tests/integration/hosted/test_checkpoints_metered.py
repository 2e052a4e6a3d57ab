"""Checkpoint puts and writes are metered (docs/adr/0039, 0023): a put's blob bytes are charged in its own
transaction (`checkpoints_stored`, the gauge), writes count `checkpoint_writes_stored`, a put the plan refuses is a
429 that stores nothing (no item, no S3 blob, no gauge change), a copy counts only its own writes (the shared
history is not charged again), and deletes take their bytes off the gauge."""

from __future__ import annotations

import base64
from typing import Any

from hosted_support import Deployment, all_items, call, new_key

T = "/checkpoint-threads/{thread_id}"


def _blob(data: bytes) -> dict[str, str]:
    return {"type": "bytes", "data": base64.b64encode(data).decode()}


def _put(token: str, thread: str, cid: str, size: int) -> tuple[int, Any]:
    body = {"checkpoint": _blob(b"c" * size), "metadata": {}}
    status, out, _ = call(
        "checkpoints", "checkpoint_put_http.json", token, path=f"/checkpoint-threads/{thread}/checkpoints/{cid}",
        method="PUT", body=body, thread_id=thread, checkpoint_id=cid,
    )  # fmt: skip
    return status, out


def _usage(token: str) -> Any:
    status, usage, _ = call("account", "usage_http.json", token, path="/usage", method="GET")
    assert status == 200, usage
    return usage


def _checkpoint_items(stack: Deployment) -> list[dict[str, Any]]:
    return [i for i in all_items(stack.table) if i["pk"]["S"].startswith("CKP#")]


def test_puts_writes_and_copies_are_metered(stack: Deployment) -> None:
    token = new_key("acme", stored_bytes=50_000)
    assert _put(token, "g", "1ef-1", 10_000)[0] == 200
    writes = {"task_id": "t", "writes": [{"idx": 0, "channel": "c", "value": _blob(b"w" * 1_000)}]}
    status, out, _ = call(
        "checkpoints", "checkpoint_writes_http.json", token, path="/checkpoint-threads/g/checkpoints/1ef-1/writes",
        method="PUT", body=writes, thread_id="g", checkpoint_id="1ef-1",
    )  # fmt: skip
    assert (status, out) == (200, {"stored": 1})
    usage = _usage(token)
    assert usage["stored_bytes"] == 11_000, usage
    assert usage["totals"]["checkpoints_stored"] == 1 and usage["totals"]["checkpoint_writes_stored"] == 1
    before = _checkpoint_items(stack)
    status, error = _put(token, "g", "1ef-2", 45_000)  # past stored_bytes: nothing stored
    assert (status, error["code"]) == (429, "quota_exceeded"), error
    assert _checkpoint_items(stack) == before and _usage(token)["stored_bytes"] == 11_000
    status, copied, _ = call(
        "checkpoints", "checkpoint_copy_http.json", token, path="/checkpoint-threads/g/copy", method="POST",
        body={"target_thread_id": "g2"}, thread_id="g",
    )  # fmt: skip
    assert status == 201, copied
    assert _usage(token)["stored_bytes"] == 11_000  # the copy shares the history: nothing charged
    assert _put(token, "g2", "1ef-3", 2_000)[0] == 200  # the copy's own checkpoint is
    usage = _usage(token)
    assert usage["stored_bytes"] == 13_000 and usage["totals"]["checkpoints_stored"] == 2, usage
    for thread in ("g", "g2"):  # the source is kept for its copy, then both go: every byte off the gauge
        status, _, _ = call(
            "checkpoints", "checkpoint_delete_http.json", token, path=f"/checkpoint-threads/{thread}",
            method="DELETE", thread_id=thread,
        )  # fmt: skip
        assert status == 204
    assert _usage(token)["stored_bytes"] == 0
    assert _checkpoint_items(stack) == []
