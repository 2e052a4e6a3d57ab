"""`make dev` keeps its data: runs written through the stack are there after a stop and a start on the same data
directory, and `--fresh` (`make dev FRESH=1`) starts empty."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
BOOT_TIMEOUT_S = 240


@contextmanager
def running_stack(data_dir: Path, opensearch_url: str, index: str, *extra: str) -> Iterator[tuple[str, list[str]]]:
    env = {key: value for key, value in os.environ.items() if key not in ("AWS_ENDPOINT_URL", "AWS_PROFILE")}
    env.update(
        {
            "PYTHONPATH": os.pathsep.join([str(ROOT / "functions"), str(ROOT / "layers" / "offprompt")]),
            "OPENSEARCH_URL": opensearch_url,
            "OFFPROMPT_OPENSEARCH_INDEX": index,
            "OFFPROMPT_DATA_DIR": str(data_dir),
            "PYTHONUNBUFFERED": "1",
        }
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "offprompt_local.stack", "--port", "0", *extra],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    url: list[str] = []
    ready = threading.Event()

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("[stack] ready: "):
                url.append(line.split("ready: ", 1)[1].strip())
                ready.set()
        ready.set()

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    ready.wait(BOOT_TIMEOUT_S)
    try:
        assert url, "the stack did not start:\n" + "\n".join(lines[-40:])
        yield url[0], lines
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            code = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise
        reader.join(timeout=10)
        assert code == 0, "\n".join(lines[-40:])


def call(url: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    request = urllib.request.Request(
        url + path,
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"X-Offprompt-Tenant": "restart", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def run_values(url: str, thread: str) -> list[str] | None:
    status, body = call(url, "GET", f"/threads/{thread}/runs?limit=100&order=asc")
    if status == 404:
        return None
    assert status == 200, body
    return [entry["run"]["input"]["value"] for entry in body["runs"]]


def test_runs_survive_a_restart_and_fresh_starts_empty(tmp_path: Path, opensearch_url: str) -> None:
    data, index, thread = tmp_path / "data", f"offprompt-restart-{uuid.uuid4().hex[:12]}", "kept"
    values = [f"turn {i}: " + "x" * 1500 for i in range(5)]
    with running_stack(data, opensearch_url, index) as (url, _):
        for value in values:
            status, body = call(
                url,
                "POST",
                f"/threads/{thread}/runs",
                {"input": {"type": "TextArtifact", "value": value}, "output": {"type": "TextArtifact", "value": "ok"}},
            )
            assert status in (200, 201), body
    with running_stack(data, opensearch_url, index) as (url, lines):
        assert run_values(url, thread) == values
        assert any("found in the data directory" in line for line in lines)
    with running_stack(data, opensearch_url, index, "--fresh") as (url, _):
        assert not run_values(url, thread)
