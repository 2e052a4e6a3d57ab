"""Text storage on OpenSearch: OpenSearchTextStore vs the raw minimum, store and load, 1 KB / 1 MB / 50 MB.

    .venv/bin/python bench/bench_text_store.py [--runs 3] [--sizes 1k,1m,50m] [--tokenizer bpe-openai] [--json out.json]

Uses the local node (`offprompt_local.opensearch.LocalOpenSearch`, or OPENSEARCH_URL when set). For each size
and run, on a fresh index each:
- adapter store: `OpenSearchTextStore.store` of one TextArtifact (chunking + envelope + bulk requests);
- adapter load: `OpenSearchTextStore.load` of it (mget pages, checks, reassembly, artifact decode);
- raw store: the adapter's own chunks (chunking not timed) as `{"text": chunk}` documents with the same ids,
  through `opensearchpy.helpers.bulk` (500 docs / 5 MB per request, like the adapter);
- raw load: `mget` of those ids in pages of 500 and `"".join` of the texts.
Adapter and raw alternate within a run. Times are medians (ms); calls are counted at the transport.
No embedder (BM25 only): embedding cost is Bedrock's, not the store's. The tokenizer is the text store's
(`bpe-openai`, docs/adr/0025-fast-bpe-for-chunking.md); `--tokenizer tiktoken` runs the same with tiktoken's.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "offprompt"))

from opensearchpy import OpenSearch, helpers  # noqa: E402

from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer  # noqa: E402
from offprompt.adapters.opensearch_text import OpenSearchTextStore, document_id, index_definition  # noqa: E402
from offprompt.adapters.tokenizer import TiktokenTokenizer  # noqa: E402
from offprompt.artifacts import TextArtifact  # noqa: E402
from offprompt.memory.chunking import chunk_text  # noqa: E402
from offprompt.ports import TextScope, Tokenizer  # noqa: E402
from offprompt_local.opensearch import LocalOpenSearch  # noqa: E402

SIZES = {"1k": 1_000, "100k": 100_000, "1m": 1_000_000, "50m": 50_000_000}
SCOPE = TextScope("bench-tenant", "TaskMemory", "bench-namespace")
TOKENIZERS: dict[str, type[Tokenizer]] = {"bpe-openai": BpeOpenAiTokenizer, "tiktoken": TiktokenTokenizer}


def make_text(size: int, seed: int = 0) -> str:
    """English-like prose with some non-ASCII, paragraphs every ~60 words, exactly `size` characters."""
    rng = random.Random(seed)
    vocab = ["".join(rng.choices("etaoinshrdlcumwfgypbvkjxqz", k=rng.randint(1, 10))) for _ in range(8000)] + [
        "caf\u00e9",
        "na\u00efve",
        "\u6f22\u5b57",
        "\U0001f600",
        "\u05e9\u05dc\u05d5\u05dd",
        "<|endoftext|>",
    ]
    parts: list[str] = []
    total = 0
    while total < size:
        paragraph = " ".join(rng.choices(vocab, k=60)) + ".\n\n"
        parts.append(paragraph)
        total += len(paragraph)
    return "".join(parts)[:size]


class CallCounter:
    """Counts requests at the transport: (method, first path segment after the index)."""

    def __init__(self, client: OpenSearch) -> None:
        self.calls: Counter[str] = Counter()
        self._original = client.transport.perform_request
        client.transport.perform_request = self._perform  # type: ignore[method-assign]

    def _perform(self, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        endpoint = next((p for p in url.split("?")[0].split("/") if p.startswith("_")), url)
        self.calls[f"{method} {endpoint}"] += 1
        return self._original(method, url, *args, **kwargs)

    def take(self) -> dict[str, int]:
        out = dict(self.calls)
        self.calls.clear()
        return out


def timed(fn: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    result = fn()
    return (time.perf_counter() - started) * 1000, result


def bench_size(
    client: OpenSearch, counter: CallCounter, label: str, runs: int, tokenizer_name: str = "bpe-openai"
) -> dict[str, Any]:
    tokenizer = TOKENIZERS[tokenizer_name]()
    text = make_text(SIZES[label])
    artifact = TextArtifact(text, name="page")
    chunk_ms, chunks = timed(lambda: chunk_text(text, tokenizer))
    samples: dict[str, list[float]] = {k: [] for k in ("store", "load", "raw_store", "raw_load", "chunking")}
    calls: dict[str, dict[str, int]] = {}
    for run in range(runs):
        index = f"bench-text-{uuid.uuid4().hex}"
        client.indices.create(index=index, body=index_definition())
        try:
            store = OpenSearchTextStore(client, index, tokenizer)
            counter.take()
            ms, counts = timed(lambda store=store: store.store(SCOPE, 0, [artifact]))
            samples["store"].append(ms)
            calls["store"] = counter.take()
            assert counts == [len(chunks)], (counts, len(chunks))
            ms, loaded = timed(lambda store=store: store.load(SCOPE, [(0, len(chunks))]))
            samples["load"].append(ms)
            calls["load"] = counter.take()
            assert loaded[0].to_json() == artifact.to_json()

            raw_index = f"bench-raw-{uuid.uuid4().hex}"
            client.indices.create(index=raw_index, body=index_definition())
            try:
                ids = [document_id(SCOPE, 0, i) for i in range(len(chunks))]
                actions = ({"_index": raw_index, "_id": i, "text": c} for i, c in zip(ids, chunks, strict=True))
                counter.take()
                ms, _ = timed(
                    lambda actions=actions: helpers.bulk(
                        client, actions, chunk_size=500, max_chunk_bytes=5 * 1024 * 1024, request_timeout=120
                    )
                )
                samples["raw_store"].append(ms)
                calls["raw_store"] = counter.take()

                def raw_load(raw_index: str = raw_index, ids: list[str] = ids) -> str:
                    texts: list[str] = []
                    for first in range(0, len(ids), 500):
                        docs = client.mget(index=raw_index, body={"ids": ids[first : first + 500]})["docs"]
                        texts.extend(d["_source"]["text"] for d in docs)
                    return "".join(texts)

                ms, raw_text = timed(raw_load)
                samples["raw_load"].append(ms)
                calls["raw_load"] = counter.take()
                assert raw_text == text
            finally:
                client.indices.delete(index=raw_index, ignore_unavailable=True)
        finally:
            client.indices.delete(index=index, ignore_unavailable=True)
        samples["chunking"].append(chunk_ms if run == 0 else timed(lambda: chunk_text(text, tokenizer))[0])
        print(f"  {label} run {run + 1}: " + ", ".join(f"{k} {v[-1]:.0f}" for k, v in samples.items()), flush=True)
    medians = {k: statistics.median(v) for k, v in samples.items()}
    return {
        "size": label,
        "chars": len(text),
        "utf8_bytes": len(text.encode()),
        "chunks": len(chunks),
        "tokens": sum(tokenizer.count_tokens(c) for c in chunks),
        "median_ms": medians,
        "store_ratio": medians["store"] / medians["raw_store"],
        "load_ratio": medians["load"] / medians["raw_load"],
        "calls": calls,
        "samples_ms": samples,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="1k,1m,50m")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--tokenizer", choices=sorted(TOKENIZERS), default="bpe-openai")
    parser.add_argument("--quick", action="store_true", help="1 run of 1k and 1m")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.sizes = 1, "1k,1m"
    with LocalOpenSearch() as url:
        client = OpenSearch(hosts=[url], timeout=120)
        counter = CallCounter(client)
        # Warm up the node and the tokenizer (JIT, caches) before measuring.
        bench_size(client, counter, "1k", 1, args.tokenizer)
        results = []
        for label in args.sizes.split(","):
            results.append(bench_size(client, counter, label, args.runs, args.tokenizer))
        client.close()
    print("\n| size | chunks | adapter store | raw store | ratio | adapter load | raw load | ratio | chunking |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        m = r["median_ms"]
        print(
            f"| {r['size']} | {r['chunks']} | {m['store']:.1f} | {m['raw_store']:.1f} | {r['store_ratio']:.2f}x "
            f"| {m['load']:.1f} | {m['raw_load']:.1f} | {r['load_ratio']:.2f}x | {m['chunking']:.1f} |"
        )
    for r in results:
        print(r["size"], json.dumps(r["calls"]))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
