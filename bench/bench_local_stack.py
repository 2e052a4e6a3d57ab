"""The local stack (`make dev`) over a long session: memory, add-run latency, prompt-stack, restart.

Starts `python -m offprompt_local.stack --port P` as a subprocess with a temporary OFFPROMPT_DATA_DIR, posts N
add-runs (~1.5 KB each) to one thread over HTTP, samples the RSS of the stack's process tree (moto, the API and
the OpenSearch JVM; read from /proc), measures prompt-stack on a 100-run thread and on the N-run thread, then
stops the stack (SIGTERM), starts it again on the same data directory and counts every run through
GET /threads/{id}/runs paging.

    .venv/bin/python bench/bench_local_stack.py [--runs 10000 | --quick] [--port 3111]

Targets (docs/benchmarks.md, "Local stack"): RSS growth ≤ 300 MB; p50 add-run latency of the last 500 runs
≤ 1.5x the first 500; prompt-stack p50 on the N-run thread ≤ 1.5x on the 100-run thread.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TENANT = "bench"
SAMPLE_EVERY = 250


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        tree.setdefault(ppid, []).append(int(entry))
    return tree


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_mib(root: int) -> tuple[float, float]:
    """(RSS of root, RSS of root and all its descendants), in MiB."""
    tree = _children()
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += _rss_kib(pid)
        stack.extend(tree.get(pid, []))
    return _rss_kib(root) / 1024, total / 1024


class Stack:
    def __init__(self, port: int, data_dir: Path, log: Path) -> None:
        self.port = port
        self.data_dir = data_dir
        self.log_path = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 300.0) -> float:
        env = {
            **os.environ,
            "OFFPROMPT_DATA_DIR": str(self.data_dir),
            "PYTHONPATH": f"{ROOT / 'functions'}:{ROOT / 'layers' / 'offprompt'}",
            "PYTHONUNBUFFERED": "1",
        }
        started = time.monotonic()
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "offprompt_local.stack", "--port", str(self.port)],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        marker = f"[stack] ready: http://127.0.0.1:{self.port}".encode()
        while time.monotonic() - started < timeout:
            if self.process.poll() is not None:
                raise RuntimeError(f"the stack exited ({self.process.returncode}); see {self.log_path}")
            if marker in self.log_path.read_bytes()[offset:]:
                return time.monotonic() - started
            time.sleep(0.2)
        raise RuntimeError(f"the stack was not ready within {timeout:.0f}s; see {self.log_path}")

    def stop(self, timeout: float = 120.0) -> float:
        assert self.process is not None
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise RuntimeError("the stack did not stop within the timeout") from None
        return time.monotonic() - started

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid


class Client:
    def __init__(self, port: int) -> None:
        self.port = port
        self.local = threading.local()

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any, float]:
        payload = json.dumps(body).encode() if body is not None else None
        headers = {"X-Offprompt-Tenant": TENANT, "Content-Type": "application/json"}
        started = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            connection.request(method, path, body=payload, headers=headers)
            response = connection.getresponse()
            data = response.read()
        finally:
            connection.close()
        elapsed = time.perf_counter() - started
        return response.status, (json.loads(data) if data else None), elapsed


def run_body(thread: str, index: int) -> dict[str, Any]:
    filler = f"{thread} run {index}: " + "lorem ipsum dolor sit amet " * 26  # ~700 chars each way, ~1.5 KB
    return {
        "input": {"type": "TextArtifact", "value": "Question " + filler},
        "output": {"type": "TextArtifact", "value": "Answer " + filler},
    }


def add_runs(client: Client, thread: str, count: int, on_progress: Any = None) -> list[float]:
    latencies = []
    for index in range(count):
        status, body, elapsed = client.request("POST", f"/threads/{thread}/runs", run_body(thread, index))
        if status not in (200, 201):
            raise RuntimeError(f"add-run {index} on {thread}: HTTP {status} {body}")
        latencies.append(elapsed)
        if on_progress is not None:
            on_progress(index + 1)
    return latencies


def prompt_stack_p50(client: Client, thread: str, reps: int) -> float:
    timings = []
    for _ in range(reps):
        status, body, elapsed = client.request("POST", f"/threads/{thread}/prompt-stack", {"max_tokens": 2000})
        if status != 200:
            raise RuntimeError(f"prompt-stack on {thread}: HTTP {status} {body}")
        timings.append(elapsed)
    return statistics.median(timings)


def iter_runs(client: Client, thread: str) -> Iterator[dict[str, Any]]:
    cursor: str | None = None
    while True:
        query = "limit=100" + (f"&cursor={cursor}" if cursor else "")
        status, body, _ = client.request("GET", f"/threads/{thread}/runs?{query}")
        if status != 200:
            raise RuntimeError(f"list runs on {thread}: HTTP {status} {body}")
        yield from body["runs"]
        cursor = body.get("next_cursor")
        if not cursor:
            return


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--quick", action="store_true", help="1,000 runs")
    parser.add_argument("--port", type=int, default=3111)
    parser.add_argument("--reps", type=int, default=15, help="prompt-stack calls per thread")
    parser.add_argument("--keep", action="store_true", help="keep the data directory and the stack's log")
    args = parser.parse_args(argv)
    runs = 1_000 if args.quick else args.runs
    window = min(500, max(runs // 4, 1))
    workdir = Path(tempfile.mkdtemp(prefix="offprompt-bench-stack-"))
    data_dir, log = workdir / "data", workdir / "stack.log"
    stack = Stack(args.port, data_dir, log)
    client = Client(args.port)
    result: dict[str, Any] = {"runs": runs, "window": window}
    ok = False
    try:
        result["start_s"] = round(stack.start(), 1)
        add_runs(client, "small", 100)
        prompt_stack_p50(client, "small", 3)  # warm up every handler once
        _, baseline = tree_rss_mib(stack.pid)
        py_baseline, _ = tree_rss_mib(stack.pid)
        samples: list[tuple[int, float, float]] = [(0, py_baseline, baseline)]
        print(f"stack up in {result['start_s']}s; RSS (tree) {baseline:.0f} MiB; posting {runs} add-runs", flush=True)
        started = time.monotonic()

        def progress(done: int) -> None:
            if done % SAMPLE_EVERY == 0 or done == runs:
                python, total = tree_rss_mib(stack.pid)
                samples.append((done, python, total))
                if done % (SAMPLE_EVERY * 4) == 0 or done == runs:
                    rate = done / (time.monotonic() - started)
                    print(
                        f"  {done:>6} runs  RSS stack {python:.0f} MiB, tree {total:.0f} MiB  ({rate:.0f}/s)",
                        flush=True,
                    )

        latencies = add_runs(client, "big", runs, progress)
        result["add_run_s"] = round(time.monotonic() - started, 1)
        first = statistics.median(latencies[:window]) * 1000
        last = statistics.median(latencies[-window:]) * 1000
        small = prompt_stack_p50(client, "small", args.reps) * 1000
        big = prompt_stack_p50(client, "big", args.reps) * 1000
        python_growth = samples[-1][1] - samples[0][1]
        tree_growth = max(s[2] for s in samples) - samples[0][2]
        result.update(
            {
                "rss_python_start_mib": round(samples[0][1]),
                "rss_python_end_mib": round(samples[-1][1]),
                "rss_python_growth_mib": round(python_growth),
                "rss_tree_start_mib": round(samples[0][2]),
                "rss_tree_max_growth_mib": round(tree_growth),
                "add_run_p50_first_ms": round(first, 1),
                "add_run_p50_last_ms": round(last, 1),
                "add_run_ratio": round(last / first, 2),
                "prompt_stack_p50_100_ms": round(small, 1),
                f"prompt_stack_p50_{runs}_ms": round(big, 1),
                "prompt_stack_ratio": round(big / small, 2),
            }
        )
        result["stop_s"] = round(stack.stop(), 1)
        result["data_dir_mib"] = round(sum(p.stat().st_size for p in data_dir.rglob("*") if p.is_file()) / 2**20, 1)
        result["restart_s"] = round(stack.start(), 1)
        counted_big = sum(1 for _ in iter_runs(client, "big"))
        counted_small = sum(1 for _ in iter_runs(client, "small"))
        result["runs_after_restart"] = {"big": counted_big, "small": counted_small}
        result["stop2_s"] = round(stack.stop(), 1)
        checks = {
            "rss_growth<=300MB": tree_growth <= 300,
            "add_run_last<=1.5x_first": last <= 1.5 * first,
            "prompt_stack_big<=1.5x_small": big <= 1.5 * small,
            "all_runs_after_restart": counted_big == runs and counted_small == 100,
        }
        result["checks"] = checks
        ok = all(checks.values())
    finally:
        if stack.process is not None and stack.process.poll() is None:
            stack.stop()
        print(json.dumps(result, indent=2), flush=True)
        if args.keep or not ok:
            print(f"data directory and log kept in {workdir}", flush=True)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
