"""The account side of hosted mode, as one object for the function layer and the operator CLI: tenants and plans
(`plans`), API keys and the authorizer's check (`api_keys`), admission and the request's usage write
(`admission`), the usage report (`usage_report`): one module per use case, over the `AccountStore` port.

docs/adr/0022-api-keys.md (keys, authorizer), 0023-usage-metering-and-quotas.md (metering, plans), 0028.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from offprompt.metering import Meter, Plan
from offprompt.ports import AccountStore, TenantRecord

# Each use case imported by name (not as a module): what a function can reach is then exactly what it calls
# (tests/infrastructure/test_iam_least_privilege.py derives each function's IAM from that).
from .admission import STORING_ROUTES, TenantErasing, admit, flush
from .api_keys import Principal, authenticate, create_key, list_keys, revoke_key
from .api_keys import iso as _iso
from .plans import create_tenant, plan_named, set_plan, tenant_plan
from .scopes import Scope, require_unscoped
from .tokens import looks_like_token, mint, verify
from .usage_report import usage

__all__ = ["STORING_ROUTES", "AccountService", "Principal", "TenantErasing", "plan_named"]


class AccountService:
    def __init__(self, store: AccountStore, *, clock: Callable[[], float] = time.time) -> None:
        self.records = store
        self.clock = clock

    # ---- tenants and plans (operator) ------------------------------------------------------------------------
    def create_tenant(self, tenant: str, plan: Plan) -> TenantRecord:
        """A new tenant; Conflict (nothing changed) when it exists: `set_plan` changes a tenant's plan."""
        return create_tenant(self.records, tenant, plan, _iso(self.clock()))

    def set_plan(self, tenant: str, plan: Plan) -> TenantRecord:
        return set_plan(self.records, tenant, plan, _iso(self.clock()))

    def tenant_plan(self, tenant: str) -> Plan:
        return tenant_plan(self.records, tenant)

    # ---- keys (self-service and operator) --------------------------------------------------------------------
    def create_key(
        self,
        tenant: str,
        name: str | None = None,
        *,
        plan: Plan | None = None,
        scope: Scope | None = None,
        expires_at: str | None = None,
        caller: Scope | None = None,
    ) -> dict[str, Any]:
        now = _iso(self.clock())
        return create_key(self.records, tenant, name, now, plan=plan, scope=scope, expires_at=expires_at, caller=caller)

    def list_keys(self, tenant: str, *, caller: Scope | None = None) -> dict[str, Any]:
        return list_keys(self.records, tenant, caller=caller)

    def revoke_key(self, tenant: str, key_id: str, *, caller: Scope | None = None) -> bool:
        return revoke_key(self.records, tenant, key_id, caller=caller)

    def authenticate(
        self, token: str | None, token_secret: Callable[[], bytes | None] = lambda: None
    ) -> Principal | None:
        """A key's principal (one GetItem) or a short-lived token's (its signature alone: no read), under the
        deployment's token secret (`token_secret()`, asked only for a token; composition/account.py, ADR 0055)."""
        if token is not None and looks_like_token(token):
            return verify(token_secret(), token, self.clock())
        return authenticate(self.records, token, _iso(self.clock()))

    def mint_token(
        self,
        tenant: str,
        key_id: str,
        ttl_seconds: int,
        token_secret: bytes | None,
        *,
        scope: Scope | None = None,
        caller: Principal | None = None,
    ) -> dict[str, Any]:
        return mint(
            self.records,
            token_secret,
            tenant,
            key_id,
            ttl_seconds,
            self.clock(),
            scope=scope,
            caller_key_id=caller.key_id if caller is not None else None,
            caller_scope=caller.scope if caller is not None else None,
            caller_is_token=caller is not None and caller.token_id is not None,
        )

    # ---- every key-authenticated request ---------------------------------------------------------------------
    def admit(
        self,
        meter: Meter,
        key_id: str,
        request_bytes: int = 0,
        *,
        token_scope: Scope | None = None,
        token: bool = False,
    ) -> Scope | None:
        return admit(self.records, meter, key_id, request_bytes, token_scope=token_scope, token=token)

    def flush(self, meter: Meter, *, counted: bool) -> None:
        flush(self.records, meter, counted=counted)

    # ---- usage report ---------------------------------------------------------------------------------------
    def usage(self, tenant: str, first: str | None, last: str | None, *, caller: Scope | None = None) -> dict[str, Any]:
        require_unscoped(caller, "the usage report")
        return usage(self.records, tenant, first, last, self.clock())
