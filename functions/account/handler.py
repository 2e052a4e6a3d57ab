"""account: a tenant's own API keys and usage (the tenant is the caller's own credential, never the body).

- `POST /keys` body `{name?}` → 201 `{key_id, key, prefix, name, created_at}` (the only time `key` is shown)
- `GET /keys` → `{"keys": [{key_id, prefix, name, created_at}]}` (no secrets)
- `DELETE /keys/{key_id}` → 204 (idempotent); the key stops working at once (deployed: within the authorizer's
  300 s cache)
- `GET /usage?from=YYYY-MM-DD&to=YYYY-MM-DD` → `{tenant, from, to, days: [{date, ...counters}], totals, stored_bytes}`

Direct invocation: `{"tenant", "action": "create_key"|"list_keys"|"revoke_key"|"usage", ...fields}`.
"""

from http import HTTPStatus
from typing import Annotated, Any

from api_common.entry import current_tenant, direct_field, json_response, make_handler, path_param
from api_common.errors import error_responses
from api_common.powertools import APIGatewayHttpResolver, Body, Path, Query, Response
from api_common.schemas import NO_CONTENT, KeyList, NewKey, Usage, json_content
from offprompt.composition.account import default_account
from offprompt.errors import InvalidInput
from offprompt.services.account.requests import KeyRequest
from offprompt.validation import validate

ACTIONS = ("create_key", "list_keys", "revoke_key", "usage")
DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"


def register(app: APIGatewayHttpResolver) -> None:
    @app.post(
        "/keys",
        summary="Create an API key for the caller's tenant (shown once)",
        responses={201: json_content(NewKey, "The new key; its secret is never shown again"), **error_responses()},
    )
    def post_key(request: Annotated[KeyRequest | None, Body()] = None) -> Response[Any]:
        tenant = current_tenant(app)
        created = default_account().create_key(tenant, request.name if request else None)
        return json_response(created, HTTPStatus.CREATED)

    @app.get(
        "/keys",
        summary="The caller's tenant's API keys (no secrets)",
        responses={200: json_content(KeyList, "The keys"), **error_responses()},
    )
    def get_keys() -> Response[Any]:
        return json_response(default_account().list_keys(current_tenant(app)))

    @app.delete(
        "/keys/<key_id>",
        summary="Revoke one of the tenant's API keys (idempotent)",
        responses={204: NO_CONTENT, **error_responses()},
    )
    def delete_key(key_id: Annotated[str, Path()]) -> Response[Any]:
        default_account().revoke_key(current_tenant(app), path_param(app, "key_id", key_id))
        return Response(status_code=HTTPStatus.NO_CONTENT, body="")

    @app.get(
        "/usage",
        summary="The tenant's usage per UTC day and in total, and its current stored bytes",
        responses={200: json_content(Usage, "Usage counters"), **error_responses()},
    )
    def get_usage(
        from_: Annotated[str | None, Query(alias="from", pattern=DATE_PATTERN)] = None,
        to: Annotated[str | None, Query(pattern=DATE_PATTERN)] = None,
    ) -> Response[Any]:
        return json_response(default_account().usage(current_tenant(app), from_, to))


def direct(tenant: str, event: dict[str, Any]) -> Any:
    action = event.get("action")
    if action not in ACTIONS:
        raise InvalidInput(f'"action" must be one of {", ".join(ACTIONS)}')
    service = default_account()
    if action == "create_key":
        request = validate(KeyRequest, {k: v for k, v in event.items() if k == "name"})
        return service.create_key(tenant, request.name)
    if action == "list_keys":
        return service.list_keys(tenant)
    if action == "revoke_key":
        return {"revoked": service.revoke_key(tenant, direct_field(event, "key_id"))}
    first, last = event.get("from"), event.get("to")
    if (first is not None and not isinstance(first, str)) or (last is not None and not isinstance(last, str)):
        raise InvalidInput('"from" and "to" are dates YYYY-MM-DD')
    return service.usage(tenant, first, last)


lambda_handler = make_handler(register, direct)
