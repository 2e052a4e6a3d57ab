"""Use case: the tenant's usage per UTC day and in total (`GET /usage`), and its current stored bytes."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from offprompt.errors import InvalidInput
from offprompt.limits import MAX_USAGE_DAYS, USAGE_FIRST_YEAR, USAGE_LAST_YEAR
from offprompt.metering import COUNTERS, ROUTE_PREFIX, STORED_BYTES, Plan
from offprompt.ports import AccountStore


def _day(value: str, field: str) -> date:
    try:
        day = date.fromisoformat(value)
    except (TypeError, ValueError):
        raise InvalidInput(f'"{field}" must be a date YYYY-MM-DD, not {str(value)[:40]!r}') from None
    if not USAGE_FIRST_YEAR <= day.year <= USAGE_LAST_YEAR:
        raise InvalidInput(f'"{field}" must be a date from {USAGE_FIRST_YEAR} to {USAGE_LAST_YEAR}, not {value}')
    return day


def usage(store: AccountStore, tenant: str, first: str | None, last: str | None, now: float) -> dict[str, Any]:
    today = datetime.fromtimestamp(now, UTC).date()
    last_day = _day(last, "to") if last else today
    first_day = _day(first, "from") if first else last_day
    if first_day > last_day:
        raise InvalidInput('"from" is after "to"')
    if (last_day - first_day).days + 1 > MAX_USAGE_DAYS:
        raise InvalidInput(f"ask for at most {MAX_USAGE_DAYS} days at a time")
    days: dict[str, dict[str, Any]] = {}
    for day, counters in store.usage_items(tenant, first_day.isoformat(), last_day.isoformat()):
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
    record = store.get_tenant(tenant)
    return {
        "tenant": tenant,
        "from": first_day.isoformat(),
        "to": last_day.isoformat(),
        "days": ordered,
        "totals": totals,
        "stored_bytes": record.stored_bytes if record is not None else 0,
        # the plan's limits (0: unlimited), for a view of the use against them (the console; docs/adr/0038)
        "plan": Plan.from_mapping(record.plan).to_dict() if record is not None else None,
    }


def _empty_day(day: str) -> dict[str, Any]:
    return {"date": day, **dict.fromkeys(COUNTERS, 0), "requests_by_route": {}}
