"""Use case: API keys: create (shown once), list, revoke, and the authorizer's check (docs/adr/0022)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from offprompt.errors import InvalidInput, QuotaExceeded
from offprompt.identifiers import check_characters, check_identifier
from offprompt.limits import MAX_KEY_NAME_CHARS
from offprompt.metering import DEFAULT_PLAN, PLANS, Plan
from offprompt.ports import AccountStore, KeyLimitReached, KeyRecord, TenantExists

from . import keys as apikeys

#: What an unknown key id is compared against: a hash of nothing anyone holds, of the stored hashes' length.
_DECOY_HASH = "0" * 64


@dataclass(frozen=True)
class Principal:
    """Who a valid key belongs to, as the authorizer hands it to the functions (its `context`)."""

    tenant: str
    key_id: str
    plan: Plan

    def to_context(self) -> dict[str, Any]:
        return {"tenant": self.tenant, "key_id": self.key_id, **self.plan.to_dict()}

    @classmethod
    def from_context(cls, context: dict[str, Any]) -> Principal:
        return cls(str(context["tenant"]), str(context.get("key_id") or ""), Plan.from_mapping(context))


def create_key(
    store: AccountStore, tenant: str, name: str | None, now: str, *, plan: Plan | None = None
) -> dict[str, Any]:
    """A new key for `tenant`; the only time its secret is returned. QuotaExceeded past the plan's max keys.
    A tenant with no record yet gets the default plan with its first key (its data, if any predates the tenant
    index, stays found by export and erase: creating a tenant never marks it indexed)."""
    check_identifier("tenant", tenant)
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
    stored = KeyRecord(parts.key_id, tenant, name, now, apikeys.hash_secret(parts.secret), plan.to_dict())
    try:
        store.add_key(stored, plan.max_keys)
    except KeyLimitReached:
        raise QuotaExceeded(
            f"this tenant already holds the {plan.max_keys} API keys its plan allows; revoke one first",
            retry_after=3600,
            details={"quota": "max_keys", "limit": plan.max_keys},
        ) from None
    return {"key_id": parts.key_id, "key": parts.token, "prefix": parts.prefix, "name": name, "created_at": now}


def list_keys(store: AccountStore, tenant: str) -> dict[str, Any]:
    listed = sorted(store.list_keys(tenant), key=lambda r: (r.created_at, r.key_id))
    return {
        "keys": [
            {"key_id": r.key_id, "prefix": f"{apikeys.PREFIX}_{r.key_id}", "name": r.name, "created_at": r.created_at}
            for r in listed
        ]
    }


def revoke_key(store: AccountStore, tenant: str, key_id: str) -> bool:
    if not apikeys.is_key_id(key_id):
        return False  # no key has this id: nothing to revoke (idempotent, like every DELETE)
    return store.delete_key(tenant, key_id)


def authenticate(store: AccountStore, token: str | None) -> Principal | None:
    """The principal of a valid, unrevoked key (one GetItem); None for anything else. An unknown key id does the
    same work as a wrong secret (the store parses a decoy record; the secret is compared with a decoy hash), so
    the time of a refusal does not tell which key ids exist."""
    parts = apikeys.parse_key(token) if token else None
    if parts is None:
        return None
    record = store.get_key(parts.key_id)
    matches = apikeys.verify_secret(parts.secret, record.secret_hash if record is not None else _DECOY_HASH)
    if record is None or not matches:
        return None
    return Principal(record.tenant, record.key_id, Plan.from_mapping(record.plan))
