"""Tests never use the developer's local stack: `make test` works while `make dev` runs in the same checkout.

The pytest plugin points `OFFPROMPT_DATA_DIR` at a session temporary directory and `OFFPROMPT_PORT` at 0, and
sets `OFFPROMPT_UNDER_TEST`, under which the stack, the data directory and the dev server refuse the
checkout's `.offprompt/` and port 3000 (and whatever the developer's shell had configured) outright.

No test here binds port 3000 or opens `.offprompt/`: a developer's `make dev` may hold them right now. The
last test stands in for that `make dev` with a stack whose defaults are a temporary directory and a free port.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from stack_process import ROOT, StackProcess, call, stack_env

from offprompt_local import datadir, devserver, guard
from offprompt_local.datadir import DataDir
from offprompt_local.devserver import DevServer


def test_the_session_points_every_stack_away_from_the_developers() -> None:
    data_dir = Path(os.environ["OFFPROMPT_DATA_DIR"]).resolve()
    default = datadir.DEFAULT_DATA_DIR.resolve()
    assert data_dir != default and default not in data_dir.parents
    assert os.environ["OFFPROMPT_PORT"] == "0"
    protected = json.loads(os.environ[guard.UNDER_TEST_ENV])
    assert str(default) in protected["data_dirs"] and devserver.DEFAULT_PORT in protected["ports"]


def test_the_guard_refuses_the_default_data_dir_before_creating_or_locking_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    default = tmp_path / "checkout" / ".offprompt"  # the checkout's .offprompt/, moved out of harm's way
    monkeypatch.setattr(datadir, "DEFAULT_DATA_DIR", default)
    for root in (default, default / "moto", tmp_path / "checkout" / "x" / ".." / ".offprompt"):
        with pytest.raises(guard.TouchesDeveloperStack, match=r"\.offprompt"):
            DataDir(root).acquire()
    assert not default.exists()
    DataDir(tmp_path / "elsewhere").acquire()  # any other directory is fine


def test_the_guard_refuses_the_default_port_before_binding_it(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:  # a free port stands in for 3000
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setattr(devserver, "DEFAULT_PORT", port)
    with pytest.raises(guard.TouchesDeveloperStack, match=rf"port {port}"):
        DevServer("127.0.0.1", port, handlers={}, log=lambda line: None)
    with socket.socket() as free:  # it was never bound
        free.bind(("127.0.0.1", port))


#: Runs the stack with its defaults moved: the checkout's data directory and port are argv[1] and argv[2].
DEFAULTS_MOVED = (
    "import runpy, sys\n"
    "from pathlib import Path\n"
    "from offprompt_local import datadir, devserver\n"
    "datadir.DEFAULT_DATA_DIR = Path(sys.argv.pop(1))\n"
    "devserver.DEFAULT_PORT = int(sys.argv.pop(1))\n"
    "runpy.run_module('offprompt_local.stack', run_name='__main__', alter_sys=True)\n"
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.slow
def test_fixture_stacks_work_while_a_stack_holds_the_default_port_and_data_dir(
    tmp_path: Path, opensearch_url: str
) -> None:
    checkout_data, checkout_port = tmp_path / "checkout" / ".offprompt", free_port()
    moved = (sys.executable, "-c", DEFAULTS_MOVED, str(checkout_data), str(checkout_port))
    index = f"offprompt-isolation-{uuid.uuid4().hex[:12]}"

    # The developer's `make dev`: no OFFPROMPT_* settings, not under test, so on the defaults.
    developer_env = {
        k: v for k, v in stack_env(checkout_data, opensearch_url, index).items() if k != "OFFPROMPT_DATA_DIR"
    }
    developer_env = {k: v for k, v in developer_env.items() if k != guard.UNDER_TEST_ENV}
    with StackProcess(checkout_data, port=None, command=moved, environment=developer_env) as developer:
        dev_url = developer.wait_ready()
        assert dev_url == f"http://127.0.0.1:{checkout_port}"
        assert (checkout_data / ".lock").exists()

        # A stack as the e2e fixtures start one (tests/e2e/stack_process.py): it starts and serves.
        with StackProcess(tmp_path / "fixture", opensearch_url=opensearch_url, index=index, command=moved) as fixture:
            url = fixture.wait_ready()
            thread = {"input": {"type": "TextArtifact", "value": "q"}, "output": {"type": "TextArtifact", "value": "a"}}
            assert call(url, "POST", "/threads/isolated/runs", thread, tenant="fixture")[0] in (200, 201)
        assert call(dev_url, "GET", "/threads/isolated", tenant="fixture")[0] == 404  # nothing reached the developer's

        # A stack started with nothing but the session's environment (no data directory, no port of its own)
        # lands on the session's directory and a free port, never the developer's.
        env = {k: v for k, v in os.environ.items() if k not in ("AWS_ENDPOINT_URL", "AWS_PROFILE")}
        env.update(OPENSEARCH_URL=opensearch_url, OFFPROMPT_OPENSEARCH_INDEX=index, PYTHONUNBUFFERED="1")
        env["PYTHONPATH"] = stack_env(tmp_path, opensearch_url)["PYTHONPATH"]  # functions/ and the layer, as Lambda
        with StackProcess(tmp_path / "unused", port=None, command=moved, environment=env) as plain:
            assert plain.wait_ready() != dev_url
            plain.wait_for(rf"data directory: {Path(os.environ['OFFPROMPT_DATA_DIR']).resolve()}$", 1)

        # And one told to use the developer's directory or port fails loudly, before touching either.
        for args, named in (((), str(checkout_data)), (("--port", str(checkout_port)), f"port {checkout_port}")):
            env_default = {k: v for k, v in env.items() if k not in ("OFFPROMPT_DATA_DIR", "OFFPROMPT_PORT")}
            if args:
                env_default["OFFPROMPT_DATA_DIR"] = str(tmp_path / "unused")
            done = subprocess.run(
                [*moved, *(args or ("--port", "0"))],
                env=env_default,
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == 1, done.stdout + done.stderr
            assert "refused under test" in done.stderr and named in done.stderr, done.stderr
        assert developer.process.poll() is None  # the developer's stack never noticed
