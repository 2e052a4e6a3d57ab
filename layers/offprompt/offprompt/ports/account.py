"""Hosted mode (docs/adr/0022, 0023): tenants, API keys, usage and rate windows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class KeyRecord:
    """An API key as stored: never the secret, only its SHA-256 (`secret_hash`)."""

    key_id: str
    tenant: str
    name: str
    created_at: str
    secret_hash: str
    plan: dict[str, object]  # offprompt.metering.Plan.to_dict(), copied onto the key for the authorizer's one read
    #: Set while the key's tenant is being erased (epoch seconds of the fence): only `DELETE /tenant` is admitted.
    erasing_since: float | None = None
    #: The key's scope as JSON (`services/account/scopes.Scope.dumps`); None: the whole tenant (docs/keys.md).
    scope: str | None = None
    #: When the key stops working (ISO 8601 UTC, `...Z`); None: never.
    expires_at: str | None = None


@dataclass(frozen=True)
class TenantRecord:
    tenant: str
    plan: dict[str, object]
    key_count: int
    stored_bytes: int
    created_at: str | None


class TenantExists(Exception):
    """`put_tenant(..., only_new=True)` found the tenant already created; `record` is what is stored."""

    def __init__(self, record: TenantRecord) -> None:
        super().__init__(f"tenant {record.tenant!r} already exists")
        self.record = record


class KeyLimitReached(Exception):
    """The tenant already holds as many keys as its plan allows."""


class StoredBytesLimit(Exception):
    """A write would take the tenant past its plan's stored bytes."""


class AccountStore(Protocol):
    def get_tenant(self, tenant: str) -> TenantRecord | None: ...

    def put_tenant(self, tenant: str, plan: dict[str, object], now: str, *, only_new: bool = False) -> TenantRecord:
        """Create the tenant (or set its plan), and copy the plan onto each of its keys. With `only_new`, only
        create it: TenantExists (nothing written) when the tenant was created already (has a `created_at`)."""
        ...

    def add_key(self, record: KeyRecord, max_keys: int) -> None:
        """Store the key, its listing entry and the tenant's key count together (KeyLimitReached past max)."""
        ...

    def get_key(self, key_id: str) -> KeyRecord | None:
        """The key (a strongly consistent read); an unknown id costs what a known one does."""
        ...

    def list_keys(self, tenant: str) -> list[KeyRecord]: ...

    def delete_key(self, tenant: str, key_id: str) -> bool:
        """Remove the tenant's key (False when it has no such key; another tenant's key is never touched)."""
        ...

    def take_rate_token(self, tenant: str, second: int, shard: int, limit: int) -> bool:
        """Count one request in the tenant's window; False when the window already holds `limit`."""
        ...

    def take_scan(self, tenant: str, day: str, limit: int) -> bool:
        """Count one self-service export/erase of `day` under `limit` (0: unlimited); False past it."""
        ...

    def runs_added(self, tenant: str, day: str) -> int:
        """Runs the tenant added on `day` (the exact counter the charges of runs keep)."""
        ...

    def add_usage(self, tenant: str, day: str, counters: dict[str, int]) -> None:
        """Add a request's counters to one of the tenant's usage items for `day` (one write)."""
        ...

    def usage_items(self, tenant: str, first_day: str, last_day: str) -> list[tuple[str, dict[str, int]]]:
        """Every usage item of the tenant between the two days (inclusive): (day, counters)."""
        ...


# ---- the audit log (docs/adr/0056) ---------------------------------------------------------------------------------
class AuditStore(Protocol):
    """A tenant's audit entries, in time order: `put_audit_entry` writes one (kept until `expires_at`, epoch
    seconds), `audit_page` reads them newest first between two times (ns), optionally one actor's only, from an
    opaque position."""

    def put_audit_entry(
        self, tenant: str, time_ns: int, entry: dict[str, Any], *, actor_id: str, expires_at: int
    ) -> None: ...

    def audit_page(
        self, tenant: str, since_ns: int, until_ns: int, *, actor_id: str | None, limit: int, after: str | None
    ) -> tuple[list[dict[str, Any]], str | None]: ...
