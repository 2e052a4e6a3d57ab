"""`probe(code)`: run `code` in a fresh interpreter with only the functions and the library on its path, and return
the JSON its last line prints: what an import loads, seen from a process that imported nothing before it (tests of
cold-start laziness: tests/unit/test_lazy_powertools.py, test_lazy_packages.py, test_route_responses.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def probe(code: str, *extra_path: Path) -> Any:
    """`extra_path`: directories the child may import from besides the functions and the library."""
    path = os.pathsep.join(str(p) for p in (ROOT / "functions", ROOT / "layers" / "offprompt", *extra_path))
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": path}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    result: Any = json.loads(proc.stdout.strip().splitlines()[-1])
    return result
