"""checkpoints: LangGraph checkpoint threads — the server side of `offprompt_client.langgraph.OffpromptSaver`
(docs/adr/0039; the wire contract is that ADR's).

- `PUT /checkpoint-threads/{thread_id}/checkpoints/{checkpoint_id}` body `{checkpoint_ns, parent_checkpoint_id,
  checkpoint: {type, data}, metadata}` → 200 `{thread_id, checkpoint_ns, checkpoint_id}` (creates the thread;
  re-putting an id replaces it; blob ≤ 4 MiB else 413)
- `PUT /checkpoint-threads/{thread_id}/checkpoints/{checkpoint_id}/writes` body `{checkpoint_ns, task_id, task_path,
  writes: [{idx, channel, value}]}` → 200 `{stored}`; 404 `checkpoint_not_found`
- `GET /checkpoint-threads/{thread_id}/checkpoint?checkpoint_ns=&checkpoint_id=` → 200 a tuple (no id: the latest);
  404 `checkpoint_not_found`
- `POST /checkpoint-threads/{thread_id}/checkpoints/list` body `{checkpoint_ns, before, filter, limit, cursor}` →
  200 `{checkpoints, next_cursor}`
- `DELETE /checkpoint-threads/{thread_id}` → 204 (idempotent)
- `POST /checkpoint-threads/{thread_id}/copy` body `{target_thread_id}` → 201 `{thread_id, copied_from, through}`
- `POST /checkpoint-threads/{thread_id}/prune` body `{strategy}` → 200 `{thread_id, strategy}`

Direct invocation: `{"tenant", "action", ...}` with action one of put_checkpoint, put_checkpoint_writes,
get_checkpoint, list_checkpoints, delete_checkpoint_thread, copy_checkpoint_thread, prune_checkpoint_thread;
`thread_id` (and `checkpoint_id` where the route has it in its path) as fields, the rest as in the body or query.

Use cases: `offprompt.services.checkpoints.{put,writes,get,list,delete,copy,prune}`.
"""

from http import HTTPStatus
from typing import Annotated, Any

from api_common.entry import direct_field, direct_fields, json_response
from api_common.errors import error_responses
from api_common.powertools import Body, Path, Query, Response
from api_common.routes import NO_CONTENT, FunctionRoutes, json_content
from api_common.scope_rules import read, write
from offprompt.composition.checkpoints import default_checkpoints
from offprompt.metering import Meter
from offprompt.services.checkpoints.copy import copy_thread
from offprompt.services.checkpoints.delete import delete_thread
from offprompt.services.checkpoints.get import get_checkpoint
from offprompt.services.checkpoints.list import list_checkpoints
from offprompt.services.checkpoints.prune import keep_latest
from offprompt.services.checkpoints.put import put_checkpoint
from offprompt.services.checkpoints.requests import (
    CheckpointCopy,
    CheckpointList,
    CheckpointPrune,
    CheckpointPut,
    CheckpointRead,
    WritesPut,
)
from offprompt.services.checkpoints.writes import put_writes
from offprompt.validation import validate

# Looked up at call time, so tests can substitute checkpoints built on their own adapters.
checkpoints = default_checkpoints

routes = FunctionRoutes("checkpoints", event_prefixes=("checkpoint",))

THREAD = "/checkpoint-threads/{thread_id}"


@routes.put(
    THREAD + "/checkpoints/{checkpoint_id}",
    scope=write("checkpoints", path="thread_id"),
    action="put_checkpoint",
    summary="Store a checkpoint (creates the thread; re-putting an id replaces it)",
    responses={200: json_content("CheckpointKey", "The checkpoint's key"), **error_responses(409, 413)},
)
def put(
    thread_id: Annotated[str, Path()], checkpoint_id: Annotated[str, Path()], request: Annotated[CheckpointPut, Body()]
) -> Response[Any]:
    body = put_checkpoint(
        checkpoints(),
        routes.tenant(),
        routes.param("thread_id", thread_id),
        routes.param("checkpoint_id", checkpoint_id),
        request,
        meter=routes.meter(),
    )
    return json_response(body)


@routes.put(
    THREAD + "/checkpoints/{checkpoint_id}/writes",
    scope=write("checkpoints", path="thread_id"),
    action="put_checkpoint_writes",
    summary="Store a checkpoint's pending writes (idx >= 0 already stored is kept, idx < 0 replaced)",
    responses={200: json_content("WritesStored", "How many writes were stored"), **error_responses(404, 413)},
)
def writes(
    thread_id: Annotated[str, Path()], checkpoint_id: Annotated[str, Path()], request: Annotated[WritesPut, Body()]
) -> Response[Any]:
    body = put_writes(
        checkpoints(),
        routes.tenant(),
        routes.param("thread_id", thread_id),
        routes.param("checkpoint_id", checkpoint_id),
        request,
        meter=routes.meter(),
    )
    return json_response(body)


@routes.get(
    THREAD + "/checkpoint",
    scope=read("checkpoints", path="thread_id"),
    action="get_checkpoint",
    summary="A checkpoint tuple: the latest of a namespace, or one by id",
    responses={200: json_content("CheckpointTupleView", "The checkpoint tuple"), **error_responses(404)},
)
def get(
    thread_id: Annotated[str, Path()],
    checkpoint_ns: Annotated[str, Query(max_length=1024)] = "",
    checkpoint_id: Annotated[str | None, Query(max_length=64)] = None,
) -> Response[Any]:
    query = validate(CheckpointRead, {"checkpoint_ns": checkpoint_ns, "checkpoint_id": checkpoint_id})
    return json_response(get_checkpoint(checkpoints(), routes.tenant(), routes.param("thread_id", thread_id), query))


@routes.post(
    THREAD + "/checkpoints/list",
    scope=read("checkpoints", path="thread_id"),
    audit=False,  # reads only (docs/adr/0056)
    action="list_checkpoints",
    summary="A thread's checkpoint tuples, newest first (namespace, before, metadata filter, limit, cursor)",
    responses={200: json_content("CheckpointsPage", "A page of checkpoint tuples"), **error_responses()},
)
def list_(thread_id: Annotated[str, Path()], request: Annotated[CheckpointList, Body()]) -> Response[Any]:
    body = list_checkpoints(checkpoints(), routes.tenant(), routes.param("thread_id", thread_id), request)
    return json_response(body)


@routes.delete(
    THREAD,
    scope=write("checkpoints", path="thread_id"),
    action="delete_checkpoint_thread",
    summary="Delete a checkpoint thread (idempotent; what live copies read stays for them)",
    responses={204: NO_CONTENT, **error_responses()},
)
def delete(thread_id: Annotated[str, Path()]) -> Response[Any]:
    delete_thread(checkpoints(), routes.tenant(), routes.param("thread_id", thread_id))
    return Response(status_code=HTTPStatus.NO_CONTENT, body="")


@routes.post(
    THREAD + "/copy",
    scope=write("checkpoints", path="thread_id", body="target_thread_id"),
    action="copy_checkpoint_thread",
    summary="Copy a checkpoint thread (a fork: constant writes, the history is shared)",
    responses={201: json_content("CheckpointThreadCopied", "The copy"), **error_responses(404, 409)},
)
def copy(thread_id: Annotated[str, Path()], request: Annotated[CheckpointCopy, Body()]) -> Response[Any]:
    body = copy_thread(checkpoints(), routes.tenant(), routes.param("thread_id", thread_id), request)
    return json_response(body, HTTPStatus.CREATED)


@routes.post(
    THREAD + "/prune",
    scope=write("checkpoints", path="thread_id"),
    action="prune_checkpoint_thread",
    summary="Prune a checkpoint thread: keep only the latest checkpoint of each namespace, or delete it",
    responses={200: json_content("CheckpointThreadPruned", "Pruned"), **error_responses()},
)
def prune(thread_id: Annotated[str, Path()], request: Annotated[CheckpointPrune, Body()]) -> Response[Any]:
    return json_response(_prune(routes.tenant(), routes.param("thread_id", thread_id), request))


@routes.direct("put_checkpoint")
def put_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    request = validate(CheckpointPut, direct_fields(event, "thread_id", "checkpoint_id"))
    thread, checkpoint = direct_field(event, "thread_id"), direct_field(event, "checkpoint_id")
    return put_checkpoint(checkpoints(), tenant, thread, checkpoint, request, meter=meter)


@routes.direct("put_checkpoint_writes")
def writes_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    request = validate(WritesPut, direct_fields(event, "thread_id", "checkpoint_id"))
    thread, checkpoint = direct_field(event, "thread_id"), direct_field(event, "checkpoint_id")
    return put_writes(checkpoints(), tenant, thread, checkpoint, request, meter=meter)


@routes.direct("get_checkpoint")
def get_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    query = validate(CheckpointRead, direct_fields(event, "thread_id"))
    return get_checkpoint(checkpoints(), tenant, direct_field(event, "thread_id"), query)


@routes.direct("list_checkpoints")
def list_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    request = validate(CheckpointList, direct_fields(event, "thread_id"))
    return list_checkpoints(checkpoints(), tenant, direct_field(event, "thread_id"), request)


@routes.direct("delete_checkpoint_thread")
def delete_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    return {"deleted": delete_thread(checkpoints(), tenant, direct_field(event, "thread_id"))}


@routes.direct("copy_checkpoint_thread")
def copy_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    request = validate(CheckpointCopy, direct_fields(event, "thread_id"))
    return copy_thread(checkpoints(), tenant, direct_field(event, "thread_id"), request)


@routes.direct("prune_checkpoint_thread")
def prune_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    request = validate(CheckpointPrune, direct_fields(event, "thread_id"))
    return _prune(tenant, direct_field(event, "thread_id"), request)


def _prune(tenant: str, thread_id: str, request: CheckpointPrune) -> dict[str, Any]:
    """LangGraph's prune strategies: "delete" is the thread's delete (one use case, three modules from here)."""
    if request.strategy == "delete":
        delete_thread(checkpoints(), tenant, thread_id)
        return {"thread_id": thread_id, "strategy": "delete"}
    return keep_latest(checkpoints(), tenant, thread_id)


register = routes.register
lambda_handler = routes.handler()
