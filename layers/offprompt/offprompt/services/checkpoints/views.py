"""A checkpoint tuple as the API returns it (LangGraph's CheckpointTuple, docs/adr/0039): `{"thread_id",
"checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "checkpoint": {"type","data"}, "metadata",
"pending_writes": [{"task_id","task_path","idx","channel","value"}]}`, writes sorted by (task_path, task_id, idx)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from offprompt.ports import CheckpointGroup, TypedBlob
from offprompt.services.checkpoints.blobs import encode


def blob_view(blob: TypedBlob, fetch: Callable[[str], bytes]) -> dict[str, str]:
    data = blob.data if blob.key is None else fetch(blob.key)
    return {"type": blob.type, "data": encode(data or b"")}


def tuple_view(thread_id: str, group: CheckpointGroup, fetch: Callable[[str], bytes]) -> dict[str, Any]:
    """`fetch` reads an offloaded blob (the use case's own callback: S3 stays three modules from the handler)."""
    checkpoint = group.checkpoint
    assert checkpoint is not None
    writes = sorted(group.writes, key=lambda w: (w.task_path, w.task_id, w.idx))
    return {
        "thread_id": thread_id,
        "checkpoint_ns": group.namespace,
        "checkpoint_id": group.checkpoint_id,
        "parent_checkpoint_id": checkpoint.parent_id,
        "checkpoint": blob_view(checkpoint.blob, fetch),
        "metadata": json.loads(checkpoint.metadata_json),
        "pending_writes": [
            {
                "task_id": w.task_id,
                "task_path": w.task_path,
                "idx": w.idx,
                "channel": w.channel,
                "value": blob_view(w.blob, fetch),
            }
            for w in writes
        ],
    }


def view_bytes(group: CheckpointGroup) -> int:
    """The blob bytes a tuple carries (a list page's budget counts them)."""
    size = group.checkpoint.blob.size if group.checkpoint else 0
    return size + sum(w.blob.size for w in group.writes)
