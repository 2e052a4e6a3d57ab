"""Use case: short-lived tokens of a key (`POST /keys/{key_id}/tokens`; docs/keys.md, docs/adr/0055).

A token is `opt_<payload>.<signature>`: the payload (unpadded base64url JSON) names the token's id, its key, its
tenant, when it expires (at most an hour after it was minted, never after its key) and its scope (the key's or a
narrower one); the signature is HMAC-SHA256 of `opt_<payload>` under the deployment's token secret. Checking one
reads nothing (`verify`): the authorizer answers from the signature alone. Every request a token makes is admitted
with its key's record, the one read every key-authenticated request makes (`admission.admit`): a revoked or expired
key ends its tokens at the next request, whatever API Gateway's authorizer cache holds.

Tokens are never stored. Minting needs the key's own credentials or an unscoped key of the tenant; a token mints
nothing.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from typing import Any

from offprompt.errors import ConfigurationError, NotFound, OffpromptError, ScopeDenied
from offprompt.metering import Plan
from offprompt.ports import AccountStore

from . import keys as apikeys
from .api_keys import Principal, expired, iso
from .scopes import Scope, parse_scope, require_narrower

TOKEN_PREFIX = "opt_"
_MAX_TOKEN_CHARS = 4096


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _signature(secret: bytes, signed: str) -> str:
    return _b64(hmac.new(secret, signed.encode("ascii"), hashlib.sha256).digest())


def looks_like_token(token: str) -> bool:
    return token.startswith(TOKEN_PREFIX)


def mint(
    store: AccountStore,
    secret: bytes | None,
    tenant: str,
    key_id: str,
    ttl_seconds: int,
    now: float,
    *,
    scope: Scope | None = None,
    caller_key_id: str | None = None,
    caller_scope: Scope | None = None,
    caller_is_token: bool = False,
) -> dict[str, Any]:
    """A token of the tenant's key `key_id` for `ttl_seconds`, with `scope` (None: the key's own), which must be
    within the key's scope and the caller's (ScopeDenied otherwise). A scoped key mints only its own tokens."""
    if caller_is_token:
        raise ScopeDenied("a token cannot mint tokens")
    if caller_scope is not None and caller_key_id != key_id:
        raise ScopeDenied("a scoped key mints tokens of its own only")
    if secret is None:
        raise ConfigurationError("this deployment has no token secret (OFFPROMPT_TOKEN_SECRET_ARN)")
    record = store.get_key(key_id) if apikeys.is_key_id(key_id) else None
    if record is None or record.tenant != tenant or expired(record.expires_at, iso(now)):
        raise NotFound("this tenant has no such key")
    key_scope = parse_scope(record.scope)
    scope = scope if scope is not None else key_scope
    require_narrower(scope, key_scope)
    require_narrower(scope, caller_scope)
    expires = int(now) + ttl_seconds
    if record.expires_at is not None:
        expires = min(expires, int(_epoch(record.expires_at)))
    token_id = secrets.token_hex(8)
    claims: dict[str, Any] = {"tid": token_id, "kid": key_id, "ten": tenant, "exp": expires}
    if scope is not None:
        claims["scope"] = scope.model_dump(exclude_none=True)
    payload = TOKEN_PREFIX + _b64(json.dumps(claims, separators=(",", ":"), sort_keys=True).encode("utf-8"))
    out: dict[str, Any] = {
        "token": f"{payload}.{_signature(secret, payload)}",
        "token_id": token_id,
        "key_id": key_id,
        "expires_at": iso(expires),
    }
    if scope is not None:
        out["scopes"] = claims["scope"]
    return out


def verify(secret: bytes | None, token: str, now: float) -> Principal | None:
    """The principal of a well-signed, unexpired token, else None; reads nothing. Its plan is its key's, which
    admission reads with the key (the authorizer's context carries the default)."""
    if secret is None or not looks_like_token(token) or len(token) > _MAX_TOKEN_CHARS:
        return None
    payload, _, signature = token.rpartition(".")
    if not payload or not hmac.compare_digest(
        signature.encode("ascii", "replace"), _signature(secret, payload).encode()
    ):
        return None
    try:
        claims = json.loads(_unb64(payload[len(TOKEN_PREFIX) :]))
        expires = int(claims["exp"])
        tenant, key_id, token_id = str(claims["ten"]), str(claims["kid"]), str(claims["tid"])
        scope = parse_scope(claims.get("scope"))
    except (ValueError, KeyError, TypeError, OffpromptError):
        return None
    if expires <= now:
        return None
    return Principal(tenant, key_id, Plan.from_mapping({}), scope, token_id)


def _epoch(moment: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(moment.replace("Z", "+00:00")).timestamp()
