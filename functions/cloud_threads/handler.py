"""cloud-threads: Griptape Cloud's Threads API under `/api`, so `GriptapeCloudConversationMemoryDriver(base_url=...)`
works unchanged (docs/adr/0012-griptape-threads-api.md).

- `POST /api/threads` `{name, alias?, metadata?}` → 201 the thread
- `GET /api/threads?alias=` → `{"threads": [...], "pagination": {...}}`
- `GET /api/threads/{thread_id}` → `{thread_id, name, alias, metadata, created_at, updated_at}`
- `PATCH /api/threads/{thread_id}` `{messages?, name?, metadata?, ...meta}` → the thread (messages: a diff by run id)
- `DELETE /api/threads/{thread_id}` → 204 (idempotent; the alias is released)
- `GET /api/threads/{thread_id}/messages?page=&page_size=` → `{"messages": [...], "pagination": {...}}`

Use case: `offprompt.services.conversation.cloud_threads` (over add-run and thread admin).
"""

from http import HTTPStatus
from typing import Any

from api_common.entry import current_tenant, json_body, json_response, make_handler, path_param
from api_common.powertools import APIGatewayHttpResolver, Response
from offprompt.composition.conversation import default_cloud_threads


def register(app: APIGatewayHttpResolver) -> None:
    def query() -> dict[str, str]:
        return dict(app.current_event.query_string_parameters or {})

    @app.post("/api/threads")
    def create_thread() -> Response[Any]:
        tenant = current_tenant(app)
        return json_response(default_cloud_threads().create(tenant, json_body(app)), HTTPStatus.CREATED)

    @app.get("/api/threads")
    def find_threads() -> Response[Any]:
        return json_response(default_cloud_threads().find(current_tenant(app), query()))

    @app.get("/api/threads/<thread_id>")
    def get_thread(thread_id: str) -> Response[Any]:
        tenant = current_tenant(app)
        return json_response(default_cloud_threads().get(tenant, path_param(app, "thread_id", thread_id)))

    @app.patch("/api/threads/<thread_id>")
    def patch_thread(thread_id: str) -> Response[Any]:
        tenant = current_tenant(app)
        thread = path_param(app, "thread_id", thread_id)
        return json_response(default_cloud_threads().patch(tenant, thread, json_body(app)))

    @app.delete("/api/threads/<thread_id>")
    def delete_thread(thread_id: str) -> Response[Any]:
        tenant = current_tenant(app)
        default_cloud_threads().delete(tenant, path_param(app, "thread_id", thread_id))
        return Response(status_code=HTTPStatus.NO_CONTENT, body="")

    @app.get("/api/threads/<thread_id>/messages")
    def get_messages(thread_id: str) -> Response[Any]:
        tenant = current_tenant(app)
        thread = path_param(app, "thread_id", thread_id)
        return json_response(default_cloud_threads().messages(tenant, thread, query()))


lambda_handler = make_handler(register)
