"""The library's error hierarchy. HTTP-free: the function layer maps each class to a status code.

Every error carries a stable machine-readable `code` and a human message that says what is wrong and where.
"""

from __future__ import annotations

from typing import Any, ClassVar


class OffpromptError(Exception):
    """Base class of every error the library raises on purpose."""

    code: ClassVar[str] = "error"

    def __init__(self, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            body["details"] = self.details
        return body


class InvalidInput(OffpromptError):
    """The client sent something malformed or semantically wrong (HTTP 400)."""

    code = "invalid_input"


class ArtifactError(InvalidInput):
    """An artifact (or message, run, prompt stack) could not be decoded or encoded."""

    code = "invalid_artifact"


class SchemaInvalid(InvalidInput):
    """A request body or event does not have the expected shape (HTTP 422); `details["errors"]` lists why."""

    code = "schema_invalid"

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "details": self.details.get("errors", [])}


class Unauthenticated(OffpromptError):
    """The request carries no caller identity the deployment accepts (HTTP 401)."""

    code = "unauthenticated"


class ScopeDenied(OffpromptError):
    """A scoped key or token asked for something outside its scope (HTTP 403 on every route and MCP tool; decided on
    the names alone, before anything is read, so the answer tells nothing of what exists: docs/keys.md)."""

    code = "scope_denied"


class NotFound(OffpromptError):
    """The thing asked for does not exist, or belongs to another tenant (HTTP 404)."""

    code = "not_found"


class Conflict(OffpromptError):
    """The request contradicts what is stored (HTTP 409)."""

    code = "conflict"


class PayloadTooLarge(OffpromptError):
    """The request is larger than the route accepts (HTTP 413)."""

    code = "payload_too_large"


class DependencyUnavailable(OffpromptError):
    """DynamoDB, S3, OpenSearch or Bedrock failed; nothing was committed, the request is safe to retry (503)."""

    code = "dependency_unavailable"


class DependencyTimeout(DependencyUnavailable):
    """A dependency did not answer within the request's time budget (offprompt.deadline); nothing was committed,
    the request is safe to retry (HTTP 503, answered before API Gateway's and the function's own timeout)."""

    code = "dependency_timeout"


class TooManyRequests(OffpromptError):
    """The tenant's plan refuses the request now (HTTP 429, `Retry-After: retry_after` seconds); nothing was
    written."""

    code = "too_many_requests"

    def __init__(self, message: str, *, retry_after: int, details: dict[str, Any] | None = None) -> None:
        super().__init__(message, details=details)
        self.retry_after = max(1, int(retry_after))


class RateLimited(TooManyRequests):
    """More requests per second than the tenant's plan allows (HTTP 429)."""

    code = "rate_limited"


class QuotaExceeded(TooManyRequests):
    """A quota of the tenant's plan (runs per day, stored bytes, API keys) is used up (HTTP 429)."""

    code = "quota_exceeded"


class ConfigurationError(OffpromptError):
    """The deployment is misconfigured (a server-side problem, never the client's; HTTP 500)."""

    code = "configuration_error"


def schema_invalid(errors: list[dict[str, Any]], *, limit: int = 20) -> SchemaInvalid:
    """SchemaInvalid for pydantic-style `errors`: `details` is `[{loc, type, msg}]` and the message names the first.

    The one place a schema error gets its shape, whether the request came over HTTP or as a direct invocation.
    """
    details = [
        {
            "loc": [p if isinstance(p, int) else str(p) for p in e.get("loc", ())],
            "type": str(e.get("type")),
            "msg": str(e.get("msg")),
        }
        for e in errors[:limit]
    ]
    if not details:
        return SchemaInvalid("request does not match the schema")
    where = ".".join(str(p) for p in details[0]["loc"]) or "body"
    return SchemaInvalid(f"{where}: {details[0]['msg']}"[:500], details={"errors": details})
