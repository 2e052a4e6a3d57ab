"""`python -m offprompt_local.stack` as a user runs it, for the e2e tests: always on a free port (`--port 0`) and
on a data directory the test names, never the repository's `.offprompt/` or port 3000, which a developer's
`make dev` may be holding (the pytest plugin's guard refuses both anyway: `offprompt_local.pytest_plugin`).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
READY = r"^\[stack\] ready: (\S+)"
TRACEBACK = "Traceback (most recent call last):"
#: Settings of the test process that must not reach a stack: they would point it at another endpoint or port.
UNSET = ("AWS_ENDPOINT_URL", "AWS_PROFILE", "OFFPROMPT_PORT", "OFFPROMPT_MOTO_PORT", "OPENSEARCH_URL")


def stack_env(data_dir: Path, opensearch_url: str | None = None, index: str | None = None) -> dict[str, str]:
    """The environment of a stack on `data_dir`; without `opensearch_url` it starts its own OpenSearch JVM."""
    env = {name: value for name, value in os.environ.items() if name not in UNSET}
    env["OFFPROMPT_DATA_DIR"] = str(data_dir)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "functions"), str(ROOT / "layers" / "offprompt")])
    env["PYTHONUNBUFFERED"] = "1"
    if opensearch_url is not None:
        env["OPENSEARCH_URL"] = opensearch_url
    if index is not None:
        env["OFFPROMPT_OPENSEARCH_INDEX"] = index
    return env


class StackProcess:
    """A stack subprocess whose output (stdout and stderr) is collected line by line."""

    def __init__(
        self,
        data_dir: Path,
        *args: str,
        opensearch_url: str | None = None,
        index: str | None = None,
        env: Mapping[str, str] | None = None,
        environment: Mapping[str, str] | None = None,
        port: int | None = 0,
        command: Sequence[str] = (sys.executable, "-m", "offprompt_local.stack"),
        tracebacks_expected: bool = False,
    ) -> None:
        """`env` adds to `stack_env(...)`; `environment` replaces it whole. `port=None` passes no `--port`.

        A traceback in the stack's output (a function that raised: the dev server answered 500) fails the test at
        the stack's clean exit, showing it, unless the test provokes one (`tracebacks_expected`)."""
        self.tracebacks_expected = tracebacks_expected
        if environment is None:
            environment = {**stack_env(data_dir, opensearch_url, index), **(env or {})}
        self.process = subprocess.Popen(
            [*command, *(("--port", str(port)) if port is not None else ()), *args],
            env=dict(environment),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: list[str] = []
        self.changed = threading.Condition()
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()
        with self.changed:
            self.lines.append("<eof>")
            self.changed.notify_all()

    def wait_for(self, pattern: str, timeout: float, start: int = 0) -> re.Match[str]:
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for line in self.lines[start:]:
                    if match := regex.search(line):
                        return match
                if "<eof>" in self.lines or time.monotonic() > deadline:
                    pytest.fail(f"no line matching {pattern!r}:\n" + self.output())
                self.changed.wait(timeout=1)

    def wait_ready(self, timeout: float = 240) -> str:
        """The API URL once the stack says it is ready."""
        return self.wait_for(READY, timeout).group(1)

    def refused(self, timeout: float = 240) -> str:
        """Wait for a start that must fail: exit status 1, never ready; returns the output."""
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail("the stack neither stopped nor failed:\n" + self.output())
        self._reader.join(timeout=10)
        assert not any(re.search(READY, line) for line in self.lines), "the stack started:\n" + self.output()
        assert code == 1, f"exit status {code}:\n{self.output()}"
        return "\n".join(self.lines)

    def tracebacks(self) -> list[str]:
        """Each traceback the stack printed, with the 5 lines before it (which function raised) and 40 of it."""
        with self.changed:
            lines = list(self.lines)
        starts = [i for i, line in enumerate(lines) if line.startswith(TRACEBACK)]
        return ["\n".join(line[:500] for line in lines[max(0, i - 5) : i + 40]) for i in starts]

    def output(self, last: int = 80) -> str:
        return "\n".join(line[:500] for line in self.lines[-last:])

    def stop(self, timeout: float = 90) -> int:
        """SIGTERM, as Ctrl-C or a service manager stops it; the exit status (killed after `timeout`)."""
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"the stack did not stop within {timeout} s of SIGTERM:\n" + self.output())
        self._reader.join(timeout=10)
        return code

    def kill(self) -> None:
        """SIGKILL (a crash): no clean stop, no snapshot; the journal holds every acknowledged write."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._reader.join(timeout=10)

    def __enter__(self) -> StackProcess:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        if self.process.poll() is None:
            code = self.stop()
            if kind is None:
                assert code == 0, f"the stack exited with {code}:\n{self.output()}"
        if kind is None and not self.tracebacks_expected:
            assert not (found := self.tracebacks()), "the stack printed tracebacks:\n" + "\n---\n".join(found)


def call(
    url: str, method: str, path: str, body: Any = None, *, tenant: str = "local", timeout: float = 120
) -> tuple[int, Any]:
    """One JSON request; (status, decoded body or None)."""
    request = urllib.request.Request(
        url + path,
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"X-Offprompt-Tenant": tenant, "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")
