"""account: a tenant's own API keys and usage (the tenant is the caller's own credential, never the body).

- `POST /keys` body `{name?}` → 201 `{key_id, key, prefix, name, created_at}` (the only time `key` is shown)
- `GET /keys` → `{"keys": [{key_id, prefix, name, created_at}]}` (no secrets)
- `DELETE /keys/{key_id}` → 204 (idempotent); the key stops working at once, deployed too: every request reads its
  key again, whatever API Gateway's authorizer cache (300 s) holds (401; docs/adr/0028)
- `GET /usage?from=YYYY-MM-DD&to=YYYY-MM-DD` → `{tenant, from, to, days: [{date, ...counters}], totals, stored_bytes}`
- `GET /audit?since=&until=&key_id=&limit=&cursor=` → `{entries: [...], cursor}`: the tenant's audit log, newest
  first (docs/adr/0056)

Direct invocation: `{"tenant", "action": "create_key"|"list_keys"|"revoke_key"|"usage"|"audit", ...fields}`.
"""

from http import HTTPStatus
from typing import Annotated, Any

from api_common.entry import direct_field, json_response
from api_common.errors import error_responses
from api_common.powertools import Body, Path, Query, Response
from api_common.routes import FunctionRoutes
from api_common.schemas import NO_CONTENT, AuditPage, KeyList, NewKey, Usage, json_content
from offprompt.composition.account import default_account
from offprompt.composition.audit import default_audit
from offprompt.errors import InvalidInput
from offprompt.metering import Meter
from offprompt.services.account.requests import KeyRequest
from offprompt.validation import validate

DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"

routes = FunctionRoutes("account", event_prefixes=("keys", "usage", "audit"))


@routes.post(
    "/keys",
    action="create_key",
    summary="Create an API key for the caller's tenant (shown once)",
    responses={201: json_content(NewKey, "The new key; its secret is never shown again"), **error_responses()},
)
def post_key(request: Annotated[KeyRequest | None, Body()] = None) -> Response[Any]:
    created = default_account().create_key(routes.tenant(), request.name if request else None)
    return json_response(created, HTTPStatus.CREATED)


@routes.get(
    "/keys",
    action="list_keys",
    summary="The caller's tenant's API keys (no secrets)",
    responses={200: json_content(KeyList, "The keys"), **error_responses()},
)
def get_keys() -> Response[Any]:
    return json_response(default_account().list_keys(routes.tenant()))


@routes.delete(
    "/keys/{key_id}",
    action="revoke_key",
    summary="Revoke one of the tenant's API keys (idempotent; refused at once, whatever API Gateway's cache)",
    responses={204: NO_CONTENT, **error_responses()},
)
def delete_key(key_id: Annotated[str, Path()]) -> Response[Any]:
    default_account().revoke_key(routes.tenant(), routes.param("key_id", key_id))
    return Response(status_code=HTTPStatus.NO_CONTENT, body="")


@routes.get(
    "/usage",
    action="usage",
    summary="The tenant's usage per UTC day and in total, and its current stored bytes",
    responses={200: json_content(Usage, "Usage counters"), **error_responses()},
)
def get_usage(
    from_: Annotated[str | None, Query(alias="from", pattern=DATE_PATTERN)] = None,
    to: Annotated[str | None, Query(pattern=DATE_PATTERN)] = None,
) -> Response[Any]:
    return json_response(default_account().usage(routes.tenant(), from_, to))


@routes.direct("create_key")
def create_key_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    request = validate(KeyRequest, {k: v for k, v in event.items() if k == "name"})
    return default_account().create_key(tenant, request.name)


@routes.direct("list_keys")
def list_keys_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    return default_account().list_keys(tenant)


@routes.direct("revoke_key")
def revoke_key_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    return {"revoked": default_account().revoke_key(tenant, direct_field(event, "key_id"))}


@routes.direct("usage")
def usage_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    first, last = event.get("from"), event.get("to")
    if (first is not None and not isinstance(first, str)) or (last is not None and not isinstance(last, str)):
        raise InvalidInput('"from" and "to" are dates YYYY-MM-DD')
    return default_account().usage(tenant, first, last)


# ---- the audit log (issue 36, docs/adr/0056) ---------------------------------------------------------------------
@routes.get(
    "/audit",
    action="audit",
    summary="The tenant's audit log, newest first: who wrote, deleted, exported or erased what (no values)",
    responses={200: json_content(AuditPage, "A page of audit entries and the cursor of the next"), **error_responses()},
)
def get_audit(
    since: Annotated[str | None, Query()] = None,
    until: Annotated[str | None, Query()] = None,
    key_id: Annotated[str | None, Query()] = None,
    limit: Annotated[int | None, Query(ge=1, le=200)] = None,
    cursor: Annotated[str | None, Query()] = None,
) -> Response[Any]:
    page = default_audit().audit_entries(
        routes.tenant(), since=since, until=until, key_id=key_id, limit=limit, cursor=cursor
    )
    return json_response(page)


@routes.direct("audit")
def audit_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    fields = {k: event.get(k) for k in ("since", "until", "key_id", "cursor")}
    if any(v is not None and not isinstance(v, str) for v in fields.values()):
        raise InvalidInput('"since", "until", "key_id" and "cursor" are strings')
    limit = event.get("limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
        raise InvalidInput('"limit" is an integer')
    return default_audit().audit_entries(tenant, limit=limit, **fields)


register = routes.register
lambda_handler = routes.handler()
