"""Tests never touch the developer's local stack (`make dev`): its data directory and its API port.

The pytest plugin (`offprompt_local.pytest_plugin`) sets `OFFPROMPT_UNDER_TEST` for the whole session, and every
stack a test starts inherits it. It names what to protect: the checkout's defaults (`.offprompt/`, port 3000)
and whatever `OFFPROMPT_DATA_DIR` / `OFFPROMPT_PORT` the developer's shell had set. While it is set,
`DataDir.acquire()` and `DevServer()` refuse those, and the module defaults as they are at that moment, before
creating, locking or binding anything. Without the variable nothing changes: it only ever makes a test stricter,
never a stack more lenient (docs/adr/0008-local-substrate.md, "Tests and the developer's stack").
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

UNDER_TEST_ENV = "OFFPROMPT_UNDER_TEST"


class TouchesDeveloperStack(RuntimeError):
    """Under test, something asked for the developer's data directory or port."""


def protection(environ: Mapping[str, str], default_data_dir: Path, default_port: int) -> str:
    """The value of OFFPROMPT_UNDER_TEST that protects the defaults and the data directory and port `environ`
    (the developer's shell) names."""
    data_dirs = {default_data_dir.resolve()}
    if environ.get("OFFPROMPT_DATA_DIR"):
        data_dirs.add(Path(environ["OFFPROMPT_DATA_DIR"]).expanduser().resolve())
    ports = {default_port}
    raw_port = environ.get("OFFPROMPT_PORT", "")
    if raw_port.isdigit() and int(raw_port) > 0:
        ports.add(int(raw_port))
    return json.dumps({"data_dirs": sorted(map(str, data_dirs)), "ports": sorted(ports)})


def _protected() -> tuple[list[Path], list[int]] | None:
    raw = os.environ.get(UNDER_TEST_ENV)
    if not raw:
        return None
    try:
        value = json.loads(raw)
        return [Path(p) for p in value.get("data_dirs", [])], [int(p) for p in value.get("ports", [])]
    except (ValueError, TypeError, AttributeError):
        return [], []  # set but unreadable: still under test, the current defaults are protected


def _refused(what: str) -> TouchesDeveloperStack:
    return TouchesDeveloperStack(
        f"{what} is refused under test ({UNDER_TEST_ENV} is set by offprompt_local.pytest_plugin): it may belong "
        "to the developer's running `make dev`. Give the stack a temporary data directory (OFFPROMPT_DATA_DIR) "
        "and a free port (--port 0), as tests/e2e/stack_process.py does."
    )


def check_data_dir(root: Path, default: Path) -> None:
    """Under test: refuse `root` when it is (or is inside) a protected data directory or `default`."""
    protected = _protected()
    if protected is None:
        return
    resolved = root.expanduser().resolve()
    for guarded in [default.resolve(), *protected[0]]:
        if resolved == guarded or guarded in resolved.parents:
            raise _refused(f"the data directory {resolved} (the developer's {guarded})")


def check_port(port: int, default: int) -> None:
    """Under test: refuse a protected port or `default` (port 0, a free port, is always fine)."""
    protected = _protected()
    if protected is not None and port != 0 and port in (default, *protected[1]):
        raise _refused(f"port {port}")
