"""Start time and resident memory of the local OpenSearch node (and, optionally, a cold Maven resolution).

    .venv/bin/python bench/opensearch_startup.py [--runs 5] [--heap 512m] [--cold]

Each run starts a fresh node (warm Maven cache, launcher already built), times `start()` until
`_cluster/health?wait_for_status=yellow` answers, reads the JVM's RSS from /proc, then indexes a small
workload (300 documents with 1024-dimensional vectors, 20 filtered k-NN queries) and reads RSS and peak RSS
again. `--cold` also times a Maven build into a brand-new local repository in /tmp (downloads everything).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from offprompt_local.opensearch import OPENSEARCH_DIR, LocalOpenSearch, ensure_built, find_java_home, index_definition


def proc_status_mb(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024  # kB -> MiB
    raise KeyError(field)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process; less sensitive to a busy machine than wall-clock time."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def workload(url: str) -> None:
    from opensearchpy import OpenSearch, helpers

    client = OpenSearch(hosts=[url], timeout=120)
    definition = index_definition()
    dim = definition["mappings"]["properties"]["embedding"]["dimension"]
    client.indices.create(index="bench", body=definition)
    rng = random.Random(0)
    docs = [
        {
            "_index": "bench",
            "_id": str(i),
            "tenant": f"t{i % 2}",
            "namespace": f"n{i % 3}",
            "text": f"document number {i}",
            "embedding": [rng.gauss(0, 1) for _ in range(dim)],
        }
        for i in range(300)
    ]
    helpers.bulk(client, docs, refresh=True)
    for _ in range(20):
        query = [rng.gauss(0, 1) for _ in range(dim)]
        knn = {"vector": query, "k": 10, "filter": {"term": {"tenant": "t0"}}}
        client.search(index="bench", body={"size": 10, "query": {"knn": {"embedding": knn}}})
    client.close()


def one_run(heap: str) -> dict[str, float]:
    node = LocalOpenSearch(heap=heap)
    started = time.monotonic()
    url = node.start()
    elapsed = time.monotonic() - started
    assert node.pid is not None
    try:
        cpu_ready = cpu_seconds(node.pid)
        rss_ready = proc_status_mb(node.pid, "VmRSS")
        workload(url)
        rss_loaded = proc_status_mb(node.pid, "VmRSS")
        peak = proc_status_mb(node.pid, "VmHWM")
    finally:
        node.stop()
    return {
        "start_s": elapsed,
        "jvm_cpu_to_ready_s": cpu_ready,
        "rss_ready_mb": rss_ready,
        "rss_after_workload_mb": rss_loaded,
        "peak_rss_mb": peak,
    }


def cold_resolution() -> dict[str, float]:
    """A full `mvn package` of a copy of infra/opensearch against an empty local repository."""
    work = Path(tempfile.mkdtemp(prefix="offprompt-cold-maven-"))
    try:
        shutil.copy(OPENSEARCH_DIR / "pom.xml", work / "pom.xml")
        shutil.copytree(OPENSEARCH_DIR / "src", work / "src")
        cmd = ["mvn", "-B", "-q", f"-Dmaven.repo.local={work / 'repo'}", "-f", str(work / "pom.xml"), "package"]
        env = {**os.environ, "JAVA_HOME": str(find_java_home())}
        started = time.monotonic()
        subprocess.run(cmd, env=env, check=True, stdout=sys.stderr)  # keep stdout for the JSON result
        elapsed = time.monotonic() - started
        repo_mb = sum(p.stat().st_size for p in (work / "repo").rglob("*") if p.is_file()) / 2**20
        jars_mb = sum(p.stat().st_size for p in (work / "target").rglob("*.jar")) / 2**20
        return {"cold_build_s": elapsed, "downloaded_repo_mb": repo_mb, "runtime_jars_mb": jars_mb}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--heap", default="512m")
    parser.add_argument("--cold", action="store_true", help="also time a Maven build into an empty local repo")
    args = parser.parse_args()
    os.environ.pop("OPENSEARCH_URL", None)  # measure a node we start, never an external one

    results: dict[str, Any] = {"heap": args.heap, "runs": args.runs}
    if args.cold:
        results["cold"] = cold_resolution()
    ensure_built()  # warm: not part of the start time
    runs = [one_run(args.heap) for _ in range(args.runs)]
    results["per_run"] = runs
    results["median"] = {key: round(statistics.median(r[key] for r in runs), 2) for key in runs[0]}
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
