"""threads: read, configure and delete a conversation thread, and list its runs.

- `GET /threads/{thread_id}` → config, counts and summary state (404 when it does not exist)
- `PUT /threads/{thread_id}` body `{max_runs?, memory_type?, offset?, retention_days?}` → the thread
- `DELETE /threads/{thread_id}` → 204 (idempotent: everything the thread owns is gone afterwards)
- `GET /threads/{thread_id}/runs?limit=&cursor=&order=asc|desc` → `{"runs": [...], "next_cursor"}`

Direct invocation: `{"tenant", "thread_id", "action": "get"|"configure"|"delete"|"list_runs", ...fields}`.
"""

from http import HTTPStatus
from typing import Any

from api_common.entry import current_tenant, json_response, make_handler, model_body, path_param
from api_common.powertools import APIGatewayHttpResolver, Response
from offprompt.errors import InvalidInput
from offprompt.services.conversation import ThreadConfigRequest, default_service, parse_model

ACTIONS = ("get", "configure", "delete", "list_runs")


def _int(value: Any, name: str, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InvalidInput(f"{name} must be an integer")
    try:
        return int(value)
    except ValueError:
        raise InvalidInput(f"{name} must be an integer") from None


def list_runs(tenant: str, thread_id: str, params: dict[str, Any]) -> dict[str, Any]:
    cursor = params.get("cursor")
    if cursor is not None and not isinstance(cursor, str):
        raise InvalidInput("cursor must be a string")
    order = params.get("order") or "asc"
    return default_service().list_runs(
        tenant, thread_id, limit=_int(params.get("limit"), "limit", 20), cursor=cursor, order=str(order)
    )


def register(app: APIGatewayHttpResolver) -> None:
    @app.get("/threads/<thread_id>")
    def get_thread(thread_id: str) -> Response[Any]:
        tenant = current_tenant(app)
        return json_response(default_service().get_thread(tenant, path_param(app, "thread_id", thread_id)))

    @app.put("/threads/<thread_id>")
    def put_thread(thread_id: str) -> Response[Any]:
        tenant = current_tenant(app)
        request = model_body(app, ThreadConfigRequest)
        return json_response(default_service().configure(tenant, path_param(app, "thread_id", thread_id), request))

    @app.delete("/threads/<thread_id>")
    def delete_thread(thread_id: str) -> Response[Any]:
        tenant = current_tenant(app)
        default_service().delete_thread(tenant, path_param(app, "thread_id", thread_id))
        return Response(status_code=HTTPStatus.NO_CONTENT, body="")

    @app.get("/threads/<thread_id>/runs")
    def get_runs(thread_id: str) -> Response[Any]:
        tenant = current_tenant(app)
        params = dict(app.current_event.query_string_parameters or {})
        return json_response(list_runs(tenant, path_param(app, "thread_id", thread_id), params))


def direct(tenant: str, event: dict[str, Any]) -> Any:
    action = event.get("action")
    if action not in ACTIONS:
        raise InvalidInput(f'"action" must be one of {", ".join(ACTIONS)}')
    thread_id = event.get("thread_id")
    if thread_id is None:
        raise InvalidInput('a direct invocation must name its "thread_id"')
    service = default_service()
    if action == "get":
        return service.get_thread(tenant, thread_id)
    if action == "configure":
        fields = {k: v for k, v in event.items() if k not in ("tenant", "thread_id", "action")}
        return service.configure(tenant, thread_id, parse_model(ThreadConfigRequest, fields))
    if action == "delete":
        service.delete_thread(tenant, thread_id)
        return {"deleted": True}
    return list_runs(tenant, thread_id, event)


lambda_handler = make_handler(register, direct)
