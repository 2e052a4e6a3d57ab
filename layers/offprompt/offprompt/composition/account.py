"""The account service (API keys, plans, quotas, usage) built from settings: the process's default service."""

from __future__ import annotations

import functools

from offprompt.config import Settings
from offprompt.services.account import AccountService


def account_from_settings(settings: Settings) -> AccountService:
    from offprompt.adapters.dynamodb_account import DynamoDbAccountStore

    return AccountService(DynamoDbAccountStore(settings.require("table_name")))


@functools.cache
def default_account() -> AccountService:
    """The process's account service, built from the environment on first use (never at import)."""
    from offprompt.config import get_settings

    return account_from_settings(get_settings())
