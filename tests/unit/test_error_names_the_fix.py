"""Errors that name their fix (issue 33, item 7): `make demo` against a stack on another port, `offprompt-admin
--local` with the stack's data directory elsewhere, and `python -m offprompt_local.stack` run without the Makefile's
PYTHONPATH."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from offprompt_client import OffpromptConnectionError

REPO = Path(__file__).resolve().parents[2]


def test_the_demo_names_the_url_it_tried_and_the_stack_that_runs_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from offprompt_local import demo

    def refused(api: object, keep: bool) -> str:
        raise OffpromptConnectionError(0, "connection_error", "connection refused")

    monkeypatch.setattr(demo, "run_demo", refused)
    monkeypatch.setenv("OFFPROMPT_DATA_DIR", str(tmp_path))
    assert demo.main(["--url", "http://127.0.0.1:3000"]) == 2
    err = capsys.readouterr().err
    assert "http://127.0.0.1:3000" in err and "make dev" in err and "OFFPROMPT_API_URL" in err

    (tmp_path / "stack.json").write_text(json.dumps({"api_url": "http://127.0.0.1:3001"}), encoding="utf-8")
    assert demo.main(["--url", "http://127.0.0.1:3000"]) == 2
    assert "OFFPROMPT_API_URL=http://127.0.0.1:3001 make demo" in capsys.readouterr().err


def test_admin_local_without_a_stack_names_the_data_directory_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from offprompt_admin.__main__ import main

    assert main(["--local", "--data-dir", str(tmp_path), "key", "list", "acme"]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path / "stack.json") in err and "make dev" in err
    assert "--data-dir" in err and "OFFPROMPT_DATA_DIR" in err


def test_the_stack_module_imports_the_functions_without_the_makefiles_pythonpath(tmp_path: Path) -> None:
    """README: `python -m offprompt_local.stack --fresh`. Its `main` is run up to starting the stack (stubbed: no
    ports, no processes), in a process without PYTHONPATH, and the stub imports every function's routes."""
    probe = textwrap.dedent(
        """
        import sys
        from offprompt_local import stack

        class Probe:
            def __init__(self, **kwargs):
                pass

            def start(self):
                from offprompt_local.routes import declared_routes

                print("routes", len(declared_routes()))
                raise KeyboardInterrupt

            def stop(self):
                pass

        stack.LocalStack = Probe
        sys.exit(stack.main(["--fresh"]))
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["OFFPROMPT_DATA_DIR"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "routes" in done.stdout and "No module named" not in done.stderr
