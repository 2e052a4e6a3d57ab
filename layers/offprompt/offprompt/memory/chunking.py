"""Split a text into token-bounded chunks that join back to exactly the original text. Pure: no I/O.

Guarantees, for any `str` (emoji, combining marks, CJK, RTL, whitespace runs, "<|endoftext|>", ...):

- ``"".join(chunk_text(text, tokenizer, n)) == text``: chunks are slices of the `str`, so a cut can never
  fall inside a code point, and nothing decoded from tokens ever ends up in a chunk (a token that splits a
  multi-byte character only *moves the cut* to the previous character boundary);
- ``tokenizer.count_tokens(chunk) <= n`` for every chunk: each chunk is encoded *on its own* before it is
  accepted. Cutting at a token boundary of a longer encoding is not enough on its own: BPE and tiktoken's
  pre-tokenizer regex (lookaheads, ``$``) may encode a piece differently from the same span of the whole;
- no chunk is empty, except the single chunk ``[""]`` of the empty text (so every text has a chunk 0).

How (one tokenizer pass over prose: one count per chunk, chunks ~89% full; see docs/benchmarks.md):
at each offset, guess a window of characters that should hold ~92% of the budget, from the
characters-per-token ratio of the previous chunk; move the end back to a paragraph break, a line break or
a space when one lies within the window's last 15%; count the window's tokens. If it fits, it is the chunk (a
window far below the budget, not at the end of the text, is grown and counted again). If it does not fit,
the window's own tokens (encoded now) say where the budget ends: decode the first `n` tokens, back off while
the decoded prefix does not match the text (a token split a character), prefer whitespace again, and count
that shorter candidate; repeat until it fits (it always ends: a single code point is at most 4 tokens).
Only counts decide, so every tokenizer with the same counts cuts the same chunks; counting is what a fast
tokenizer makes cheap (`offprompt.adapters.bpe_tokenizer`, docs/adr/0025-fast-bpe-for-chunking.md).
"""

from __future__ import annotations

from collections.abc import Iterator

from offprompt.ports import Tokenizer

DEFAULT_CHUNK_TOKENS = 512
#: A code point is at most 4 UTF-8 bytes, hence at most 4 tokens: with a budget of 4 any text can be split.
MIN_CHUNK_TOKENS = 4

_FILL = 0.92  # aim a little below the budget, so most windows fit on the first encode
_UNDERFULL = 0.6  # a window below this fraction of the budget (not at the end of the text) is grown
_SNAP = 0.15  # look back this fraction of the window for a paragraph, line or word boundary
_BACKOFF = 8  # token prefixes tried when the budget's last token ends inside a character
_INITIAL_CHARS_PER_TOKEN = 4.0


def chunk_text(text: str, tokenizer: Tokenizer, max_tokens: int = DEFAULT_CHUNK_TOKENS) -> list[str]:
    """`text` as consecutive chunks of at most `max_tokens` tokens each (see the module docstring)."""
    return list(iter_chunks(text, tokenizer, max_tokens))


def iter_chunks(text: str, tokenizer: Tokenizer, max_tokens: int = DEFAULT_CHUNK_TOKENS) -> Iterator[str]:
    """`chunk_text`, lazily: the arguments are checked at once, chunks are cut as they are consumed."""
    _check(text, max_tokens)
    return _iter_chunks(text, tokenizer, max_tokens)


def _check(text: str, max_tokens: int) -> None:
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < MIN_CHUNK_TOKENS:
        raise ValueError(f"max_tokens must be an integer >= {MIN_CHUNK_TOKENS}, got {max_tokens!r}")
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")


def _iter_chunks(text: str, tokenizer: Tokenizer, max_tokens: int) -> Iterator[str]:
    if not text:
        yield ""
        return
    start = 0
    ratio = _INITIAL_CHARS_PER_TOKEN
    while start < len(text):
        end, count = _next_end(text, start, tokenizer, max_tokens, ratio)
        yield text[start:end]
        # characters per token of what was just cut: the next window's first guess
        ratio = (end - start) / max(1, count)
        start = end


def _next_end(text: str, start: int, tokenizer: Tokenizer, limit: int, ratio: float) -> tuple[int, int]:
    """The end of the chunk starting at `start` and its token count (at most `limit`)."""
    size = len(text)
    target = max(1, int(limit * _FILL))
    guess = max(1, int(target * ratio))
    # 1. Grow a window until it reaches the end of the text, holds a fair share of the budget, or overflows.
    while True:
        end = min(size, start + guess)
        if end < size:
            end = _snap(text, start, end)
        count = tokenizer.count_tokens(text[start:end])
        if count > limit or end == size or count >= limit * _UNDERFULL:
            break
        guess = max(guess + 1 + guess // 2, int(guess * target / max(1, count)))
    # 2. Shrink while it overflows. Every step strictly shortens the candidate and keeps it non-empty.
    while count > limit:
        piece = text[start:end]
        tokens = tokenizer.encode(piece)  # only an overflowing window's tokens are needed: where the budget ends
        new_end = start + _fitting_prefix_length(piece, tokens, limit, tokenizer)
        if new_end >= end or new_end <= start:  # no usable token boundary: cut proportionally instead
            new_end = start + max(1, min(len(piece) - 1, len(piece) * limit // (2 * count)))
        else:
            new_end = _snap(text, start, new_end)
        end = new_end
        count = tokenizer.count_tokens(text[start:end])
    return end, count


def _fitting_prefix_length(piece: str, tokens: list[int], limit: int, tokenizer: Tokenizer) -> int:
    """Length in characters of the longest decodable prefix of `piece` made of its first <= `limit` tokens.

    `tokens` encode `piece`. When token `k` ends inside a multi-byte character, decoding the first `k`
    tokens yields U+FFFD instead of that character, so the decoded text is not a prefix of `piece`:
    try one token fewer. 0 when no prefix among the last `_BACKOFF` candidates matches.
    """
    for k in range(limit, max(0, limit - _BACKOFF), -1):
        prefix = tokenizer.decode(tokens[:k])
        if piece.startswith(prefix):
            return len(prefix)
    return 0


def _snap(text: str, start: int, end: int) -> int:
    """`end`, moved back to just after a paragraph or line break, or onto a space, if one is close."""
    low = max(start + 1, end - int((end - start) * _SNAP))
    if low >= end:
        return end
    at = text.rfind("\n\n", low, end)
    if at >= 0:
        return at + 2
    at = text.rfind("\n", low, end)
    if at >= 0:
        return at + 1
    at = text.rfind(" ", low, end)
    if at >= 0:
        return at  # the space starts the next chunk, keeping " word" tokens whole
    return end
