"""A checkpoint thread's merged view (docs/adr/0039): its own items and, for a copy, each source's items at ids up to
the copy's cut in that namespace, hidden below the thread's floors (a prune, or a delete that copies still read).

A checkpoint id found in several partitions is one tuple: the nearest partition's checkpoint item, and the pending
writes of all of them (a write a copy adds to a checkpoint it shares lives in the copy's partition), the nearest one
winning for the same (task_id, idx).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator

from offprompt.ports import CheckpointGroup, CheckpointThreadState, IdBound, StoredCheckpointWrite
from offprompt.services.checkpoints.context import Checkpoints


def _tighter_lower(a: IdBound | None, b: IdBound | None) -> IdBound | None:
    if a is None or b is None:
        return a or b
    if a[0] != b[0]:
        return max(a, b, key=lambda x: x[0])
    return (a[0], a[1] and b[1])


def _tighter_upper(a: IdBound | None, b: IdBound | None) -> IdBound | None:
    if a is None or b is None:
        return a or b
    if a[0] != b[0]:
        return min(a, b, key=lambda x: x[0])
    return (a[0], a[1] and b[1])


def sources(state: CheckpointThreadState) -> list[tuple[str, dict[str, str] | None, float | None]]:
    """The partitions a thread reads, nearest first: its own (no cut), then each ancestor's with its cuts and the
    time the copy was made (items written later are not the copy's)."""
    return [(state.thread_id, None, None), *state.ancestry]


def namespaces(ck: Checkpoints, tenant: str, state: CheckpointThreadState) -> list[str]:
    found: set[str] = set()
    for thread, cuts, _at in sources(state):
        own = ck.store.namespaces(tenant, thread)
        found.update(own if cuts is None else [ns for ns in own if ns in cuts])
    return sorted(found)


def groups(
    ck: Checkpoints,
    tenant: str,
    state: CheckpointThreadState,
    namespace: str,
    *,
    lower: IdBound | None = None,
    upper: IdBound | None = None,
) -> Iterator[CheckpointGroup]:
    """The namespace's merged groups, newest first (a group may hold no checkpoint: only writes)."""
    floor = (state.floors or {}).get(namespace)
    low = _tighter_lower(lower, floor)
    streams = []
    for thread, cuts, at in sources(state):
        high = upper
        if cuts is not None:
            if namespace not in cuts:
                continue
            high = _tighter_upper(upper, (cuts[namespace], True))
        found = ck.store.groups(tenant, thread, namespace, lower=low, upper=high)
        streams.append(found if at is None else _as_of(found, at))
    if len(streams) == 1:
        yield from streams[0]
        return
    yield from _combine(heapq.merge(*streams, key=lambda g: g.checkpoint_id, reverse=True))


def all_groups(
    ck: Checkpoints, tenant: str, state: CheckpointThreadState, *, upper: IdBound | None = None
) -> Iterator[CheckpointGroup]:
    """Every namespace's merged groups, newest first by (checkpoint_id, namespace)."""
    streams = [groups(ck, tenant, state, ns, upper=upper) for ns in namespaces(ck, tenant, state)]
    return heapq.merge(*streams, key=lambda g: (g.checkpoint_id, g.namespace), reverse=True)


def _as_of(found: Iterator[CheckpointGroup], at: float) -> Iterator[CheckpointGroup]:
    """A source's groups as they were when the copy was made: items written later are the source's own."""
    for group in found:
        checkpoint = group.checkpoint if group.checkpoint and group.checkpoint.written_at <= at else None
        writes = tuple(w for w in group.writes if w.written_at <= at)
        if checkpoint is not None or writes:
            yield CheckpointGroup(group.namespace, group.checkpoint_id, checkpoint, writes)


def _combine(ordered: Iterator[CheckpointGroup]) -> Iterator[CheckpointGroup]:
    """Adjacent groups of one id (nearest partition first: heapq.merge is stable) as one."""
    pending: CheckpointGroup | None = None
    for group in ordered:
        if pending is not None and group.checkpoint_id == pending.checkpoint_id:
            pending = _merge(pending, group)
            continue
        if pending is not None:
            yield pending
        pending = group
    if pending is not None:
        yield pending


def _merge(near: CheckpointGroup, far: CheckpointGroup) -> CheckpointGroup:
    writes: dict[tuple[str, int], StoredCheckpointWrite] = {(w.task_id, w.idx): w for w in far.writes}
    writes.update({(w.task_id, w.idx): w for w in near.writes})
    return CheckpointGroup(
        near.namespace, near.checkpoint_id, near.checkpoint or far.checkpoint, tuple(writes.values())
    )


def latest(ck: Checkpoints, tenant: str, state: CheckpointThreadState, namespace: str) -> CheckpointGroup | None:
    return next((g for g in groups(ck, tenant, state, namespace) if g.checkpoint is not None), None)


def by_id(
    ck: Checkpoints, tenant: str, state: CheckpointThreadState, namespace: str, checkpoint_id: str
) -> CheckpointGroup | None:
    bound = (checkpoint_id, True)
    found = groups(ck, tenant, state, namespace, lower=bound, upper=bound)
    return next((g for g in found if g.checkpoint is not None), None)


def held_through(state: CheckpointThreadState, namespace: str) -> str | None:
    """The greatest id of the namespace a live copy reads in this thread's partition (None: none)."""
    cuts = [c[namespace] for c in (state.holds or {}).values() if namespace in c]
    return max(cuts) if cuts else None


def hidden(state: CheckpointThreadState, namespace: str, checkpoint_id: str) -> bool:
    floor = (state.floors or {}).get(namespace)
    if floor is None:
        return False
    return checkpoint_id < floor[0] or (checkpoint_id == floor[0] and not floor[1])
