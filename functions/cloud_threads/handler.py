"""cloud-threads: Griptape Cloud's Threads API under `/api`, so `GriptapeCloudConversationMemoryDriver(base_url=...)`
works unchanged (docs/adr/0012-griptape-threads-api.md). Use case: `offprompt.services.conversation.cloud_threads`.

- `POST /api/threads` `{name, alias?, metadata?}` → 201 the thread
- `GET /api/threads?alias=` → `{"threads": [...], "pagination": {...}}`
- `GET /api/threads/{thread_id}` → `{thread_id, name, alias, metadata, created_at, updated_at}`
- `PATCH /api/threads/{thread_id}` `{messages?, name?, metadata?, ...meta}` → the thread (messages: a diff by run id)
- `DELETE /api/threads/{thread_id}` → 204 (idempotent; the alias is released)
- `GET /api/threads/{thread_id}/messages?page=&page_size=` → `{"messages": [...], "pagination": {...}}`

HTTP only (no direct invocation: Step Functions use the native routes). Bodies and query parameters are
validated by their models like every other route: 422 `schema_invalid` for what does not fit them.

Use case: `offprompt.services.conversation.cloud_threads` (over add-run and thread admin).
"""

from http import HTTPStatus
from typing import Annotated, Any

from api_common.entry import json_response
from api_common.errors import error_responses
from api_common.powertools import Body, Path, Query, Response
from api_common.routes import NO_CONTENT, FunctionRoutes, json_content
from api_common.scope_rules import listing, read, write
from offprompt.composition.conversation import default_cloud_threads, prime_conversation
from offprompt.limits import DEFAULT_CLOUD_PAGE_SIZE, IDENTIFIER_MAX_CHARS, MAX_CLOUD_PAGE_SIZE
from offprompt.services.conversation import CloudThreadIn, CloudThreadPatch

routes = FunctionRoutes("cloud_threads", prime=prime_conversation)


@routes.post(
    "/api/threads",
    scope=write("threads"),
    summary="Create a thread (Griptape Cloud Threads API)",
    responses={201: json_content("CloudThread", "The thread"), **error_responses()},
)
def create_thread(body: Annotated[CloudThreadIn, Body()]) -> Response[Any]:
    thread = default_cloud_threads().create(routes.tenant(), body.model_dump(exclude_unset=True))
    return json_response(thread, HTTPStatus.CREATED)


@routes.get(
    "/api/threads",
    scope=listing("threads", items="threads", key="thread_id"),
    summary="Find the thread with an alias (Griptape Cloud Threads API)",
    responses={200: json_content("CloudThreadsPage", "The thread with that alias, or none"), **error_responses()},
)
def find_threads(alias: Annotated[str, Query(min_length=1, max_length=IDENTIFIER_MAX_CHARS)]) -> Response[Any]:
    return json_response(default_cloud_threads().find(routes.tenant(), {"alias": alias}))


@routes.get(
    "/api/threads/{thread_id}",
    scope=read("threads", path="thread_id"),
    summary="A thread (Griptape Cloud Threads API)",
    responses={200: json_content("CloudThread", "The thread"), **error_responses()},
)
def get_thread(thread_id: Annotated[str, Path()]) -> Response[Any]:
    return json_response(default_cloud_threads().get(routes.tenant(), routes.param("thread_id", thread_id)))


@routes.patch(
    "/api/threads/{thread_id}",
    scope=write("threads", path="thread_id"),
    summary="Update a thread: its messages (a diff by run id), name, metadata (Griptape Cloud Threads API)",
    responses={200: json_content("CloudThread", "The thread"), **error_responses()},
)
def patch_thread(thread_id: Annotated[str, Path()], body: Annotated[CloudThreadPatch, Body()]) -> Response[Any]:
    thread = routes.param("thread_id", thread_id)
    patched = default_cloud_threads().patch(
        routes.tenant(), thread, body.model_dump(exclude_unset=True), meter=routes.meter()
    )
    return json_response(patched)


@routes.delete(
    "/api/threads/{thread_id}",
    scope=write("threads", path="thread_id"),
    summary="Delete a thread and release its alias (idempotent; Griptape Cloud Threads API)",
    responses={204: NO_CONTENT, **error_responses()},
)
def delete_thread(thread_id: Annotated[str, Path()]) -> Response[Any]:
    default_cloud_threads().delete(routes.tenant(), routes.param("thread_id", thread_id))
    return Response(status_code=HTTPStatus.NO_CONTENT, body="")


@routes.get(
    "/api/threads/{thread_id}/messages",
    scope=read("threads", path="thread_id"),
    summary="A page of a thread's messages, oldest first (Griptape Cloud Threads API)",
    responses={200: json_content("CloudMessagesPage", "Messages, oldest first"), **error_responses()},
)
def get_messages(
    thread_id: Annotated[str, Path()],
    page: Annotated[int, Query(ge=1)] = 1,
    page_size: Annotated[int, Query(ge=1, le=MAX_CLOUD_PAGE_SIZE)] = DEFAULT_CLOUD_PAGE_SIZE,
) -> Response[Any]:
    query = {"page": str(page), "page_size": str(page_size)}
    thread = routes.param("thread_id", thread_id)
    return json_response(default_cloud_threads().messages(routes.tenant(), thread, query))


register = routes.register
lambda_handler = routes.handler()
