"""TiktokenTokenizer: same tokens as tiktoken's own cl100k_base, offline, lazily loaded, hash-checked."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st
from offline_support import NetworkBlockedError, blocked_network
from tiktoken_ext import openai_public

from offprompt.adapters import tokenizer as tokenizer_module
from offprompt.adapters.tokenizer import (
    CL100K_BASE,
    O200K_BASE,
    BpeFileError,
    TiktokenTokenizer,
    dump_ranks,
    get_encoding,
    load_bpe_ranks,
    load_ranks,
    read_bpe_file,
)
from offprompt.ports import Tokenizer

LAYER_ROOT = Path(__file__).resolve().parents[2] / "layers" / "offprompt"
# tiktoken names its cache entries after the sha1 of the URL hard-coded in tiktoken_ext/openai_public.py.
CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


@pytest.fixture(scope="module", autouse=True)
def no_network() -> Iterator[None]:
    with blocked_network():
        yield


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tiktoken.Encoding:
    """cl100k_base built by tiktoken's own constructor, fed through tiktoken's cache mechanism."""
    cache_dir = tmp_path_factory.mktemp("tiktoken-cache")
    bundled = Path(str(CL100K_BASE.bpe_file))
    shutil.copyfile(bundled, cache_dir / hashlib.sha1(CL100K_URL.encode()).hexdigest())
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TIKTOKEN_CACHE_DIR", str(cache_dir))
        # Not tiktoken.get_encoding: its registry may already hold an encoding built elsewhere.
        return tiktoken.Encoding(**openai_public.cl100k_base())


@pytest.fixture(scope="module")
def tok() -> Iterator[TiktokenTokenizer]:
    """A tokenizer whose encoding is built inside this module, i.e. with the network blocked."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tokenizer_module, "_ENCODINGS", {})
        yield TiktokenTokenizer()


@pytest.fixture
def empty_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokenizer_module, "_ENCODINGS", {})


def _generated_text(size: int, seed: int = 7) -> str:
    words = [
        "memory", "agent", "serverless", "token", "Lambda", "conversation", "naïve", "façade",
        "データ", "記憶", "문장", "Привет", "مرحبا", "שלום", "ελληνικά", "हिन्दी", "ไทย",
        "🙂", "👩‍💻", "🇫🇷", "e\u0301", "x = f(y) + 42;", "0x1F", "3.14159", "\t", "\n\n", "   ",
    ]  # fmt: skip
    rng = random.Random(seed)
    parts: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(words) + rng.choice([" ", "", ", ", ". ", "\n"])
        parts.append(word)
        length += len(word)
    return "".join(parts)


CORPUS: dict[str, str] = {
    "empty": "",
    "english": "The quick brown fox jumps over the lazy dog. It's 5 o'clock; we'll see—don't we?",
    "code": 'def add(a: int, b: int) -> int:\n    """Sum."""\n    return a + b  # 0xFF != 255?\n',
    "json": '{"role": "user", "content": "hi", "n": [1, 2.5e-3, null, true]}',
    "cjk": "今日は良い天気ですね。机器学习很有趣。한국어 문장도 있습니다.",
    "emoji": "👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈 🇯🇵 ✨🎉",
    "rtl": "مرحبا بالعالم — שלום עולם \u202eevil\u202c",
    "combining": "e\u0301 a\u0308 Z\u0351\u0359\u0363a\u035b\u0346l\u0350g\u0352o ñ vs n\u0303",
    "whitespace": "  leading\t\ttabs\n\n\n\r\n   trailing   \u00a0\u2003\u3000",
    "control_chars": "a\x00b\x07c\x1bd\x7f",
    "long_generated": _generated_text(300_000),
}


def test_the_network_really_is_blocked() -> None:
    with pytest.raises(NetworkBlockedError):
        socket.create_connection(("127.0.0.1", 9))
    with pytest.raises(NetworkBlockedError), socket.socket() as sock:
        sock.connect(("127.0.0.1", 9))


def test_encoding_definition_matches_tiktoken(tok: TiktokenTokenizer, reference: tiktoken.Encoding) -> None:
    ours = get_encoding(tok.encoding_name)
    assert ours.name == reference.name == "cl100k_base"
    assert ours._pat_str == reference._pat_str
    assert ours._special_tokens == reference._special_tokens
    assert ours._mergeable_ranks == reference._mergeable_ranks
    assert ours.n_vocab == reference.n_vocab == 100_277


@pytest.mark.parametrize("text", CORPUS.values(), ids=CORPUS.keys())
def test_count_and_tokens_equal_reference(tok: TiktokenTokenizer, reference: tiktoken.Encoding, text: str) -> None:
    expected = reference.encode(text)
    assert tok.encode(text) == expected
    assert tok.count_tokens(text) == len(expected)


@pytest.mark.parametrize("text", CORPUS.values(), ids=CORPUS.keys())
def test_round_trip(tok: TiktokenTokenizer, text: str) -> None:
    assert tok.decode(tok.encode(text)) == text


@pytest.mark.parametrize("special", ["<|endoftext|>", "<|fim_prefix|>", "<|endofprompt|>"])
def test_special_token_strings_count_as_ordinary_text(
    tok: TiktokenTokenizer, reference: tiktoken.Encoding, special: str
) -> None:
    text = f"quote: {special} end"
    with pytest.raises(ValueError, match="disallowed special token"):
        reference.encode(text)  # tiktoken's default, which we must not inherit
    tokens = tok.encode(text)
    assert tokens == reference.encode(text, disallowed_special=())
    assert CL100K_BASE.special_tokens[special] not in tokens
    assert tok.count_tokens(text) > len(reference.encode(text, allowed_special="all"))
    assert tok.decode(tokens) == text


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=300))
def test_property_matches_reference_and_round_trips(
    tok: TiktokenTokenizer, reference: tiktoken.Encoding, text: str
) -> None:
    assert tok.count_tokens(text) == len(reference.encode(text, disallowed_special=()))
    assert tok.decode(tok.encode(text)) == text


def test_import_and_construction_load_nothing() -> None:
    probe = (
        "import json, sys\n"
        "import offprompt.adapters.tokenizer as t\n"
        "t.TiktokenTokenizer()\n"
        "print(json.dumps({'cached': list(t._ENCODINGS), 'tiktoken': 'tiktoken' in sys.modules}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(LAYER_ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True, timeout=60
    )
    assert json.loads(result.stdout) == {"cached": [], "tiktoken": False}


def test_first_use_loads_once_and_all_instances_share_it(empty_cache: None, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def slow_load(source: object, expected_sha256: str) -> dict[bytes, int]:
        calls.append(1)
        time.sleep(0.2)  # widen the race window
        return load_ranks(CL100K_BASE.ranks_file, expected_sha256)

    monkeypatch.setattr(tokenizer_module, "load_ranks", slow_load)
    counts: list[int] = []
    threads = [
        threading.Thread(target=lambda: counts.append(TiktokenTokenizer().count_tokens("hello world")))
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == [1]
    assert counts == [2] * 8
    assert get_encoding("cl100k_base") is tokenizer_module._ENCODINGS["cl100k_base"]


def test_load_ignores_and_never_writes_tiktoken_cache_dir(
    empty_cache: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # In Lambda a cache dir inside the layer is read-only; tiktoken's loader would try to write into it.
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    assert TiktokenTokenizer().count_tokens("hello") == 1
    assert list(tmp_path.iterdir()) == []


def test_implements_the_tokenizer_port() -> None:
    port: Tokenizer = TiktokenTokenizer()  # checked by mypy: the adapter conforms structurally
    assert port.encoding_name == "cl100k_base"


def test_unknown_encoding_is_a_clear_value_error() -> None:
    with pytest.raises(ValueError, match=r"unsupported encoding 'p50k_base'; supported: cl100k_base, o200k_base"):
        TiktokenTokenizer("p50k_base")


def test_genuine_copy_loads_and_tampered_copy_is_refused(tmp_path: Path) -> None:
    genuine = tmp_path / "genuine.tiktoken"
    shutil.copyfile(Path(str(CL100K_BASE.bpe_file)), genuine)
    assert len(load_bpe_ranks(genuine, CL100K_BASE.bpe_sha256)) == 100_256

    tampered = tmp_path / "tampered.tiktoken"
    data = bytearray(genuine.read_bytes())
    data[-2] = ord("9") if data[-2] != ord("9") else ord("8")  # change the last rank's last digit
    tampered.write_bytes(bytes(data))
    with pytest.raises(BpeFileError, match="sha256"):
        load_bpe_ranks(tampered, CL100K_BASE.bpe_sha256)


def test_missing_file_is_a_bpe_file_error(tmp_path: Path) -> None:
    with pytest.raises(BpeFileError, match="is its package installed"):
        load_bpe_ranks(tmp_path / "absent.tiktoken", CL100K_BASE.bpe_sha256)


# ---------------------------------------------------------------------------------------------- o200k_base
O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"


@pytest.fixture(scope="module")
def o200k_reference(tmp_path_factory: pytest.TempPathFactory) -> tiktoken.Encoding:
    """o200k_base built by tiktoken's own constructor from bpe-openai's file, decompressed: tiktoken's loader
    checks the bytes against the SHA-256 it pins for o200k_base (it raises on a mismatch)."""
    import gzip

    cache_dir = tmp_path_factory.mktemp("tiktoken-cache-o200k")
    data = gzip.decompress(Path(str(O200K_BASE.bpe_file)).read_bytes())
    (cache_dir / hashlib.sha1(O200K_URL.encode()).hexdigest()).write_bytes(data)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TIKTOKEN_CACHE_DIR", str(cache_dir))
        return tiktoken.Encoding(**openai_public.o200k_base())


@pytest.fixture(scope="module")
def o200k() -> Iterator[TiktokenTokenizer]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tokenizer_module, "_ENCODINGS", {})
        yield TiktokenTokenizer("o200k_base")


def test_o200k_file_is_the_one_tiktoken_pins() -> None:
    source = O200K_BASE.bpe_file
    assert source.name == "o200k_base.tiktoken.gz" and "bpe_openai" in str(source)
    data = read_bpe_file(source, O200K_BASE.bpe_sha256)
    assert hashlib.sha256(data).hexdigest() == "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
    pinned = openai_public.o200k_base.__code__.co_consts
    assert O200K_BASE.bpe_sha256 in pinned  # the hash is tiktoken's own, not one we made up


def test_o200k_definition_matches_tiktoken(o200k: TiktokenTokenizer, o200k_reference: tiktoken.Encoding) -> None:
    ours = get_encoding("o200k_base")
    assert ours._pat_str == o200k_reference._pat_str
    assert ours._special_tokens == o200k_reference._special_tokens
    assert ours._mergeable_ranks == o200k_reference._mergeable_ranks
    assert ours.n_vocab == o200k_reference.n_vocab


@pytest.mark.parametrize("text", CORPUS.values(), ids=CORPUS.keys())
def test_o200k_counts_equal_tiktoken(o200k: TiktokenTokenizer, o200k_reference: tiktoken.Encoding, text: str) -> None:
    expected = o200k_reference.encode_ordinary(text)
    assert o200k.encode(text) == expected
    assert o200k.count_tokens(text) == len(expected)


def test_tampered_o200k_file_is_refused(tmp_path: Path) -> None:
    import gzip

    data = bytearray(gzip.decompress(Path(str(O200K_BASE.bpe_file)).read_bytes()))
    data[-2] = ord("9") if data[-2] != ord("9") else ord("8")
    tampered = tmp_path / "o200k_base.tiktoken.gz"
    tampered.write_bytes(gzip.compress(bytes(data)))
    with pytest.raises(BpeFileError, match="sha256"):
        read_bpe_file(tampered, O200K_BASE.bpe_sha256)


def test_the_pre_parsed_ranks_are_the_official_file_parsed() -> None:
    """What the encoding loads (the generated ranks file) equals the official BPE file, token for token."""
    official = load_bpe_ranks(CL100K_BASE.bpe_file, CL100K_BASE.bpe_sha256)
    assert load_ranks(CL100K_BASE.ranks_file, CL100K_BASE.ranks_sha256) == official
    # The pin in the adapter is the hash of exactly this conversion, so `offprompt_build.bpe` can check it.
    assert hashlib.sha256(dump_ranks(official)).hexdigest() == CL100K_BASE.ranks_sha256


def test_dump_and_load_round_trip_any_ranks(tmp_path: Path) -> None:
    ranks = {b"": 3, b"a": 0, bytes(range(256)): 1, b"\x00\xff" * 100: 7, "é€".encode(): 2}
    data = dump_ranks(ranks)
    (tmp_path / "r.ranks").write_bytes(data)
    assert load_ranks(tmp_path / "r.ranks", hashlib.sha256(data).hexdigest()) == ranks
    assert dump_ranks(dict(reversed(ranks.items()))) == data  # deterministic: insertion order does not matter


def test_tampered_ranks_are_refused_and_missing_ranks_name_the_fix(tmp_path: Path) -> None:
    data = bytearray(Path(str(CL100K_BASE.ranks_file)).read_bytes())
    data[-1] ^= 1  # one bit of the last token
    (tmp_path / "tampered.ranks").write_bytes(bytes(data))
    with pytest.raises(BpeFileError, match="sha256"):
        load_ranks(tmp_path / "tampered.ranks", CL100K_BASE.ranks_sha256)
    with pytest.raises(BpeFileError, match="make install"):
        load_ranks(tmp_path / "absent.ranks", CL100K_BASE.ranks_sha256)


def test_make_bpe_writes_the_pinned_file_and_refuses_a_wrong_pin(tmp_path: Path) -> None:
    import dataclasses

    from offprompt_build.bpe import write_ranks

    out = tmp_path / "data" / "cl100k_base.ranks"
    assert write_ranks(out) is True
    assert out.read_bytes() == Path(str(CL100K_BASE.ranks_file)).read_bytes()
    assert write_ranks(out) is False  # already the pinned bytes: untouched
    with pytest.raises(SystemExit, match="pinned"):
        write_ranks(tmp_path / "other.ranks", dataclasses.replace(CL100K_BASE, ranks_sha256="0" * 64))
