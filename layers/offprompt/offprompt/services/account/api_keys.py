"""Use case: API keys: create (shown once), list, revoke, and the authorizer's check (docs/adr/0022)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from offprompt.errors import InvalidInput, QuotaExceeded, SchemaInvalid
from offprompt.identifiers import check_characters, check_identifier
from offprompt.limits import MAX_KEY_NAME_CHARS
from offprompt.metering import DEFAULT_PLAN, PLANS, Plan
from offprompt.ports import AccountStore, KeyLimitReached, KeyRecord, TenantExists

from . import keys as apikeys
from .scopes import Scope, parse_scope, require_unscoped

#: What an unknown key id is compared against: a hash of nothing anyone holds, of the stored hashes' length.
_DECOY_HASH = "0" * 64


@dataclass(frozen=True)
class Principal:
    """Who a valid key belongs to, as the authorizer hands it to the functions (its `context`)."""

    tenant: str
    key_id: str
    plan: Plan
    #: What the key (or token) may reach; None: the whole tenant (services/account/scopes.py).
    scope: Scope | None = None
    #: A short-lived token's id (its key is `key_id`); None for a key itself.
    token_id: str | None = None

    def to_context(self) -> dict[str, Any]:
        """API Gateway's authorizer context: string, number and boolean values only (a scope travels as JSON)."""
        context: dict[str, Any] = {"tenant": self.tenant, "key_id": self.key_id, **self.plan.to_dict()}
        if self.scope is not None:
            context["scope"] = self.scope.dumps()
        if self.token_id is not None:
            context["token_id"] = self.token_id
        return context

    @classmethod
    def from_context(cls, context: dict[str, Any]) -> Principal:
        return cls(
            str(context["tenant"]),
            str(context.get("key_id") or ""),
            Plan.from_mapping(context),
            parse_scope(context.get("scope")),
            str(context["token_id"]) if context.get("token_id") else None,
        )


def iso(now: float) -> str:
    """Epoch seconds as ISO 8601 UTC seconds, `...Z` (what `created_at` and `expires_at` hold)."""
    return datetime.fromtimestamp(now, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def check_expiry(expires_at: str | None, now: str) -> str | None:
    """`expires_at` as `...Z` ISO 8601 UTC seconds (the form `now` has), or SchemaInvalid; in the future of `now`."""
    if expires_at is None:
        return None
    try:
        moment = datetime.fromisoformat(expires_at.replace("Z", "+00:00"))
    except ValueError:
        raise SchemaInvalid('"expires_at" is an ISO 8601 date and time, such as 2027-01-31T00:00:00Z') from None
    if moment.tzinfo is None:
        raise SchemaInvalid('"expires_at" needs a time zone (such as Z)')
    iso = moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    if iso <= now:
        raise SchemaInvalid('"expires_at" is in the past')
    return iso


def expired(expires_at: str | None, now: str) -> bool:
    return expires_at is not None and expires_at <= now


def create_key(
    store: AccountStore,
    tenant: str,
    name: str | None,
    now: str,
    *,
    plan: Plan | None = None,
    scope: Scope | None = None,
    expires_at: str | None = None,
    caller: Scope | None = None,
) -> dict[str, Any]:
    """A new key for `tenant`; the only time its secret is returned. QuotaExceeded past the plan's max keys.
    A tenant with no record yet gets the default plan with its first key (its data, if any predates the tenant
    index, stays found by export and erase: creating a tenant never marks it indexed). `caller`: the scope of the
    key asking (key management needs an unscoped key; ScopeDenied otherwise)."""
    require_unscoped(caller, "creating a key")
    check_identifier("tenant", tenant)
    expires_at = check_expiry(expires_at, now)
    name = (name or "").strip()
    if len(name) > MAX_KEY_NAME_CHARS:
        raise InvalidInput(f"a key name has at most {MAX_KEY_NAME_CHARS} characters")
    check_characters("a key name", name)  # shown in the console and the key list
    record = store.get_tenant(tenant)
    if plan is None:
        plan = Plan.from_mapping(record.plan) if record is not None and record.created_at else None
    if plan is None:
        try:  # only creates: a tenant created meanwhile (by an operator, with its plan) keeps its plan
            plan = Plan.from_mapping(store.put_tenant(tenant, PLANS[DEFAULT_PLAN].to_dict(), now, only_new=True).plan)
        except TenantExists as exists:
            plan = Plan.from_mapping(exists.record.plan)
    parts = apikeys.new_key()
    stored = KeyRecord(
        parts.key_id,
        tenant,
        name,
        now,
        apikeys.hash_secret(parts.secret),
        plan.to_dict(),
        scope=scope.dumps() if scope is not None else None,
        expires_at=expires_at,
    )
    try:
        store.add_key(stored, plan.max_keys)
    except KeyLimitReached:
        raise QuotaExceeded(
            f"this tenant already holds the {plan.max_keys} API keys its plan allows; revoke one first",
            retry_after=3600,
            details={"quota": "max_keys", "limit": plan.max_keys},
        ) from None
    return {"key": parts.token, **_key_view(stored)}


def _key_view(record: KeyRecord) -> dict[str, Any]:
    """A key as the listing shows it (never its secret): its scope and expiry only when it has them."""
    view: dict[str, Any] = {
        "key_id": record.key_id,
        "prefix": f"{apikeys.PREFIX}_{record.key_id}",
        "name": record.name,
        "created_at": record.created_at,
    }
    if record.scope is not None:
        view["scopes"] = json.loads(record.scope)
    if record.expires_at is not None:
        view["expires_at"] = record.expires_at
    return view


def list_keys(store: AccountStore, tenant: str, *, caller: Scope | None = None) -> dict[str, Any]:
    require_unscoped(caller, "listing keys")
    listed = sorted(store.list_keys(tenant), key=lambda r: (r.created_at, r.key_id))
    return {"keys": [_key_view(r) for r in listed]}


def revoke_key(store: AccountStore, tenant: str, key_id: str, *, caller: Scope | None = None) -> bool:
    require_unscoped(caller, "revoking a key")
    if not apikeys.is_key_id(key_id):
        return False  # no key has this id: nothing to revoke (idempotent, like every DELETE)
    return store.delete_key(tenant, key_id)


def authenticate(store: AccountStore, token: str | None, now: str) -> Principal | None:
    """The principal of a valid, unrevoked key (one GetItem); None for anything else. An unknown key id does the
    same work as a wrong secret (the store parses a decoy record; the secret is compared with a decoy hash), so
    the time of a refusal does not tell which key ids exist."""
    parts = apikeys.parse_key(token) if token else None
    if parts is None:
        return None
    record = store.get_key(parts.key_id)
    matches = apikeys.verify_secret(parts.secret, record.secret_hash if record is not None else _DECOY_HASH)
    if record is None or not matches or expired(record.expires_at, now):
        return None
    return Principal(record.tenant, record.key_id, Plan.from_mapping(record.plan), parse_scope(record.scope))
