"""A checkpoint thread's merged view, as pure rules (docs/adr/0039; moved out of the DynamoDB adapter, ADR 0058).

A copy reads its own partition and each source's (its `ancestry`, nearest first): a source only at ids up to the
copy's cut of the namespace and only as it was when the copy was made (items written later are the source's own);
every partition below the thread's floor of the namespace. One id found in several partitions is one group: the
nearest checkpoint item, and the writes of all (the nearest winning for the same task_id and idx). A write stored in
several versions (an idx < 0 write replacing one a live copy reads) counts once: its newest.

No I/O: the adapter hands over `read` (one partition's groups, newest first, within bounds) and the rules call back
into it; on the call-depth test's stack these frames are transparent (tests/infrastructure/test_call_depth.py).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator

from offprompt.ports.checkpoints import CheckpointGroup, CheckpointThreadState, IdBound, StoredCheckpointWrite

#: One partition's groups of a namespace, newest first, within (lower, upper): `read(tenant, thread, namespace,
#: lower=..., upper=...)`.
Read = Callable[..., Iterator[CheckpointGroup]]


def sources(state: CheckpointThreadState) -> list[tuple[str, dict[str, str] | None, float | None]]:
    """The partitions a thread reads, nearest first: its own (no cut), then each source's with its cuts and the
    time the copy was made (items written later are the source's own)."""
    return [(state.thread_id, None, None), *state.ancestry]


def tighter(a: IdBound | None, b: IdBound | None, *, lower_bound: bool) -> IdBound | None:
    """The narrower of two bounds (the higher lower bound, the lower upper bound; exclusive wins a tie)."""
    if a is None or b is None:
        return a or b
    if a[0] != b[0]:
        return max(a, b) if lower_bound else min(a, b)
    return (a[0], a[1] and b[1])


def within(checkpoint_id: str, lower: IdBound | None, upper: IdBound | None) -> bool:
    if lower is not None and (checkpoint_id < lower[0] or (checkpoint_id == lower[0] and not lower[1])):
        return False
    return not (upper is not None and (checkpoint_id > upper[0] or (checkpoint_id == upper[0] and not upper[1])))


def as_of(found: Iterable[CheckpointGroup], at: float) -> Iterator[CheckpointGroup]:
    """A source's groups as they were when the copy was made."""
    for group in found:
        checkpoint = group.checkpoint if group.checkpoint and group.checkpoint.written_at <= at else None
        writes = tuple(w for w in group.writes if w.written_at <= at)
        if checkpoint is not None or writes:
            yield CheckpointGroup(group.namespace, group.checkpoint_id, checkpoint, writes)


def current(group: CheckpointGroup) -> CheckpointGroup:
    """One write per (task_id, idx): the newest version (older ones are kept for the live copies that read them)."""
    if all(w.version == 0 for w in group.writes):
        return group
    newest: dict[tuple[str, int], StoredCheckpointWrite] = {}
    for w in group.writes:
        kept = newest.get((w.task_id, w.idx))
        if kept is None or (w.written_at, w.version) > (kept.written_at, kept.version):
            newest[(w.task_id, w.idx)] = w
    return CheckpointGroup(group.namespace, group.checkpoint_id, group.checkpoint, tuple(newest.values()))


def current_of(found: Iterable[CheckpointGroup]) -> Iterator[CheckpointGroup]:
    for group in found:
        yield current(group)


def combine(ordered: Iterable[CheckpointGroup]) -> Iterator[CheckpointGroup]:
    """Adjacent groups of one id (nearest partition first: heapq.merge is stable) as one: the nearest checkpoint
    item, the writes of all (the nearest winning for the same task_id and idx)."""
    pending: CheckpointGroup | None = None
    for group in ordered:
        if pending is not None and group.checkpoint_id == pending.checkpoint_id:
            writes = {(w.task_id, w.idx): w for w in group.writes}
            writes.update({(w.task_id, w.idx): w for w in pending.writes})
            checkpoint = pending.checkpoint or group.checkpoint
            pending = CheckpointGroup(pending.namespace, pending.checkpoint_id, checkpoint, tuple(writes.values()))
            continue
        if pending is not None:
            yield pending
        pending = group
    if pending is not None:
        yield pending


def visible_namespaces(state: CheckpointThreadState, namespaces_of: Callable[[str], list[str]]) -> list[str]:
    """The namespaces the thread sees: its own, and each source's that the copy cut."""
    found: set[str] = set()
    for thread, cuts, _at in sources(state):
        own = namespaces_of(thread)
        found.update(own if cuts is None else [ns for ns in own if ns in cuts])
    return sorted(found)


def streams(
    tenant: str,
    state: CheckpointThreadState,
    namespace: str,
    lower: IdBound | None,
    upper: IdBound | None,
    read: Read,
) -> list[Iterator[CheckpointGroup]]:
    """Each partition's groups as the thread sees them, nearest partition first."""
    floor = (state.floors or {}).get(namespace)
    low = tighter(lower, floor, lower_bound=True)
    found_in: list[Iterator[CheckpointGroup]] = []
    for thread, cuts, at in sources(state):
        high = upper
        if cuts is not None:
            if namespace not in cuts:
                continue
            high = tighter(upper, (cuts[namespace], True), lower_bound=False)
        found = read(tenant, thread, namespace, lower=low, upper=high)
        found_in.append(current_of(found if at is None else as_of(found, at)))
    return found_in


def merged(found_in: list[Iterator[CheckpointGroup]]) -> Iterator[CheckpointGroup]:
    """One namespace's view, newest id first: the partitions' groups merged, one group per id."""
    if len(found_in) == 1:
        return found_in[0]
    return combine(heapq.merge(*found_in, key=lambda g: g.checkpoint_id, reverse=True))


def merged_namespaces(views: list[Iterator[CheckpointGroup]]) -> Iterator[CheckpointGroup]:
    """Several namespaces' views as one, newest (id, namespace) first."""
    return heapq.merge(*views, key=lambda g: (g.checkpoint_id, g.namespace), reverse=True)


def latest(found_in: list[Iterator[CheckpointGroup]]) -> CheckpointGroup | None:
    """The newest visible checkpoint with its writes, each partition read group by group (no read-ahead: the
    groups of the newest id are combined, the next ones read only when that id has no checkpoint)."""
    heads = [next(s, None) for s in found_in]
    while True:
        ids = [g.checkpoint_id for g in heads if g is not None]
        if not ids:
            return None
        top = max(ids)
        chosen = [i for i, g in enumerate(heads) if g is not None and g.checkpoint_id == top]
        group = next(combine(g for i in chosen if (g := heads[i]) is not None))
        if group.checkpoint is not None:
            return group
        for i in chosen:
            heads[i] = next(found_in[i], None)
