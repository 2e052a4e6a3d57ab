"""memories: task-memory administration and search.

- `GET /memories/{memory_name}/namespaces?limit=&cursor=` → `{"namespaces": [record], "next_cursor"}`
- `GET /memories/{memory_name}/namespaces/{namespace}` → record (404 when unknown)
- `DELETE /memories/{memory_name}/namespaces/{namespace}` → 204, also when unknown (S3 objects, OpenSearch
  documents, records); direct: `{"deleted": <whether it existed>, "namespace"}`
- `GET /memories/{memory_name}/meta?limit=&cursor=` → `{"entries": [ActionSubtaskMetaEntry.to_dict()], "next_cursor"}`
- `POST /memories/{memory_name}/namespaces/{namespace}/search` body `{query, top_k=5, mode}`
  → `{"hits": [...]}` (empty for an unknown namespace)
Direct events: `{tenant, memory_name, action, ...}` with action one of list_namespaces, get_namespace,
delete_namespace, list_meta, search; their fields are validated by the same models (`PageQuery`, `SearchRequest`).

Use cases: `offprompt.services.task_memory.namespaces` (records, meta, delete) and `.search`.
"""

from http import HTTPStatus
from typing import Annotated, Any

from api_common.entry import direct_field, direct_fields, json_response
from api_common.errors import error_responses
from api_common.powertools import Body, Path, Query, Response
from api_common.routes import NO_CONTENT, FunctionRoutes, json_content
from api_common.scope_rules import read, write
from offprompt.composition.task_memory import default_service, prime_task_memory
from offprompt.limits import DEFAULT_PAGE_LIMIT, MAX_CURSOR_CHARS, MAX_PAGE_LIMIT
from offprompt.metering import Meter
from offprompt.services.task_memory import (
    PageQuery,
    SearchRequest,
    hit_to_dict,
    namespaces,
    parse_request,
    record_to_dict,
)
from offprompt.services.task_memory.search import search as search_namespace

# Looked up at call time, so tests can substitute a service built on their own adapters.
service = default_service

Limit = Annotated[int, Query(ge=1, le=MAX_PAGE_LIMIT)]
Cursor = Annotated[str | None, Query(max_length=MAX_CURSOR_CHARS)]

routes = FunctionRoutes("memories", prime=prime_task_memory)


def list_namespaces(tenant: str, memory: str, page: PageQuery) -> dict[str, Any]:
    records, cursor = namespaces.list_namespaces(service(), tenant, memory, page.limit, page.cursor or None)
    return {"namespaces": [record_to_dict(r) for r in records], "next_cursor": cursor}


def list_meta(tenant: str, memory: str, page: PageQuery) -> dict[str, Any]:
    entries, cursor = namespaces.meta_entries(service(), tenant, memory, page.limit, page.cursor or None)
    return {"entries": entries, "next_cursor": cursor}


def search(tenant: str, memory: str, namespace: str, request: SearchRequest, meter: Meter | None) -> dict[str, Any]:
    hits = search_namespace(
        service(), tenant, memory, namespace, request.query, request.top_k, request.mode, meter=meter
    )
    return {"hits": [hit_to_dict(h) for h in hits]}


@routes.get(
    "/memories/{memory_name}/namespaces",
    scope=read("memories", path="memory_name"),
    action="list_namespaces",
    summary="A page of a memory's namespaces",
    responses={200: json_content("NamespacesPage", "Namespace records"), **error_responses()},
)
def get_namespaces(
    memory_name: Annotated[str, Path()], limit: Limit = DEFAULT_PAGE_LIMIT, cursor: Cursor = None
) -> Response[Any]:
    memory = routes.param("memory_name", memory_name)
    page = PageQuery(limit=limit, cursor=cursor)
    return json_response(list_namespaces(routes.tenant(), memory, page))


@routes.get(
    "/memories/{memory_name}/namespaces/{namespace}",
    scope=read("memories", path="memory_name"),
    action="get_namespace",
    summary="A namespace's record",
    responses={200: json_content("NamespaceRecord", "The record"), **error_responses(404)},
)
def get_namespace(memory_name: Annotated[str, Path()], namespace: Annotated[str, Path()]) -> Response[Any]:
    memory, name = routes.param("memory_name", memory_name), routes.param("namespace", namespace)
    return json_response(record_to_dict(namespaces.get_namespace(service(), routes.tenant(), memory, name)))


@routes.delete(
    "/memories/{memory_name}/namespaces/{namespace}",
    scope=write("memories", path="memory_name"),
    action="delete_namespace",
    summary="Delete a namespace and its data (idempotent)",
    responses={204: NO_CONTENT, **error_responses()},
)
def delete_namespace(memory_name: Annotated[str, Path()], namespace: Annotated[str, Path()]) -> Response[Any]:
    memory, name = routes.param("memory_name", memory_name), routes.param("namespace", namespace)
    namespaces.delete_namespace(service(), routes.tenant(), memory, name)
    return Response(status_code=HTTPStatus.NO_CONTENT, body="")


@routes.get(
    "/memories/{memory_name}/meta",
    scope=read("memories", path="memory_name"),
    action="list_meta",
    summary="A page of a memory's ActionSubtask meta entries",
    responses={200: json_content("MetaPage", "Meta entries"), **error_responses()},
)
def get_meta(
    memory_name: Annotated[str, Path()], limit: Limit = DEFAULT_PAGE_LIMIT, cursor: Cursor = None
) -> Response[Any]:
    memory = routes.param("memory_name", memory_name)
    page = PageQuery(limit=limit, cursor=cursor)
    return json_response(list_meta(routes.tenant(), memory, page))


@routes.post(
    "/memories/{memory_name}/namespaces/{namespace}/search",
    scope=read("memories", path="memory_name"),
    audit=False,  # reads only (docs/adr/0056)
    action="search",
    summary="Search a namespace's text",
    responses={200: json_content("SearchHits", "Hits, best first"), **error_responses(409)},
)
def post_search(
    memory_name: Annotated[str, Path()],
    namespace: Annotated[str, Path()],
    request: Annotated[SearchRequest, Body()],
) -> Response[Any]:
    memory, name = routes.param("memory_name", memory_name), routes.param("namespace", namespace)
    return json_response(search(routes.tenant(), memory, name, request, routes.meter()))


@routes.direct("list_namespaces")
def list_namespaces_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    memory = direct_field(event, "memory_name")
    return list_namespaces(tenant, memory, parse_request(PageQuery, direct_fields(event, "memory_name")))


@routes.direct("list_meta")
def list_meta_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    memory = direct_field(event, "memory_name")
    return list_meta(tenant, memory, parse_request(PageQuery, direct_fields(event, "memory_name")))


@routes.direct("get_namespace")
def get_namespace_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    memory, namespace = direct_field(event, "memory_name"), direct_field(event, "namespace")
    return record_to_dict(namespaces.get_namespace(service(), tenant, memory, namespace))


@routes.direct("delete_namespace")
def delete_namespace_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    memory, namespace = direct_field(event, "memory_name"), direct_field(event, "namespace")
    existed = namespaces.delete_namespace(service(), tenant, memory, namespace)
    return {"deleted": existed, "namespace": namespace}


@routes.direct("search")
def search_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    memory, namespace = direct_field(event, "memory_name"), direct_field(event, "namespace")
    request = parse_request(SearchRequest, direct_fields(event, "memory_name", "namespace"))
    return search(tenant, memory, namespace, request, meter)


register = routes.register
lambda_handler = routes.handler()
