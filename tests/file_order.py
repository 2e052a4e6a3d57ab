"""The longest test files first under `--dist loadfile` (docs/adr/0061-suite-longest-files-first.md).

xdist's loadfile hands a worker one whole file at a time, in the order the workers collected them; by default it
first reorders them by number of tests, most first (`--loadscope-reorder`), which sends the files with a few slow
tests (a stack boot, a layer build, a venv install) last: one of them then runs alone on one worker while the other
two are idle. pyproject.toml turns that reordering off (`--no-loadscope-reorder`) and this plugin orders the files
by what each took in a measured run (tests/file_costs.json), longest first: the long files start at once, the
short ones fill in around them at the end. A file not measured yet is ranked as the median measured file of its
tier (tests/<tier>/). Only the order changes: every test still runs, each file's tests in their own order.

Refresh the costs after a run that changed them (the sum of each file's setup, call and teardown times):

    .venv/bin/python -m pytest -n 3 --dist loadfile --record-file-costs tests/file_costs.json
"""

from __future__ import annotations

import json
import os
import statistics
from collections import defaultdict
from pathlib import Path

import pytest

COSTS = Path(__file__).with_name("file_costs.json")
_recorded: dict[str, float] = defaultdict(float)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-file-costs",
        metavar="PATH",
        default=None,
        help="write each test file's total time (setup + call + teardown, s) to PATH as JSON (tests/file_order.py)",
    )


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def tier_of(path: str) -> str:
    parts = path.split("/")
    return parts[1] if len(parts) > 2 else ""


def load_costs(path: Path = COSTS) -> dict[str, float]:
    try:
        return {str(name): float(seconds) for name, seconds in json.loads(path.read_text(encoding="utf-8")).items()}
    except FileNotFoundError:
        return {}


def estimated(files: list[str], costs: dict[str, float]) -> dict[str, float]:
    """Each file's measured cost, or (not measured) the median measured cost of its tier (0 if none is)."""
    by_tier: dict[str, list[float]] = defaultdict(list)
    for name, seconds in costs.items():
        by_tier[tier_of(name)].append(seconds)
    medians = {tier: statistics.median(values) for tier, values in by_tier.items()}
    return {name: costs.get(name, medians.get(tier_of(name), 0.0)) for name in files}


def longest_first(nodeids: list[str], costs: dict[str, float]) -> list[int]:
    """The positions of `nodeids` reordered file by file, the costliest file first; a file's tests keep their order,
    files of equal cost keep theirs."""
    files = list(dict.fromkeys(file_of(nodeid) for nodeid in nodeids))
    cost = estimated(files, costs)
    rank = {name: (-cost[name], position) for position, name in enumerate(files)}
    return sorted(range(len(nodeids)), key=lambda i: (rank[file_of(nodeids[i])], i))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Only an xdist worker reorders (the controller schedules what the workers collected, in their order); a run in
    # one process keeps pytest's order.
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    order = longest_first([item.nodeid for item in items], load_costs())
    items[:] = [items[i] for i in order]


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _recorded[file_of(report.nodeid)] += report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = session.config.getoption("--record-file-costs")
    if target is None or os.environ.get("PYTEST_XDIST_WORKER"):
        return  # the controller (or the only process) saw every report
    costs = {name: round(seconds, 1) for name, seconds in sorted(_recorded.items())}
    Path(target).write_text(json.dumps(costs, indent=0) + "\n", encoding="utf-8")
