"""memories: task-memory administration and search.

- `GET /memories/{memory_name}/namespaces?limit=&cursor=` → `{"namespaces": [record], "next_cursor"}`
- `GET /memories/{memory_name}/namespaces/{namespace}` → record (404 when unknown)
- `DELETE /memories/{memory_name}/namespaces/{namespace}` → 204, also when unknown (S3 objects, OpenSearch
  documents, records); direct: `{"deleted": <whether it existed>, "namespace"}`
- `GET /memories/{memory_name}/meta?limit=&cursor=` → `{"entries": [ActionSubtaskMetaEntry.to_dict()], "next_cursor"}`
- `POST /memories/{memory_name}/namespaces/{namespace}/search` body `{query, top_k=5, mode}`
  → `{"hits": [...]}` (empty for an unknown namespace)
Direct events: `{tenant, memory_name, action, ...}` with action one of list_namespaces, get_namespace,
delete_namespace, list_meta, search.
"""

from http import HTTPStatus
from typing import Any

from api_common.entry import current_tenant, json_body, json_response, make_handler, path_param
from api_common.powertools import APIGatewayHttpResolver, Response
from offprompt.errors import InvalidInput
from offprompt.services.task_memory import (
    SearchRequest,
    default_service,
    hit_to_dict,
    parse_request,
    record_to_dict,
)

DEFAULT_LIMIT = 100


# Looked up at call time, so tests can substitute a service built on their own adapters.
service = default_service


def paging(source: dict[str, Any]) -> tuple[int, str | None]:
    limit: Any = source.get("limit", DEFAULT_LIMIT)
    if isinstance(limit, str):
        if not (limit.isascii() and limit.isdigit()) or len(limit) > 6:
            raise InvalidInput("limit must be an integer from 1 to 1000")
        limit = int(limit)
    cursor = source.get("cursor")
    if cursor is not None and not isinstance(cursor, str):
        raise InvalidInput("cursor must be a string")
    return limit, cursor or None


def list_namespaces(tenant: str, memory: str, source: dict[str, Any]) -> dict[str, Any]:
    records, cursor = service().list_namespaces(tenant, memory, *paging(source))
    return {"namespaces": [record_to_dict(r) for r in records], "next_cursor": cursor}


def list_meta(tenant: str, memory: str, source: dict[str, Any]) -> dict[str, Any]:
    entries, cursor = service().meta_entries(tenant, memory, *paging(source))
    return {"entries": entries, "next_cursor": cursor}


def search(tenant: str, memory: str, namespace: str, data: Any) -> dict[str, Any]:
    request = parse_request(SearchRequest, data)
    hits = service().search(tenant, memory, namespace, request.query, request.top_k, request.mode)
    return {"hits": [hit_to_dict(h) for h in hits]}


def register(app: APIGatewayHttpResolver) -> None:
    @app.get("/memories/<memory_name>/namespaces")
    def get_namespaces(memory_name: str) -> Response[Any]:
        memory = path_param(app, "memory_name", memory_name)
        return json_response(list_namespaces(current_tenant(app), memory, app.current_event.query_string_parameters))

    @app.get("/memories/<memory_name>/namespaces/<namespace>")
    def get_namespace(memory_name: str, namespace: str) -> Response[Any]:
        memory, name = path_param(app, "memory_name", memory_name), path_param(app, "namespace", namespace)
        return json_response(record_to_dict(service().get_namespace(current_tenant(app), memory, name)))

    @app.delete("/memories/<memory_name>/namespaces/<namespace>")
    def delete_namespace(memory_name: str, namespace: str) -> Response[Any]:
        memory, name = path_param(app, "memory_name", memory_name), path_param(app, "namespace", namespace)
        service().delete_namespace(current_tenant(app), memory, name)
        return Response(status_code=HTTPStatus.NO_CONTENT, body="")

    @app.get("/memories/<memory_name>/meta")
    def get_meta(memory_name: str) -> Response[Any]:
        memory = path_param(app, "memory_name", memory_name)
        return json_response(list_meta(current_tenant(app), memory, app.current_event.query_string_parameters))

    @app.post("/memories/<memory_name>/namespaces/<namespace>/search")
    def post_search(memory_name: str, namespace: str) -> Response[Any]:
        memory, name = path_param(app, "memory_name", memory_name), path_param(app, "namespace", namespace)
        return json_response(search(current_tenant(app), memory, name, json_body(app)))


ACTIONS = ("list_namespaces", "get_namespace", "delete_namespace", "list_meta", "search")


def direct(tenant: str, event: dict[str, Any]) -> Any:
    action, memory = event.get("action"), event.get("memory_name")
    if action not in ACTIONS:
        raise InvalidInput(f"action must be one of {', '.join(ACTIONS)}")
    if not isinstance(memory, str):
        raise InvalidInput('a direct invocation must name its "memory_name"')
    if action == "list_namespaces":
        return list_namespaces(tenant, memory, event)
    if action == "list_meta":
        return list_meta(tenant, memory, event)
    namespace = event.get("namespace")
    if not isinstance(namespace, str):
        raise InvalidInput('this action needs a "namespace"')
    if action == "get_namespace":
        return record_to_dict(service().get_namespace(tenant, memory, namespace))
    if action == "delete_namespace":
        existed = service().delete_namespace(tenant, memory, namespace)
        return {"deleted": existed, "namespace": namespace}
    fields = {k: event[k] for k in ("query", "top_k", "mode") if k in event}
    return search(tenant, memory, namespace, fields)


lambda_handler = make_handler(register, direct)
