"""Lambda entry points: one handler serves API Gateway HTTP API (v2) events and direct invocations.

Everything (Powertools resolver, logger, metrics, settings) is built on the first invocation, not at
import, so importing a handler costs only imports. There is no Powertools Tracer: Lambda's own X-Ray segments
(`Tracing: Active`) need nothing in the function (docs/adr/0009-tracing.md).
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Callable
from http import HTTPStatus
from typing import Any, TypeVar
from urllib.parse import quote, unquote

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

from offprompt.config import get_settings
from offprompt.deadline import deadline_after, invocation_budget
from offprompt.errors import InvalidInput, OffpromptError, PayloadTooLarge

from .errors import status_for
from .tenancy import Unauthenticated, direct_tenant, http_tenant

M = TypeVar("M", bound=BaseModel)

# Lambda's synchronous payload limit is 6 MB; larger values go through presigned S3 URLs.
MAX_BODY_BYTES = 6 * 1024 * 1024

RouteRegistrar = Callable[[APIGatewayHttpResolver], None]
DirectHandler = Callable[[str, dict[str, Any]], Any]


@functools.cache
def observability() -> tuple[Logger, Metrics]:
    return Logger(), Metrics()


def json_response(body: Any, status: int = HTTPStatus.OK, headers: dict[str, str] | None = None) -> Response:
    return Response(
        status_code=int(status),
        content_type=content_types.APPLICATION_JSON,
        body=json.dumps(body),
        headers=headers,
    )


def error_body(exc: OffpromptError) -> dict[str, Any]:
    return exc.to_dict()


def json_body(app: APIGatewayHttpResolver) -> Any:
    """The request body as JSON: 413 past Lambda's limit, 400 when it is not UTF-8 JSON."""
    try:
        raw = app.current_event.decoded_body or ""
    except ValueError:  # UnicodeDecodeError, binascii.Error: API Gateway base64-encodes bodies that are not text
        raise InvalidInput("request body is not UTF-8 text; send JSON encoded as UTF-8") from None
    if len(raw) > MAX_BODY_BYTES:
        raise PayloadTooLarge(f"request body is larger than {MAX_BODY_BYTES} bytes; upload large values to S3")
    if not raw.strip():
        raise InvalidInput("request body is empty; expected a JSON object")
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise InvalidInput(f"request body is not valid JSON: {str(exc)[:200]}") from None


def model_body(app: APIGatewayHttpResolver, model: type[M]) -> M:
    """The JSON request body as `model`: 400 when it is not an object, 422 when it does not fit the model."""
    body = json_body(app)
    if not isinstance(body, dict):
        raise InvalidInput("request body must be a JSON object")
    try:
        return model.model_validate(body)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False)) from None


def path_param(app: APIGatewayHttpResolver, name: str, matched: str) -> str:
    """API Gateway's decoded path parameter (Powertools' route match is still percent-encoded)."""
    params = app.current_event.path_parameters or {}
    return str(params.get(name) or unquote(matched))


def current_tenant(app: APIGatewayHttpResolver) -> str:
    return http_tenant(app.current_event.raw_event, get_settings())


def _build_app(register: RouteRegistrar) -> APIGatewayHttpResolver:
    app = APIGatewayHttpResolver(enable_validation=True)
    logger, _ = observability()

    @app.exception_handler(OffpromptError)
    def _domain_error(exc: OffpromptError) -> Response:
        status = HTTPStatus.UNAUTHORIZED if isinstance(exc, Unauthenticated) else status_for(exc)
        if status >= 500:
            logger.exception("request failed", extra={"code": exc.code})
        return json_response(error_body(exc), status)

    @app.exception_handler(RequestValidationError)
    def _schema_error(exc: RequestValidationError) -> Response:
        details = [{"loc": list(e.get("loc", ())), "type": e.get("type"), "msg": e.get("msg")} for e in exc.errors()]
        body = {"code": "schema_invalid", "message": "request does not match the schema", "details": details}
        return json_response(body, HTTPStatus.UNPROCESSABLE_ENTITY)

    @app.not_found
    def _no_route(exc: Exception) -> Response:
        body = {"code": "route_not_found", "message": "no such route"}
        return json_response(body, HTTPStatus.NOT_FOUND)

    register(app)
    return app


def routable(event: dict[str, Any]) -> dict[str, Any]:
    """The event with its path percent-encoded for Powertools' route matcher.

    API Gateway's HTTP API (and the dev server) hand the function a decoded `rawPath`; Powertools matches a
    `<param>` against a fixed set of URI characters, so an id holding `#`, `?`, `"`, `€`, an emoji, ... would
    be a 404 although API Gateway routed it here. Encoded, every character matches; the values themselves
    come from API Gateway's decoded `pathParameters` (`path_param`).
    """
    raw_path = event.get("rawPath")
    if not isinstance(raw_path, str):
        return event
    encoded = quote(raw_path, safe="/%")
    if encoded == raw_path:
        return event
    return {**event, "rawPath": encoded}


def is_http_event(event: Any) -> bool:
    return isinstance(event, dict) and "http" in (event.get("requestContext") or {})


def invocation_deadline(context: Any, *, http: bool) -> contextlib.AbstractContextManager[None]:
    """Bounds every dependency call of this invocation: the Lambda context's remaining time (and, for HTTP,
    API Gateway's 30 s) minus a margin, so a hung dependency answers 503 `dependency_timeout` in time."""
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    remaining_ms = remaining() if callable(remaining) else None
    if isinstance(remaining_ms, bool) or not isinstance(remaining_ms, int | float):
        remaining_ms = None  # a stand-in context without the runtime's clock (local tools)
    return deadline_after(invocation_budget(remaining_ms, http=http))


def make_handler(register: RouteRegistrar, direct: DirectHandler | None = None) -> Callable[[dict[str, Any], Any], Any]:
    """The `lambda_handler` of a function: HTTP events go to the routes, anything else to `direct`.

    Direct invocations raise library errors as they are, so a Step Functions Catch can match their class
    name (`InvalidInput`, `NotFound`, `Conflict`, ...).
    """
    app_cache: list[APIGatewayHttpResolver] = []

    def lambda_handler(event: dict[str, Any], context: Any) -> Any:
        logger, metrics = observability()
        logger.append_keys(request_id=getattr(context, "aws_request_id", None))
        http = is_http_event(event)
        try:
            with invocation_deadline(context, http=http):
                if http:
                    if not app_cache:
                        app_cache.append(_build_app(register))
                    return app_cache[0].resolve(routable(event), context)
                if direct is None:
                    raise InvalidInput("this function only serves HTTP events")
                if not isinstance(event, dict):
                    raise InvalidInput("a direct invocation event must be a JSON object")
                return direct(direct_tenant(event), event)
        finally:
            if metrics.metric_set:  # one EMF line for what this request recorded
                metrics.flush_metrics()

    return lambda_handler
