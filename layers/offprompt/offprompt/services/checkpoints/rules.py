"""The rules of hiding and holding (pure; docs/adr/0039): what a thread's floors hide, what its live copies read."""

from __future__ import annotations

from collections.abc import Iterable

from offprompt.limits import MAX_CHECKPOINT_TUPLE_BYTES
from offprompt.ports import CheckpointGroup, CheckpointThreadState, StoredCheckpoint, StoredCheckpointWrite

Item = StoredCheckpoint | StoredCheckpointWrite


def held_through(state: CheckpointThreadState, namespace: str) -> str | None:
    """The greatest id of the namespace a live copy reads in this thread's partition (None: none)."""
    cuts = [c[namespace] for c in (state.holds or {}).values() if namespace in c]
    return max(cuts) if cuts else None


def held(state: CheckpointThreadState, namespace: str, checkpoint_id: str) -> bool:
    through = held_through(state, namespace)
    return through is not None and checkpoint_id <= through


def hidden(state: CheckpointThreadState, namespace: str, checkpoint_id: str) -> bool:
    floor = (state.floors or {}).get(namespace)
    if floor is None:
        return False
    return checkpoint_id < floor[0] or (checkpoint_id == floor[0] and not floor[1])


def unread(state: CheckpointThreadState, item: Item) -> bool:
    """Hidden and read by no live copy: nothing reads it any more."""
    return hidden(state, item.namespace, item.checkpoint_id) and not held(state, item.namespace, item.checkpoint_id)


def offloaded(items: list[Item]) -> list[str]:
    """The S3 keys of the items' blobs."""
    return [i.blob.key for i in items if i.blob.key is not None]


def tuple_sizes(groups: Iterable[CheckpointGroup]) -> tuple[int, dict[tuple[str, int], int]]:
    """A checkpoint's blob bytes as its tuple would carry them: the checkpoint's, and each current write's by
    (task_id, idx) (the read of one id: `view_groups` bounded to it)."""
    checkpoint = 0
    writes: dict[tuple[str, int], int] = {}
    for group in groups:
        if group.checkpoint is not None:
            checkpoint = group.checkpoint.blob.size
        writes.update({(w.task_id, w.idx): w.blob.size for w in group.writes})
    return checkpoint, writes


def fits(checkpoint: int, writes: dict[tuple[str, int], int]) -> int | None:
    """None when a tuple of these blob bytes fits an answer (MAX_CHECKPOINT_TUPLE_BYTES); else its size."""
    size = checkpoint + sum(writes.values())
    return None if size <= MAX_CHECKPOINT_TUPLE_BYTES else size
