"""`make dev` keeps its data: runs written through the stack are there after a stop and a start on the same data
directory, and `--fresh` (`make dev FRESH=1`) starts empty."""

from __future__ import annotations

import uuid
from pathlib import Path

from stack_process import StackProcess, call

TENANT = "restart"


def run_values(url: str, thread: str) -> list[str] | None:
    status, body = call(url, "GET", f"/threads/{thread}/runs?limit=100&order=asc", tenant=TENANT)
    if status == 404:
        return None
    assert status == 200, body
    return [entry["run"]["input"]["value"] for entry in body["runs"]]


def test_runs_survive_a_restart_and_fresh_starts_empty(tmp_path: Path, opensearch_url: str) -> None:
    data, index, thread = tmp_path / "data", f"offprompt-restart-{uuid.uuid4().hex[:12]}", "kept"
    options = {"opensearch_url": opensearch_url, "index": index}
    values = [f"turn {i}: " + "x" * 1500 for i in range(5)]
    with StackProcess(data, **options) as stack:
        url = stack.wait_ready()
        for value in values:
            run = {"input": {"type": "TextArtifact", "value": value}, "output": {"type": "TextArtifact", "value": "ok"}}
            status, body = call(url, "POST", f"/threads/{thread}/runs", run, tenant=TENANT)
            assert status in (200, 201), body
    with StackProcess(data, **options) as stack:
        assert run_values(stack.wait_ready(), thread) == values
        assert any("found in the data directory" in line for line in stack.lines)
    with StackProcess(data, "--fresh", **options) as stack:
        assert not run_values(stack.wait_ready(), thread)
