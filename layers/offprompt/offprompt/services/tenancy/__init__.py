"""Hosted mode: tenants, plans, API keys, the authorizer's check, rate limits and usage metering."""

from __future__ import annotations

import functools

from offprompt.config import Settings

from .keys import KeyParts, bearer_token, hash_secret, looks_like_key, new_key, parse_key, verify_secret
from .service import STORING_ROUTES, Principal, TenancyService, plan_named

__all__ = [
    "STORING_ROUTES",
    "KeyParts",
    "Principal",
    "TenancyService",
    "bearer_token",
    "default_tenancy",
    "hash_secret",
    "looks_like_key",
    "new_key",
    "parse_key",
    "plan_named",
    "tenancy_from_settings",
    "verify_secret",
]


def tenancy_from_settings(settings: Settings) -> TenancyService:
    from offprompt.adapters.dynamodb_tenancy import DynamoDbTenancyStore

    return TenancyService(DynamoDbTenancyStore(settings.require("table_name")))


@functools.cache
def default_tenancy() -> TenancyService:
    """The process's tenancy service, built from the environment on first use (never at import)."""
    from offprompt.config import get_settings

    return tenancy_from_settings(get_settings())
