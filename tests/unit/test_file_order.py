"""tests/file_order.py: xdist's workers take the test files longest first (docs/adr/0061)."""

from __future__ import annotations

import json
from pathlib import Path

from file_order import COSTS, estimated, load_costs, longest_first  # tests/ is on sys.path

NODES = [
    "tests/unit/test_a.py::test_one",
    "tests/unit/test_a.py::test_two",
    "tests/e2e/test_b.py::test_one",
    "tests/unit/test_c.py::test_one[x]",
    "tests/e2e/test_new.py::test_one",
    "tests/e2e/test_b.py::test_two",
]


def test_the_costliest_file_goes_first_and_each_file_keeps_its_tests_order() -> None:
    costs = {"tests/unit/test_a.py": 1.0, "tests/e2e/test_b.py": 90.0, "tests/unit/test_c.py": 5.0}
    ordered = [NODES[i] for i in longest_first(NODES, costs)]
    assert ordered == [
        "tests/e2e/test_b.py::test_one",
        "tests/e2e/test_b.py::test_two",
        "tests/e2e/test_new.py::test_one",  # not measured: the median of tests/e2e (90)
        "tests/unit/test_c.py::test_one[x]",
        "tests/unit/test_a.py::test_one",
        "tests/unit/test_a.py::test_two",
    ]
    assert sorted(ordered) == sorted(NODES)  # only the order changes


def test_without_costs_the_files_keep_their_collected_order() -> None:
    assert longest_first(NODES, {}) == [0, 1, 2, 5, 3, 4]  # grouped by file, in the order each file first appears


def test_an_unmeasured_file_costs_its_tiers_median() -> None:
    costs = {"tests/e2e/a.py": 10.0, "tests/e2e/b.py": 30.0, "tests/e2e/c.py": 200.0, "tests/unit/d.py": 1.0}
    assert estimated(["tests/e2e/new.py", "tests/unit/new.py", "tests/docs/new.py"], costs) == {
        "tests/e2e/new.py": 30.0,
        "tests/unit/new.py": 1.0,
        "tests/docs/new.py": 0.0,
    }


def test_the_committed_costs_name_test_files_that_exist() -> None:
    costs = load_costs()
    assert costs, COSTS
    root = COSTS.parents[1]
    missing = [name for name in costs if not (root / name).is_file()]
    assert not missing, f"tests/file_costs.json names files that are gone (refresh it: tests/file_order.py): {missing}"


def test_recorded_costs_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "costs.json"
    path.write_text(json.dumps({"tests/unit/test_a.py": 1.5}))
    assert load_costs(path) == {"tests/unit/test_a.py": 1.5}
    assert load_costs(tmp_path / "absent.json") == {}
