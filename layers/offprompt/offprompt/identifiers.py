"""Client-chosen identifiers (tenant, thread, run, memory, namespace) and the storage keys built from them.

Identifiers may hold any printable unicode (Griptape namespaces are artifact names such as "call_9 output") but
format characters other than the joiners (a bidi control makes a label read as another: issue 30), checked here and
only here (`check_identifier`, and `check_characters` for names that are not identifiers), so they are never used
raw where structure matters:
- DynamoDB keys escape the separator (`#` → `%23`, `%` → `%25`), so no two identifier tuples share a key;
- S3 keys and OpenSearch ids use a SHA-256 digest, so `../`, unicode and long names cannot shape a path.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata

from offprompt.errors import InvalidInput
from offprompt.limits import IDENTIFIER_MAX_CHARS as MAX_CHARS
from offprompt.limits import IDENTIFIER_MAX_UTF8_BYTES as MAX_UTF8_BYTES

#: Format characters (category Cf) an identifier may hold: the joiners that scripts (ZWNJ in Persian, Indic
#: conjuncts) and emoji sequences (ZWJ) need. Every other one (the bidi controls U+202A-U+202E, U+2066-U+2069,
#: U+200E/U+200F, U+061C, which reorder what a console shows; zero-width and invisible ones; tag characters) is refused.
ALLOWED_FORMAT = frozenset("\u200c\u200d")


def refused_character(text: str) -> str | None:
    """The first character no identifier or name may hold: a control character, a surrogate, an unassigned code
    point, or a format character other than the joiners (a bidi control can make a label read as another)."""
    for ch in text:
        category = unicodedata.category(ch)
        if category in ("Cc", "Cs", "Cn") or (category == "Cf" and ch not in ALLOWED_FORMAT):
            return ch
    return None


def check_characters(kind: str, value: str) -> str:
    """Refuse (InvalidInput naming `kind` and the code point) text holding a `refused_character`: every identifier
    (`check_identifier`) and every other client-chosen name stored and shown (checkpoint namespaces, key names)."""
    ch = refused_character(value)
    if ch is not None:
        raise InvalidInput(
            f"{kind} must not contain control characters, bidi or other format controls, or unassigned code points"
            f" (U+{ord(ch):04X})"
        )
    return value


def check_identifier(kind: str, value: object) -> str:
    """Return `value` if it is a usable identifier, else raise InvalidInput naming `kind`."""
    if not isinstance(value, str):
        raise InvalidInput(f"{kind} must be a string")
    if not value:
        raise InvalidInput(f"{kind} must not be empty")
    if len(value) > MAX_CHARS or len(value.encode("utf-8", "surrogatepass")) > MAX_UTF8_BYTES:
        raise InvalidInput(f"{kind} is too long (at most {MAX_CHARS} characters and {MAX_UTF8_BYTES} UTF-8 bytes)")
    check_characters(kind, value)
    # Every identifier must be addressable as one URL path segment: API Gateway decodes %2F before routing,
    # and HTTP clients resolve "." and ".." segments away.
    if "/" in value:
        raise InvalidInput(f'{kind} must not contain "/" (a URL path segment cannot hold it)')
    if value in (".", ".."):
        raise InvalidInput(f'{kind} must not be "." or ".." (URLs resolve those segments away)')
    return value


def key(*parts: str | int) -> str:
    """A DynamoDB key from parts, `#`-joined with each string part escaped (integers are zero-padded)."""
    return "#".join(f"{p:012d}" if isinstance(p, int) else p.replace("%", "%25").replace("#", "%23") for p in parts)


def digest(*parts: str | int) -> str:
    """A stable hex digest of an identifier tuple (for S3 keys and OpenSearch document ids)."""
    return hashlib.sha256(json.dumps(list(parts), ensure_ascii=False).encode("utf-8")).hexdigest()


def canonical_hash(payload: object) -> str:
    """SHA-256 of `payload` as canonical JSON (sorted keys, no whitespace): a request as its sender meant it."""
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
