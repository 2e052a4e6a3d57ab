"""Hosted mode's usage: who pays (tenant and plan), what a write costs (`Charge`) and what a request used (`Meter`).

HTTP-free and I/O-free. Nothing here is ambient: the function layer builds a `Meter` for a request the API-key
authorizer admitted and hands it to the use case it calls (`meter=`; None outside hosted mode). The use case
decides what each write charges (`meter.charge(...)`) and passes the `Charge` into the store write that must be
atomic with it (`RunStore.put_run(..., charge=)`, `NamespaceStore.commit(..., charge=)`): the adapter adds the
charge's items to that write's own transaction, conditioned on the plan's limits, and a refused condition cancels
the write (QuotaExceeded). Once the write committed, the use case settles the charge on the meter
(`meter.settle(charge)`), so the request's final usage write, after the answer, skips what the transaction
already wrote. Counters that bound nothing (searches, loads, bytes served) are only added to the meter
(`meter.add`) and written by that final write (docs/adr/0023-usage-metering-and-quotas.md).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
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
    "records_stored",
    "checkpoints_stored",
    "checkpoint_writes_stored",
    "bytes_stored_dynamodb",
    "bytes_stored_s3",
    "bytes_stored_opensearch",
    "tokens_stored",
    "searches",
    "loads",
    "bytes_served",
    "extraction_tokens",
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
    #: The extraction model's input and output tokens per UTC day (docs/adr/0051); past it, extraction pauses.
    extraction_tokens_per_day: int = 0
    #: Days the tenant's audit log keeps an entry (docs/adr/0056).
    audit_days: int = 90

    def to_dict(self) -> dict[str, Any]:
        return {
            "plan": self.name,
            "rate_per_second": self.rate_per_second,
            "runs_per_day": self.runs_per_day,
            "stored_bytes": self.stored_bytes,
            "max_keys": self.max_keys,
            "scans_per_day": self.scans_per_day,
            "extraction_tokens_per_day": self.extraction_tokens_per_day,
            "audit_days": self.audit_days,
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
            extraction_tokens_per_day=number("extraction_tokens_per_day", 0),
            audit_days=number("audit_days", 90),
        )


#: The plans an operator can name (`offprompt_admin plan set <tenant> <plan>`); each field can be overridden.
PLANS: dict[str, Plan] = {
    "free": Plan(
        "free",
        rate_per_second=10,
        runs_per_day=1_000,
        stored_bytes=100 * 2**20,
        max_keys=5,
        scans_per_day=2,
        extraction_tokens_per_day=200_000,
    ),
    "pro": Plan(
        "pro",
        rate_per_second=100,
        runs_per_day=100_000,
        stored_bytes=10 * 2**30,
        max_keys=20,
        scans_per_day=10,
        extraction_tokens_per_day=20_000_000,
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


@dataclass(frozen=True)
class Charge:
    """What one write costs its tenant, committed in the write's own transaction (the store adds it):

    - `stored_bytes` onto the tenant's stored-bytes gauge, conditioned on the plan's `stored_bytes` limit;
    - `day_counters` onto the day's exact counters (runs added and what they hold), conditioned on the plan's
      `runs_per_day` when they count runs.
    A refused condition cancels the whole write: nothing is stored and nothing is charged (`refusal`).
    """

    tenant: str
    plan: Plan
    now: float
    stored_bytes: int = 0
    day_counters: Mapping[str, int] = field(default_factory=dict)

    @property
    def day(self) -> str:
        return utc_day(self.now)

    def refusal(self, quota: str) -> QuotaExceeded:
        """The 429 for the limit whose condition refused the write (`runs_per_day` or `stored_bytes`)."""
        if quota == "runs_per_day":
            return runs_quota_exceeded(self.plan, self.now)
        return stored_quota_exceeded(self.plan)


@dataclass
class Meter:
    """One request's tenant, plan and usage counters (integers, added with `add`), handed to use cases explicitly."""

    tenant: str
    plan: Plan
    route: str = ""
    now: float = field(default_factory=lambda: clock())
    counters: dict[str, int] = field(default_factory=dict)
    #: Counters a write's own transaction already wrote (settled charges): the final usage write skips them.
    settled: dict[str, int] = field(default_factory=dict)
    #: Set when the request erased its own tenant: nothing of the tenant may be written after it (no usage).
    erased: bool = False
    #: Runs the tenant had added today when the request was admitted (read for the routes that add runs), so a
    #: use case adding several can refuse them all up front.
    runs_today: int = 0

    @property
    def day(self) -> str:
        return utc_day(self.now)

    def add(self, **counters: int) -> None:
        for name, value in counters.items():
            if value:
                self.counters[name] = self.counters.get(name, 0) + int(value)

    def charge(self, *, stored_bytes: int = 0, **day_counters: int) -> Charge:
        """The charge of one write: `stored_bytes` onto the gauge, `day_counters` onto the day's exact counters.
        QuotaExceeded at once for a write larger than the plan allows at all (the gauge's condition would pass
        for a tenant whose gauge was never written)."""
        counters = {k: int(v) for k, v in day_counters.items() if v}
        charge = Charge(self.tenant, self.plan, self.now, max(0, int(stored_bytes)), counters)
        if self.plan.stored_bytes and charge.stored_bytes > self.plan.stored_bytes:
            raise charge.refusal("stored_bytes")
        if self.plan.runs_per_day and counters.get("runs_added", 0) > self.plan.runs_per_day:
            raise charge.refusal("runs_per_day")
        return charge

    def settle(self, charge: Charge) -> None:
        """The write carrying `charge` committed: its day counters are counted, and already written."""
        self.add(**charge.day_counters)
        for name, value in charge.day_counters.items():
            self.settled[name] = self.settled.get(name, 0) + value

    def pending(self) -> dict[str, int]:
        """Counters not yet written: everything added minus what a transaction already wrote."""
        left = {k: v - self.settled.get(k, 0) for k, v in self.counters.items()}
        return {k: v for k, v in left.items() if v}

    def forget(self) -> None:
        """The request erased its own tenant: its usage is not written afterwards (it would re-create the
        erased tenant's usage items)."""
        self.erased = True


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
