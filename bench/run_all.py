"""`make bench`: every benchmark in bench/ at its --quick size, then one table of ratios against the anchors.

Anchors: Griptape (prompt-stack time, add-run bytes), raw boto3 / opensearch-py (task-memory and text-store
store/load time, record search p95), the best of bm25s / wordllama / their RRF (conversation-search recall@10),
a bare boto3 client making the same calls (cold start: import + first request); route CPU is shown against its 2 ms
target and the load test (local stack) in absolute terms. Each row names the command that produced it. Not part of
`make test`.

    PYTHONPATH=functions:layers/offprompt .venv/bin/python bench/run_all.py [--only route_cpu,prompt_stack,...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable


def run(args: list[str]) -> str:
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT / 'functions'}:{ROOT / 'layers' / 'offprompt'}:{ROOT / 'infra' / 'local'}",
    }
    t0 = time.monotonic()
    proc = subprocess.run([PY, *args], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    print(f"  {' '.join(args)}: {time.monotonic() - t0:.0f} s, exit {proc.returncode}", file=sys.stderr, flush=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return proc.stdout


def trailing_json(text: str) -> Any:
    for i, line in enumerate(text.splitlines()):
        if line.startswith(("{", "[")):
            try:
                return json.loads("\n".join(text.splitlines()[i:]))
            except ValueError:
                continue
    raise ValueError("no JSON in the output")


Row = tuple[str, str, str, str, str]  # benchmark, figure, ours, anchor, ratio (+ command below)


def route_cpu() -> tuple[str, list[Row]]:
    cmd = ["bench/bench_route_cpu.py", "--quick", "--json"]
    data = json.loads(run(cmd).strip().splitlines()[-1])
    rows = [
        ("route CPU", f"{name} p50 / p99", f"{r['p50_ms']:.2f} / {r['p99_ms']:.2f} ms", "target 2 / 4 ms",
         f"{r['p50_ms'] / 2:.2f}x of target")
        for name, r in data.items()
    ]  # fmt: skip
    return " ".join(cmd), rows


def prompt_stack() -> tuple[str, list[Row]]:
    cmd = ["bench/bench_prompt_stack.py", "--quick"]
    r = trailing_json(run(cmd))
    return " ".join(cmd), [
        ("prompt-stack", f"{r['runs']} runs, {r['runs_returned']} returned", f"{r['ours_median_ms']} ms",
         f"Griptape {r['griptape_median_ms']} ms", f"{r['ours_median_ms'] / r['griptape_median_ms']:.3f}x")
    ]  # fmt: skip


def forks() -> tuple[str, list[Row]]:
    cmd = ["bench/bench_fork.py", "--quick"]
    r = trailing_json(run(cmd))
    return " ".join(cmd), [
        ("fork writes", f"fork of a {r['big_runs']:,}-run thread", f"{r['fork_writes_big']} write call(s)",
         f"10-run thread: {r['fork_writes_10_runs']}", f"{r['fork_writes_big'] / r['fork_writes_10_runs']:.2f}x"),
        ("fork prompt-stack", f"{r['runs']} + {r['tail_runs']} runs, {r['runs_returned']} returned",
         f"fork {r['fork_median_ms']} ms", f"parent {r['parent_median_ms']} ms (target 1.2x)",
         f"{r['fork_over_parent']:.3f}x"),
    ]  # fmt: skip


def checkpoints() -> tuple[str, list[Row]]:
    cmd = ["bench/bench_checkpoints.py", "--quick"]
    r = trailing_json(run(cmd))
    rows: list[Row] = []
    for size in ("10KB", "2MB"):
        f = r[size]
        rows.append((f"checkpoint put {size}", f"{r['history']} earlier checkpoints", f"{f['ours_put_median_ms']} ms",
                     f"raw boto3 {f['raw_put_median_ms']} ms", f"{f['put_over_raw']:.2f}x"))  # fmt: skip
        calls = " + ".join(f"{n} {op.split('.')[1]}" for op, n in f["latest_calls"].items())
        rows.append((f"checkpoint latest {size}", calls, f"{f['ours_get_median_ms']} ms",
                     f"raw boto3 {f['raw_get_median_ms']} ms", f"{f['get_over_raw']:.2f}x"))  # fmt: skip
    return " ".join(cmd), rows


def add_run() -> tuple[str, list[Row]]:
    cmd = ["bench/bench_add_run.py", "--quick"]
    r = trailing_json(run(cmd))
    rows = []
    for point, ours in r["ours"].items():
        g = r["griptape"][point]
        mine = ours["dynamodb_bytes"] + ours["s3_bytes"]
        rows.append(("add-run bytes", f"history {point}", f"{mine:,} B", f"Griptape {g['dynamodb_bytes']:,} B",
                     f"{mine / max(1, g['dynamodb_bytes']):.3f}x"))  # fmt: skip
    return " ".join(cmd), rows


def task_memory() -> tuple[str, list[Row]]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "tm.json"
        cmd = ["bench/bench_task_memory.py", "--quick", "--out", str(out)]
        run(cmd)
        cells = json.loads(out.read_text())
    rows = []
    for c in cells:
        anchor = "raw boto3" if c["kind"] == "blob" else "raw opensearch-py"
        for op in ("store", "load"):
            rows.append((f"task memory {c['kind']}", f"{c['size']} {op}", f"{c['svc_' + op]:.1f} ms",
                         f"{anchor} {c['raw_' + op]:.1f} ms", f"{c[op + '_ratio']:.2f}x"))  # fmt: skip
    return " ".join(cmd[:2]), rows


def text_store() -> tuple[str, list[Row]]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "ts.json"
        cmd = ["bench/bench_text_store.py", "--quick", "--json", str(out)]
        run(cmd)
        cells = json.loads(out.read_text())
    rows = []
    for c in cells:
        m = c["median_ms"]
        for op in ("store", "load"):
            anchor = f"raw opensearch-py {m['raw_' + op]:.1f} ms"
            rows.append(("text store", f"{c['size']} {op}", f"{m[op]:.1f} ms", anchor, f"{c[op + '_ratio']:.2f}x"))
    return " ".join(cmd[:2]), rows


def records_search() -> tuple[str, list[Row]]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rs.json"
        cmd = ["bench/bench_records_search.py", "--quick", "--json", str(out)]
        run(cmd)
        r = json.loads(out.read_text())
    a, raw = r["adapter"], r["raw"]
    figure = f"search p95, {r['documents']} docs, {r['clients']} clients ({r['mode']})"
    anchor = f"raw opensearch-py {raw['p95']:.1f} ms (Zep published {r['zep_published_p95_ms']:.0f} ms)"
    return " ".join(cmd[:2]), [("record index", figure, f"{a['p95']:.1f} ms", anchor, f"{a['p95'] / raw['p95']:.2f}x")]


def recall() -> tuple[str, list[Row]]:
    """Issue 31: run-level recall@10 of conversation search against the best of its three baselines (+0.10 target)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "recall.json"
        cmd = ["bench/bench_recall.py", "--quick", "--split", "all"]
        run([*cmd, "--json", str(out)])
        data = json.loads(out.read_text())
    rows: list[Row] = []
    for r in data["results"]:
        methods = r["recall"]["all"]
        best = max(("bm25s", "wordllama", "rrf"), key=lambda m: methods[m][2])
        ours, anchor = methods["offprompt"][2], methods[best][2]
        figure = f"recall@10, {r['data']}, {r['questions']['all']} questions (p95 {r['p95_ms']} ms offline)"
        rows.append(("recall (offline)", figure, f"{ours:.3f}", f"best baseline {best} {anchor:.3f} (target +0.10)",
                     f"{ours - anchor:+.3f}"))  # fmt: skip
    return " ".join(cmd), rows


def cold_start() -> tuple[str, list[Row]]:
    cmd = ["bench/bench_cold_start.py", "--runs", "3"]
    rows = []
    for line in run(cmd).splitlines():
        # | function | AWS calls | wall ms | bare boto3 wall ms | ratio | CPU ms | bare boto3 CPU ms | ratio | MiB | ...
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 8 and cells[0].endswith("Function") and cells[5].replace(".", "").isdigit():
            rows.append(("cold start (CPU)", f"{cells[0]}, import + first request", f"{cells[5]} ms",
                         f"bare boto3, same calls {cells[6]} ms", cells[7]))  # fmt: skip
    return " ".join(cmd), rows


def load_test() -> tuple[str, list[Row]]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "load.json"
        cmd = ["bench/bench_load.py", "--quick", "--clients", "1,8", "--json", str(out)]
        run(cmd)
        data = json.loads(out.read_text())
    rows = []
    for n, routes in data.items():
        for route, r in routes.items():
            if route.startswith("_"):
                continue
            rows.append((f"LOCAL load, {n} clients", route, f"p50 {r['p50_ms']:.1f} / p99 {r['p99_ms']:.1f} ms",
                         "(local stack: no anchor)", "-"))  # fmt: skip
    return " ".join(cmd[:4]), rows


#: Issue 25's process-output targets (LOCAL stack, p50 ms) by client count
PROCESS_OUTPUT_100K_TARGET_MS = {"1": 100.0, "32": 250.0}


def load_100k() -> tuple[str, list[Row]]:
    """Issue 25: process-output of a 100 KB text on the local stack at 1 and 32 clients, against its targets."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "load100k.json"
        cmd = ["bench/bench_load.py", "--quick", "--clients", "1,32", "--routes", "process-output-100k"]
        run([*cmd, "--json", str(out)])
        data = json.loads(out.read_text())
    rows: list[Row] = []
    for n, routes in data.items():
        r, target = routes["process-output-100k"], PROCESS_OUTPUT_100K_TARGET_MS[n]
        ours = f"p50 {r['p50_ms']:.1f} / p99 {r['p99_ms']:.1f} ms"
        ratio = f"{r['p50_ms'] / target:.2f}x of target"
        anchor = f"target p50 {target:.0f} ms"
        rows.append((f"LOCAL load, {n} clients", "process-output 100 KB text", ours, anchor, ratio))
    return " ".join(cmd), rows


def hosted_overhead() -> tuple[str, list[Row]]:
    cmd = ["bench/bench_hosted_overhead.py", "--quick", "--json"]
    data = json.loads(run(cmd).strip().splitlines()[-1])
    rows: list[Row] = []
    for route in ("add-run", "list-runs", "prompt-stack"):
        a, j = data[f"{route} (apikey)"], data[f"{route} (jwt)"]
        figure = f"{route}: +{a['n_calls'] - j['n_calls']} AWS calls, CPU p50"
        ratio = f"{a['p50_ms'] / j['p50_ms']:.2f}x"
        rows.append(("hosted (API key)", figure, f"{a['p50_ms']:.2f} ms", f"JWT {j['p50_ms']:.2f} ms", ratio))
    auth = data["authorizer (cache miss)"]
    rows.append(("hosted (API key)", "authorizer cache miss", f"{auth['p50_ms']:.2f} ms, {auth['n_calls']} call",
                 "(no anchor)", "-"))  # fmt: skip
    return " ".join(cmd), rows


BENCHES = {
    "route_cpu": route_cpu,
    "hosted_overhead": hosted_overhead,
    "prompt_stack": prompt_stack,
    "add_run": add_run,
    "forks": forks,
    "checkpoints": checkpoints,
    "task_memory": task_memory,
    "text_store": text_store,
    "records_search": records_search,
    "recall": recall,
    "cold_start": cold_start,
    "load": load_test,
    "load_100k": load_100k,
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default=",".join(BENCHES))
    args = parser.parse_args()
    table: list[tuple[Row, str]] = []
    for name in args.only.split(","):
        print(f">> {name}", file=sys.stderr, flush=True)
        try:
            command, rows = BENCHES[name]()
        except Exception as exc:  # one failing benchmark must not hide the others
            table.append(((name, "FAILED", str(exc).strip().splitlines()[-1][:80] if str(exc) else "", "", ""), ""))
            continue
        table.extend((row, command) for row in rows)
    print("\n| benchmark | figure | ours | anchor | ours / anchor | command |")
    print("|---|---|---|---|---|---|")
    for (bench, figure, ours, anchor, ratio), command in table:
        print(f"| {bench} | {figure} | {ours} | {anchor} | {ratio} | `{command}` |")


if __name__ == "__main__":
    main()
