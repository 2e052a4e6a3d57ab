"""Use case: admission and the request's usage write, for every request of a key the API-key authorizer admitted
(docs/adr/0022, 0023, 0028).

`admit` runs before the route: the calling key is read again (a strongly consistent GetItem), so a revoked key is
refused at once whatever API Gateway cached (401), a tenant being erased refuses every request but the erase
itself (409 `tenant_erasing`), and the plan is the key's current one; then the plan's rate, runs per day, scans per
day and stored bytes refuse the request (429 + Retry-After) before anything is written. `flush` runs after the
answer: the request's counters that no write already committed (`Meter.pending`), in one write.
"""

from __future__ import annotations

import random

from offprompt.errors import Conflict, QuotaExceeded, RateLimited, Unauthenticated
from offprompt.limits import RATE_SHARD_CAPACITY
from offprompt.metering import ROUTE_PREFIX, Meter, Plan, runs_quota_exceeded, scans_quota_exceeded
from offprompt.ports import AccountStore

from .api_keys import expired, iso
from .scopes import Scope, parse_scope

#: Routes that store a tool output: refused up front when the tenant's stored bytes are at its plan's limit (the
#: commit's own charge holds the limit exactly, concurrent stores included).
STORING_ROUTES = frozenset({"POST /memories/{memory_name}/outputs", "POST /memories/{memory_name}/uploads"})
#: Routes that add runs: refused up front once the day's runs reach the plan's runs per day (each run's charge
#: re-checks it atomically, so racing requests cannot pass the limit either); the day's count goes on the meter.
RUN_ROUTES = frozenset({"POST /threads/{thread_id}/runs", "PATCH /api/threads/{thread_id}"})
#: Routes that read all of a tenant's data (self-service export and erase, ADR 0024): at most the plan's scans a day.
SCAN_ROUTES = frozenset({"POST /export", "DELETE /tenant"})
#: The one route a tenant being erased may still call: the erase, until it has finished.
ERASE_ROUTE = "DELETE /tenant"


class TenantErasing(Conflict):
    code = "tenant_erasing"


def admit(
    store: AccountStore,
    meter: Meter,
    key_id: str,
    request_bytes: int = 0,
    *,
    token_scope: Scope | None = None,
    token: bool = False,
) -> Scope | None:
    """Refuse the request before anything is written (see the module docstring); sets the meter's plan. Answers the
    request's scope: the key's as stored (read here anyway, so what API Gateway cached never widens it), or a
    token's (`token`: signed into it, within its key's), None for the whole tenant. A token's key revoked or
    expired ends the token at once: this is the same one read."""
    record = store.get_key(key_id)
    if record is None or record.tenant != meter.tenant:
        raise Unauthenticated("this API key was revoked")
    if expired(record.expires_at, iso(meter.now)):
        raise Unauthenticated("this API key expired")
    scope = parse_scope(record.scope)
    if token:
        if token_scope is not None and not token_scope.narrows(scope):
            raise Unauthenticated("this token's scope is not within its key's")
        scope = token_scope if token_scope is not None else scope
    meter.plan = plan = Plan.from_mapping(record.plan)
    erasing = record.erasing_since is not None
    if erasing and meter.route != ERASE_ROUTE:
        raise TenantErasing("this tenant is being erased; only DELETE /tenant (to finish the erase) is accepted")
    if plan.rate_per_second:
        shards = max(1, -(-plan.rate_per_second // RATE_SHARD_CAPACITY))
        per_shard = -(-plan.rate_per_second // shards)
        if not store.take_rate_token(meter.tenant, int(meter.now), random.randrange(shards), per_shard):
            raise RateLimited(
                f"more than {plan.rate_per_second} requests per second for this tenant's plan",
                retry_after=1,
                details={"limit": plan.rate_per_second, "window_seconds": 1},
            )
    if plan.runs_per_day and meter.route in RUN_ROUTES:
        meter.runs_today = store.runs_added(meter.tenant, meter.day)
        if meter.runs_today >= plan.runs_per_day:
            raise runs_quota_exceeded(plan, meter.now)
    # The repeats that finish a fenced erase are not counted again.
    if meter.route in SCAN_ROUTES and not erasing and not store.take_scan(meter.tenant, meter.day, plan.scans_per_day):
        raise scans_quota_exceeded(plan, meter.now)
    if plan.stored_bytes and meter.route in STORING_ROUTES:
        tenant = store.get_tenant(meter.tenant)
        stored = tenant.stored_bytes if tenant is not None else 0
        if stored + request_bytes > plan.stored_bytes:
            raise QuotaExceeded(
                f"this tenant stores {stored} bytes; its plan allows {plan.stored_bytes}",
                retry_after=3600,
                details={"quota": "stored_bytes", "limit": plan.stored_bytes, "used": stored},
            )
    return scope


def flush(store: AccountStore, meter: Meter, *, counted: bool) -> None:
    """Write what the request used and no write of it committed: one UpdateItem on a random usage shard. Nothing
    when the request erased its own tenant (`DELETE /tenant`): the erase leaves nothing behind."""
    if meter.erased:
        return
    if counted:
        meter.add(requests=1, **{ROUTE_PREFIX + (meter.route or "direct"): 1})
    store.add_usage(meter.tenant, meter.day, meter.pending())
