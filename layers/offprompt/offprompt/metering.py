"""Hosted mode's request scope: who pays (tenant and plan) and what this request used (usage counters).

HTTP-free and I/O-free, like `offprompt.deadline`: the function layer opens a `Meter` for a request the API-key
authorizer admitted (`metered`), services and adapters add what they did (`record`, or `current()` for an adapter
that folds the counters into its own transaction), and the function layer writes the counters once, after the
answer (docs/adr/0023-usage-metering-and-quotas.md). Outside hosted mode there is no meter and `record` is free.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from offprompt.errors import QuotaExceeded
from offprompt.limits import DEFAULT_MAX_KEYS, DEFAULT_SCANS_PER_DAY

#: Every usage counter `GET /usage` reports per day (plus `requests_by_route`).
COUNTERS = (
    "requests",
    "runs_added",
    "artifacts_stored",
    "bytes_stored_dynamodb",
    "bytes_stored_s3",
    "bytes_stored_opensearch",
    "tokens_stored",
    "searches",
    "loads",
    "bytes_served",
)
#: Counters of bytes written to a store; their sum is a day's `bytes_stored`.
STORED_BYTES = ("bytes_stored_dynamodb", "bytes_stored_s3", "bytes_stored_opensearch")
#: A per-route request counter's attribute name is this prefix + the route key ("POST /keys").
ROUTE_PREFIX = "route:"


@dataclass(frozen=True)
class Plan:
    """What a tenant may do; 0 means unlimited."""

    name: str
    rate_per_second: int = 0
    runs_per_day: int = 0
    stored_bytes: int = 0
    max_keys: int = DEFAULT_MAX_KEYS
    #: Self-service exports and erases per UTC day (each reads the whole table: docs/adr/0024, 0021).
    scans_per_day: int = DEFAULT_SCANS_PER_DAY

    def to_dict(self) -> dict[str, Any]:
        return {
            "plan": self.name,
            "rate_per_second": self.rate_per_second,
            "runs_per_day": self.runs_per_day,
            "stored_bytes": self.stored_bytes,
            "max_keys": self.max_keys,
            "scans_per_day": self.scans_per_day,
        }

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> Plan:
        """From `to_dict`'s shape (numbers may arrive as strings, as in an authorizer context)."""

        def number(name: str, default: int) -> int:
            raw = values.get(name)
            try:
                return max(0, int(str(raw))) if raw is not None and raw != "" else default
            except ValueError:
                return default

        return cls(
            name=str(values.get("plan") or "custom"),
            rate_per_second=number("rate_per_second", 0),
            runs_per_day=number("runs_per_day", 0),
            stored_bytes=number("stored_bytes", 0),
            max_keys=number("max_keys", DEFAULT_MAX_KEYS),
            scans_per_day=number("scans_per_day", DEFAULT_SCANS_PER_DAY),
        )


#: The plans an operator can name (`offprompt_admin plan set <tenant> <plan>`); each field can be overridden.
PLANS: dict[str, Plan] = {
    "free": Plan("free", rate_per_second=10, runs_per_day=1_000, stored_bytes=100 * 2**20, max_keys=5, scans_per_day=2),
    "pro": Plan(
        "pro", rate_per_second=100, runs_per_day=100_000, stored_bytes=10 * 2**30, max_keys=20, scans_per_day=10
    ),
    "unlimited": Plan("unlimited", max_keys=100, scans_per_day=0),
}
DEFAULT_PLAN = "free"


def clock() -> float:
    """The time meters stamp requests with (one place to read it)."""
    return time.time()


def utc_day(now: float) -> str:
    return datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d")


def seconds_to_midnight(now: float) -> int:
    return max(1, 86_400 - int(now) % 86_400)


@dataclass
class Meter:
    """One request's tenant, plan and usage counters (integers, added with `add`)."""

    tenant: str
    plan: Plan
    route: str = ""
    now: float = field(default_factory=lambda: clock())
    counters: dict[str, int] = field(default_factory=dict)
    #: Counters already written by an adapter in its own transaction (so the final write skips them).
    committed: dict[str, int] = field(default_factory=dict)
    #: Stored bytes an adapter already added to the tenant's gauge in its own transaction (a namespace commit):
    #: the day's counters still go in the final write, the gauge does not move again.
    gauge_committed: int = 0
    #: Set when the request erased its own tenant: nothing of the tenant may be written after it (no usage).
    erased: bool = False

    @property
    def day(self) -> str:
        return utc_day(self.now)

    def add(self, **counters: int) -> None:
        for name, value in counters.items():
            if value:
                self.counters[name] = self.counters.get(name, 0) + int(value)

    def pending(self) -> dict[str, int]:
        """Counters not yet written: everything added minus what a transaction already wrote."""
        left = {k: v - self.committed.get(k, 0) for k, v in self.counters.items()}
        return {k: v for k, v in left.items() if v}

    def stored_delta(self) -> int:
        pending = self.pending()
        return max(0, sum(pending.get(name, 0) for name in STORED_BYTES) - self.gauge_committed)


_CURRENT: contextvars.ContextVar[Meter | None] = contextvars.ContextVar("offprompt_meter", default=None)


def current() -> Meter | None:
    """The request's meter (hosted mode), else None."""
    return _CURRENT.get()


@contextlib.contextmanager
def metered(meter: Meter | None) -> Iterator[Meter | None]:
    token = _CURRENT.set(meter)
    try:
        yield meter
    finally:
        _CURRENT.reset(token)


def record(**counters: int) -> None:
    """Add usage counters to the request's meter; nothing outside hosted mode."""
    meter = _CURRENT.get()
    if meter is not None:
        meter.add(**counters)


def tenant_erased(tenant: str) -> None:
    """The request erased `tenant`: when it is the request's own tenant, its usage is not written afterwards
    (it would re-create the erased tenant's usage items)."""
    meter = _CURRENT.get()
    if meter is not None and meter.tenant == tenant:
        meter.erased = True


def scans_quota_exceeded(plan: Plan, now: float) -> QuotaExceeded:
    return QuotaExceeded(
        f"this tenant ran the {plan.scans_per_day} exports and erases its plan allows today (UTC)",
        retry_after=seconds_to_midnight(now),
        details={"quota": "scans_per_day", "limit": plan.scans_per_day},
    )


def runs_quota_exceeded(plan: Plan, now: float) -> QuotaExceeded:
    return QuotaExceeded(
        f"this tenant added the {plan.runs_per_day} runs its plan allows today (UTC)",
        retry_after=seconds_to_midnight(now),
        details={"quota": "runs_per_day", "limit": plan.runs_per_day},
    )


def stored_quota_exceeded(plan: Plan) -> QuotaExceeded:
    return QuotaExceeded(
        f"this write would take the tenant past the {plan.stored_bytes} stored bytes its plan allows",
        retry_after=3600,
        details={"quota": "stored_bytes", "limit": plan.stored_bytes},
    )
