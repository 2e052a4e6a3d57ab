"""The account service (API keys, plans, quotas, usage) built from settings: the process's default service."""

from __future__ import annotations

import functools

from offprompt.config import Settings
from offprompt.services.account import AccountService


def account_from_settings(settings: Settings) -> AccountService:
    from offprompt.adapters.dynamodb_account import DynamoDbAccountStore

    return AccountService(DynamoDbAccountStore(settings.require("table_name")))


@functools.cache
def default_token_secret() -> bytes | None:
    """The process's token signing secret, read on first use (the authorizer's first token, the first mint): only
    the authorizer and the account function ask for it, so only they may read it (template.yaml)."""
    from offprompt.config import get_settings

    return token_secret(get_settings())


def token_secret(settings: Settings) -> bytes | None:
    """The token signing secret (ADR 0055): the value set locally, else the deployment's Secrets Manager secret (read
    once per environment, on the first token minted or checked), else None (no tokens)."""
    if settings.token_secret:
        return settings.token_secret.encode("utf-8")
    if settings.token_secret_arn:
        from offprompt.adapters.secrets import secret_string

        return secret_string(settings.token_secret_arn).encode("utf-8")
    return None


@functools.cache
def default_account() -> AccountService:
    """The process's account service, built from the environment on first use (never at import)."""
    from offprompt.config import get_settings

    return account_from_settings(get_settings())
