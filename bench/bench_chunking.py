"""Text chunking: the text store's chunker with bpe-openai's BPE vs the chunker before it, on tiktoken, same run.

    .venv/bin/python bench/bench_chunking.py [--runs 5] [--sizes 1m,50m] [--before ae7a751] [--json out.json]

Text: bench_text_store's prose (`make_text`, seed 0). For each size, in one process, alternating within each run
(CPU time of this process, ms; medians over `--runs`):
- before: `chunk_text` as it was at git revision `--before` (read with `git show`, one tiktoken `encode` per
  window) with `TiktokenTokenizer`: the text store's chunking until docs/adr/0025-fast-bpe-for-chunking.md;
- after: `chunk_text` now with `BpeOpenAiTokenizer` (what the text store uses), its per-piece count cache warm
  (it persists per process); `after, cold cache` empties that cache first (a fresh process; the extension's
  load and the encoding's build, ~30 ms once per process, are reported apart as `first_use_ms`);
- now+tiktoken: `chunk_text` now with `TiktokenTokenizer`;
- anchor: one tiktoken `encode_ordinary` of the whole text.
Every variant's chunks are checked equal to before's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "offprompt"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_text_store import SIZES, make_text  # noqa: E402

from offprompt.adapters import bpe_tokenizer  # noqa: E402
from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer  # noqa: E402
from offprompt.adapters.tokenizer import TiktokenTokenizer, get_encoding  # noqa: E402
from offprompt.memory.chunking import chunk_text  # noqa: E402

CHUNKING = "layers/offprompt/offprompt/memory/chunking.py"


def chunker_at(revision: str) -> Callable[..., list[str]]:
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{revision}:{CHUNKING}"], capture_output=True, text=True, check=True
    ).stdout
    module = types.ModuleType(f"chunking_at_{revision}")
    exec(compile(source, f"{revision}:{CHUNKING}", "exec"), module.__dict__)
    return module.chunk_text  # type: ignore[no-any-return]


def cpu_ms(fn: Callable[[], Any]) -> tuple[float, Any]:
    started = time.process_time()
    result = fn()
    return (time.process_time() - started) * 1000, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="1m,50m")
    parser.add_argument("--before", default="ae7a751", help="git revision of the chunker to compare with")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    before_chunk = chunker_at(args.before)
    tiktoken_tok, bpe_tok = TiktokenTokenizer(), BpeOpenAiTokenizer()
    first_use_ms, _ = cpu_ms(lambda: bpe_tok.count_tokens("warm up"))
    get_encoding("cl100k_base")
    encoder = bpe_tokenizer._encoder("cl100k_base")

    def cold_after(text: str) -> list[str]:
        encoder.counts.clear()
        return chunk_text(text, bpe_tok)

    variants: dict[str, Callable[[str], Any]] = {
        "before (tiktoken)": lambda text: before_chunk(text, tiktoken_tok),
        "after (bpe-openai)": lambda text: chunk_text(text, bpe_tok),
        "after, cold cache": cold_after,
        "now+tiktoken": lambda text: chunk_text(text, tiktoken_tok),
        "anchor: one encode": lambda text: get_encoding("cl100k_base").encode_ordinary(text),
    }
    results: dict[str, Any] = {"first_use_ms": first_use_ms, "before": args.before, "sizes": {}}
    print(f"bpe-openai first use (load extension + build cl100k_base): {first_use_ms:.0f} ms CPU")
    for label in args.sizes.split(","):
        text = make_text(SIZES[label])
        reference = before_chunk(text, tiktoken_tok)
        samples: dict[str, list[float]] = {name: [] for name in variants}
        for run in range(args.runs):
            for name, fn in variants.items():
                ms, out = cpu_ms(lambda fn=fn, text=text: fn(text))
                samples[name].append(ms)
                if not name.startswith("anchor"):
                    assert out == reference, f"{name}: chunks differ from before's"
            print(f"  {label} run {run + 1}: " + ", ".join(f"{k} {v[-1]:.0f}" for k, v in samples.items()), flush=True)
        medians = {name: statistics.median(v) for name, v in samples.items()}
        before = medians["before (tiktoken)"]
        print(f"{label} ({len(text):,} chars, {len(reference):,} chunks), median CPU ms, speed-up vs before:")
        for name, ms in medians.items():
            print(f"  {name:22s} {ms:9.1f}   {before / ms:5.2f}x")
        results["sizes"][label] = {"chunks": len(reference), "median_ms": medians, "samples_ms": samples}
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
