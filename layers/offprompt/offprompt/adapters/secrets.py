"""Secrets Manager: the deployment's token signing secret (docs/adr/0055), read once per environment."""

from __future__ import annotations

from botocore.exceptions import BotoCoreError, ClientError

from offprompt.errors import DependencyUnavailable

from .aws_errors import failure_reason
from .clients import aws_client


def secret_string(secret_id: str) -> str:
    """The secret's current string value; DependencyUnavailable when it cannot be read."""
    try:
        value = aws_client("secretsmanager").get_secret_value(SecretId=secret_id)["SecretString"]
    except (BotoCoreError, ClientError) as exc:
        raise DependencyUnavailable(f"the token secret could not be read: {failure_reason(exc)}") from None
    return str(value)
