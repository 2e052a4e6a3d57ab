"""The substrate's SortedPartition keeps its range keys sorted through every way moto (and replay) mutates it,
and `_bounds` selects exactly the keys a key condition matches."""

from __future__ import annotations

import copy
import pickle
import random

import pytest
from moto.dynamodb.models.dynamo_type import DynamoType

from offprompt_local.substrate.moto_patches import SortedPartition, _bounds


def key(value: str) -> DynamoType:
    return DynamoType({"S": value})


def test_order_follows_inserts_replacements_and_removals() -> None:
    rng = random.Random(3)
    partition = SortedPartition()
    mirror: dict[str, int] = {}
    for step in range(3_000):
        name = f"run#{rng.randrange(400):05d}"
        action = rng.random()
        if action < 0.6:
            partition[key(name)] = step
            mirror[name] = step
        elif action < 0.8:
            assert partition.pop(key(name), None) == mirror.pop(name, None)
        elif name in mirror:
            del partition[key(name)]
            del mirror[name]
        assert [k.value for k in partition.order] == sorted(mirror)
    assert {k.value: v for k, v in partition.items()} == mirror
    for clone in (copy.deepcopy(partition), pickle.loads(pickle.dumps(partition))):
        assert isinstance(clone, SortedPartition)
        assert [k.value for k in clone.order] == sorted(mirror)
    with pytest.raises(KeyError):
        partition.pop(key("absent"))


@pytest.mark.parametrize(
    ("comparison", "values"),
    [
        (None, []),
        ("=", ["b#02"]),
        ("<", ["b#02"]),
        ("<=", ["b#02"]),
        (">", ["b#02"]),
        (">=", ["b#02"]),
        ("BETWEEN", ["a#03", "b#01"]),
        ("BETWEEN", ["b#09", "a#00"]),
        ("BEGINS_WITH", ["b#"]),
        ("BEGINS_WITH", ["a"]),
        ("BEGINS_WITH", ["c"]),
        ("BEGINS_WITH", [""]),
    ],
)
def test_bounds_select_exactly_the_matching_keys(comparison: str | None, values: list[str]) -> None:
    partition = SortedPartition()
    for prefix in ("a#", "b#", "bb", "c"):
        for i in range(5):
            partition[key(f"{prefix}{i:02d}")] = None
    objects = [key(v) for v in values]
    bounds = _bounds(partition.order, comparison, objects)
    assert bounds is not None
    lo, hi = bounds
    selected = [k.value for k in partition.order[lo:hi]]
    expected = [k.value for k in partition.order if comparison is None or k.compare(comparison, objects)]
    assert selected == expected


def test_unsupported_conditions_are_left_to_moto() -> None:
    assert _bounds([], "CONTAINS", [key("x")]) is None
