"""What a failed botocore call says, for the adapters' DependencyUnavailable messages."""

from __future__ import annotations

from botocore.exceptions import ClientError


def error_code(exc: ClientError, default: str = "") -> str:
    """The AWS error code of a ClientError (`default` when the response carries none)."""
    return str(exc.response.get("Error", {}).get("Code", default))


def failure_reason(exc: Exception, *, default_code: str = "") -> str:
    """A ClientError's AWS error code; for any other exception (BotoCoreError), its class name."""
    return error_code(exc, default_code) if isinstance(exc, ClientError) else type(exc).__name__
