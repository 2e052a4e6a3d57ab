"""A copied checkpoint thread's merged view, as pure rules (adapters/checkpoint_view.py, docs/adr/0039, 0058): which
partitions a thread reads and with which bounds, a source as it was when the copy was made, one group per id with
the nearest checkpoint and every partition's writes, a rewritten write's newest version, the latest checkpoint read
without read-ahead. The adapter's reads are replaced by partitions held in memory here; the DynamoDB adapter's own
tests (tests/integration/checkpoints) run the same rules on moto."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from offprompt.adapters import checkpoint_view as view
from offprompt.ports import CheckpointGroup, CheckpointThreadState, IdBound, StoredCheckpoint, StoredCheckpointWrite
from offprompt.ports import TypedBlob as Blob

BLOB = Blob("json", 2, b"{}")


def checkpoint(cid: str, at: float = 0.0, ns: str = "") -> StoredCheckpoint:
    return StoredCheckpoint(ns, cid, None, "{}", BLOB, written_at=at)


def write(cid: str, task: str, idx: int, at: float = 0.0, version: int = 0, channel: str = "c", ns: str = "") -> Any:
    return StoredCheckpointWrite(ns, cid, task, "", idx, channel, BLOB, written_at=at, version=version)


def group(cid: str, cp: StoredCheckpoint | None, *writes: StoredCheckpointWrite, ns: str = "") -> CheckpointGroup:
    return CheckpointGroup(ns, cid, cp, tuple(writes))


class Partitions:
    """Each thread's groups of each namespace (newest first), read as the adapter's `groups` reads them; the
    reads made are recorded (thread, namespace, lower, upper) and counted group by group."""

    def __init__(self, data: dict[str, dict[str, list[CheckpointGroup]]]) -> None:
        self.data = data
        self.reads: list[tuple[str, str, IdBound | None, IdBound | None]] = []
        self.groups_read = 0

    def read(
        self, tenant: str, thread: str, namespace: str, *, lower: IdBound | None, upper: IdBound | None
    ) -> Iterator[CheckpointGroup]:
        assert tenant == "t"
        self.reads.append((thread, namespace, lower, upper))
        for g in sorted(self.data.get(thread, {}).get(namespace, []), key=lambda g: g.checkpoint_id, reverse=True):
            if view.within(g.checkpoint_id, lower, upper):
                self.groups_read += 1
                yield g

    def namespaces(self, thread: str) -> list[str]:
        return sorted(self.data.get(thread, {}))


def copy_state(**kwargs: Any) -> CheckpointThreadState:
    return CheckpointThreadState("copy", 0.0, **kwargs)


def test_bounds_the_tighter_one_wins_and_exclusive_wins_a_tie() -> None:
    assert view.tighter(None, ("b", True), lower_bound=True) == ("b", True)
    assert view.tighter(("a", True), ("b", True), lower_bound=True) == ("b", True)
    assert view.tighter(("a", True), ("b", True), lower_bound=False) == ("a", True)
    assert view.tighter(("a", True), ("a", False), lower_bound=True) == ("a", False)
    assert view.tighter(("a", False), ("a", True), lower_bound=False) == ("a", False)
    assert view.within("b", ("a", True), ("c", True)) and view.within("a", ("a", True), None)
    assert not view.within("a", ("a", False), None) and not view.within("c", None, ("c", False))


def test_a_copy_reads_its_own_partition_then_each_source_up_to_its_cut_above_its_floor() -> None:
    parts = Partitions({})
    state = copy_state(
        ancestry=(("parent", {"": "m"}, 5.0), ("grand", {"": "f", "other": "z"}, 3.0)),
        floors={"": ("c", False)},
    )
    list(view.merged(view.streams("t", state, "", None, None, parts.read)))
    assert parts.reads == [
        ("copy", "", ("c", False), None),
        ("parent", "", ("c", False), ("m", True)),
        ("grand", "", ("c", False), ("f", True)),
    ]
    parts.reads.clear()
    list(view.merged(view.streams("t", state, "other", None, ("k", True), parts.read)))  # cut by grand only
    assert parts.reads == [("copy", "other", None, ("k", True)), ("grand", "other", None, ("k", True))]


def test_a_source_is_read_as_it_was_when_the_copy_was_made() -> None:
    parts = Partitions(
        {
            "parent": {
                "": [
                    group("a", checkpoint("a", 1.0), write("a", "t", 0, 1.0), write("a", "t", 1, 9.0)),
                    group("b", checkpoint("b", 9.0), write("b", "t", 0, 9.0)),
                ]
            }
        }
    )
    state = copy_state(ancestry=(("parent", {"": "z"}, 5.0),))
    seen = list(view.merged(view.streams("t", state, "", None, None, parts.read)))
    assert seen == [group("a", checkpoint("a", 1.0), write("a", "t", 0, 1.0))]  # b and the late write: the parent's


def test_one_id_in_several_partitions_is_one_group_nearest_checkpoint_writes_of_all_nearest_winning() -> None:
    own = group("a", None, write("a", "t", 0, channel="own"), write("a", "u", 1, channel="own"))
    source = group("a", checkpoint("a"), write("a", "t", 0, channel="source"), write("a", "v", 2, channel="source"))
    parts = Partitions(
        {"copy": {"": [own, group("c", checkpoint("c"))]}, "parent": {"": [source, group("b", checkpoint("b"))]}}
    )
    state = copy_state(ancestry=(("parent", {"": "z"}, 1.0),))
    seen = list(view.merged(view.streams("t", state, "", None, None, parts.read)))
    assert [g.checkpoint_id for g in seen] == ["c", "b", "a"]
    merged_a = seen[2]
    assert merged_a.checkpoint == checkpoint("a")
    assert {(w.task_id, w.idx): w.channel for w in merged_a.writes} == {
        ("t", 0): "own",
        ("u", 1): "own",
        ("v", 2): "source",
    }


def test_a_write_stored_in_several_versions_counts_once_its_newest() -> None:
    old, new = (
        write("a", "t", -1, at=1.0, version=1, channel="old"),
        write("a", "t", -1, at=2.0, version=2, channel="new"),
    )
    kept = write("a", "u", 0)
    assert view.current(group("a", checkpoint("a"), old, new, kept)).writes == (new, kept)
    plain = group("a", checkpoint("a"), kept)
    assert view.current(plain) is plain


def test_latest_stops_at_the_newest_id_with_a_checkpoint_reading_no_further() -> None:
    # The copy's own newest id holds only writes (to a checkpoint the source has): that id is combined with the
    # source's, and nothing older is read.
    parts = Partitions(
        {
            "copy": {"": [group("d", None, write("d", "t", 0)), group("a", checkpoint("a"))]},
            "parent": {"": [group("d", checkpoint("d")), group("c", checkpoint("c")), group("b", checkpoint("b"))]},
        }
    )
    state = copy_state(ancestry=(("parent", {"": "z"}, 1.0),))
    found = view.latest(view.streams("t", state, "", None, None, parts.read))
    assert found == group("d", checkpoint("d"), write("d", "t", 0))
    assert parts.groups_read == 2  # each partition's head only
    assert view.latest(view.streams("t", copy_state(), "", None, None, Partitions({}).read)) is None


def test_latest_skips_ids_that_hold_only_writes_everywhere() -> None:
    parts = Partitions({"copy": {"": [group("e", None, write("e", "t", 0)), group("b", checkpoint("b"))]}})
    assert view.latest(view.streams("t", copy_state(), "", None, None, parts.read)) == group("b", checkpoint("b"))


def test_visible_namespaces_own_ones_and_those_the_copy_cut() -> None:
    parts = Partitions({"copy": {"x": []}, "parent": {"": [], "y": [], "hidden": []}})
    state = copy_state(ancestry=(("parent", {"": "z", "y": "z"}, 1.0),))
    assert view.visible_namespaces(state, parts.namespaces) == ["", "x", "y"]


def test_the_merged_view_equals_a_brute_force_reading_random_histories() -> None:
    rng = random.Random(58)
    for _ in range(200):
        ids = sorted(rng.sample("abcdefghij", rng.randint(1, 8)))
        data: dict[str, dict[str, list[CheckpointGroup]]] = {}
        threads = ["copy", "p1", "p2"][: rng.randint(1, 3)]
        for thread in threads:
            groups = []
            for cid in rng.sample(ids, rng.randint(0, len(ids))):
                writes = [
                    write(cid, rng.choice("tu"), rng.randint(0, 2), at=rng.choice([1.0, 9.0]), channel=f"{thread}")
                    for _ in range(rng.randint(0, 2))
                ]
                dedup = {(w.task_id, w.idx): w for w in writes}
                cp = checkpoint(cid, rng.choice([1.0, 9.0])) if rng.random() < 0.7 else None
                if cp is not None or dedup:
                    groups.append(group(cid, cp, *dedup.values()))
            data[thread] = {"": groups}
        cuts = [rng.choice(ids) for _ in threads[1:]]
        state = copy_state(ancestry=tuple((t, {"": c}, 5.0) for t, c in zip(threads[1:], cuts, strict=True)))
        floor = (rng.choice(ids), rng.random() < 0.5) if rng.random() < 0.3 else None
        if floor:
            state = copy_state(ancestry=state.ancestry, floors={"": floor})
        seen = list(view.merged(view.streams("t", state, "", None, None, Partitions(data).read)))

        expected = []
        for cid in sorted(ids, reverse=True):
            if floor and not view.within(cid, floor, None):
                continue
            cp, writes = None, {}
            for depth, thread in enumerate(threads):
                if depth and cid > cuts[depth - 1]:
                    continue
                for g in data[thread][""]:
                    if g.checkpoint_id != cid:
                        continue
                    at = 5.0 if depth else float("inf")
                    if cp is None and g.checkpoint and g.checkpoint.written_at <= at:
                        cp = g.checkpoint
                    for w in g.writes:
                        if w.written_at <= at:
                            writes.setdefault((w.task_id, w.idx), w)
            if cp is not None or writes:
                expected.append((cid, cp, {k: w.channel for k, w in writes.items()}))
        assert [
            (g.checkpoint_id, g.checkpoint, {(w.task_id, w.idx): w.channel for w in g.writes}) for g in seen
        ] == expected
        latest = view.latest(view.streams("t", state, "", None, None, Partitions(data).read))
        with_checkpoint = [e for e in expected if e[1] is not None]
        assert (latest.checkpoint_id if latest else None) == (with_checkpoint[0][0] if with_checkpoint else None)
