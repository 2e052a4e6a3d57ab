"""Where a function declares its routes, once: method, API Gateway path, the direct-invocation action and the
OpenAPI details, on the route function itself.

    routes = FunctionRoutes("add_run")

    @routes.post("/threads/{thread_id}/runs", action="add", summary="Append a run", responses={...})
    def post_run(thread_id: Annotated[str, Path()], run: Annotated[RunIn, Body()]) -> Response[Any]:
        ...routes.tenant(), routes.param("thread_id", thread_id), routes.meter()...

    @routes.direct("add")
    def add(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any: ...

    lambda_handler = routes.handler()

Everything else is derived from these declarations or checked against them: the Powertools resolver the handler
builds (`register`), the direct dispatcher (`action` → the `@routes.direct` function), the local route table
(`offprompt_local.routes.ROUTES`, which the dev server serves); `make routes` (`offprompt_local.routegen`, ADR 0057)
writes template.yaml's HttpApi events and DefinitionBody security entries, the sample events under `events/` (one
HTTP event per route, one direct event per action), the smoke's ROUTES and docs/openapi.json from them
(tests/infrastructure/test_routegen.py fails when one is stale); the IAM each function needs is checked against
them (test_iam_least_privilege.py).

Declaring a route registers it on a Powertools `Router` (pure data: no client, no setting is read at import).

A route's `responses=` name their models (`json_content("ThreadsPage", ...)`, classes of `api_common.schemas`): the
OpenAPI document is all they serve, so the handler's resolver gets the route without them (Powertools would build a
field of each model on the route's first request) and `api_common.schemas` (~55 pydantic models) is imported only by
`openapi_app`, the document's resolver (issue 34, docs/adr/0063).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from aws_lambda_powertools.event_handler.api_gateway import Router

from offprompt.composition.warm import prime_models, register_snapstart
from offprompt.config import get_settings
from offprompt.errors import InvalidInput
from offprompt.metering import Meter
from offprompt.services.account.scopes import Scope

from .audit import audited_handler
from .caller import http_tenant
from .entry import METER_CONTEXT_KEY, SCOPE_CONTEXT_KEY, _build_app, make_handler_for, prime_validation
from .powertools import APIGatewayHttpResolver
from .scope_rules import ScopeRule

F = TypeVar("F", bound=Callable[..., Any])
DirectFunction = Callable[[str, dict[str, Any], Any], Any]
_PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: The module whose classes `json_content` names: the response bodies as the OpenAPI document declares them.
SCHEMAS = "api_common.schemas"
#: `responses=` entry of a route answering 204.
NO_CONTENT: Any = {"description": "Done (also when there was nothing to delete)", "content": {}}


def json_content(model: str | type[Any], description: str, **extra: Any) -> Any:  # an OpenAPIResponse
    """A `responses=` entry answering JSON: `model` names a class of `api_common.schemas` (imported only for the
    OpenAPI document, `documented`), or is a model class already imported (`ErrorBody`)."""
    return {"description": description, "content": {"application/json": {"model": model}}, **extra}


def documented(responses: dict[int, Any]) -> dict[int, Any]:
    """`responses` with every model named by `json_content` resolved to its class (imports `api_common.schemas`)."""
    schemas = importlib.import_module(SCHEMAS)

    def resolve(content: dict[str, Any]) -> dict[str, Any]:
        model = content.get("model")
        if not isinstance(model, str):
            return content
        if not isinstance(getattr(schemas, model, None), type):
            raise LookupError(f"json_content names {model!r}, which {SCHEMAS} does not define")
        return {**content, "model": getattr(schemas, model)}

    return {
        status: {**response, "content": {media: resolve(c) for media, c in response["content"].items()}}
        if "content" in response
        else response
        for status, response in responses.items()
    }


@dataclass(frozen=True)
class RouteSpec:
    """One declared HTTP route: what template.yaml's HttpApi event, the dev server and the OpenAPI document say."""

    function: str  # the directory under functions/ (the handler is `<function>.handler.lambda_handler`)
    method: str
    path: str  # API Gateway's form: `/threads/{thread_id}/runs`
    action: str | None  # the direct invocation that does the same (None: HTTP only)
    name: str = ""  # the route function's name (names a new sample event: `make routes`)
    #: What a scoped key or token may do here (api_common/scope_rules.py; None: nothing, a scoped request is refused
    #: and tests/integration/hosted/test_scope_matrix.py fails for the route).
    scope: ScopeRule | None = None
    #: Whether a call is written to the tenant's audit log (docs/adr/0056): by default every method but GET.
    audit: bool = False

    @property
    def route_key(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def path_params(self) -> tuple[str, ...]:
        return tuple(_PARAM.findall(self.path))


class FunctionRoutes:
    """A function's routes and direct actions (see the module docstring)."""

    def __init__(
        self,
        function: str,
        *,
        default_action: str | None = None,
        event_prefixes: tuple[str, ...] = (),
        prime: Callable[[], None] | None = None,
    ) -> None:
        self.function = function
        #: What a warm environment of this function holds beyond its resolver and models (`warm.prime_*`), built
        #: by SnapStart's before-snapshot hook (docs/adr/0040).
        self.primer = prime
        #: How its sample events under `events/` are named (`<prefix>_..._http.json`, `<prefix>_..._direct.json`).
        self.event_prefixes = event_prefixes or (function,)
        self.router = Router()
        self.specs: list[RouteSpec] = []
        self.directs: dict[str, DirectFunction] = {}
        #: Each route as declared (method, path, its OpenAPI details with `responses`, the route function), for the
        #: OpenAPI document's resolver (`openapi_app`).
        self.declared: list[tuple[str, str, dict[str, Any], Callable[..., Any]]] = []
        #: The action of a direct event that names none (a function with one direct use case).
        self.default_action = default_action
        self._app: APIGatewayHttpResolver | None = None

    # ---- declaring ---------------------------------------------------------------------------------------
    def route(
        self,
        method: str,
        path: str,
        *,
        action: str | None = None,
        scope: ScopeRule | None = None,
        audit: bool | None = None,
        **openapi: Any,
    ) -> Callable[[F], F]:
        """`audit`: whether the tenant's audit log records each call (None: every method but GET; a POST that only
        reads, a search, says False)."""
        audited = method != "GET" if audit is None else audit
        # Served without `responses` (see the module docstring): the document's resolver has them (`openapi_app`).
        served = {name: value for name, value in openapi.items() if name != "responses"}
        register = self.router.route(_PARAM.sub(r"<\1>", path), method, **served)

        def decorate(fn: F) -> F:
            self.specs.append(
                RouteSpec(self.function, method, path, action, getattr(fn, "__name__", ""), scope, audited)
            )
            self.declared.append((method, path, openapi, fn))
            register(fn)
            return fn

        return decorate

    def get(self, path: str, **kw: Any) -> Callable[[F], F]:
        return self.route("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> Callable[[F], F]:
        return self.route("POST", path, **kw)

    def put(self, path: str, **kw: Any) -> Callable[[F], F]:
        return self.route("PUT", path, **kw)

    def patch(self, path: str, **kw: Any) -> Callable[[F], F]:
        return self.route("PATCH", path, **kw)

    def delete(self, path: str, **kw: Any) -> Callable[[F], F]:
        return self.route("DELETE", path, **kw)

    def direct(self, action: str) -> Callable[[DirectFunction], DirectFunction]:
        """The function a direct invocation `{"tenant", "action": action, ...}` runs: (tenant, event, meter)."""

        def decorate(fn: DirectFunction) -> DirectFunction:
            self.directs[action] = fn
            return fn

        return decorate

    # ---- the handler ---------------------------------------------------------------------------------------
    def register(self, app: APIGatewayHttpResolver) -> None:
        """Include these routes in `app`, the one resolver they may have (see `app`)."""
        if self.router.api_resolver is not None and self.router.api_resolver is not app:
            raise RuntimeError(f"the routes of {self.function} already belong to a resolver: use routes.app()")
        app.include_router(self.router)

    def app(self) -> APIGatewayHttpResolver:
        """The handler's resolver of these routes, built on first use.

        One, because a Powertools `Router` keeps its per-request context (the request's meter) on the last resolver
        that included it: a second resolver including this router (the OpenAPI document, made in the dev server's
        process) would leave the handler's resolver putting the meter where its routes no longer look, and hosted
        writes would go uncharged (CI, stop 26). The document's resolver (`openapi_app`) has a router of its own."""
        if self._app is None:
            self._app = _build_app(self.register)
        return self._app

    def openapi_app(self) -> APIGatewayHttpResolver:
        """A resolver of these routes for the OpenAPI document only: each route with its `responses`, their models
        resolved (`documented`: imports `api_common.schemas`). Its routes are registered on a `Router` of their own,
        so the handler's resolver (`app`) keeps its router and the per-request context on it; it serves no request.
        """
        router = Router()
        for method, path, openapi, fn in self.declared:
            if "responses" in openapi:
                openapi = {**openapi, "responses": documented(openapi["responses"])}
            router.route(_PARAM.sub(r"<\1>", path), method, **openapi)(fn)
        return _build_app(lambda app: app.include_router(router))

    def dispatch(self, tenant: str, event: dict[str, Any]) -> Any:
        action = event.get("action", self.default_action)
        fn = self.directs.get(action) if isinstance(action, str) else None
        if fn is None:
            known = ", ".join(f'"{name}"' for name in self.directs)
            raise InvalidInput(f'"action" must be one of {known}')
        return fn(tenant, event, None)  # direct invocations are not metered (IAM-authorized infrastructure)

    def handler(self) -> Callable[[dict[str, Any], Any], Any]:
        """The function's `lambda_handler`; on a SnapStart init (only there), `prime` is registered to run before
        the snapshot (docs/adr/0040)."""
        register_snapstart(self.prime)
        return audited_handler(
            make_handler_for(self.app, self.dispatch if self.directs else None, self.scope_rule),
            routes={s.route_key: s.path_params for s in self.specs if s.audit},
            actions={s.action: s.path_params for s in self.specs if s.audit and s.action in self.directs},
            default_action=self.default_action,
        )

    def scope_rule(self, route_key: str) -> ScopeRule | None:
        """The declared scope rule of the route `route_key` names (`POST /keys`), else None."""
        return next((spec.scope for spec in self.specs if spec.route_key == route_key), None)

    def prime(self) -> None:
        """Build what the first request would: the resolver and its routes' validation, the deferred pydantic models,
        the function's own."""
        prime_validation(self.app())
        prime_models()
        if self.primer is not None:
            self.primer()

    # ---- inside a route: the request being resolved ---------------------------------------------------------
    @property
    def event(self) -> Any:
        return self.router.current_event

    def tenant(self) -> str:
        """The caller's tenant, from the authorizer (never from the request body)."""
        return http_tenant(self.router.current_event.raw_event, get_settings())

    def param(self, name: str, matched: str) -> str:
        """API Gateway's decoded path parameter (Powertools' route match is still percent-encoded)."""
        from urllib.parse import unquote

        params = self.router.current_event.get("pathParameters") or {}
        return str(params.get(name) or unquote(matched))

    def scope(self) -> Scope | None:
        """What the calling key or token may reach (None: the whole tenant; direct invocations, JWT, IAM, local)."""
        scope = self.router.context.get(SCOPE_CONTEXT_KEY)
        return scope if isinstance(scope, Scope) else None

    def meter(self) -> Meter | None:
        """The request's usage meter (a key the API-key authorizer admitted), else None."""
        meter = self.router.context.get(METER_CONTEXT_KEY)
        return meter if isinstance(meter, Meter) else None
