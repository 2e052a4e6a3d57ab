"""A checkpoint tuple as the API returns it (LangGraph's CheckpointTuple, docs/adr/0039): `{"thread_id",
"checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "checkpoint": {"type","data"}, "metadata",
"pending_writes": [{"task_id","task_path","idx","channel","value"}]}`, writes sorted by (task_path, task_id, idx)."""

from __future__ import annotations

import json
from typing import Any

from offprompt.ports import CheckpointGroup
from offprompt.services.checkpoints.blobs import load
from offprompt.services.checkpoints.context import Checkpoints


def tuple_view(ck: Checkpoints, thread_id: str, group: CheckpointGroup) -> dict[str, Any]:
    checkpoint = group.checkpoint
    assert checkpoint is not None
    writes = sorted(group.writes, key=lambda w: (w.task_path, w.task_id, w.idx))
    return {
        "thread_id": thread_id,
        "checkpoint_ns": group.namespace,
        "checkpoint_id": group.checkpoint_id,
        "parent_checkpoint_id": checkpoint.parent_id,
        "checkpoint": load(ck, checkpoint.blob),
        "metadata": json.loads(checkpoint.metadata_json),
        "pending_writes": [
            {
                "task_id": w.task_id,
                "task_path": w.task_path,
                "idx": w.idx,
                "channel": w.channel,
                "value": load(ck, w.blob),
            }
            for w in writes
        ],
    }


def view_bytes(group: CheckpointGroup) -> int:
    """The blob bytes a tuple carries (a list page's budget counts them)."""
    size = group.checkpoint.blob.size if group.checkpoint else 0
    return size + sum(w.blob.size for w in group.writes)
