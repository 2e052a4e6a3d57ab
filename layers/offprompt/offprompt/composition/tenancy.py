"""The tenancy service (API keys, plans, quotas, usage) built from settings: the process's default service."""

from __future__ import annotations

import functools

from offprompt.config import Settings
from offprompt.services.tenancy import TenancyService


def tenancy_from_settings(settings: Settings) -> TenancyService:
    from offprompt.adapters.dynamodb_tenancy import DynamoDbTenancyStore

    return TenancyService(DynamoDbTenancyStore(settings.require("table_name")))


@functools.cache
def default_tenancy() -> TenancyService:
    """The process's tenancy service, built from the environment on first use (never at import)."""
    from offprompt.config import get_settings

    return tenancy_from_settings(get_settings())
