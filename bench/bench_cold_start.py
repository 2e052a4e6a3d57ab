"""Cold-start indicators: each handler's import time (fresh interpreter, `-X importtime`) and the layer size.

    .venv/bin/python bench/bench_cold_start.py [--runs 7]

Import time is the cumulative `-X importtime` figure of the handler module (what Lambda pays before the first
invocation, on top of the runtime's own start). Reports the median of --runs fresh processes per handler, and the
same for `import boto3` as a reference point. Layer size comes from build/offprompt-layer.zip if `make layer` ran.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HANDLERS = ["add_run", "prompt_stack", "threads", "summarizer", "process_output", "load_artifacts", "memories"]


def import_ms(module: str) -> float:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'functions'}:{ROOT / 'layers' / 'offprompt'}"}
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    # Last line is the module itself: "import time: self | cumulative | name"
    last = [line for line in proc.stderr.splitlines() if line.startswith("import time:")][-1]
    return int(last.split("|")[1]) / 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    rows = []
    for module in ["boto3", *(f"{h}.handler" for h in HANDLERS)]:
        samples = [import_ms(module) for _ in range(args.runs)]
        rows.append((module, statistics.median(samples), min(samples), max(samples)))
    print(f"| module | import ms (median of {args.runs}) | min | max |")
    print("|---|---|---|---|")
    for module, med, lo, hi in rows:
        print(f"| `{module}` | {med:.0f} | {lo:.0f} | {hi:.0f} |")
    layer = ROOT / "build" / "offprompt-layer.zip"
    if layer.exists():
        with zipfile.ZipFile(layer) as zf:
            unzipped = sum(i.file_size for i in zf.infolist())
        print(f"\nlayer: {layer.stat().st_size / 2**20:.1f} MiB zipped, {unzipped / 2**20:.1f} MiB unzipped")


if __name__ == "__main__":
    main()
