"""Hosted mode's account side: tenants and their plans, API keys, the authorizer's key check, admission (rate
limits and quotas before anything is written) and the usage report (docs/adr/0022, 0023).

Built from settings by `offprompt.composition.account` (`default_account`). A tenant's data (export, import,
erase) is the other half of the hosted wing: `offprompt.services.tenant_data`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from offprompt.lazy import lazy_exports

if TYPE_CHECKING:
    from .keys import KeyParts, bearer_token, hash_secret, looks_like_key, new_key, parse_key, verify_secret
    from .service import STORING_ROUTES, AccountService, Principal, TenantErasing, plan_named

# Imported on first use (offprompt.lazy): `scopes`, which every route declaration needs, runs no other submodule.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "keys": "KeyParts bearer_token hash_secret looks_like_key new_key parse_key verify_secret",
        "service": "STORING_ROUTES AccountService Principal TenantErasing plan_named",
    },
)

__all__ = [
    "STORING_ROUTES",
    "AccountService",
    "KeyParts",
    "Principal",
    "TenantErasing",
    "bearer_token",
    "hash_secret",
    "looks_like_key",
    "new_key",
    "parse_key",
    "plan_named",
    "verify_secret",
]
