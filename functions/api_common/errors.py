"""The one error table: library error types → HTTP status codes (resolved along the class hierarchy), and the
error body's schema that every route documents for each status it can answer with.

Direct invocations raise the same classes (their names are what a Step Functions Catch matches), so the same
bad input is the same (status, code) pair over HTTP and the same error class invoked directly.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from offprompt.errors import (
    ArtifactError,
    ConfigurationError,
    Conflict,
    DependencyTimeout,
    DependencyUnavailable,
    InvalidInput,
    NotFound,
    OffpromptError,
    PayloadTooLarge,
    QuotaExceeded,
    RateLimited,
    SchemaInvalid,
    ScopeDenied,
    TooManyRequests,
    Unauthenticated,
)


class UnsupportedMediaType(OffpromptError):
    """A request body whose Content-Type is not JSON (HTTP 415): what a web page can send without a CORS preflight
    (docs/adr/0044-front-door.md). HTTP only: a direct invocation has no Content-Type."""

    code = "unsupported_media_type"


class OriginRefused(OffpromptError):
    """A browser request from a web origin the deployment does not allow (HTTP 403; the MCP endpoint's rule,
    docs/adr/0044-front-door.md)."""

    code = "origin_refused"


STATUS_BY_ERROR: dict[type[OffpromptError], HTTPStatus] = {
    InvalidInput: HTTPStatus.BAD_REQUEST,
    ArtifactError: HTTPStatus.BAD_REQUEST,
    SchemaInvalid: HTTPStatus.UNPROCESSABLE_ENTITY,
    Unauthenticated: HTTPStatus.UNAUTHORIZED,
    ScopeDenied: HTTPStatus.FORBIDDEN,
    NotFound: HTTPStatus.NOT_FOUND,
    Conflict: HTTPStatus.CONFLICT,
    PayloadTooLarge: HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
    DependencyUnavailable: HTTPStatus.SERVICE_UNAVAILABLE,
    DependencyTimeout: HTTPStatus.SERVICE_UNAVAILABLE,
    TooManyRequests: HTTPStatus.TOO_MANY_REQUESTS,
    RateLimited: HTTPStatus.TOO_MANY_REQUESTS,
    QuotaExceeded: HTTPStatus.TOO_MANY_REQUESTS,
    ConfigurationError: HTTPStatus.INTERNAL_SERVER_ERROR,
    UnsupportedMediaType: HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
    OriginRefused: HTTPStatus.FORBIDDEN,
}

#: Codes the HTTP layer answers with itself (no library class): the route table's.
ROUTE_NOT_FOUND = "route_not_found"
METHOD_NOT_ALLOWED = "method_not_allowed"


def error_headers(exc: OffpromptError) -> dict[str, str] | None:
    """Headers an error answer carries besides its body: `Retry-After` on a 429."""
    if isinstance(exc, TooManyRequests):
        return {"Retry-After": str(exc.retry_after)}
    return None


def status_for(exc: OffpromptError) -> HTTPStatus:
    for cls in type(exc).__mro__:
        if cls in STATUS_BY_ERROR:
            return STATUS_BY_ERROR[cls]
    return HTTPStatus.INTERNAL_SERVER_ERROR


class SchemaErrorDetail(BaseModel):
    model_config = ConfigDict(defer_build=True)

    loc: list[str | int]
    type: str
    msg: str


class ErrorBody(BaseModel):
    """Every error response: a stable machine-readable `code`, a message for people, optional `details`
    (`[{loc, type, msg}]` for `schema_invalid`, an object for other codes)."""

    model_config = ConfigDict(defer_build=True, title="Error")

    code: str = Field(description="stable machine-readable error code, e.g. invalid_input, schema_invalid")
    message: str
    details: list[SchemaErrorDetail] | dict[str, Any] | None = None


_DESCRIPTIONS: dict[int, str] = {
    400: "The request is not UTF-8 JSON, or a value breaks a domain rule (invalid_input, invalid_artifact)",
    401: "No caller identity (unauthenticated)",
    404: "Not found (not_found)",
    405: "Known path, wrong method (method_not_allowed; the Allow header lists the methods)",
    409: "Conflicts with what is stored (conflict)",
    403: "Outside the calling key's scope (scope_denied; docs/keys.md), or a browser request from a web origin this "
    "endpoint does not allow (origin_refused)",
    413: "Too large (payload_too_large)",
    415: "The body's Content-Type is not JSON: application/json or application/*+json, UTF-8 (unsupported_media_type)",
    422: "Valid JSON that does not fit the schema (schema_invalid; details lists [{loc, type, msg}]; NaN, Infinity "
    "and numbers beyond a double, such as 1e400, are not JSON: finite_number)",
    429: "The tenant's plan refuses the request now (rate_limited, quota_exceeded; Retry-After says when to retry); "
    "nothing was written",
    500: "Server misconfiguration (configuration_error)",
    503: "A dependency failed or timed out; nothing was committed, safe to retry",
}

#: Statuses any route can answer with (404 and 409 too: an identifier may be refused by the route table, and a
#: delete racing any request makes it a conflict).
COMMON_ERRORS = (400, 401, 404, 405, 409, 413, 415, 422, 429, 500, 503)


def error_responses(*extra: int) -> dict[int, Any]:
    """OpenAPI `responses` entries for the error statuses of a route (the common ones plus `extra`)."""
    return {
        status: {"description": _DESCRIPTIONS[status], "content": {"application/json": {"model": ErrorBody}}}
        for status in sorted({*COMMON_ERRORS, *extra})
    }
