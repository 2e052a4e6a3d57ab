"""Latency under load of the LOCAL stack: 1, 8 and 32 concurrent clients, p50/p95/p99 per route.

Starts `python -m offprompt_local.stack --port P` as a subprocess (or uses --url of a running one), and talks to
it only through its HTTP API, so it measures whatever substrate the stack runs on. Each client is a thread with
its own keep-alive connection and thread id; it seeds its thread with 20 runs, waits until every client has, then
loops over a route mix (weights below) for --seconds per concurrency level (default 60; --quick: 10), so each
level measures exactly that long with all its clients running.
Figures are LOCAL: the AWS emulator and OpenSearch share this machine's cores with the clients, so they are a
floor for the code paths, not a prediction of deployed latency.

    PYTHONPATH=functions:layers/offprompt .venv/bin/python bench/bench_load.py [--quick] [--seconds 60]
        [--clients 1,8,32] [--port 3917] [--url http://127.0.0.1:3000] [--json out.json]
        [--routes process-output-100k]   # only these routes (equal weights), e.g. issue 25's 100 KB text store
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MIX = {  # route: weight
    "prompt-stack": 40,
    "add-run": 20,
    "list-runs": 15,
    "process-output-small": 10,
    "load-small": 15,
}
# Routes outside the default mix, measured only when --routes names them: process-output of a 100 KB text
# (issue 25's target), each into a namespace of its own, as Griptape names every output afresh.
EXTRA_ROUTES = ("process-output-100k",)
SEED_RUNS = 20
TEXT_100K_WORDS = ("memory", "agent", "budget", "latency", "tokenizer", "snapshot", "thread", "prompt", "store")


def text_100k(rng: random.Random) -> str:
    """About 100 KB of prose-like text (words and sentences), different for every request."""
    parts: list[str] = []
    size = 0
    while size < 100_000:
        sentence = " ".join(rng.choices(TEXT_100K_WORDS, k=rng.randint(6, 18))).capitalize() + ". "
        parts.append(sentence)
        size += len(sentence)
    return "".join(parts)[:100_000]


def run_body(i: int) -> dict[str, Any]:
    words = ["the", "budget", "of", "the", "agent", "memory", "was", "discussed", "again", "with", "more", "detail"]
    text = " ".join(random.choices(words, k=random.randint(10, 60)))
    return {"type": "Run", "id": f"r{i}-{random.getrandbits(40):x}", "input": {"type": "TextArtifact", "value": text},
            "output": {"type": "TextArtifact", "value": text[::-1]}}  # fmt: skip


class Client:
    def __init__(self, base: str, tenant: str) -> None:
        url = urllib.parse.urlsplit(base)
        self.host, self.port = url.hostname or "127.0.0.1", url.port or 80
        self.headers = {"Content-Type": "application/json", "X-Offprompt-Tenant": tenant}
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        status, _, payload = self.exchange(method, path, body)
        return status, payload

    def exchange(self, method: str, path: str, body: Any = None) -> tuple[int, dict[str, str], bytes]:
        """The status, the headers (lowercased names) and the body of one request."""
        data = None if body is None else json.dumps(body).encode()
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=data, headers=self.headers)
                response = self.conn.getresponse()
                payload = response.read()
                return response.status, {k.lower(): v for k, v in response.getheaders()}, payload
            except (ConnectionError, http.client.HTTPException):
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


def worker(
    base: str,
    index: int,
    window: Window,
    samples: dict[str, list[float]],
    errors: dict[str, int],
    mix: dict[str, int] = MIX,
) -> None:
    rng = random.Random(index)
    client = Client(base, f"load-tenant-{index % 4}")
    thread, namespace = f"load-thread-{index}", f"ns{index}"
    seq = 0
    routes, weights = list(mix), list(mix.values())
    requests = {
        "prompt-stack": lambda: ("POST", f"/threads/{thread}/prompt-stack", {"input": "next?", "max_tokens": 4000}),
        "add-run": lambda: ("POST", f"/threads/{thread}/runs", run_body(seq)),
        "list-runs": lambda: ("GET", f"/threads/{thread}/runs?limit=20&order=desc", None),
        "process-output-small": lambda: (
            "POST",
            "/memories/TaskMemory/outputs",
            {
                "tool": "LoadTool",
                "activity": "fetch",
                "artifact": {"type": "TextArtifact", "name": namespace, "value": "small tool output " * 20},
            },
        ),
        "load-small": lambda: ("GET", f"/memories/TaskMemory/namespaces/{namespace}/artifacts", None),
        "process-output-100k": lambda: (
            "POST",
            "/memories/TaskMemory/outputs",
            {
                "tool": "WebScraper",
                "activity": "get_content",
                "artifact": {"type": "TextArtifact", "name": f"{namespace}-{seq}", "value": text_100k(rng)},
            },
        ),
    }
    try:
        for _ in range(SEED_RUNS):
            seq += 1
            client.call(*requests["add-run"]())
        client.call(*requests["process-output-small"]())
    except BaseException:
        window.abort()
        raise
    stop_at = window.wait()  # every client has seeded: all measure the same window, under the full load
    while time.monotonic() < stop_at:
        route = rng.choices(routes, weights)[0]
        seq += 1
        method, path, body = requests[route]()
        t0 = time.perf_counter()
        status, _ = client.call(method, path, body)
        elapsed = (time.perf_counter() - t0) * 1000
        if status >= 400:
            errors[route] += 1
        else:
            samples[route].append(elapsed)


class Window:
    """The measured window of one level: it opens when every client has seeded its thread and lasts `seconds`."""

    def __init__(self, clients: int, seconds: float) -> None:
        self.seconds = seconds
        self.opened_at = 0.0
        self._barrier = threading.Barrier(clients, action=self._open)

    def _open(self) -> None:
        self.opened_at = time.monotonic()

    def wait(self) -> float:
        """Block until every client is ready; returns when to stop."""
        self._barrier.wait(timeout=600)
        return self.opened_at + self.seconds

    def abort(self) -> None:
        """A client failed before the window opened: release the others (they raise BrokenBarrierError)."""
        self._barrier.abort()


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))] if s else float("nan")


def start_stack(port: int, data_dir: Path | None = None) -> subprocess.Popen[str]:
    """The local stack on `port` (its data in `data_dir` when given, else where `make dev` keeps it)."""
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT / 'functions'}:{ROOT / 'layers' / 'offprompt'}:{ROOT / 'infra' / 'local'}",
    }
    if data_dir is not None:
        env["OFFPROMPT_DATA_DIR"] = str(data_dir)
    proc = subprocess.Popen(
        [sys.executable, "-m", "offprompt_local.stack", "--port", str(port)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    deadline = time.monotonic() + 300
    for line in proc.stdout:
        if line.startswith("[stack] ready:"):
            threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()  # type: ignore[union-attr]
            return proc
        if time.monotonic() > deadline or proc.poll() is not None:
            break
    proc.terminate()
    raise SystemExit(f"the local stack did not start (exit {proc.poll()})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--quick", action="store_true", help="10 s per concurrency level")
    parser.add_argument("--clients", default="1,8,32")
    parser.add_argument("--port", type=int, default=3917)
    parser.add_argument("--url", help="use a running stack instead of starting one")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--routes", help=f"comma-separated, equal weights (default: the mix; extra: {EXTRA_ROUTES})")
    args = parser.parse_args()
    mix = {route: 1 for route in args.routes.split(",")} if args.routes else MIX
    unknown = set(mix) - set(MIX) - set(EXTRA_ROUTES)
    if unknown:
        parser.error(f"unknown routes: {sorted(unknown)}")
    seconds = 10.0 if args.quick else args.seconds
    proc = None if args.url else start_stack(args.port)
    base = args.url or f"http://127.0.0.1:{args.port}"
    results: dict[str, Any] = {}
    try:
        for n in [int(c) for c in args.clients.split(",")]:
            samples: dict[str, list[float]] = defaultdict(list)
            errors: dict[str, int] = defaultdict(int)
            window = Window(n, seconds)  # seeding (20 runs per client) is not measured
            threads = [
                threading.Thread(target=worker, args=(base, n * 100 + i, window, samples, errors, mix))
                for i in range(n)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            results[str(n)] = {
                route: {
                    "n": len(samples[route]),
                    "errors": errors[route],
                    "p50_ms": percentile(samples[route], 0.50),
                    "p95_ms": percentile(samples[route], 0.95),
                    "p99_ms": percentile(samples[route], 0.99),
                }
                for route in mix
            }
            total = sum(len(v) for v in samples.values())
            results[str(n)]["_throughput_rps"] = total / seconds
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
    print(
        f"LOCAL stack ({'started here' if not args.url else base}; emulator + OpenSearch share the cores),"
        f" {seconds:.0f} s per level"
    )
    print(f"{'clients':>7} {'route':<22} {'n':>6} {'err':>4} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}")
    for n, routes in results.items():
        for route in mix:
            r = routes[route]
            ms = f"{r['p50_ms']:8.1f} {r['p95_ms']:8.1f} {r['p99_ms']:8.1f}"
            print(f"{n:>7} {route:<22} {r['n']:>6} {r['errors']:>4} {ms}")
        print(f"{n:>7} {'(all) requests/s':<22} {routes['_throughput_rps']:6.1f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
