"""Where the audit log is written (docs/adr/0056): one wrapper around every function's handler, driven by the route
declarations (`FunctionRoutes.route(..., audit=...)`; by default every route but a GET audits), so no handler writes
an entry of its own. MCP tools are audited by the tool table (functions/mcp_server), through `record_audit_entry` below.

The entry is written after the answer is known, HTTP or direct, success or refusal (a 4xx or 5xx is recorded with
its status and code; a request with no tenant - 401 before any route - is not). If the audit write fails, the
answer stands: the failure is logged with the entry's fields (no values) and counted (`AuditWriteFailed`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from offprompt.config import get_settings
from offprompt.errors import OffpromptError
from offprompt.identifiers import check_identifier
from offprompt.services.audit import Actor, AuditEvent

from .caller import hosted_principal, http_tenant
from .errors import status_for

Handler = Callable[[dict[str, Any], Any], Any]


def http_actor(event: dict[str, Any]) -> Actor:
    """Who made an HTTP request: the API key (or, with scoped tokens, the token) the authorizer resolved, else the
    JWT subject, the IAM principal, or the local dev server's trusted header."""
    principal = hosted_principal(event)
    if principal is not None:
        return Actor("key", principal.key_id)
    authorizer = (event.get("requestContext") or {}).get("authorizer") or {}
    claims = (authorizer.get("jwt") or {}).get("claims") or {}
    if claims:
        return Actor("jwt", str(claims.get("sub") or ""))
    iam = authorizer.get("iam") or {}
    if iam.get("userArn"):
        return Actor("iam", str(iam["userArn"]))
    return Actor("local", "")


def record_audit_entry(event: AuditEvent, *, retention_days: int = 0) -> None:
    """Write one entry, best-effort: a failure is logged and counted, never raised (the answer stands)."""
    from offprompt.composition.audit import default_audit

    from .entry import observability

    try:
        default_audit().write_entry(event, retention_days=retention_days)
    except OffpromptError as exc:
        logger, metrics = observability()
        logger.warning(
            "audit write failed",
            extra={"operation": event.operation, "status": event.status, "via": event.via, "code": exc.code},
        )
        metrics.add_metric(name="AuditWriteFailed", unit="Count", value=1)


def _error_code(result: Any) -> str | None:
    try:
        body = json.loads(result.get("body") or "{}")
    except (ValueError, TypeError):
        return None
    code = body.get("code") if isinstance(body, dict) else None
    return code if isinstance(code, str) else None


def _http_entry(event: dict[str, Any], result: Any, audited: Mapping[str, tuple[str, ...]]) -> AuditEvent | None:
    route_key = str(event.get("routeKey") or "")
    if route_key not in audited:
        return None
    try:
        tenant = http_tenant(event, get_settings())
    except OffpromptError:
        return None  # no identity: nothing to file it under
    status = int(result.get("statusCode") or 200) if isinstance(result, dict) else 200
    params = event.get("pathParameters") or {}
    resources = {name: str(params[name]) for name in audited[route_key] if params.get(name) is not None}
    return AuditEvent(
        tenant,
        http_actor(event),
        "http",
        route_key,
        status,
        _error_code(result) if status >= 400 else None,
        resources,
    )


def _is_tenant(value: Any) -> bool:
    try:
        check_identifier("tenant", value)
    except OffpromptError:
        return False
    return True


def audited_handler(
    handler: Handler,
    *,
    routes: Mapping[str, tuple[str, ...]],
    actions: Mapping[str, tuple[str, ...]],
    default_action: str | None = None,
) -> Handler:
    """`handler`, writing an audit entry after each HTTP request whose route key is in `routes` and each direct
    invocation whose action is in `actions` (each: the names of the resource ids it records)."""
    if not routes and not actions:
        return handler

    def lambda_handler(event: dict[str, Any], context: Any) -> Any:
        http = isinstance(event, dict) and "http" in (event.get("requestContext") or {})

        def record(entry: AuditEvent, days: int = 0) -> None:
            # within what is left of the invocation's budget: a hung table never holds the answer back (a write
            # that finds no time left is a DependencyTimeout, logged and counted like any failed audit write)
            from .entry import invocation_deadline

            with invocation_deadline(context, http=http):
                record_audit_entry(entry, retention_days=days)

        if http:
            result = handler(event, context)
            entry = _http_entry(event, result, routes)
            if entry is not None:
                principal = hosted_principal(event)
                record(entry, principal.plan.audit_days if principal is not None else 0)
            return result
        action = event.get("action", default_action) if isinstance(event, dict) else None
        tenant = event.get("tenant") if isinstance(event, dict) else None
        if not isinstance(action, str) or action not in actions or not _is_tenant(tenant):
            return handler(event, context)
        tenant, names = str(tenant), actions[action]
        resources = {n: event[n] for n in names if isinstance(event.get(n), str)}
        try:
            result = handler(event, context)
        except OffpromptError as exc:
            record(AuditEvent(tenant, Actor("direct"), "direct", action, int(status_for(exc)), exc.code, resources))
            raise
        record(AuditEvent(tenant, Actor("direct"), "direct", action, 200, None, resources))
        return result

    return lambda_handler
