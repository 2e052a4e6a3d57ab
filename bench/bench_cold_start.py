"""Cold start: import + first request of each function against a bare boto3 client making the same AWS calls.

    .venv/bin/python bench/bench_cold_start.py [--runs 7] [--reuse-layer]
    .venv/bin/python bench/bench_cold_start.py --deps DIR --code-root CHECKOUT --no-bytecode   # another build
    .venv/bin/python bench/bench_cold_start.py --imports 5 [--only ThreadsFunction]   # the import tree per module

(The second form measures another build, e.g. an older commit's: `DIR` holds its dependencies installed for
python3.12, `CHECKOUT` its functions/ and layers/offprompt/; -B stops Python writing bytecode, as Lambda's read-only
/opt does, so a tree without .pyc compiles at every start. docs/benchmarks.md has the exact before commands.)

A Lambda-like harness: the layer as built (`python -m offprompt_build.layer --platform host`: the same lock, AWS
model trimming and 3.12 unchecked-hash bytecode as the arm64 layer, wheels for this CPU), a fresh
`python3.12 -S -I` per sample (tests/runtime/lambda_driver.py, as the runtime tier starts functions), template.yaml's
environment, and a moto server as the AWS endpoint. A sample is the wall time from process start to the first
response. The reference is tests' bare boto3 (from the same layer) in the same kind of process making the calls the
function made, recorded once beforehand (bench/_cold_start_recorder.py, replayed by bench/_cold_start_reference.py).
Function and reference samples alternate; medians, their ratio, the first request's own time (the handler call
after the import: what a change moves from the import into the first request shows there) and peak RSS (VmHWM) are
reported, and the ratio of the least CPU of each side (the samples least disturbed by a busy machine); nothing is
subtracted. `--imports N`: N cold starts of each function under `-X importtime`, the minimum
per module of its cumulative and self time (import and first request). Figures depend on the machine: compare
ratios, and only within one run.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "runtime"), str(ROOT / "tests")]

import boto3  # noqa: E402
from lambda_runtime import (  # noqa: E402
    BUCKET,
    DRIVER,
    TABLE,
    LambdaFunction,
    Resolver,
    lambda_environment,
    template_functions,
)

from offprompt_build import layer as layer_build  # noqa: E402
from offprompt_local.resources import create_bucket, create_table  # noqa: E402

LAYER_OUT = ROOT / "build" / "bench-layer"
REFERENCE = Path(__file__).with_name("_cold_start_reference.py")


def event(name: str, thread_id: str = "thread-1") -> dict[str, Any]:
    text = (ROOT / "events" / name).read_text().replace("thread-1", thread_id)
    data: dict[str, Any] = json.loads(text)
    return data


# function logical id -> (sample event for run i, the thread id that event names)
CASES: dict[str, Callable[[str], dict[str, Any]]] = {
    "AddRunFunction": lambda i: event("add_run_http.json", f"bench-add-{i}"),  # a new thread each time
    "PromptStackFunction": lambda i: event("prompt_stack_http.json"),
    "ThreadsFunction": lambda i: event("thread_get_http.json"),
    "SummarizerFunction": lambda i: event("summarizer_direct.json"),
    # the MCP endpoint's append_turn tool (add-run behind JSON-RPC), a new thread each time
    "McpFunction": lambda i: json.loads(
        (ROOT / "events" / "mcp_call_http.json").read_text().replace("thread-mcp", f"bench-add-{i}")
    ),
}


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


PYTHON_FLAGS = ["-S", "-I"]
#: The handler's own time for each first request `run_function` served (the driver's `elapsed_ms`: after the import,
#: so what a change moves from the import into the first request shows here).
FIRST_REQUEST_MS: list[float] = []


def cpu_ms(process: subprocess.Popen[str]) -> float:
    """Reap `process` and return the CPU time (user + system) it used over its life, in ms."""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return (usage.ru_utime + usage.ru_stime) * 1000


def run_function(
    python: str,
    function: LambdaFunction,
    env: dict[str, str],
    sys_path: list[str],
    payload: dict[str, Any],
    wrap: list[str] | None = None,
    stderr: Any = subprocess.DEVNULL,
) -> tuple[float, float, float, dict[str, Any]]:
    """(ms to first response, CPU ms of the process, peak RSS MiB, response) of one cold start.

    `wrap`: interpreter arguments before the driver (`-X importtime`, `-m cProfile -o FILE`) for --profile."""
    config = {
        "handler": function.handler,
        "function_name": env["AWS_LAMBDA_FUNCTION_NAME"],
        "memory_size": function.memory_size,
        "timeout_s": function.timeout_s,
        "sys_path": sys_path,
    }
    started = time.perf_counter()
    process = subprocess.Popen(
        [python, *PYTHON_FLAGS, *(wrap or []), str(DRIVER), json.dumps(config)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=env,
        cwd=env["LAMBDA_TASK_ROOT"],
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps({"event": payload}) + "\n")
    process.stdin.flush()
    ready = json.loads(process.stdout.readline() or "{}")
    if not ready.get("ready"):
        raise RuntimeError(f"{function.logical_id} failed to start: {ready}")
    outcome = json.loads(process.stdout.readline())
    elapsed = (time.perf_counter() - started) * 1000
    rss = peak_rss_mib(process.pid)
    process.stdin.close()
    cpu = cpu_ms(process)
    if "error" in outcome:
        raise RuntimeError(f"{function.logical_id} raised: {outcome['error']['traceback']}")
    FIRST_REQUEST_MS.append(float(outcome["elapsed_ms"]))
    return elapsed, cpu, rss, outcome["result"]


def run_reference(python: str, env: dict[str, str], layer: Path, calls: str) -> tuple[float, float, float]:
    started = time.perf_counter()
    process = subprocess.Popen(
        [python, *PYTHON_FLAGS, str(REFERENCE), str(layer), calls],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    line = process.stdout.readline()
    elapsed = (time.perf_counter() - started) * 1000
    rss = peak_rss_mib(process.pid)
    process.stdin.close()
    cpu = cpu_ms(process)
    if process.returncode != 0 or not line:
        raise RuntimeError("the boto3 reference failed")
    return elapsed, cpu, rss


def build_layer(reuse: bool) -> Path:
    python_dir = LAYER_OUT / "layer" / "python"
    if not (reuse and python_dir.is_dir()):
        env = {**os.environ, "PYTHONPATH": f"{ROOT / 'tools'}:{ROOT / 'layers' / 'offprompt'}"}
        command = [sys.executable, "-m", "offprompt_build.layer", "--platform", "host", "--out", str(LAYER_OUT)]
        subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    return python_dir


def profile(
    python: str, function: LambdaFunction, env: dict[str, str], sys_path: list[str], payload: dict[str, Any]
) -> None:
    """One cold start under cProfile (import + first request + exit) and one under -X importtime."""
    import pstats

    out = ROOT / "build" / f"cold-{function.logical_id}"
    out.parent.mkdir(exist_ok=True)
    run_function(python, function, env, sys_path, payload)  # the state the sample sees
    run_function(python, function, env, sys_path, payload, wrap=["-m", "cProfile", "-o", f"{out}.prof"])
    with open(f"{out}.importtime", "w") as errors:
        run_function(python, function, env, sys_path, payload, wrap=["-X", "importtime"], stderr=errors)
    stats = pstats.Stats(f"{out}.prof")
    stats.sort_stats("cumulative").print_stats(45)
    rows = []
    for line in Path(f"{out}.importtime").read_text().splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            self_us, cumulative_us, name = line[len("import time:") :].split("|")
            rows.append((int(cumulative_us), int(self_us), name.rstrip()))
    print("import time, cumulative µs (top 40):")
    for cumulative_us, self_us, name in sorted(rows, reverse=True)[:40]:
        print(f"{cumulative_us:>9} {self_us:>9}  {name}")


def import_tree(
    python: str, function: LambdaFunction, env: dict[str, str], sys_path: list[str], payload: dict[str, Any], runs: int
) -> None:
    """`runs` cold starts under -X importtime (import + first request): per module the minimum over the runs of its
    cumulative and self µs (the minimum: the run least disturbed by other processes), the top 45 by cumulative."""
    cumulative: dict[str, list[int]] = {}
    own: dict[str, list[int]] = {}
    depth: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for i in range(runs):
            path = Path(scratch) / f"{i}.importtime"
            with open(path, "w") as errors:
                run_function(python, function, env, sys_path, payload, wrap=["-X", "importtime"], stderr=errors)
            for line in path.read_text().splitlines():
                if line.startswith("import time:") and "self [us]" not in line:
                    self_us, cumulative_us, name = line[len("import time:") :].split("|")
                    key = name.strip()
                    depth.setdefault(key, (len(name) - len(name.lstrip())) // 2)
                    cumulative.setdefault(key, []).append(int(cumulative_us))
                    own.setdefault(key, []).append(int(self_us))
    total = sum(min(values) for values in own.values())
    print(f"{function.logical_id}: {len(cumulative)} modules, sum of min self {total / 1000:.0f} ms (min of {runs})")
    print("   cumulative ms    self ms  module (depth of its first import)")
    rows = sorted(((min(v), min(own[k]), k) for k, v in cumulative.items()), reverse=True)
    for cumulative_us, self_us, name in rows[:45]:
        print(f"{cumulative_us / 1000:>12.1f} {self_us / 1000:>10.1f}  {'  ' * depth[name]}{name}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--reuse-layer", action="store_true", help=f"reuse {LAYER_OUT} if it exists")
    parser.add_argument("--deps", type=Path, help="measure these python3.12 dependencies instead of the layer")
    parser.add_argument("--code-root", type=Path, default=ROOT, help="checkout whose functions/ and layers/ run")
    parser.add_argument("--no-bytecode", action="store_true", help="python -B: never write .pyc (read-only /opt)")
    parser.add_argument("--reference-deps", type=Path, help="boto3 for the reference (default: the measured layer's)")
    parser.add_argument(
        "--profile",
        metavar="FUNCTION",
        help="instead of timing: one cold start of FUNCTION (e.g. PromptStackFunction) under cProfile and one under"
        " -X importtime; writes build/cold-FUNCTION.prof and build/cold-FUNCTION.importtime, prints the top of each",
    )
    parser.add_argument(
        "--imports",
        type=int,
        metavar="N",
        help="instead of timing: N cold starts of each function under -X importtime, the min per module (the import"
        " tree of import + first request)",
    )
    parser.add_argument(
        "--against",
        type=Path,
        metavar="CHECKOUT",
        help="instead of timing against bare boto3: this build's cold starts alternating with CHECKOUT's (its"
        " functions/ and its host layer in build/bench-layer), CPU min and median of each",
    )
    parser.add_argument("--only", nargs="+", metavar="FUNCTION", help="measure only these functions (logical ids)")
    args = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    if args.no_bytecode:
        PYTHON_FLAGS.append("-B")

    from moto.server import ThreadedMotoServer

    layer = args.deps.resolve() if args.deps else build_layer(args.reuse_layer)
    reference = (args.reference_deps or layer).resolve()
    python = layer_build.python312()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    os.environ.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1")
    create_table(boto3.client("dynamodb", endpoint_url=endpoint), TABLE)
    create_bucket(boto3.client("s3", endpoint_url=endpoint), BUCKET)
    functions = template_functions()
    resolve = Resolver(
        {"AuthMode": "iam", "OpenSearchMode": "existing"},
        physical={"MemoryTable": TABLE, "BlobBucket": BUCKET},
        attributes={},
    )
    code = args.code_root.resolve()
    sys_path = [str(layer), str(code / "layers" / "offprompt"), str(code / "functions")]

    def path_of(function: LambdaFunction, build: Path = LAYER_OUT, this: list[str] = sys_path) -> list[str]:
        """`this` with the trees of the function's own layers (template.yaml: the text add-on for some) in place of
        the core layer's, as Lambda gives them; --deps measures one tree for every function."""
        if args.deps:
            return this
        trees = [str(build / layer_build.LAYERS[logical_id].directory / "python") for logical_id in function.layers]
        return [*trees, *this[1:]]

    # A thread with a few runs, for prompt-stack, threads and the summarizer to read.
    add_run = functions["AddRunFunction"]
    add_env = lambda_environment(add_run, resolve, endpoint_url=endpoint)
    for n in range(1, 4):
        payload = event("add_run_http.json")
        payload["body"] = payload["body"].replace("run-1", f"run-{n}")
        run_function(python, add_run, add_env, sys_path, payload)

    print(f"cold start = process start to first response (CPU: the process' whole life); median of {args.runs}")
    print(f"python3.12 {PYTHON_FLAGS}; measured {layer} + {code}; reference boto3 from {reference}")
    print(
        "| function | AWS calls | wall ms | bare boto3 wall ms | ratio | CPU ms | bare boto3 CPU ms | ratio "
        "| first request ms | CPU min ratio | MiB | bare boto3 MiB |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    if args.profile:
        profile(
            python,
            functions[args.profile],
            lambda_environment(functions[args.profile], resolve, endpoint_url=endpoint),
            path_of(functions[args.profile]),
            CASES[args.profile]("profile"),
        )
        server.stop()
        return
    if args.imports:
        for logical_id, make_event in CASES.items():
            if not args.only or logical_id in args.only:
                function = functions[logical_id]
                env = lambda_environment(function, resolve, endpoint_url=endpoint)
                run_function(python, function, env, path_of(function), make_event("warm"))  # the state the samples see
                import_tree(python, function, env, path_of(function), make_event("imports"), args.imports)
        server.stop()
        return
    if args.against:
        other = args.against.resolve()
        other_build = other / "build" / "bench-layer"
        other_base = [str(other_build / "layer" / "python"), str(other / "functions")]
        print(f"\n| function | {other} CPU ms, min / median | this build | min saved |\n|---|---|---|---|")
        for logical_id, make_event in CASES.items():
            if not args.only or logical_id in args.only:
                function = functions[logical_id]
                env = lambda_environment(function, resolve, endpoint_url=endpoint)
                cpu: dict[str, list[float]] = {"other": [], "this": []}
                other_path, this_path = path_of(function, other_build, other_base), path_of(function)
                for path in (other_path, this_path):
                    run_function(python, function, env, path, make_event("warm"))  # the state the samples see
                for i in range(args.runs):
                    for side in ("other", "this") if i % 2 == 0 else ("this", "other"):
                        path = other_path if side == "other" else this_path
                        cpu[side].append(run_function(python, function, env, path, make_event(f"{side}{i}"))[1])
                b, a = cpu["other"], cpu["this"]
                print(
                    f"| {logical_id} | {min(b):.0f} / {statistics.median(b):.0f} | {min(a):.0f} / "
                    f"{statistics.median(a):.0f} | {min(b) - min(a):.0f} |",
                    flush=True,
                )
        server.stop()
        return
    with tempfile.TemporaryDirectory() as scratch:
        for logical_id, make_event in CASES.items():
            if args.only and logical_id not in args.only:
                continue
            function = functions[logical_id]
            env = lambda_environment(function, resolve, endpoint_url=endpoint)
            calls_file = Path(scratch) / f"{logical_id}.json"
            recorder_env = {
                **env,
                "BENCH_TARGET_HANDLER": function.handler,
                "BENCH_CALLS_FILE": str(calls_file),
            }
            recorder = LambdaFunction(**{**function.__dict__, "handler": "_cold_start_recorder.lambda_handler"})
            function_path = path_of(function)
            run_function(python, function, env, function_path, make_event("warm"))  # the state the samples see
            run_function(python, recorder, recorder_env, [*function_path, str(ROOT / "bench")], make_event("rec"))
            recorded = calls_file.read_text()

            fn: list[tuple[float, float, float]] = []
            ref: list[tuple[float, float, float]] = []
            FIRST_REQUEST_MS.clear()
            for i in range(args.runs):
                fn.append(run_function(python, function, env, function_path, make_event(str(i)))[:3])
                ref.append(run_reference(python, env, reference, recorded.replace("bench-add-rec", f"bench-ref-{i}")))
            f_wall, f_cpu, f_rss = (statistics.median(sample[k] for sample in fn) for k in range(3))
            r_wall, r_cpu, r_rss = (statistics.median(sample[k] for sample in ref) for k in range(3))
            print(
                f"| {logical_id} | {len(json.loads(recorded))} | {f_wall:.0f} | {r_wall:.0f} | {f_wall / r_wall:.2f}x "
                f"| {f_cpu:.0f} | {r_cpu:.0f} | {f_cpu / r_cpu:.2f}x | {statistics.median(FIRST_REQUEST_MS):.0f} "
                f"| {min(x[1] for x in fn) / min(x[1] for x in ref):.2f}x | {f_rss:.0f} | {r_rss:.0f} |",
                flush=True,
            )
    server.stop()
    if not args.deps:
        layer_zip = LAYER_OUT / layer_build.ZIP_NAME
        print(
            f"\nlayer (host build, same contents as the arm64 one): {layer_zip.stat().st_size / 2**20:.1f} MiB zipped"
        )


if __name__ == "__main__":
    main()
