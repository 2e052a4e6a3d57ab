"""The rules of hiding and holding (pure; docs/adr/0039): what a thread's floors hide, what its live copies read."""

from __future__ import annotations

from offprompt.ports import CheckpointThreadState, StoredCheckpoint, StoredCheckpointWrite

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
