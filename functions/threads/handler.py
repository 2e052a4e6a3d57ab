"""threads: read, configure and delete a conversation thread, and list its runs.

- `GET /threads?limit=&cursor=&prefix=&order=activity|id` → `{"threads": [...], "next_cursor"}`: the tenant's
  threads, the most recently written first (docs/adr/0054) or by id (through the tenant index, docs/adr/0038)
- `GET /threads/{thread_id}` → config, counts and summary state (404 when it does not exist)
- `PUT /threads/{thread_id}` body `{max_runs?, memory_type?, offset?, retention_days?}` → the thread (max_runs,
  summary memory and offset on an items thread: 409 `setting_not_for_items`, nothing changed)
- `DELETE /threads/{thread_id}` → 204 (idempotent: everything the thread owns is gone afterwards)
- `GET /threads/{thread_id}/runs?limit=&cursor=&order=asc|desc&as_of_run=` → `{"runs": [...], "next_cursor"}`
  (`as_of_run`: the thread as it was right after that run; a fork's runs include the ones it shares)
- `POST /threads/{thread_id}/fork` body `{after_run_id?, thread_id?, request_id?}` → 201 the fork (docs/adr/0037:
  no run copied; 404 unknown thread or `run_not_found`, 409 `thread_exists` / `fork_too_deep`); a DELETE of a
  thread with live forks is a 409 `thread_has_forks`
- framework session items (docs/adr/0033; a thread holds runs or items, fixed at creation, else 409
  `thread_kind_mismatch`): `POST /threads/{thread_id}/items` body `{items: [...], request_id?}` → 201
  `{seqs, replayed}`; `GET /threads/{thread_id}/items?limit=&before=&max_tokens=` → `{items, seqs, next_before,
  tokens}` (the newest `limit`, or those that fit `max_tokens` without a tool result cut from its call; oldest
  first); `POST /threads/{thread_id}/items/pop` → `{item, seq}` (the newest, removed atomically)

- `POST /threads/search` body `{query, thread_prefix?, thread_ids?, limit?, mode?, since?, until?, consistency?,
  context?}` → `{"hits": [{thread_id, seq, run_id|item_id, score, run|item, created_at, context?}]}` (docs/adr/0049:
  candidates from the conversation index, ranked by `memory.recall`, each checked against DynamoDB; with
  `consistency: "search"` the header `X-Offprompt-Searchable` says whether the wait for the index completed)

Direct invocation: `{"tenant", "action": "list_threads", limit?, cursor?, prefix?, order?}`, `{"tenant", "action":
"search_threads", query, ...}` (answers `{"hits", "searchable"?}`), or `{"tenant", "thread_id",
"action": "get"|"configure"|"delete"|"list_runs"|"fork"|"add_items"|
"get_items"|"pop_item", ...fields}`; bodies and query fields are validated by the same library models
(`ThreadConfigRequest`, `RunsQuery`, `ForkRequest`, `ItemsIn`, `ItemsQuery`); a direct `fork` names the new
thread `new_thread_id` (`thread_id` is the thread forked).

Use cases: `offprompt.services.conversation.thread_admin`, `.fork`, `.items`, `.search`.
"""

from http import HTTPStatus
from typing import TYPE_CHECKING, Annotated, Any, Literal

from api_common.conversation_search import RERANKED_HEADER, run_search
from api_common.entry import direct_field, direct_fields, json_response
from api_common.errors import error_responses
from api_common.powertools import Body, Path, Query, Response
from api_common.routes import NO_CONTENT, FunctionRoutes, json_content
from api_common.scope_rules import listing, read, write
from offprompt.composition.conversation import default_service, prime_conversation
from offprompt.limits import (
    DEFAULT_RUNS_LIMIT,
    IDENTIFIER_MAX_CHARS,
    MAX_CURSOR_CHARS,
    MAX_ITEMS_LIMIT,
    MAX_LIST_LIMIT,
    MAX_NAME_CHARS,
    MAX_PROMPT_TOKENS,
)
from offprompt.metering import Meter
from offprompt.services.conversation import (
    RunsQuery,
    ThreadConfigRequest,
    ThreadsQuery,
    fork,
    items,
    parse_model,
    thread_admin,
)
from offprompt.services.conversation.requests import ForkRequest, ItemsIn, ItemsQuery, ThreadSearchRequest

if TYPE_CHECKING:  # the search use case (and its ranking) is imported by the first search (run_search)
    from offprompt.services.conversation.search import SearchResult

routes = FunctionRoutes("threads", event_prefixes=("thread",), prime=prime_conversation)


def list_threads(tenant: str, query: ThreadsQuery) -> dict[str, Any]:
    return thread_admin.list_threads(
        default_service(),
        tenant,
        limit=query.limit,
        cursor=query.cursor or None,
        prefix=query.prefix or None,
        order=query.order,
    )


@routes.get(
    "/threads",
    scope=listing("threads", items="threads", key="thread_id", narrow="prefix"),
    action="list_threads",
    summary="A page of the tenant's threads, the most recently written first or by id (optionally those whose id "
    "starts with `prefix`)",
    responses={
        200: json_content("ThreadsPage", "Threads in the order asked; `next_cursor` reads the next page"),
        **error_responses(),
    },
)
def get_threads(
    limit: Annotated[int, Query(ge=1, le=MAX_LIST_LIMIT)] = DEFAULT_RUNS_LIMIT,
    cursor: Annotated[str | None, Query(max_length=MAX_CURSOR_CHARS)] = None,
    prefix: Annotated[str | None, Query(max_length=IDENTIFIER_MAX_CHARS)] = None,
    order: Annotated[Literal["activity", "id"], Query()] = "activity",
) -> Response[Any]:
    query = ThreadsQuery(limit=limit, cursor=cursor, prefix=prefix, order=order)
    return json_response(list_threads(routes.tenant(), query))


@routes.direct("list_threads")
def list_threads_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    return list_threads(tenant, parse_model(ThreadsQuery, direct_fields(event)))


_SEARCH_HEADERS = {
    "X-Offprompt-Searchable": {
        "description": 'with consistency "search": "true" when every write acknowledged before the request, in the '
        'threads searched, was searchable; "false" when the bounded wait gave up (the hits are still only runs '
        "DynamoDB holds)",
        "schema": {"type": "string", "enum": ["true", "false"]},
    },
    RERANKED_HEADER: {
        "description": 'with a rerank model set (RerankModelId, docs/adr/0068): "true" when it ordered the hits, '
        '"false" when it failed and the hits are in the fused order',
        "schema": {"type": "string", "enum": ["true", "false"]},
    },
}


def search_threads(tenant: str, request: ThreadSearchRequest, meter: Meter | None) -> "SearchResult":
    return run_search(default_service(), tenant, request, meter)


@routes.post(
    "/threads/search",
    scope=listing("threads", items="hits", key="thread_id", narrow="thread_prefix"),
    audit=False,  # reads only (docs/adr/0056)
    action="search_threads",
    summary="Search the tenant's conversations (runs and session items) by meaning and words",
    responses={
        200: json_content("ThreadSearchResult", "The best hits first", headers=_SEARCH_HEADERS),
        **error_responses(),
    },
)
def post_search(request: Annotated[ThreadSearchRequest, Body()]) -> Response[Any]:
    result = search_threads(routes.tenant(), request, routes.meter())
    headers = {}
    if result.searchable is not None:
        headers["X-Offprompt-Searchable"] = "true" if result.searchable else "false"
    if result.reranked is not None:
        headers[RERANKED_HEADER] = "true" if result.reranked else "false"
    return json_response({"hits": result.hits}, headers=headers or None)


@routes.direct("search_threads")
def search_threads_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    return search_threads(tenant, parse_model(ThreadSearchRequest, direct_fields(event)), meter).body()


def list_runs(tenant: str, thread_id: str, query: RunsQuery) -> dict[str, Any]:
    return thread_admin.list_runs(
        default_service(),
        tenant,
        thread_id,
        limit=query.limit,
        cursor=query.cursor or None,
        order=query.order,
        as_of_run=query.as_of_run,
    )


@routes.get(
    "/threads/{thread_id}",
    scope=read("threads", path="thread_id"),
    action="get",
    summary="A thread's configuration, counts and summary",
    responses={200: json_content("ThreadView", "The thread"), **error_responses(404)},
)
def get_thread(thread_id: Annotated[str, Path()]) -> Response[Any]:
    return json_response(
        thread_admin.get_thread(default_service(), routes.tenant(), routes.param("thread_id", thread_id))
    )


@routes.put(
    "/threads/{thread_id}",
    scope=write("threads", path="thread_id"),
    action="configure",
    summary="Configure a thread (creates it)",
    responses={200: json_content("ThreadView", "The thread"), **error_responses(409)},
)
def put_thread(thread_id: Annotated[str, Path()], request: Annotated[ThreadConfigRequest, Body()]) -> Response[Any]:
    thread = routes.param("thread_id", thread_id)
    return json_response(thread_admin.configure(default_service(), routes.tenant(), thread, request))


@routes.delete(
    "/threads/{thread_id}",
    scope=write("threads", path="thread_id"),
    action="delete",
    summary="Delete a thread and everything it owns (idempotent)",
    responses={204: NO_CONTENT, **error_responses(409)},
)
def delete_thread(thread_id: Annotated[str, Path()]) -> Response[Any]:
    thread_admin.delete_thread(default_service(), routes.tenant(), routes.param("thread_id", thread_id))
    return Response(status_code=HTTPStatus.NO_CONTENT, body="")


@routes.get(
    "/threads/{thread_id}/runs",
    scope=read("threads", path="thread_id"),
    action="list_runs",
    summary="A page of a thread's runs",
    responses={
        200: json_content("RunsPage", "Runs, oldest first (asc) or newest first (desc)"),
        **error_responses(404),
    },
)
def get_runs(
    thread_id: Annotated[str, Path()],
    limit: Annotated[int, Query(ge=1, le=MAX_LIST_LIMIT)] = DEFAULT_RUNS_LIMIT,
    cursor: Annotated[str | None, Query(max_length=MAX_CURSOR_CHARS)] = None,
    order: Annotated[Literal["asc", "desc"], Query()] = "asc",
    as_of_run: Annotated[str | None, Query(min_length=1, max_length=MAX_NAME_CHARS)] = None,
) -> Response[Any]:
    query = RunsQuery(limit=limit, cursor=cursor, order=order, as_of_run=as_of_run)
    return json_response(list_runs(routes.tenant(), routes.param("thread_id", thread_id), query))


@routes.direct("get")
def get_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    return thread_admin.get_thread(default_service(), tenant, direct_field(event, "thread_id"))


@routes.direct("configure")
def configure_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    thread_id = direct_field(event, "thread_id")
    request = parse_model(ThreadConfigRequest, direct_fields(event, "thread_id"))
    return thread_admin.configure(default_service(), tenant, thread_id, request)


@routes.direct("delete")
def delete_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    thread_admin.delete_thread(default_service(), tenant, direct_field(event, "thread_id"))
    return {"deleted": True}


@routes.direct("list_runs")
def list_runs_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    thread_id = direct_field(event, "thread_id")
    return list_runs(tenant, thread_id, parse_model(RunsQuery, direct_fields(event, "thread_id")))


@routes.post(
    "/threads/{thread_id}/fork",
    scope=write("threads", path="thread_id", body="thread_id"),
    action="fork",
    summary="Fork a thread after one of its runs (no run is copied)",
    responses={201: json_content("ForkedThread", "The fork"), **error_responses(404, 409)},
)
def post_fork(thread_id: Annotated[str, Path()], request: Annotated[ForkRequest, Body()]) -> Response[Any]:
    thread = routes.param("thread_id", thread_id)
    return json_response(fork.fork_thread(default_service(), routes.tenant(), thread, request), HTTPStatus.CREATED)


@routes.direct("fork")
def fork_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    # `thread_id` names the thread forked (as on every action): the fork's own id is `new_thread_id` here
    thread_id = direct_field(event, "thread_id")
    fields = direct_fields(event, "thread_id", "new_thread_id")
    if "new_thread_id" in event:
        fields["thread_id"] = event["new_thread_id"]
    return fork.fork_thread(default_service(), tenant, thread_id, parse_model(ForkRequest, fields))


@routes.post(
    "/threads/{thread_id}/items",
    scope=write("threads", path="thread_id"),
    action="add_items",
    summary="Append framework session items (OpenAI Agents SDK items, Strands messages) to a thread",
    responses={201: json_content("ItemsAppended", "The items' seqs, in order"), **error_responses(409)},
)
def post_items(thread_id: Annotated[str, Path()], request: Annotated[ItemsIn, Body()]) -> Response[Any]:
    thread = routes.param("thread_id", thread_id)
    body = items.append_items(default_service(), routes.tenant(), thread, request, meter=routes.meter())
    return json_response(body, HTTPStatus.CREATED)


@routes.get(
    "/threads/{thread_id}/items",
    scope=read("threads", path="thread_id"),
    action="get_items",
    summary="A thread's newest framework session items, oldest first (optionally within a token budget)",
    responses={
        200: json_content("ItemsPage", "The newest `limit` items before `before` (or those that fit `max_tokens`)"),
        **error_responses(409),
    },
)
def get_items(
    thread_id: Annotated[str, Path()],
    limit: Annotated[int | None, Query(ge=1, le=MAX_ITEMS_LIMIT)] = None,
    before: Annotated[int | None, Query(ge=1)] = None,
    max_tokens: Annotated[int | None, Query(ge=1, le=MAX_PROMPT_TOKENS)] = None,
) -> Response[Any]:
    query = ItemsQuery(limit=limit, before=before, max_tokens=max_tokens)
    thread = routes.param("thread_id", thread_id)
    return json_response(items.newest_items(default_service(), routes.tenant(), thread, query))


@routes.post(
    "/threads/{thread_id}/items/pop",
    scope=write("threads", path="thread_id"),
    action="pop_item",
    summary="Remove and return a thread's newest framework session item (atomic under concurrency)",
    responses={200: json_content("PoppedItem", "The item removed, or null"), **error_responses(409)},
)
def pop_item(thread_id: Annotated[str, Path()]) -> Response[Any]:
    thread = routes.param("thread_id", thread_id)
    return json_response(items.pop_item(default_service(), routes.tenant(), thread))


@routes.direct("add_items")
def add_items_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    thread_id = direct_field(event, "thread_id")
    request = parse_model(ItemsIn, direct_fields(event, "thread_id"))
    return items.append_items(default_service(), tenant, thread_id, request, meter=meter)


@routes.direct("get_items")
def get_items_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    thread_id = direct_field(event, "thread_id")
    return items.newest_items(
        default_service(), tenant, thread_id, parse_model(ItemsQuery, direct_fields(event, "thread_id"))
    )


@routes.direct("pop_item")
def pop_item_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    return items.pop_item(default_service(), tenant, direct_field(event, "thread_id"))


register = routes.register
lambda_handler = routes.handler()
