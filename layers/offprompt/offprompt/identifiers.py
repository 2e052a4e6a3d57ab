"""Client-chosen identifiers (tenant, thread, run, memory, namespace) and the storage keys built from them.

Identifiers may hold any printable unicode (Griptape namespaces are artifact names such as "call_9 output"),
so they are never used raw where structure matters:
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


def check_identifier(kind: str, value: object) -> str:
    """Return `value` if it is a usable identifier, else raise InvalidInput naming `kind`."""
    if not isinstance(value, str):
        raise InvalidInput(f"{kind} must be a string")
    if not value:
        raise InvalidInput(f"{kind} must not be empty")
    if len(value) > MAX_CHARS or len(value.encode("utf-8", "surrogatepass")) > MAX_UTF8_BYTES:
        raise InvalidInput(f"{kind} is too long (at most {MAX_CHARS} characters and {MAX_UTF8_BYTES} UTF-8 bytes)")
    if any(unicodedata.category(ch) in ("Cc", "Cs", "Cn") for ch in value):
        raise InvalidInput(f"{kind} must not contain control characters or unassigned code points")
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
