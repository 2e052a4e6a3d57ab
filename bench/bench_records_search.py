"""Long-term record search on OpenSearch (issue 22): OpenSearchRecordIndex.search vs a raw opensearch-py query of the
same shape, 8 concurrent clients, one tenant's records in a namespace tree, on the local node.

    .venv/bin/python bench/bench_records_search.py [--quick] [--records 10000] [--clients 8] [--queries 250]
                                                   [--mode bm25] [--json out.json]

Uses the local node (`offprompt_local.opensearch.LocalOpenSearch`, or OPENSEARCH_URL when set), a fresh index made by
the adapter's own `ensure_index` (the text store's definition). Records: `--records` versions under
("users", u0..u49, prefs|facts|notes|summaries[, 2024|2025]), each a 20-60 word text drawn from an 800-word vocabulary
(Zipf-like), indexed through `OpenSearchRecordIndex.index` by 8 threads; a tenth are replaced (the old version
superseded, a new one indexed), so current searches filter out real superseded documents; then one refresh.

Each client runs `--queries` iterations; an iteration is one adapter search and one raw search (alternating which goes
first) of the same random 1-3 word query under a random prefix of depth 1-3, size 10, current versions:
- adapter: `OpenSearchRecordIndex.search(tenant, prefix, query, size=10, mode=...)` (checks, body, hit parsing and
  checks, dedup, ordering);
- raw: `client.search(index, body)` with the body the adapter sends (`opensearch_query.bm25_body` + `record_scope`),
  nothing parsed.
Latencies are wall-clock per call, in ms, over all clients. The figure to put beside Zep's published 155 ms retrieval
p95 is the adapter's p95; the deployed search adds the DynamoDB check of the candidates (ADR 0034), not measured here.
`--quick`: 2,000 records, 4 clients x 50 iterations (a smoke run, minutes less on a shared machine).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "offprompt"))

from opensearchpy import OpenSearch  # noqa: E402

from offprompt.adapters.opensearch_query import search_bodies  # noqa: E402
from offprompt.adapters.opensearch_records import OpenSearchRecordIndex, record_scope  # noqa: E402
from offprompt.ports import Embedder, RecordDoc  # noqa: E402
from offprompt_local.opensearch import LocalOpenSearch  # noqa: E402

TENANT = "bench-tenant"
ZEP_P95_MS = 155.0
SOURCE = ["tenant", "doc_kind", "record_namespace", "record_key", "record_version"]


def vocabulary(rng: random.Random) -> list[str]:
    return ["".join(rng.choices("etaoinshrdlcumwfgypbvkjxqz", k=rng.randint(3, 9))) for _ in range(800)]


def records(count: int, rng: random.Random, words: list[str]) -> list[RecordDoc]:
    weights = [1.0 / (rank + 1) for rank in range(len(words))]
    kinds = ["prefs", "facts", "notes", "summaries"]
    out = []
    for n in range(count):
        namespace: tuple[str, ...] = ("users", f"u{n % 50}", kinds[(n // 50) % 4])
        if n % 3 == 0:
            namespace = (*namespace, f"y{2024 + n % 2}")
        text = " ".join(rng.choices(words, weights=weights, k=rng.randint(20, 60)))
        out.append(RecordDoc(TENANT, namespace, f"k{n}", 1, text, 1_700_000_000.0 + n))
    return out


def load(index: OpenSearchRecordIndex, docs: list[RecordDoc], rng: random.Random, words: list[str]) -> float:
    """Index every record (8 threads), replace a tenth; the adapter's median index latency in ms."""
    times: list[float] = []
    lock = threading.Lock()

    def put(doc: RecordDoc) -> str:
        started = time.perf_counter()
        doc_id = index.index(doc)
        with lock:
            times.append((time.perf_counter() - started) * 1000)
        return doc_id

    with ThreadPoolExecutor(8) as pool:
        ids = list(pool.map(put, docs))
        replaced = rng.sample(range(len(docs)), len(docs) // 10)
        for n in replaced:
            index.supersede(TENANT, ids[n], docs[n].valid_from + 10_000)
        newer = [
            RecordDoc(TENANT, docs[n].namespace, docs[n].key, 2, " ".join(rng.choices(words, k=30)), docs[n].valid_from)
            for n in replaced
        ]
        list(pool.map(put, newer))
    index.client.indices.refresh(index=index.index_name)
    return statistics.median(times)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(args: argparse.Namespace, url: str) -> dict[str, Any]:
    rng = random.Random(7)
    client = OpenSearch(hosts=[url], use_ssl=False, verify_certs=False, timeout=60, pool_maxsize=args.clients * 2)
    embedder: Embedder | None = None
    if args.mode != "bm25":
        from offprompt_local.embedder import LocalWordLlamaEmbedder

        embedder = LocalWordLlamaEmbedder()
    index = OpenSearchRecordIndex(client, f"offprompt-bench-records-{uuid.uuid4().hex}", embedder)
    words = vocabulary(rng)
    try:
        started = time.perf_counter()
        index_ms = load(index, records(args.records, rng, words), rng, words)
        load_s = time.perf_counter() - started
        count = client.count(index=index.index_name)["count"]
        adapter: list[float] = []
        raw: list[float] = []
        lock = threading.Lock()

        def client_loop(seed: int) -> None:
            local = random.Random(seed)
            mine_adapter, mine_raw = [], []
            for i in range(args.queries):
                query = " ".join(local.choices(words[:200], k=local.randint(1, 3)))
                prefix: tuple[str, ...] = ("users",)
                depth = local.randint(1, 3)
                if depth >= 2:
                    prefix = (*prefix, f"u{local.randrange(50)}")
                if depth >= 3:
                    prefix = (*prefix, local.choice(["prefs", "facts", "notes", "summaries"]))
                body = search_bodies(args.mode, query, 10, record_scope(TENANT, prefix, None), SOURCE, embedder)
                order = (0, 1) if i % 2 == 0 else (1, 0)
                for which in order:
                    started = time.perf_counter()
                    if which == 0:
                        index.search(TENANT, prefix, query, size=10, mode=args.mode)
                        mine_adapter.append((time.perf_counter() - started) * 1000)
                    else:
                        if len(body) == 1:
                            client.search(index=index.index_name, body=body[0])
                        else:
                            lines = "".join(
                                json.dumps({"index": index.index_name}) + "\n" + json.dumps(b) + "\n" for b in body
                            )
                            client.msearch(body=lines)
                        mine_raw.append((time.perf_counter() - started) * 1000)
            with lock:
                adapter.extend(mine_adapter)
                raw.extend(mine_raw)

        started = time.perf_counter()
        with ThreadPoolExecutor(args.clients) as pool:
            list(pool.map(client_loop, range(args.clients)))
        elapsed = time.perf_counter() - started
    finally:
        client.indices.delete(index=index.index_name, ignore_unavailable=True)
        client.close()

    def stats(values: list[float]) -> dict[str, float]:
        return {
            "p50": round(percentile(values, 0.50), 2),
            "p95": round(percentile(values, 0.95), 2),
            "p99": round(percentile(values, 0.99), 2),
            "mean": round(statistics.fmean(values), 2),
        }

    return {
        "records": args.records,
        "documents": count,
        "clients": args.clients,
        "queries_per_client": args.queries,
        "mode": args.mode,
        "load_s": round(load_s, 1),
        "index_p50_ms": round(index_ms, 2),
        "adapter": stats(adapter),
        "raw": stats(raw),
        "searches_per_s": round((len(adapter) + len(raw)) / elapsed, 1),
        "zep_published_p95_ms": ZEP_P95_MS,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--queries", type=int, default=250)
    parser.add_argument("--mode", choices=["bm25", "knn", "hybrid"], default="bm25")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.quick:
        args.records, args.clients, args.queries = 2_000, 4, 50
    if os.environ.get("OPENSEARCH_URL"):
        result = run(args, os.environ["OPENSEARCH_URL"])
    else:
        with LocalOpenSearch() as url:
            result = run(args, url)
    print(
        f"\nrecord search, {result['documents']} documents ({result['records']} records + replacements), "
        f"{result['clients']} clients x {result['queries_per_client']} iterations, {result['mode']}, size 10"
    )
    print(f"{'':28} {'p50':>8} {'p95':>8} {'p99':>8} {'mean':>8}  (ms)")
    for name in ("adapter", "raw"):
        s = result[name]
        label = "OpenSearchRecordIndex" if name == "adapter" else "raw opensearch-py"
        print(f"{label:28} {s['p50']:8.2f} {s['p95']:8.2f} {s['p99']:8.2f} {s['mean']:8.2f}")
    print(f"{'Zep (published retrieval)':28} {'':8} {ZEP_P95_MS:8.2f}")
    print(
        f"searches/s (both kinds) {result['searches_per_s']}; load {result['load_s']} s, "
        f"index p50 {result['index_p50_ms']} ms"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
