"""One table from library error types to HTTP status codes, resolved along the class hierarchy."""

from __future__ import annotations

from http import HTTPStatus

from offprompt.config import ConfigurationError
from offprompt.errors import (
    Conflict,
    DependencyTimeout,
    DependencyUnavailable,
    InvalidInput,
    NotFound,
    OffpromptError,
    PayloadTooLarge,
    SchemaInvalid,
)

STATUS_BY_ERROR: dict[type[OffpromptError], HTTPStatus] = {
    InvalidInput: HTTPStatus.BAD_REQUEST,
    SchemaInvalid: HTTPStatus.UNPROCESSABLE_ENTITY,
    NotFound: HTTPStatus.NOT_FOUND,
    Conflict: HTTPStatus.CONFLICT,
    PayloadTooLarge: HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
    DependencyUnavailable: HTTPStatus.SERVICE_UNAVAILABLE,
    DependencyTimeout: HTTPStatus.SERVICE_UNAVAILABLE,
    ConfigurationError: HTTPStatus.INTERNAL_SERVER_ERROR,
}


def status_for(exc: OffpromptError) -> HTTPStatus:
    for cls in type(exc).__mro__:
        if cls in STATUS_BY_ERROR:
            return STATUS_BY_ERROR[cls]
    return HTTPStatus.INTERNAL_SERVER_ERROR
