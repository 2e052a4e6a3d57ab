"""`make` (help) lists a target for every test tier (issue 33, item 11): each directory of tests/ that holds test
files has a `test-<tier>` target that runs exactly it, and `make help` shows that target."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
#: The tier whose target has a shorter name.
SHORT = {"infrastructure": "infra"}


def tiers() -> list[str]:
    return sorted(d.name for d in (REPO / "tests").iterdir() if d.is_dir() and any(d.rglob("test_*.py")))


def recipes() -> dict[str, str]:
    """Each Makefile target's recipe (its tab-indented lines)."""
    found: dict[str, str] = {}
    target = None
    for line in (REPO / "Makefile").read_text(encoding="utf-8").splitlines():
        declared = re.match(r"^([A-Za-z0-9_-]+):", line)
        if declared:
            target = declared.group(1)
            found[target] = ""
        elif line.startswith("\t") and target is not None:
            found[target] += line + "\n"
        elif not line.strip():
            target = None
    return found


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_help_lists_a_target_for_every_test_tier() -> None:
    assert {"unit", "integration", "infrastructure", "runtime", "e2e", "browser"} <= set(tiers())
    shown = subprocess.run(["make", "-s", "help"], cwd=REPO, capture_output=True, text=True, timeout=60, check=True)
    listed = set(re.findall(r"^\s*(?:\x1b\[[0-9;]*m)?([A-Za-z0-9_-]+)", shown.stdout, flags=re.MULTILINE))
    steps = recipes()
    for tier in tiers():
        target = f"test-{SHORT.get(tier, tier)}"
        assert target in steps, f"the Makefile has no target {target} for tests/{tier}"
        assert re.search(rf"-m pytest tests/{tier}\s*$", steps[target], flags=re.MULTILINE), steps[target]
        assert target in listed, f"`make help` does not list {target}:\n{shown.stdout}"
