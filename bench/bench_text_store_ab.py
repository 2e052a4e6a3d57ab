"""The text store's write of one text, A/B in one process on one OpenSearch node (issue 34, ADR 0059).

Another checkout's `OpenSearchTextStore` (--before, e.g. `git archive main | tar -x -C /tmp/before`), this tree's,
and raw opensearch-py `helpers.bulk` of the same chunks as `{"text": chunk}` documents, in rotating order, each into
a fresh index per round. The index check (`ensure_index`, once per environment) is timed apart; the store is timed
as a warm environment runs it. Chunking is inside the store's time, not raw's.

    PYTHONPATH=infra/local .venv/bin/python bench/bench_text_store_ab.py --before /tmp/before [--rounds 21]
        [--size 100000]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "layers" / "offprompt"), str(ROOT / "bench")]

from bench_text_store import make_text  # noqa: E402
from opensearchpy import OpenSearch, helpers  # noqa: E402

from offprompt.adapters import opensearch_text as after_module  # noqa: E402
from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer  # noqa: E402
from offprompt.artifacts import TextArtifact  # noqa: E402
from offprompt.memory.chunking import chunk_text  # noqa: E402
from offprompt.ports import TextScope  # noqa: E402
from offprompt_local.opensearch import LocalOpenSearch, index_definition  # noqa: E402


def load_before(checkout: Path) -> Any:
    path = checkout / "layers" / "offprompt" / "offprompt" / "adapters" / "opensearch_text.py"
    spec = importlib.util.spec_from_file_location("offprompt.adapters.opensearch_text_before", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, required=True, help="a checkout whose text store is 'before'")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--size", type=int, default=100_000)
    args = parser.parse_args()
    modules = {"before": load_before(args.before), "after": after_module}
    tokenizer = BpeOpenAiTokenizer()
    text = make_text(args.size)
    chunks = chunk_text(text, tokenizer)
    samples: dict[str, list[float]] = {k: [] for k in ("before", "after", "raw", "ensure_before", "ensure_after")}
    with LocalOpenSearch() as url:
        client = OpenSearch(hosts=[url], timeout=300)
        for round_ in range(args.rounds):
            sides = ["before", "after", "raw"]
            for side in sides[round_ % 3 :] + sides[: round_ % 3]:
                index = f"ab-{side}-{uuid.uuid4().hex[:8]}"
                client.indices.create(index=index, body=index_definition())
                try:
                    if side == "raw":
                        actions = [{"_index": index, "_id": f"d{i}", "text": c} for i, c in enumerate(chunks)]
                        started = time.perf_counter()
                        helpers.bulk(client, actions, chunk_size=500, max_chunk_bytes=5 << 20)
                        samples["raw"].append(time.perf_counter() - started)
                        continue
                    store = modules[side].OpenSearchTextStore(client, index, tokenizer)
                    started = time.perf_counter()
                    store.ensure_index()
                    samples[f"ensure_{side}"].append(time.perf_counter() - started)
                    store._index_ready = True  # a warm environment checked its index once
                    scope = TextScope("t", "m", uuid.uuid4().hex)
                    started = time.perf_counter()
                    store.store(scope, 0, [TextArtifact(text)])
                    samples[side].append(time.perf_counter() - started)
                finally:
                    client.indices.delete(index=index)
    medians = {k: round(statistics.median(v) * 1000, 1) for k, v in samples.items()}
    print(f"{len(chunks)} chunks; medians of {args.rounds} rounds, ms: {medians}")
    print(
        f"before / raw {medians['before'] / medians['raw']:.2f}x, after / raw {medians['after'] / medians['raw']:.2f}x"
    )


if __name__ == "__main__":
    main()
