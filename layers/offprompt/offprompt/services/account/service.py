"""Hosted-mode use cases: tenants and their plans, API keys, the authorizer's key check, rate limits, usage.

docs/adr/0022-api-keys.md (keys, authorizer) and docs/adr/0023-usage-metering-and-quotas.md (metering, plans).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from offprompt.errors import InvalidInput, QuotaExceeded, RateLimited, Unauthenticated
from offprompt.identifiers import check_identifier
from offprompt.limits import MAX_KEY_NAME_CHARS, MAX_USAGE_DAYS, RATE_SHARD_CAPACITY
from offprompt.metering import (
    COUNTERS,
    DEFAULT_PLAN,
    PLANS,
    ROUTE_PREFIX,
    STORED_BYTES,
    Meter,
    Plan,
    runs_quota_exceeded,
    scans_quota_exceeded,
)
from offprompt.ports import AccountStore, KeyLimitReached, KeyRecord, TenantRecord

from . import keys as apikeys

#: Routes that store a tool output: refused up front when the tenant's stored bytes are at its plan's limit.
STORING_ROUTES = frozenset({"POST /memories/{memory_name}/outputs", "POST /memories/{memory_name}/uploads"})
#: Routes that add runs: refused up front once the day's runs reach the plan's runs per day (add-run's own
#: transaction re-checks it atomically, so racing requests cannot pass the limit either).
RUN_ROUTES = frozenset({"POST /threads/{thread_id}/runs", "PATCH /api/threads/{thread_id}"})
#: Routes that read the whole table (self-service export and erase, ADR 0024): at most the plan's scans per day.
SCAN_ROUTES = frozenset({"POST /export", "DELETE /tenant"})


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


def _iso(now: float) -> str:
    return datetime.fromtimestamp(now, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _day(value: str, field: str) -> date:
    try:
        return date.fromisoformat(value)
    except (TypeError, ValueError):
        raise InvalidInput(f'"{field}" must be a date YYYY-MM-DD, not {str(value)[:40]!r}') from None


def plan_named(name: str, **overrides: int | None) -> Plan:
    """A named plan (`PLANS`) with some of its numbers overridden (InvalidInput for an unknown name)."""
    if name not in PLANS and not any(v is not None for v in overrides.values()):
        raise InvalidInput(f"unknown plan {name!r}; known plans: {', '.join(PLANS)} (or give the limits)")
    base = PLANS.get(name, Plan(name))
    values = {**base.to_dict(), **{k: v for k, v in overrides.items() if v is not None}, "plan": name}
    return Plan.from_mapping(values)


class AccountService:
    def __init__(self, store: AccountStore, *, clock: Callable[[], float] = time.time) -> None:
        self.records = store
        self.clock = clock

    # ---- tenants and plans (operator) ------------------------------------------------------------------------
    def create_tenant(self, tenant: str, plan: Plan) -> TenantRecord:
        check_identifier("tenant", tenant)
        return self.records.put_tenant(tenant, plan.to_dict(), _iso(self.clock()))

    def set_plan(self, tenant: str, plan: Plan) -> TenantRecord:
        return self.create_tenant(tenant, plan)

    def tenant_plan(self, tenant: str) -> Plan:
        record = self.records.get_tenant(tenant)
        return Plan.from_mapping(record.plan) if record is not None and record.created_at else PLANS[DEFAULT_PLAN]

    # ---- keys (self-service and operator) --------------------------------------------------------------------
    def create_key(self, tenant: str, name: str | None = None, *, plan: Plan | None = None) -> dict[str, Any]:
        """A new key for `tenant`; the only time its secret is returned. QuotaExceeded past the plan's max keys."""
        check_identifier("tenant", tenant)
        name = (name or "").strip()
        if len(name) > MAX_KEY_NAME_CHARS:
            raise InvalidInput(f"a key name has at most {MAX_KEY_NAME_CHARS} characters")
        record = self.records.get_tenant(tenant)
        if plan is None:
            plan = Plan.from_mapping(record.plan) if record is not None and record.created_at else None
        if plan is None:  # a tenant with no record yet gets the default plan with its first key
            plan = PLANS[DEFAULT_PLAN]
            self.records.put_tenant(tenant, plan.to_dict(), _iso(self.clock()))
        parts = apikeys.new_key()
        created_at = _iso(self.clock())
        stored = KeyRecord(parts.key_id, tenant, name, created_at, apikeys.hash_secret(parts.secret), plan.to_dict())
        try:
            self.records.add_key(stored, plan.max_keys)
        except KeyLimitReached:
            raise QuotaExceeded(
                f"this tenant already holds the {plan.max_keys} API keys its plan allows; revoke one first",
                retry_after=3600,
                details={"quota": "max_keys", "limit": plan.max_keys},
            ) from None
        return {
            "key_id": parts.key_id,
            "key": parts.token,
            "prefix": parts.prefix,
            "name": name,
            "created_at": created_at,
        }

    def list_keys(self, tenant: str) -> dict[str, Any]:
        listed = sorted(self.records.list_keys(tenant), key=lambda r: (r.created_at, r.key_id))
        return {
            "keys": [
                {
                    "key_id": r.key_id,
                    "prefix": f"{apikeys.PREFIX}_{r.key_id}",
                    "name": r.name,
                    "created_at": r.created_at,
                }
                for r in listed
            ]
        }

    def revoke_key(self, tenant: str, key_id: str) -> bool:
        if not apikeys.is_key_id(key_id):
            return False  # no key has this id: nothing to revoke (idempotent, like every DELETE)
        return self.records.delete_key(tenant, key_id)

    # ---- the authorizer ----------------------------------------------------------------------------------
    def authenticate(self, token: str | None) -> Principal | None:
        """The principal of a valid, unrevoked key (one GetItem); None for anything else."""
        parts = apikeys.parse_key(token) if token else None
        if parts is None:
            return None
        record = self.records.get_key(parts.key_id)
        if record is None or not apikeys.verify_secret(parts.secret, record.secret_hash):
            return None
        return Principal(record.tenant, record.key_id, Plan.from_mapping(record.plan))

    # ---- admission and metering (every request of a key-authenticated caller) -----------------------------------
    def admit(self, meter: Meter, request_bytes: int = 0) -> None:
        """Refuse the request (429) before anything is written when the plan's rate or stored bytes forbid it."""
        plan = meter.plan
        if plan.rate_per_second:
            shards = max(1, math.ceil(plan.rate_per_second / RATE_SHARD_CAPACITY))
            per_shard = math.ceil(plan.rate_per_second / shards)
            second = int(meter.now)
            if not self.records.take_rate_token(meter.tenant, second, random.randrange(shards), per_shard):
                raise RateLimited(
                    f"more than {plan.rate_per_second} requests per second for this tenant's plan",
                    retry_after=1,
                    details={"limit": plan.rate_per_second, "window_seconds": 1},
                )
        if plan.runs_per_day and meter.route in RUN_ROUTES:
            added = self.records.runs_added(meter.tenant, meter.day)
            if added >= plan.runs_per_day:
                raise runs_quota_exceeded(plan, meter.now)
        if meter.route in SCAN_ROUTES:
            taken = self.records.take_scan(meter.tenant, meter.day, plan.scans_per_day)
            if taken == "erased":
                raise Unauthenticated("this API key's tenant has been erased")
            if taken == "limit":
                raise scans_quota_exceeded(plan, meter.now)
        if plan.stored_bytes and meter.route in STORING_ROUTES:
            record = self.records.get_tenant(meter.tenant)
            stored = record.stored_bytes if record is not None else 0
            if stored + request_bytes > plan.stored_bytes:
                raise QuotaExceeded(
                    f"this tenant stores {stored} bytes; its plan allows {plan.stored_bytes}",
                    retry_after=3600,
                    details={"quota": "stored_bytes", "limit": plan.stored_bytes, "used": stored},
                )

    def flush(self, meter: Meter, *, counted: bool) -> None:
        """Write what the request used: one UpdateItem on a random usage shard (plus the gauge when it stored).
        Nothing when the request erased its own tenant (`DELETE /tenant`): the erase leaves nothing behind."""
        if meter.erased:
            return
        if counted:
            meter.add(requests=1, **{ROUTE_PREFIX + (meter.route or "direct"): 1})
        self.records.add_usage(meter.tenant, meter.day, meter.pending(), meter.stored_delta())

    # ---- usage report ---------------------------------------------------------------------------------------
    def usage(self, tenant: str, first: str | None, last: str | None) -> dict[str, Any]:
        today = datetime.fromtimestamp(self.clock(), UTC).date()
        last_day = _day(last, "to") if last else today
        first_day = _day(first, "from") if first else last_day
        if first_day > last_day:
            raise InvalidInput('"from" is after "to"')
        if (last_day - first_day).days + 1 > MAX_USAGE_DAYS:
            raise InvalidInput(f"ask for at most {MAX_USAGE_DAYS} days at a time")
        days: dict[str, dict[str, Any]] = {}
        for day, counters in self.records.usage_items(tenant, first_day.isoformat(), last_day.isoformat()):
            entry = days.setdefault(day, _empty_day(day))
            for name, value in counters.items():
                if name.startswith(ROUTE_PREFIX):
                    routes = entry["requests_by_route"]
                    routes[name[len(ROUTE_PREFIX) :]] = routes.get(name[len(ROUTE_PREFIX) :], 0) + value
                elif name in COUNTERS:
                    entry[name] += value
        ordered = []
        cursor = first_day
        while cursor <= last_day:
            found = days.get(cursor.isoformat())
            if found is not None:
                found["bytes_stored"] = sum(found[name] for name in STORED_BYTES)
                ordered.append(found)
            cursor += timedelta(days=1)
        totals: dict[str, Any] = {name: sum(d[name] for d in ordered) for name in (*COUNTERS, "bytes_stored")}
        by_route: dict[str, int] = {}
        for entry in ordered:
            for route, n in entry["requests_by_route"].items():
                by_route[route] = by_route.get(route, 0) + n
        totals["requests_by_route"] = by_route
        record = self.records.get_tenant(tenant)
        return {
            "tenant": tenant,
            "from": first_day.isoformat(),
            "to": last_day.isoformat(),
            "days": ordered,
            "totals": totals,
            "stored_bytes": record.stored_bytes if record is not None else 0,
        }


def _empty_day(day: str) -> dict[str, Any]:
    return {"date": day, **dict.fromkeys(COUNTERS, 0), "requests_by_route": {}}
