"""Use case: list a thread's checkpoint tuples, newest first (docs/adr/0039). Handler: functions/checkpoints (`POST
/checkpoint-threads/{thread_id}/checkpoints/list`, direct `list_checkpoints`).

One namespace, or every namespace merged by id (`checkpoint_ns` null). `before` (exclusive), a metadata `filter`
(top-level equality of JSON values, `true` is not `1`; applied before `limit`, so `limit` counts matches). A page
holds at most PAGE_BLOB_BYTES of blob data and always one tuple; `next_cursor` continues it (carrying the position
and what is left of `limit`). An unknown thread is an empty list.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator
from typing import Any

from offprompt.errors import InvalidInput
from offprompt.limits import MAX_CHECKPOINT_TUPLE_BYTES
from offprompt.memory.json_values import json_equal
from offprompt.ports import CheckpointGroup, IdBound
from offprompt.services.checkpoints.blobs import check_thread
from offprompt.services.checkpoints.context import Checkpoints
from offprompt.services.checkpoints.requests import CheckpointList
from offprompt.services.checkpoints.views import tuple_view, view_bytes

#: The blob bytes of one page (base64 makes them 4/3 on the wire: the page stays under Lambda's 6 MB answer); one
#: tuple always fits, since puts and writes keep each under the same limit (ADR 0042).
PAGE_BLOB_BYTES = MAX_CHECKPOINT_TUPLE_BYTES


def _pack(fields: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(fields, separators=(",", ":")).encode()).decode().rstrip("=")


def _unpack(cursor: str, thread_id: str, namespace: str | None) -> tuple[str, str, int | None]:
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, binascii.Error, UnicodeDecodeError, RecursionError):
        data = None
    ok = (
        isinstance(data, dict)
        and data.get("t") == thread_id
        and data.get("n") == namespace
        and isinstance(data.get("i"), str)
        and isinstance(data.get("s"), str)
        and (data.get("l") is None or (type(data.get("l")) is int and data["l"] >= 1))
    )
    if not ok:
        raise InvalidInput("cursor is invalid for this thread and namespace")
    assert isinstance(data, dict)
    return data["i"], data["s"], data.get("l")


def _matches(group: CheckpointGroup, wanted: dict[str, Any] | None) -> bool:
    if group.checkpoint is None:
        return False
    if not wanted:
        return True
    metadata = json.loads(group.checkpoint.metadata_json)
    return all(k in metadata and json_equal(metadata[k], v) for k, v in wanted.items())  # true is not 1


def list_checkpoints(ck: Checkpoints, tenant: str, thread_id: str, request: CheckpointList) -> dict[str, Any]:
    check_thread(thread_id)
    ns = request.checkpoint_ns
    limit = request.limit
    upper: IdBound | None = (request.before, False) if request.before else None
    after: tuple[str, str] | None = None
    if request.cursor:
        last_id, last_ns, limit = _unpack(request.cursor, thread_id, ns)
        after = (last_id, last_ns)
        if upper is None or last_id < upper[0] or (last_id == upper[0] and upper[1]):
            upper = (last_id, True)
    state = ck.store.thread(tenant, thread_id)
    if state is None:
        return {"checkpoints": [], "next_cursor": None}
    found: Iterator[CheckpointGroup] = (
        ck.store.view_all_groups(tenant, state, upper=upper)
        if ns is None
        else ck.store.view_groups(tenant, state, ns, upper=upper)
    )
    page: list[dict[str, Any]] = []
    used = 0
    matches = (
        g for g in found if _matches(g, request.filter) and (after is None or (g.checkpoint_id, g.namespace) < after)
    )
    for group in matches:
        if limit is not None and len(page) >= limit:
            break
        size = view_bytes(group)
        if page and used + size > PAGE_BLOB_BYTES:
            last = page[-1]
            left = None if limit is None else limit - len(page)
            cursor = _pack({"t": thread_id, "n": ns, "i": last["checkpoint_id"], "s": last["checkpoint_ns"], "l": left})
            return {"checkpoints": page, "next_cursor": cursor}
        used += size
        page.append(tuple_view(thread_id, group, lambda key: ck.blobs.get_blob(key)))
    return {"checkpoints": page, "next_cursor": None}
