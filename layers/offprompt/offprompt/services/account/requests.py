"""Request models of the account routes (HTTP bodies and direct invocations validate through the same models)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from offprompt.limits import MAX_KEY_NAME_CHARS

from .scopes import Scope

#: The longest a short-lived token lives (`POST /keys/{key_id}/tokens`).
MAX_TOKEN_TTL_SECONDS = 3600


class KeyRequest(BaseModel):
    """`POST /keys`: an optional name to tell keys apart (the listing shows it), an optional scope (what the key may
    reach: docs/keys.md; none: the whole tenant) and an optional expiry (ISO 8601 with a time zone)."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(default=None, max_length=MAX_KEY_NAME_CHARS)
    scopes: Scope | None = None
    expires_at: str | None = Field(default=None, max_length=40)


class TokenRequest(BaseModel):
    """`POST /keys/{key_id}/tokens`: a short-lived token of the key, for `ttl_seconds` (at most an hour), with the
    key's scope or a narrower one."""

    model_config = ConfigDict(extra="forbid")

    ttl_seconds: int = Field(ge=1, le=MAX_TOKEN_TTL_SECONDS)
    scopes: Scope | None = None
