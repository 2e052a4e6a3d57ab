"""Lambda entry points: one handler serves API Gateway HTTP API (v2) events and direct invocations.

Everything (Powertools resolver, logger, metrics, settings) is built on the first invocation, not at
import, so importing a handler costs only imports. There is no Powertools Tracer: Lambda's own X-Ray segments
(`Tracing: Active`) need nothing in the function (docs/adr/0009-tracing.md).
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
from collections.abc import Callable, Iterator
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.event_handler.middlewares.openapi_validation import OpenAPIRequestValidationMiddleware
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.shared.json_encoder import Encoder

from offprompt import metering
from offprompt.deadline import deadline_after, invocation_budget, remaining
from offprompt.errors import InvalidInput, OffpromptError, PayloadTooLarge, ScopeDenied, schema_invalid
from offprompt.limits import MAX_BODY_BYTES
from offprompt.validation import check_finite, check_unicode, parse_json

from .caller import direct_tenant, hosted_principal
from .coldstart import release
from .errors import METHOD_NOT_ALLOWED, ROUTE_NOT_FOUND, UnsupportedMediaType, error_headers, status_for
from .scope_rules import ScopeRule

if TYPE_CHECKING:
    from aws_lambda_powertools import Logger, Metrics

RouteRegistrar = Callable[[APIGatewayHttpResolver], None]
DirectHandler = Callable[[str, dict[str, Any]], Any]
#: A function's scope rule of a route key (`FunctionRoutes.scope_rule`).
ScopeRules = Callable[[str], ScopeRule | None]


#: The invocation being served: its request id, for the Logger whenever `observability` builds it.
_INVOCATION: dict[str, Any] = {"request_id": None}


@functools.cache
def observability() -> tuple[Logger, Metrics]:
    """The process's Logger and Metrics, built when a request first logs or records a metric (Powertools imports
    them only then: a request that does neither pays for neither; issue 34)."""
    from aws_lambda_powertools import Logger, Metrics

    logger = Logger()
    logger.append_keys(request_id=_INVOCATION["request_id"])
    return logger, Metrics()


def _observability_built() -> bool:
    return observability.cache_info().currsize > 0


def _finite(value: Any) -> Any:
    """`value` with every NaN or ±Infinity float as None: what `JSON.stringify` writes for them."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def dumps(body: Any, **options: Any) -> str:
    """An answer's JSON: never a bare `NaN` or `Infinity`, which are not JSON (docs/adr/0044-front-door.md).

    Every input that could hold one is refused at the boundary, but a value stored before that rule may still hold
    one: it is answered as `null` (as JavaScript's `JSON.stringify` does) rather than as a 500 or text no client
    parses. The fallback walk runs only when the one C-speed encoding refuses."""
    try:
        return json.dumps(body, allow_nan=False, **options)
    except ValueError:
        return json.dumps(_finite(body), allow_nan=False, **options)


#: Powertools' own serializer (compact, its Encoder for models and dataclasses), with no NaN or Infinity either.
_POWERTOOLS_DUMPS = functools.partial(dumps, separators=(",", ":"), cls=Encoder)


def json_response(body: Any, status: int = HTTPStatus.OK, headers: dict[str, str] | None = None) -> Response:
    return Response(
        status_code=int(status),
        content_type=content_types.APPLICATION_JSON,
        body=dumps(body),
        headers=headers,
    )


def json_text_response(text: str, status: int = HTTPStatus.OK, headers: dict[str, str] | None = None) -> Response:
    """`json_response` for a body already serialized as JSON."""
    return Response(status_code=int(status), content_type=content_types.APPLICATION_JSON, body=text, headers=headers)


def error_body(exc: OffpromptError) -> dict[str, Any]:
    return exc.to_dict()


def is_json_media_type(content_type: str) -> bool:
    """`application/json` or `application/<anything>+json`, any case, with no parameter but `charset=utf-8` (JSON is
    UTF-8, RFC 8259 §8.1)."""
    media, *parameters = (part.strip().lower() for part in content_type.split(";"))
    kind, _, subtype = media.partition("/")
    if kind != "application" or not (subtype == "json" or (subtype.endswith("+json") and len(subtype) > 5)):
        return False
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if parameter and (name.strip() != "charset" or value.strip().strip('"') not in ("utf-8", "utf8")):
            return False
    return True


def check_content_type(headers: Any) -> None:
    """UnsupportedMediaType (415) when the request names a Content-Type that is not JSON (`is_json_media_type`).

    A body without one is read as JSON: a browser cannot send a cross-site body with a JSON type without a CORS
    preflight, and every other type (`text/plain`, a form) is refused here; a Blob without a type is the one
    exception, and it carries an `Origin`, which the dev server and `/mcp` check (docs/adr/0044-front-door.md)."""
    content_type = next((str(v) for k, v in (headers or {}).items() if str(k).lower() == "content-type"), None)
    if content_type is not None and not is_json_media_type(content_type):
        raise UnsupportedMediaType(
            f"the request body must be JSON (Content-Type: application/json), not {content_type[:100]!r}"
        )


def json_body(app: APIGatewayHttpResolver, *, finite: bool = True) -> Any:
    """The request body as JSON: 415 when its Content-Type is not JSON, 413 past Lambda's limit, 400 when it is not
    UTF-8 JSON, 422 when it holds NaN or Infinity (`finite=False`: left to the caller, the MCP endpoint)."""
    check_content_type(app.current_event.headers)
    try:
        raw = app.current_event.decoded_body or ""
    except ValueError:  # UnicodeDecodeError, binascii.Error: API Gateway base64-encodes bodies that are not text
        raise InvalidInput("request body is not UTF-8 text; send JSON encoded as UTF-8") from None
    if len(raw) > MAX_BODY_BYTES:
        raise PayloadTooLarge(f"request body is larger than {MAX_BODY_BYTES} bytes; upload large values to S3")
    if not raw.strip():
        raise InvalidInput("request body is empty; expected a JSON object")
    try:
        body, non_finite = parse_json(raw)
    except (ValueError, RecursionError) as exc:
        raise InvalidInput(f"request body is not valid JSON: {str(exc)[:200]}") from None
    check_unicode(body, raw)
    if finite and non_finite:
        check_finite(body)  # says where
    return body


class _BodyValidation(OpenAPIRequestValidationMiddleware):
    """Powertools' request validation, with the body read by `json_body` whatever the Content-Type.

    So a body that is not JSON by its Content-Type is a 415, one that is not UTF-8 JSON a 400 `invalid_input` (not
    Powertools' 422 `json_invalid` or a 500 on bytes that do not decode), too large a body a 413, and JSON that
    does not fit the declared model (or holds NaN or Infinity) a 422 `schema_invalid`: the same answers a direct
    invocation gets from the same models (`offprompt.validation`).
    """

    def _get_body(self, app: Any) -> Any:
        return json_body(app)


def direct_field(event: dict[str, Any], name: str) -> str:
    """A string field a direct event must carry (the HTTP route's path parameter): SchemaInvalid when it is not."""
    value = event.get(name)
    if not isinstance(value, str):
        kind = "missing" if name not in event else "string_type"
        msg = "Field required" if name not in event else "Input should be a valid string"
        raise schema_invalid([{"loc": (name,), "type": kind, "msg": msg}])
    return value


def direct_fields(event: dict[str, Any], *envelope: str) -> dict[str, Any]:
    """The event without its envelope keys (`tenant`, `action` and the path parameters): the request's fields."""
    drop = {"tenant", "action", *envelope}
    return {k: v for k, v in event.items() if k not in drop}


def allowed_methods(app: APIGatewayHttpResolver, path: str) -> list[str]:
    """The methods of every route of `app` whose path pattern matches `path` (for 405's `Allow`)."""
    routes = [*app._static_routes, *app._dynamic_routes]  # Powertools keeps no public list of its routes
    return sorted({route.method for route in routes if route.rule.match(path)})


def prime_validation(app: APIGatewayHttpResolver) -> int:
    """Build each route's request-validation models (Powertools' dependant and body field, made and cached on the
    route's first request otherwise), and the Logger and Metrics a request builds when it first logs: SnapStart's
    priming (docs/adr/0040; its init has the environment in place). How many routes."""
    observability()
    routes = [*app._static_routes, *app._dynamic_routes]
    for route in routes:
        _ = route.dependant, route.body_field
    return len(routes)


def _build_app(register: RouteRegistrar) -> APIGatewayHttpResolver:
    app = APIGatewayHttpResolver(enable_validation=True, serializer=_POWERTOOLS_DUMPS)
    app._request_validation_middleware = _BodyValidation()  # read before any route builds its middleware stack

    def _error(exc: OffpromptError) -> Response:
        status = status_for(exc)
        if status >= 500:
            # looked up here, not when the app is built: building an app (the OpenAPI generator does) must not
            # fix Metrics/Logger before the environment that configures them is in place
            observability()[0].exception("request failed", extra={"code": exc.code})
        return json_response(error_body(exc), status, headers=error_headers(exc))

    app.exception_handler(OffpromptError)(_error)

    @app.exception_handler(RequestValidationError)
    def _schema_error(exc: RequestValidationError) -> Response:
        return _error(schema_invalid(list(exc.errors())))

    @app.not_found
    def _no_route(exc: Exception) -> Response:
        path = app.current_event.path
        methods = allowed_methods(app, path)
        if methods:
            body = {"code": METHOD_NOT_ALLOWED, "message": f"{app.current_event.http_method} is not allowed here"}
            return json_response(body, HTTPStatus.METHOD_NOT_ALLOWED, headers={"Allow": ", ".join(methods)})
        return json_response({"code": ROUTE_NOT_FOUND, "message": "no such route"}, HTTPStatus.NOT_FOUND)

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


@contextlib.contextmanager
def invocation_deadline(context: Any, *, http: bool) -> Iterator[None]:
    """Bounds every dependency call of this invocation: the Lambda context's remaining time (and, for HTTP,
    API Gateway's 30 s) minus a margin, so a hung dependency answers 503 `dependency_timeout` in time.

    Every invocation of a function that imports this module runs inside it, so its end is also where the first
    invocation ends the cold start's hold on the cyclic collector (`coldstart.release`, docs/adr/0065)."""
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    remaining_ms = remaining() if callable(remaining) else None
    if isinstance(remaining_ms, bool) or not isinstance(remaining_ms, int | float):
        remaining_ms = None  # a stand-in context without the runtime's clock (local tools)
    try:
        with deadline_after(invocation_budget(remaining_ms, http=http)):
            yield
    finally:
        release()


def _error_result(exc: OffpromptError) -> dict[str, Any]:
    """An error as the payload v2 result API Gateway maps to an HTTP response (before any route ran)."""
    return {
        "statusCode": int(status_for(exc)),
        "headers": {"Content-Type": "application/json", **(error_headers(exc) or {})},
        "body": dumps(error_body(exc)),
        "isBase64Encoded": False,
    }


def _served_bytes(result: Any) -> int:
    if isinstance(result, dict) and int(result.get("statusCode") or 0) < 400:
        return len(result.get("body") or "")
    return 0


#: Where a hosted request's meter travels from `hosted_request` to its route (Powertools' per-request context,
#: cleared after every request): `FunctionRoutes.meter()` reads it and hands it to the use case.
METER_CONTEXT_KEY = "offprompt_meter"
#: Where the request's scope travels the same way (`FunctionRoutes.scope()`; None: the whole tenant).
SCOPE_CONTEXT_KEY = "offprompt_scope"
#: Time the request's usage write may take out of the answer's margin when the route used up the budget.
USAGE_WRITE_BUDGET_S = 0.5


def hosted_request(
    app: APIGatewayHttpResolver, event: dict[str, Any], context: Any, rules: ScopeRules | None = None
) -> Any:
    """A request the API-key authorizer admitted: admission first (the key read again, the plan's limits: 401,
    409, 429 before anything is written), then the request's scope against the route's rule (403, docs/keys.md),
    then the route with the request's meter and scope in its context (use cases charge their writes to it), a
    listing's answer filtered to the scope, then what the request used and no write committed, in one write
    (ADR 0023, 0028, 0055)."""
    from offprompt.composition.account import default_account

    principal = hosted_principal(event)
    assert principal is not None
    meter = metering.Meter(principal.tenant, principal.plan, route=str(event.get("routeKey") or ""))
    account = default_account()
    token = principal.token_id is not None
    rule = rules(str(event.get("routeKey") or "")) if rules is not None else None
    try:
        admitted = account.admit(
            meter,
            principal.key_id,
            request_bytes=len(event.get("body") or ""),
            token_scope=principal.scope,
            token=token,
        )
        if admitted is not None or token:
            if rule is None:
                raise ScopeDenied("this route has no scope rule: a scoped key or token reaches nothing here")
            if token and rule.kind == "admin":
                raise ScopeDenied("a token reaches no key management, usage, export or erase: use an unscoped key")
            rule.check(admitted, event)
            event = rule.narrowed(admitted, event)
    except OffpromptError as exc:
        return _error_result(exc)
    app.append_context(**{METER_CONTEXT_KEY: meter, SCOPE_CONTEXT_KEY: admitted})
    result = app.resolve(routable(event), context)
    if rule is not None:
        result = rule.filtered(admitted, result)
    meter.add(bytes_served=_served_bytes(result))
    try:
        # a route that ran out of time still gets its usage written, out of the answer's margin
        left = remaining()
        budget = USAGE_WRITE_BUDGET_S if left is None or left < USAGE_WRITE_BUDGET_S else None
        with deadline_after(budget) if budget is not None else contextlib.nullcontext():
            account.flush(meter, counted=True)
    except OffpromptError:  # the answer stands; the lost counters are logged (ADR 0023)
        observability()[0].exception("usage write failed", extra={"tenant": meter.tenant, "counters": meter.pending()})
    return result


def check_finite_event(event: dict[str, Any]) -> None:
    """SchemaInvalid (422) when a direct event holds NaN or Infinity (Lambda's runtime reads the bare words and
    1e400 as floats): the same answer the HTTP body gets. One C-speed encoding decides; the walk runs on a refusal."""
    try:
        json.dumps(event, allow_nan=False)
    except (ValueError, RecursionError):
        check_finite(event)


def make_handler(register: RouteRegistrar, direct: DirectHandler | None = None) -> Callable[[dict[str, Any], Any], Any]:
    """The `lambda_handler` of a function whose routes `register` adds to a resolver of its own."""
    built: list[APIGatewayHttpResolver] = []

    def app() -> APIGatewayHttpResolver:
        if not built:
            built.append(_build_app(register))
        return built[0]

    return make_handler_for(app, direct)


def make_handler_for(
    app: Callable[[], APIGatewayHttpResolver], direct: DirectHandler | None = None, rules: ScopeRules | None = None
) -> Callable[[dict[str, Any], Any], Any]:
    """The `lambda_handler` of a function: HTTP events go to the routes of `app()` (built on the first one),
    anything else to `direct`.

    Direct invocations raise library errors as they are, so a Step Functions Catch can match their class
    name (`InvalidInput`, `NotFound`, `Conflict`, ...).
    """

    def lambda_handler(event: dict[str, Any], context: Any) -> Any:
        _INVOCATION["request_id"] = request_id = getattr(context, "aws_request_id", None)
        if _observability_built():
            observability()[0].append_keys(request_id=request_id)
        http = is_http_event(event)
        try:
            with invocation_deadline(context, http=http):
                if http:
                    resolver = app()
                    if hosted_principal(event) is not None:
                        return hosted_request(resolver, event, context, rules)
                    return resolver.resolve(routable(event), context)
                if direct is None:
                    raise InvalidInput("this function only serves HTTP events")
                if not isinstance(event, dict):
                    raise InvalidInput("a direct invocation event must be a JSON object")
                check_unicode(event)
                check_finite_event(event)
                return direct(direct_tenant(event), event)
        finally:
            if _observability_built() and observability()[1].metric_set:  # one EMF line for this request's metrics
                observability()[1].flush_metrics()

    return lambda_handler
