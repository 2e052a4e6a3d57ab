"""Use case: tenants and their plans (operator): create a tenant, set its plan, read it. docs/adr/0023."""

from __future__ import annotations

from offprompt.errors import Conflict, InvalidInput
from offprompt.identifiers import check_identifier
from offprompt.metering import DEFAULT_PLAN, PLANS, Plan
from offprompt.ports import AccountStore, TenantExists, TenantRecord

#: The numbers a plan has (each may be overridden when a plan is set); 0 means unlimited.
PLAN_NUMBERS = (
    "rate_per_second",
    "runs_per_day",
    "stored_bytes",
    "max_keys",
    "scans_per_day",
    "extraction_tokens_per_day",
)


def plan_named(name: str, **overrides: int | None) -> Plan:
    """A named plan (`PLANS`) with some of its numbers overridden. InvalidInput for an unknown name without
    numbers, and for a number below zero (0 means unlimited: a negative limit must not become one)."""
    for field, value in overrides.items():
        if field not in PLAN_NUMBERS:
            raise InvalidInput(f"a plan has no number {field!r}; it has {', '.join(PLAN_NUMBERS)}")
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise InvalidInput(f"{field} must be a whole number of 0 (unlimited) or more, not {value!r}")
    if name not in PLANS and not any(v is not None for v in overrides.values()):
        raise InvalidInput(f"unknown plan {name!r}; known plans: {', '.join(PLANS)} (or give the limits)")
    base = PLANS.get(name, Plan(name))
    values = {**base.to_dict(), **{k: v for k, v in overrides.items() if v is not None}, "plan": name}
    return Plan.from_mapping(values)


def create_tenant(store: AccountStore, tenant: str, plan: Plan, now: str) -> TenantRecord:
    """Create the tenant with `plan`. Conflict (nothing changed) when it exists already: creating never re-plans a
    tenant (`set_plan` does); `details` hold its stored plan and the one asked for."""
    check_identifier("tenant", tenant)
    try:
        return store.put_tenant(tenant, plan.to_dict(), now, only_new=True)
    except TenantExists as exists:
        found = exists.record
        raise Conflict(
            f"tenant {tenant!r} already exists (plan {found.plan.get('plan')!r}, {found.key_count} key(s), created "
            f"{found.created_at}); nothing was changed: set its plan with set_plan, add a key with create_key",
            details={"tenant": tenant, "plan": found.plan, "requested_plan": plan.to_dict()},
        ) from None


def set_plan(store: AccountStore, tenant: str, plan: Plan, now: str) -> TenantRecord:
    """Set the tenant's plan (copied onto its keys, which the authorizer reads), creating the tenant if needed."""
    check_identifier("tenant", tenant)
    return store.put_tenant(tenant, plan.to_dict(), now)


def tenant_plan(store: AccountStore, tenant: str) -> Plan:
    record = store.get_tenant(tenant)
    return Plan.from_mapping(record.plan) if record is not None and record.created_at else PLANS[DEFAULT_PLAN]
