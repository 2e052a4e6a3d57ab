"""Hosted mode: tenants, plans, API keys, the authorizer's check, rate limits and usage metering.

Built from settings by `offprompt.composition.tenancy` (`default_tenancy`)."""

from __future__ import annotations

from .keys import KeyParts, bearer_token, hash_secret, looks_like_key, new_key, parse_key, verify_secret
from .service import STORING_ROUTES, Principal, TenancyService, plan_named

__all__ = [
    "STORING_ROUTES",
    "KeyParts",
    "Principal",
    "TenancyService",
    "bearer_token",
    "hash_secret",
    "looks_like_key",
    "new_key",
    "parse_key",
    "plan_named",
    "verify_secret",
]
