"""API keys: `op_<key_id>_<secret>`, shown once; only SHA-256(secret) is stored (docs/adr/0022-api-keys.md).

- `key_id`: 16 lowercase hex characters (64 random bits), the lookup key of the one GetItem the authorizer makes;
  not secret (it is the `prefix` the key listing shows).
- `secret`: 32 random bytes, unpadded base64url (43 characters). A 256-bit random secret cannot be guessed or
  brute-forced from its hash, so one SHA-256 is enough (a slow password hash protects low-entropy passwords and
  would cost the authorizer ~100 ms of CPU per cache miss for nothing).
- Verification hashes the presented secret and compares the digests with `hmac.compare_digest` (constant time).
Keys are never logged: `KeyParts.__repr__` hides the secret.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, field

PREFIX = "op"
KEY_ID_HEX = 16
SECRET_BYTES = 32
_SECRET_CHARS = (SECRET_BYTES * 8 + 5) // 6  # 43: unpadded base64url of 32 bytes
_KEY = re.compile(rf"^{PREFIX}_([0-9a-f]{{{KEY_ID_HEX}}})_([A-Za-z0-9_-]{{{_SECRET_CHARS}}})$")
_KEY_ID = re.compile(rf"^[0-9a-f]{{{KEY_ID_HEX}}}$")


@dataclass(frozen=True)
class KeyParts:
    key_id: str
    secret: str = field(repr=False)

    @property
    def prefix(self) -> str:
        """What may be shown and logged: identifies the key, reveals nothing of the secret."""
        return f"{PREFIX}_{self.key_id}"

    @property
    def token(self) -> str:
        return f"{PREFIX}_{self.key_id}_{self.secret}"


def new_key() -> KeyParts:
    secret = base64.urlsafe_b64encode(secrets.token_bytes(SECRET_BYTES)).rstrip(b"=").decode("ascii")
    return KeyParts(secrets.token_hex(KEY_ID_HEX // 2), secret)


def looks_like_key(token: str) -> bool:
    """Whether `token` has an API key's or a short-lived token's prefix (`op_`, `opt_`): the local dev server sends
    only those to the authorizer."""
    return token.startswith((f"{PREFIX}_", f"{PREFIX}t_"))


def parse_key(token: str) -> KeyParts | None:
    """The parts of a well-formed key, else None (never raises: the caller answers 401 either way)."""
    match = _KEY.match(token.strip()) if isinstance(token, str) and len(token) < 200 else None
    return KeyParts(match.group(1), match.group(2)) if match else None


def bearer_token(authorization: str | None) -> str | None:
    """The credential of an `Authorization: Bearer <token>` header (scheme case-insensitive), else None."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def is_key_id(value: str) -> bool:
    return bool(_KEY_ID.match(value))


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


def verify_secret(secret: str, stored_hash: str) -> bool:
    """Constant-time comparison of the presented secret's hash with the stored one."""
    return hmac.compare_digest(hash_secret(secret).encode("ascii"), stored_hash.encode("ascii"))
