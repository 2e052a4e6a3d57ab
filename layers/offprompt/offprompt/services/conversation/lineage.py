"""A thread's runs as its readers see them: its own, then — on a fork — its ancestors' shared ones (docs/adr/0037).

A fork's thread item holds its ancestry, `[(thread, through_seq), ...]` nearest first with `through_seq` strictly
decreasing, and its own seqs start after `ancestry[0]`'s through_seq: one seq space over the chain, where each seq
lives in exactly one partition. Segment 0 is the thread's own runs (seq > ancestry[0].through), segment i the runs of
ancestry[i-1] with ancestry[i].through < seq <= ancestry[i-1].through. Every read that walks a thread goes through
here: a range of seqs is cut at the segments' bounds, and each piece is read by the per-partition RunStore methods.
A thread that is no fork is one segment: exactly the calls it made before forks existed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from offprompt.errors import NotFound
from offprompt.ports import RunStore, StoredRun, ThreadState

#: The most ancestors a fork may read through (a fork of a thread at this depth is a 409 `fork_too_deep`).
MAX_FORK_DEPTH = 8
_TOP = 10**12 - 1


class RunNotFound(NotFound):
    """`as_of_run` (or a fork's `after_run_id`) names no run this thread can read."""

    code = "run_not_found"

    def __init__(self, thread_id: str, run_id: str) -> None:
        super().__init__(
            f'run "{run_id[:100]}" is not a run of thread "{thread_id[:100]}" (nor of what it was forked from)',
            details={"thread_id": thread_id, "run_id": run_id},
        )


@dataclass(frozen=True)
class Segment:
    """Seqs `lo < seq <= hi` of the combined history, stored in `thread_id`'s partition."""

    thread_id: str
    lo: int
    hi: int


def segments(state: ThreadState) -> list[Segment]:
    """The thread's segments, newest first."""
    out: list[Segment] = []
    owner, top = state.thread_id, _TOP
    for ancestor, through in state.ancestry:
        out.append(Segment(owner, through, top))
        owner, top = ancestor, through
    out.append(Segment(owner, 0, top))
    return [s for s in out if s.hi > s.lo]


def owner_of(state: ThreadState, seq: int) -> str:
    """The thread whose partition holds `seq`."""
    for s in segments(state):
        if s.lo < seq <= s.hi:
            return s.thread_id
    return state.thread_id


def page_runs(
    runs: RunStore,
    state: ThreadState,
    *,
    lo: int,
    hi: int | None,
    newest_first: bool,
    limit: int,
    now_epoch: int,
    keys_only: bool = False,
) -> tuple[list[StoredRun], int | None]:
    """`RunStore.page_runs` over the combined history: runs with lo <= seq <= hi, at most `limit`, and the seq to
    continue after (None when nothing is left). Reads only the segments the range needs, in order, and stops
    as soon as `limit` runs are found."""
    pieces = segments(state)
    if not newest_first:
        pieces.reverse()
    top = _TOP if hi is None else hi
    found: list[StoredRun] = []
    for seg in pieces:
        a, b = max(lo, seg.lo + 1), min(top, seg.hi)
        if a > b:
            continue
        if len(found) >= limit:  # a later segment still has runs in range: continue after the last one found
            return found, found[-1].seq
        page, after = runs.page_runs(
            state.tenant,
            seg.thread_id,
            lo=a,
            hi=None if b == _TOP else b,
            newest_first=newest_first,
            limit=limit - len(found),
            now_epoch=now_epoch,
            keys_only=keys_only,
        )
        found.extend(page)
        if after is not None:
            return found, after
    return found, None


def iter_keys(
    runs: RunStore, state: ThreadState, *, lo: int, newest_first: bool, now_epoch: int, hi: int | None = None
) -> Iterator[StoredRun]:
    """Every unexpired run of the combined history in [lo, hi], keys and counts only, page after page."""
    yield from _iter(runs, state, lo=lo, hi=hi, newest_first=newest_first, now_epoch=now_epoch, keys_only=True)


def iter_full(
    runs: RunStore, state: ThreadState, *, lo: int, now_epoch: int, hi: int | None = None
) -> Iterator[StoredRun]:
    """Every unexpired run of the combined history from `lo` on, oldest first, with its item."""
    yield from _iter(runs, state, lo=lo, hi=hi, newest_first=False, now_epoch=now_epoch, keys_only=False)


def _iter(
    runs: RunStore,
    state: ThreadState,
    *,
    lo: int,
    hi: int | None,
    newest_first: bool,
    now_epoch: int,
    keys_only: bool,
) -> Iterator[StoredRun]:
    limit = 500 if keys_only else 100
    while hi is None or lo <= hi:
        page, after = page_runs(
            runs, state, lo=lo, hi=hi, newest_first=newest_first, limit=limit, now_epoch=now_epoch, keys_only=keys_only
        )
        yield from page
        if after is None:
            return
        if newest_first:
            hi = after - 1
        else:
            lo = after + 1


def get_run(runs: RunStore, state: ThreadState, seq: int) -> StoredRun | None:
    """The run at `seq` of the combined history, read from the partition that holds it."""
    return runs.get_run(state.tenant, owner_of(state, seq), seq)


def run_seq(runs: RunStore, state: ThreadState, run_id: str) -> int | None:
    """The seq of the run with this id in the combined history (an ancestor's run only when the thread reads it:
    at or before its fork point), or None. One read per segment at most, nearest first."""
    for seg in segments(state):
        seq = runs.run_seq(state.tenant, seg.thread_id, run_id)
        if seq is not None and seg.lo < seq <= seg.hi:
            return seq
    return None


def as_of_seq(runs: RunStore, state: ThreadState, run_id: str | None) -> int | None:
    """`as_of_run` → the seq reads stop at (None: no time travel); RunNotFound for a run the thread cannot read."""
    if run_id is None:
        return None
    seq = run_seq(runs, state, run_id)
    if seq is None:
        raise RunNotFound(state.thread_id, run_id)
    return seq
