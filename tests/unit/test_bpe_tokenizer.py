"""BpeOpenAiTokenizer: tiktoken's counts, tokens and decoding, from bpe-openai's extension loaded alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from offprompt.adapters import bpe_tokenizer
from offprompt.adapters.bpe_tokenizer import (
    MAX_CACHED_PIECE_CHARS,
    ORDINARY_TOKENS,
    BpeOpenAiTokenizer,
)
from offprompt.adapters.tokenizer import SUPPORTED_ENCODINGS, TiktokenTokenizer, get_encoding, mergeable_ranks
from offprompt.ports import Tokenizer

LAYER_ROOT = Path(__file__).resolve().parents[2] / "layers" / "offprompt"
ENCODINGS = ["cl100k_base", "o200k_base"]

# Text that stresses BPE and the pre-tokenizer: multi-byte characters split across tokens, combining marks, ZWJ
# emoji, CJK, RTL, special-token strings, every kind of whitespace run, contractions, digits, case changes.
CORPUS = [
    "",
    " ",
    "hello world",
    "\U0001f600\U0001f600\U0001f600",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466 family",
    "\U0001f1eb\U0001f1f7\U0001f1e9\U0001f1ea",
    "e\u0301\u0302\u0303 a\u0308 n\u0303",
    "\u0915\u094d\u0937\u093f \u0928\u092e\u0938\u094d\u0924\u0947",
    "\u6f22\u5b57\u304b\u306a\u30ab\u30ca \u4e2d\u6587\u5b57\u7b26 \ud55c\uad6d\uc5b4",
    "\U00020b9f\U0002000b\U00020000",
    "\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627 \u202e\u202d\u200f",
    "<|endoftext|>",
    "a <|endoftext|> b <|fim_prefix|><|fim_middle|><|fim_suffix|><|endofprompt|>",
    "\n\n\n\n   \t\t  \r\n\r\n \u00a0\u2003\u3000   x",
    " " * 3000,
    "\n" * 500 + "a",
    "x" * 5000,
    "don't I'LL we've they're it's HTMLParser camelCaseWord",
    "1234567890 3.14159 1,000,000 0x1F",
    "!!??.. --- ... ,,, ;;; ''' \"\"\"",
    "\U00010348\U0001d11e\U0010fffd \x00\x01\x7f \ufffd \ufeff",
    "word" * 100 + " " + "ab" * 200,
    "lone \ud800 surrogate \udfff here",
]

TOKENIZERS = {name: (BpeOpenAiTokenizer(name), TiktokenTokenizer(name)) for name in ENCODINGS}

text_strategy = st.one_of(
    st.text(max_size=400),  # any code point, surrogates included
    st.lists(st.one_of(st.sampled_from(CORPUS), st.text(max_size=40)), max_size=20).map("".join),
)


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("text", CORPUS, ids=range(len(CORPUS)))
def test_corpus_counts_and_tokens_equal_tiktoken(name: str, text: str) -> None:
    fast, reference = TOKENIZERS[name]
    expected = reference.encode(text)
    assert fast.encode(text) == expected
    assert fast.count_tokens(text) == len(expected)
    assert fast.count_tokens(text) == len(expected)  # again: from the per-piece cache now


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=text_strategy)
def test_arbitrary_text_counts_and_tokens_equal_tiktoken(name: str, text: str) -> None:
    fast, reference = TOKENIZERS[name]
    expected = reference.encode(text)
    assert fast.encode(text) == expected
    assert fast.count_tokens(text) == len(expected)
    assert fast.count_tokens(text + text) == len(reference.encode(text + text))


@pytest.mark.parametrize("name", ENCODINGS)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=text_strategy, data=st.data())
def test_decode_equals_tiktoken_for_every_prefix_and_slice(name: str, text: str, data: st.DataObject) -> None:
    """Prefixes that end inside a character (the chunker tries them) decode with U+FFFD, as tiktoken does."""
    fast, reference = TOKENIZERS[name]
    tokens = reference.encode(text)
    for k in range(len(tokens) + 1):
        assert fast.decode(tokens[:k]) == reference.decode(tokens[:k])
    i = data.draw(st.integers(0, len(tokens)))
    j = data.draw(st.integers(i, len(tokens)))
    assert fast.decode(tokens[i:j]) == reference.decode(tokens[i:j])


@pytest.mark.parametrize("name", ENCODINGS)
def test_special_tokens_decode_to_their_strings(name: str) -> None:
    fast, reference = TOKENIZERS[name]
    special = list(SUPPORTED_ENCODINGS[name].special_tokens.values())
    tokens = [*special, *reference.encode(" and text"), special[0]]
    assert fast.decode(tokens) == reference.decode(tokens)
    assert "<|endoftext|>" in fast.decode(tokens)


@pytest.mark.parametrize("name", ENCODINGS)
@pytest.mark.parametrize("bad", [-1, "gap", 10**9, 2**63])
def test_ids_outside_the_vocabulary_are_a_value_error_not_a_crash(name: str, bad: int | str) -> None:
    """The extension panics (100256 in cl100k_base) or crashes the process (10**9) on unknown ids."""
    fast, _ = TOKENIZERS[name]
    token = ORDINARY_TOKENS[name] if bad == "gap" else bad
    if name == "o200k_base" and bad == "gap":
        token = 199998  # between the ordinary ranks and <|endoftext|> (199999)
    with pytest.raises(ValueError, match="not in"):
        fast.decode([5, int(token)])


@pytest.mark.parametrize("name", ENCODINGS)
def test_ordinary_token_counts_match_the_ranks_files(name: str) -> None:
    ranks = mergeable_ranks(SUPPORTED_ENCODINGS[name])
    assert sorted(ranks.values()) == list(range(ORDINARY_TOKENS[name]))
    assert min(SUPPORTED_ENCODINGS[name].special_tokens.values()) >= ORDINARY_TOKENS[name]


def test_counts_of_long_and_repeated_pieces() -> None:
    """Pieces above the cache's length limit are counted each time; repeated texts hit the cache."""
    fast, reference = TOKENIZERS["cl100k_base"]
    long_word = "q" * (MAX_CACHED_PIECE_CHARS * 3)
    text = f"{long_word} and {long_word}, then some prose that repeats: a b c a b c"
    for _ in range(3):
        assert fast.count_tokens(text) == len(reference.encode(text))
    encoder = bpe_tokenizer._encoder("cl100k_base")
    assert long_word not in encoder.counts and " prose" in encoder.counts


def test_a_full_cache_is_emptied_and_counts_stay_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bpe_tokenizer, "MAX_CACHED_PIECES", 8)
    fast, reference = TOKENIZERS["cl100k_base"]
    encoder = bpe_tokenizer._encoder("cl100k_base")
    encoder.counts.clear()
    text = " ".join(f"w{i}x" for i in range(200))
    assert fast.count_tokens(text) == len(reference.encode(text))
    assert len(encoder.counts) <= 8


def test_is_a_tokenizer_and_refuses_unknown_encodings() -> None:
    tokenizer: Tokenizer = BpeOpenAiTokenizer()
    assert repr(tokenizer) == "BpeOpenAiTokenizer(encoding_name='cl100k_base')"
    with pytest.raises(ValueError, match="unsupported encoding"):
        BpeOpenAiTokenizer("p50k_base")


PROBE = """
import json, sys, time
from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer
tokenizer = BpeOpenAiTokenizer()
before = sorted(name for name in sys.modules if name.startswith(("bpe_openai", "tiktoken")))
count = tokenizer.count_tokens("hello <|endoftext|> world")
tokens = tokenizer.encode("hello world")
text = tokenizer.decode(tokens)
after = sorted(name for name in sys.modules if name.startswith(("bpe_openai", "tiktoken")))
import bpe_openai  # the package, imported afterwards, reuses the loaded extension
print(json.dumps({"before": before, "after": after, "count": count, "text": text,
                  "same": bpe_openai.get_encoding("cl100k_base").encode("hello world") == tokens}))
"""


def test_loads_only_the_extension_never_the_package_nor_tiktoken() -> None:
    """Constructing loads nothing; first use loads `bpe_openai._bindings` alone (the package `__init__` parses
    every bundled BPE file, ~750 ms); prose never needs tiktoken or the ranks."""
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(LAYER_ROOT)}
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["before"] == []
    assert report["after"] == ["bpe_openai._bindings"]
    assert report["count"] == len(get_encoding("cl100k_base").encode_ordinary("hello <|endoftext|> world"))
    assert report["text"] == "hello world"
    assert report["same"] is True


def test_a_missing_extension_is_a_clear_packaging_error(tmp_path: Path) -> None:
    (tmp_path / "bpe_openai").mkdir()  # a namespace package without the extension
    probe = "from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer; BpeOpenAiTokenizer().count_tokens('x')"
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": f"{tmp_path}:{LAYER_ROOT}"}
    proc = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode != 0
    assert "BpeFileError" in proc.stderr and "_bindings.abi3.so is not installed" in proc.stderr


INSTALLED = "from offprompt.adapters import bpe_tokenizer; print(bpe_tokenizer.bindings_installed())"


@pytest.mark.parametrize("extension", [True, False])
def test_bindings_installed_sees_the_extension_file_without_loading_it(tmp_path: Path, extension: bool) -> None:
    """The text layer's `bpe_openai` portion holds the extension; the core layer's only o200k's file."""
    package = tmp_path / "bpe_openai"
    (package / "data").mkdir(parents=True)
    (package / "data" / "o200k_base.tiktoken.gz").write_bytes(b"")
    if extension:
        (package / bpe_tokenizer.BINDINGS_FILE).symlink_to(Path(bpe_tokenizer.load_bindings().__file__ or ""))
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": f"{tmp_path}:{LAYER_ROOT}"}
    probe = INSTALLED + "; import sys; print(sorted(n for n in sys.modules if n.startswith('bpe_openai')))"
    proc = subprocess.run([sys.executable, "-S", "-c", probe], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == [str(extension), "[]"]  # checked, never loaded


def test_the_conversation_counts_with_the_extension_only_where_it_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """ADR 0069: conversation functions whose layers ship the extension (prompt-stack, threads, MCP) count with it,
    the rest with tiktoken: the same tokens (the tests above), ~25 ms instead of ~100 to load cold."""
    from offprompt.composition import conversation

    assert bpe_tokenizer.bindings_installed()  # the dev environment has bpe-openai
    assert conversation.tokenizer_class() is BpeOpenAiTokenizer
    monkeypatch.setattr(bpe_tokenizer, "bindings_installed", lambda: False)
    assert conversation.tokenizer_class() is TiktokenTokenizer


LOADED = """
import json
from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer
tokenizer = BpeOpenAiTokenizer()
before = tokenizer.loaded
tokenizer.count_tokens("")
print(json.dumps([before, tokenizer.loaded, BpeOpenAiTokenizer("o200k_base").loaded]))
"""


def test_loaded_says_whether_the_process_built_the_encoding() -> None:
    """add-run counts a run only when the tokenizer is loaded already (ADR 0040): a fresh process has not; an
    empty count (SnapStart's priming) builds it, for that encoding only."""
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(LAYER_ROOT)}
    proc = subprocess.run([sys.executable, "-c", LOADED], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [False, True, False]
