"""account: a tenant's own API keys and usage (the tenant is the caller's own credential, never the body).

- `POST /keys` body `{name?, scopes?, expires_at?}` → 201 `{key_id, key, prefix, name, created_at, scopes?,
  expires_at?}` (the only time `key` is shown; scopes: docs/keys.md; an unscoped key only)
- `GET /keys` → `{"keys": [{key_id, prefix, name, created_at, scopes?, expires_at?}]}` (no secrets)
- `DELETE /keys/{key_id}` → 204 (idempotent); the key stops working at once, deployed too: every request reads its
  key again, whatever API Gateway's authorizer cache (300 s) holds (401; docs/adr/0028)
- `POST /keys/{key_id}/tokens` body `{ttl_seconds ≤ 3600, scopes?}` → 201 `{token, token_id, key_id, expires_at,
  scopes?}`: a short-lived signed token (docs/keys.md); an unscoped key mints for any key of the tenant, a scoped
  key for itself only, within its scope; a token mints nothing
- `GET /usage?from=YYYY-MM-DD&to=YYYY-MM-DD` → `{tenant, from, to, days: [{date, ...counters}], totals, stored_bytes}`
- `GET /audit?since=&until=&key_id=&limit=&cursor=` → `{entries: [...], cursor}`: the tenant's audit log, newest
  first (docs/adr/0056)

Direct invocation: `{"tenant", "action": "create_key"|"list_keys"|"revoke_key"|"mint_token"|"usage"|"audit",
...fields}`.
"""

import dataclasses
from http import HTTPStatus
from typing import Annotated, Any

from api_common.caller import hosted_principal
from api_common.entry import direct_field, direct_fields, json_response
from api_common.errors import error_responses
from api_common.powertools import Body, Path, Query, Response
from api_common.routes import NO_CONTENT, FunctionRoutes, json_content
from api_common.scope_rules import ADMIN, TOKEN
from offprompt.composition.account import default_account, default_token_secret
from offprompt.composition.audit import default_audit
from offprompt.errors import InvalidInput
from offprompt.metering import Meter
from offprompt.services.account.requests import KeyRequest, TokenRequest
from offprompt.validation import validate

DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"

routes = FunctionRoutes("account", event_prefixes=("keys", "usage", "audit"))


@routes.post(
    "/keys",
    scope=ADMIN,
    action="create_key",
    summary="Create an API key for the caller's tenant (shown once)",
    responses={201: json_content("NewKey", "The new key; its secret is never shown again"), **error_responses()},
)
def post_key(request: Annotated[KeyRequest | None, Body()] = None) -> Response[Any]:
    request = request or KeyRequest()
    created = default_account().create_key(
        routes.tenant(), request.name, scope=request.scopes, expires_at=request.expires_at, caller=routes.scope()
    )
    return json_response(created, HTTPStatus.CREATED)


@routes.get(
    "/keys",
    scope=ADMIN,
    action="list_keys",
    summary="The caller's tenant's API keys (no secrets)",
    responses={200: json_content("KeyList", "The keys"), **error_responses()},
)
def get_keys() -> Response[Any]:
    return json_response(default_account().list_keys(routes.tenant(), caller=routes.scope()))


@routes.delete(
    "/keys/{key_id}",
    scope=ADMIN,
    action="revoke_key",
    summary="Revoke one of the tenant's API keys (idempotent; refused at once, whatever API Gateway's cache)",
    responses={204: NO_CONTENT, **error_responses()},
)
def delete_key(key_id: Annotated[str, Path()]) -> Response[Any]:
    default_account().revoke_key(routes.tenant(), routes.param("key_id", key_id), caller=routes.scope())
    return Response(status_code=HTTPStatus.NO_CONTENT, body="")


@routes.post(
    "/keys/{key_id}/tokens",
    scope=TOKEN,
    action="mint_token",
    summary="Mint a short-lived signed token of a key (at most an hour; its scope or a narrower one)",
    responses={201: json_content("NewToken", "The token; never stored, never shown again"), **error_responses()},
)
def post_token(key_id: Annotated[str, Path()], request: Annotated[TokenRequest, Body()]) -> Response[Any]:
    caller = hosted_principal(routes.event.raw_event)
    if caller is not None:  # the scope admission settled on, not the one the authorizer's cache holds
        caller = dataclasses.replace(caller, scope=routes.scope())
    minted = default_account().mint_token(
        routes.tenant(),
        routes.param("key_id", key_id),
        request.ttl_seconds,
        default_token_secret(),
        scope=request.scopes,
        caller=caller,
    )
    return json_response(minted, HTTPStatus.CREATED)


@routes.get(
    "/usage",
    scope=ADMIN,
    action="usage",
    summary="The tenant's usage per UTC day and in total, and its current stored bytes",
    responses={200: json_content("Usage", "Usage counters"), **error_responses()},
)
def get_usage(
    from_: Annotated[str | None, Query(alias="from", pattern=DATE_PATTERN)] = None,
    to: Annotated[str | None, Query(pattern=DATE_PATTERN)] = None,
) -> Response[Any]:
    return json_response(default_account().usage(routes.tenant(), from_, to, caller=routes.scope()))


@routes.direct("create_key")
def create_key_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    request = validate(KeyRequest, {k: v for k, v in event.items() if k in KeyRequest.model_fields})
    return default_account().create_key(tenant, request.name, scope=request.scopes, expires_at=request.expires_at)


@routes.direct("list_keys")
def list_keys_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    return default_account().list_keys(tenant)


@routes.direct("revoke_key")
def revoke_key_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    return {"revoked": default_account().revoke_key(tenant, direct_field(event, "key_id"))}


@routes.direct("mint_token")
def mint_token_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    request = validate(TokenRequest, direct_fields(event, "key_id"))
    key_id = direct_field(event, "key_id")
    return default_account().mint_token(
        tenant, key_id, request.ttl_seconds, default_token_secret(), scope=request.scopes
    )


@routes.direct("usage")
def usage_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    first, last = event.get("from"), event.get("to")
    if (first is not None and not isinstance(first, str)) or (last is not None and not isinstance(last, str)):
        raise InvalidInput('"from" and "to" are dates YYYY-MM-DD')
    return default_account().usage(tenant, first, last)


# ---- the audit log (issue 36, docs/adr/0056) ---------------------------------------------------------------------
@routes.get(
    "/audit",
    scope=ADMIN,
    action="audit",
    summary="The tenant's audit log, newest first: who wrote, deleted, exported or erased what (no values)",
    responses={
        200: json_content("AuditPage", "A page of audit entries and the cursor of the next"),
        **error_responses(),
    },
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
