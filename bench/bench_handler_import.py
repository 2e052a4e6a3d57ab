"""Handler import CPU, two builds interleaved: what a function's init costs past boto3, before and after a change.

    .venv/bin/python bench/bench_handler_import.py --before /tmp/before [--after .] [--runs 7] [threads add_run ...]

Each checkout needs its host layer in `build/bench-layer` (`bench/bench_cold_start.py` builds it there). A sample is
a fresh `python3.12 -S -I` (the bench's interpreter) with that checkout's layer and functions/ on its path, boto3 and
its DynamoDB and S3 clients imported first (the bare function has them too), then `time.process_time()` around
`import <function>.handler`. Before and after alternate, the side going first alternating; min and median of each.
It measures the import only: bench_cold_start.py measures import and first request against bare boto3.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
from pathlib import Path

from offprompt_build import layer as layer_build

ROOT = Path(__file__).resolve().parents[1]
PROBE = """import sys, time
sys.path[:0] = [{layer!r}, {functions!r}]
import boto3
boto3.client("dynamodb", region_name="us-east-1"), boto3.client("s3", region_name="us-east-1")
started = time.process_time()
import {module}
print((time.process_time() - started) * 1000)
"""
# As in Lambda (template.yaml's Globals; the runtime names itself, which api_common.coldstart reads).
ENV = {
    "PYDANTIC_DISABLE_PLUGINS": "__all__",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_EXECUTION_ENV": "AWS_Lambda_python3.12",
}


def sample(python: str, checkout: Path, function: str) -> float:
    layer = checkout / "build" / "bench-layer" / "layer" / "python"
    code = PROBE.format(layer=str(layer), functions=str(checkout / "functions"), module=f"{function}.handler")
    done = subprocess.run([python, "-S", "-I", "-c", code], capture_output=True, text=True, env=ENV, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, required=True, help="a checkout with build/bench-layer")
    parser.add_argument("--after", type=Path, default=ROOT)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "functions", nargs="*", default=["threads", "add_run", "prompt_stack", "summarizer", "mcp_server"]
    )
    args = parser.parse_args()
    python = layer_build.python312()
    sides = {"before": args.before.resolve(), "after": args.after.resolve()}
    print("| handler | before CPU ms, min / median | after | min saved |\n|---|---|---|---|")
    for function in args.functions:
        got: dict[str, list[float]] = {side: [] for side in sides}
        for i in range(args.runs):
            for side in sides if i % 2 == 0 else reversed(sides):
                got[side].append(sample(python, sides[side], function))
        before, after = got["before"], got["after"]
        print(
            f"| {function} | {min(before):.0f} / {statistics.median(before):.0f} "
            f"| {min(after):.0f} / {statistics.median(after):.0f} | {min(before) - min(after):.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
