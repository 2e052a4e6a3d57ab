"""LangGraph checkpoints (docs/adr/0039) over the HTTP routes the OffpromptSaver uses (the client's generic
`request`: the smoke needs no LangGraph): a put, pending writes, the latest tuple byte-exact, a list by metadata, a
copy read through its source, prune, and the deletes. Both threads are the run's own (its prefix) and deleted by the
check itself."""

from __future__ import annotations

import base64
import os
from typing import Any

from .runner import Smoke, expect, quoted, refused

IDS = ("1ef00000-0000-6000-8000-000000000001", "1ef00000-0000-6000-8000-000000000002")


def _blob(data: bytes) -> dict[str, str]:
    return {"type": "bytes", "data": base64.b64encode(data).decode()}


def check_round_trip(smoke: Smoke) -> str:
    api = smoke.api
    source, copy = f"{smoke.prefix}-ckp", f"{smoke.prefix}-ckp-copy"
    base, copied = f"/checkpoint-threads/{quoted(source)}", f"/checkpoint-threads/{quoted(copy)}"
    data = os.urandom(20_000)
    try:
        for n, cid in enumerate(IDS):
            body = {"checkpoint": _blob(data if n else b"first"), "metadata": {"step": n, "smoke": True}}
            api.request("PUT", f"{base}/checkpoints/{cid}", json_body=body)
        writes = {"task_id": "t1", "writes": [{"idx": 0, "channel": "messages", "value": _blob(b"w")}]}
        stored = api.request("PUT", f"{base}/checkpoints/{IDS[1]}/writes", json_body=writes).json()
        expect(stored == {"stored": 1}, f"writes answered {stored}")
        latest = api.request("GET", f"{base}/checkpoint", query={"checkpoint_ns": ""}).json()
        expect(latest["checkpoint_id"] == IDS[1], f"the latest is {latest['checkpoint_id']}")
        expect(base64.b64decode(latest["checkpoint"]["data"]) == data, "the latest checkpoint's bytes differ")
        expect([w["idx"] for w in latest["pending_writes"]] == [0], f"pending writes {latest['pending_writes']}")
        listed = api.request("POST", f"{base}/checkpoints/list", json_body={"filter": {"step": 0}}).json()
        expect([c["checkpoint_id"] for c in listed["checkpoints"]] == [IDS[0]], f"list answered {listed}")
        made = api.request("POST", f"{base}/copy", json_body={"target_thread_id": copy}).json()
        expect(made["through"] == {"": IDS[1]}, f"copy answered {made}")
        api.request("POST", f"{base}/prune", json_body={"strategy": "keep_latest"})
        api.request("DELETE", base)
        kept: Any = api.request("POST", f"{copied}/checkpoints/list", json_body={}).json()
        expect([c["checkpoint_id"] for c in kept["checkpoints"]] == list(reversed(IDS)), f"the copy lists {kept}")
        refused(lambda: api.request("GET", f"{base}/checkpoint"), 404, "checkpoint_not_found")
    finally:
        for thread in (base, copied):
            api.request("DELETE", thread)
    return (
        "PUT 2 checkpoints + writes; GET latest byte-exact with its writes; list by metadata; copy; prune; DELETE the "
        "source: the copy still lists both"
    )
