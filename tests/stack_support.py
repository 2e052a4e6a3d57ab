"""Helpers for tests that run the local stack as a subprocess (tests/e2e, tests/browser)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def local_admin(data_dir: Path, *args: str) -> Any:
    """`python -m offprompt_admin --local ...` against the stack running on `data_dir` (its stack.json); its JSON."""
    env = {**os.environ, "OFFPROMPT_DATA_DIR": str(data_dir)}
    for name in ("OFFPROMPT_TABLE", "AWS_ENDPOINT_URL"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-m", "offprompt_admin", "--local", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)
