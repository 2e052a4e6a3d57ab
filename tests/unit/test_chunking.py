"""chunk_text: exact reassembly and the token bound, for arbitrary unicode, with the real cl100k_base tokenizers.

Every property runs with both tokenizers the code uses: tiktoken (`TiktokenTokenizer`) and bpe-openai's Rust BPE
(`BpeOpenAiTokenizer`, the text store's); bounds are always checked with tiktoken's counts, and the two
tokenizers' chunks must be identical.
"""

from __future__ import annotations

import importlib.util
import random
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer
from offprompt.adapters.tokenizer import TiktokenTokenizer
from offprompt.memory.chunking import DEFAULT_CHUNK_TOKENS, MIN_CHUNK_TOKENS, chunk_text
from offprompt.ports import Tokenizer

TOKENIZER = TiktokenTokenizer()  # the reference: every bound is checked with its counts
TOKENIZERS = [TOKENIZER, BpeOpenAiTokenizer()]
with_both_tokenizers = pytest.mark.parametrize("tokenizer", TOKENIZERS, ids=["tiktoken", "bpe-openai"])

# Pieces that stress tiktoken: multi-byte characters whose bytes BPE splits across tokens, combining marks,
# ZWJ emoji sequences, CJK, right-to-left text, special-token strings, every kind of whitespace run.
PIECES = [
    "\U0001f600",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",
    "\U0001f1eb\U0001f1f7",
    "e\u0301\u0302\u0303",
    "\u0915\u094d\u0937",
    "\u6f22\u5b57\u304b\u306a\u30ab\u30ca",
    "\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627",
    "\u202e\u202d\u200f",
    "<|endoftext|>",
    "<|fim_prefix|><|endofprompt|>",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\r\n",
    "\t\t ",
    "\u00a0\u2003\u3000",
    "word",
    " words",
    "1234567",
    "!!??..",
    "\U00010348\U0001d11e\U0010fffd",
    "\x00\x01\x7f",
    "\ufffd",
    "\ufeff",
]

unicode_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=3000)
mixed_text = st.lists(st.one_of(st.sampled_from(PIECES), unicode_text), max_size=60).map("".join)


def assert_chunks(text: str, chunks: list[str], bound: int) -> None:
    assert "".join(chunks) == text
    assert chunks, "every text has at least one chunk"
    if text:
        assert all(chunks), "no empty chunk"
    else:
        assert chunks == [""]
    for chunk in chunks:
        assert TOKENIZER.count_tokens(chunk) <= bound, (bound, chunk[:80])


@with_both_tokenizers
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(unicode_text, mixed_text), bound=st.integers(MIN_CHUNK_TOKENS, 40))
def test_small_bounds_reassemble_exactly_and_respect_the_bound(tokenizer: Tokenizer, text: str, bound: int) -> None:
    assert_chunks(text, chunk_text(text, tokenizer, bound), bound)


@with_both_tokenizers
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pieces=st.lists(st.sampled_from(PIECES), min_size=1, max_size=4000),
    bound=st.sampled_from([MIN_CHUNK_TOKENS, 5, 7, 16, 64, 512]),
)
def test_multibyte_heavy_text(tokenizer: Tokenizer, pieces: list[str], bound: int) -> None:
    text = "".join(pieces)
    assert_chunks(text, chunk_text(text, tokenizer, bound), bound)


@with_both_tokenizers
@pytest.mark.parametrize("char", ["\U0001f600", "\u6f22", "e\u0301", " ", "\n", "a", "<|endoftext|>", "\U0010fffd"])
def test_runs_of_one_character(tokenizer: Tokenizer, char: str) -> None:
    # Long runs give long BPE pieces (or none, for emoji whose bytes merge across characters).
    text = char * 5000
    for bound in (MIN_CHUNK_TOKENS, 9, 100, 512):
        assert_chunks(text, chunk_text(text, tokenizer, bound), bound)


def test_empty_text_is_one_empty_chunk() -> None:
    assert chunk_text("", TOKENIZER) == [""]


def test_short_text_is_one_chunk() -> None:
    assert chunk_text("hello world", TOKENIZER) == ["hello world"]
    text = "x " * (DEFAULT_CHUNK_TOKENS - 1)
    assert TOKENIZER.count_tokens(text) <= DEFAULT_CHUNK_TOKENS
    assert chunk_text(text, TOKENIZER) == [text]


@pytest.mark.parametrize("bound", [0, 3, -1, 2.5, True, "512"])
def test_bad_bound_is_refused(bound: object) -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        chunk_text("text", TOKENIZER, bound)  # type: ignore[arg-type]


@with_both_tokenizers
def test_chunks_are_nearly_full(tokenizer: Tokenizer) -> None:
    """Few documents per text: apart from the last, chunks use most of the budget."""
    rng = random.Random(3)
    words = ["alpha", "beta", "gamma", "delta", "\u00e9t\u00e9", "\u6f22\u5b57", "\U0001f600", "42", "--"]
    text = " ".join(rng.choices(words, k=60_000))
    chunks = chunk_text(text, tokenizer, 512)
    counts = [TOKENIZER.count_tokens(c) for c in chunks]
    assert max(counts) <= 512
    assert min(counts[:-1]) >= 0.6 * 512
    assert sum(counts[:-1]) / len(counts[:-1]) >= 0.8 * 512


@with_both_tokenizers
def test_prefers_paragraph_breaks(tokenizer: Tokenizer) -> None:
    rng = random.Random(4)
    # Paragraphs of at most ~25 tokens always have a break inside the snap window (15% of ~235 tokens).
    words = ["lorem", "ipsum", "dolor", "sit", "amet"]
    text = "\n\n".join(" ".join(rng.choices(words, k=rng.randint(5, 20))) for _ in range(2000))
    chunks = chunk_text(text, tokenizer, 256)
    assert_chunks(text, chunks, 256)
    assert len(chunks) > 50
    assert all(c.endswith("\n\n") for c in chunks[:-1])


@with_both_tokenizers
def test_prefers_spaces_when_there_is_no_break(tokenizer: Tokenizer) -> None:
    rng = random.Random(5)
    text = " ".join("".join(rng.choices("abcdefghij", k=rng.randint(3, 9))) for _ in range(20_000))
    chunks = chunk_text(text, tokenizer, 128)
    assert "".join(chunks) == text
    assert all(c.startswith(" ") for c in chunks[1:])  # cut before a space: " word" tokens stay whole


@with_both_tokenizers
def test_a_multi_megabyte_text(tokenizer: Tokenizer) -> None:
    rng = random.Random(6)
    alphabet = [chr(c) for c in range(0x20, 0x7F)] * 20 + [p for p in PIECES if len(p) < 8]
    text = "".join(rng.choices(alphabet, k=4_000_000))
    started = time.perf_counter()
    chunks = chunk_text(text, tokenizer)
    elapsed = time.perf_counter() - started
    assert_chunks(text, chunks, DEFAULT_CHUNK_TOKENS)
    # Not a timing assertion (see docs/benchmarks.md), just a guard against a quadratic regression.
    assert elapsed < 60, elapsed


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(unicode_text, mixed_text), bound=st.sampled_from([MIN_CHUNK_TOKENS, 5, 9, 33, 512]))
def test_both_tokenizers_cut_the_same_chunks(text: str, bound: int) -> None:
    assert chunk_text(text, TOKENIZERS[1], bound) == chunk_text(text, TOKENIZER, bound)


def test_both_tokenizers_cut_the_bench_corpus_identically() -> None:
    """The text store's chunks did not change with its tokenizer: bench_text_store's 1 MB prose, and a
    multi-byte-heavy text."""
    path = Path(__file__).resolve().parents[2] / "bench" / "bench_text_store.py"
    spec = importlib.util.spec_from_file_location("bench_text_store", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    make_text = bench.make_text
    rng = random.Random(7)
    for text in [make_text(1_000_000), "".join(rng.choices(PIECES, k=50_000))]:
        for bound in (DEFAULT_CHUNK_TOKENS, 64):
            assert chunk_text(text, TOKENIZERS[1], bound) == chunk_text(text, TOKENIZER, bound)
