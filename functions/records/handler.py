"""records: long-term memory — namespaced JSON records with text search, filters, TTL and history (docs/adr/0034).

A namespace travels in a URL as its path form (labels joined by "."; a label holds no "."), in a body or a direct
event as a list of labels.
- `PUT /records/{namespace}/{key}` body `{value, index?, ttl_minutes?}` → 200 the record (create or replace)
- `GET /records/{namespace}/{key}?as_of=&refresh_ttl=` → 200 the record (the version valid at `as_of`), else 404
  `record_not_found`
- `DELETE /records/{namespace}/{key}` → 204 (idempotent; the delete is a version, a tombstone)
- `GET /records/{namespace}/{key}/history?limit=` → `{"versions": [record + "deleted"]}`, newest first
- `POST /records/search` body `{namespace_prefix, query?, filter?, limit, offset, as_of?, refresh_ttl?, mode?}`
  → `{"items": [record + "score"]}`
- `POST /records/namespaces` body `{prefix?, suffix?, max_depth?, limit, offset}` → `{"namespaces": [[label]]}`
- `PUT /record-namespaces/{namespace}` body `{default_ttl_minutes}` → `{"namespace", "default_ttl_minutes"}`

Direct invocation: `{"tenant", "action", ...}` with action one of put_record, get_record, delete_record,
record_history, search_records, list_record_namespaces, configure_record_namespace; `namespace` (a list of labels)
and `key` where the route has them in its path, the rest as in the body or query (the same library models).

The table's DynamoDB stream (REMOVE records of record items DynamoDB's TTL deleted, filtered in template.yaml):
each expired version's S3 body and record-index document are deleted and its `metered_bytes` taken off the tenant's
stored-bytes gauge once per record (`expiry.drop_expired`); a record that fails (S3, OpenSearch or DynamoDB) is
reported in `batchItemFailures` alone, so Lambda retries it.

Use cases: `offprompt.services.records.{put,get,delete,search,namespaces,expiry}`.
"""

import logging
from http import HTTPStatus
from typing import Annotated, Any

from api_common.entry import direct_field, direct_fields, invocation_deadline, json_response
from api_common.errors import error_responses
from api_common.powertools import Body, Path, Query, Response
from api_common.routes import NO_CONTENT, FunctionRoutes, json_content
from api_common.scope_rules import listing, read, write
from offprompt.composition.records import default_records
from offprompt.errors import InvalidInput
from offprompt.limits import MAX_RECORD_HISTORY
from offprompt.memory.records import check_namespace, parse_path
from offprompt.metering import Meter
from offprompt.services.records.delete import delete_record
from offprompt.services.records.expiry import drop_expired
from offprompt.services.records.get import get_record, record_history
from offprompt.services.records.namespaces import configure_namespace, list_namespaces
from offprompt.services.records.put import put_record
from offprompt.services.records.requests import (
    HistoryQuery,
    NamespaceSettings,
    NamespacesQuery,
    RecordPut,
    RecordRead,
    RecordSearch,
)
from offprompt.services.records.search import search_records
from offprompt.validation import validate

# Looked up at call time, so tests can substitute records built on their own adapters.
records = default_records

routes = FunctionRoutes("records", event_prefixes=("record",))
logger = logging.getLogger("records.handler")


def _path(namespace: str) -> tuple[str, ...]:
    return parse_path(routes.param("namespace", namespace))


def _direct_namespace(event: dict[str, Any]) -> tuple[str, ...]:
    if "namespace" not in event:
        raise InvalidInput('"namespace" is required (a list of labels)')
    return check_namespace(event["namespace"])


@routes.put(
    "/records/{namespace}/{key}",
    scope=write("records", path="namespace"),
    action="put_record",
    summary="Create or replace a record (the replaced version stays in its history)",
    responses={200: json_content("RecordView", "The record as stored"), **error_responses()},
)
def put(
    namespace: Annotated[str, Path()], key: Annotated[str, Path()], request: Annotated[RecordPut, Body()]
) -> Response[Any]:
    body = put_record(
        records(), routes.tenant(), _path(namespace), routes.param("key", key), request, meter=routes.meter()
    )
    return json_response(body)


@routes.get(
    "/records/{namespace}/{key}",
    scope=read("records", path="namespace"),
    action="get_record",
    summary="A record: its current version, or the one valid at `as_of`",
    responses={200: json_content("RecordView", "The record"), **error_responses(404)},
)
def get(
    namespace: Annotated[str, Path()],
    key: Annotated[str, Path()],
    as_of: Annotated[str | None, Query(max_length=64)] = None,
    refresh_ttl: Annotated[bool, Query()] = True,
) -> Response[Any]:
    query = RecordRead(as_of=as_of, refresh_ttl=refresh_ttl)
    return json_response(get_record(records(), routes.tenant(), _path(namespace), routes.param("key", key), query))


@routes.delete(
    "/records/{namespace}/{key}",
    scope=write("records", path="namespace"),
    action="delete_record",
    summary="Delete a record (idempotent; the delete is a version of its history)",
    responses={204: NO_CONTENT, **error_responses()},
)
def delete(namespace: Annotated[str, Path()], key: Annotated[str, Path()]) -> Response[Any]:
    delete_record(records(), routes.tenant(), _path(namespace), routes.param("key", key))
    return Response(status_code=HTTPStatus.NO_CONTENT, body="")


@routes.get(
    "/records/{namespace}/{key}/history",
    scope=read("records", path="namespace"),
    action="record_history",
    summary="A record's stored versions, newest first",
    responses={200: json_content("RecordHistory", "Versions with their validity windows"), **error_responses(404)},
)
def history(
    namespace: Annotated[str, Path()],
    key: Annotated[str, Path()],
    limit: Annotated[int, Query(ge=1, le=MAX_RECORD_HISTORY)] = 100,
) -> Response[Any]:
    query = HistoryQuery(limit=limit)
    return json_response(record_history(records(), routes.tenant(), _path(namespace), routes.param("key", key), query))


@routes.post(
    "/records/search",
    scope=listing("records", items="items", key="namespace", narrow="namespace_prefix"),
    audit=False,  # reads only (docs/adr/0056)
    action="search_records",
    summary="Search records under a namespace prefix by text and/or filter",
    responses={
        200: json_content("RecordsFound", "Records, best first (newest first without a query)"),
        **error_responses(),
    },
)
def search(request: Annotated[RecordSearch, Body()]) -> Response[Any]:
    return json_response(search_records(records(), routes.tenant(), request, meter=routes.meter()))


@routes.post(
    "/records/namespaces",
    scope=listing("records", items="namespaces", key=None, narrow="prefix"),
    audit=False,  # reads only (docs/adr/0056)
    action="list_record_namespaces",
    summary="List record namespaces (prefix/suffix conditions with '*' wildcards, max_depth)",
    responses={200: json_content("RecordNamespaces", "Namespaces, sorted"), **error_responses()},
)
def namespaces(request: Annotated[NamespacesQuery, Body()]) -> Response[Any]:
    return json_response(list_namespaces(records(), routes.tenant(), request))


@routes.put(
    "/record-namespaces/{namespace}",
    scope=write("records", path="namespace"),
    action="configure_record_namespace",
    summary="Set a record namespace's default TTL (minutes) for puts that give none",
    responses={200: json_content("RecordNamespaceSettings", "The namespace's settings"), **error_responses()},
)
def configure(namespace: Annotated[str, Path()], request: Annotated[NamespaceSettings, Body()]) -> Response[Any]:
    return json_response(configure_namespace(records(), routes.tenant(), _path(namespace), request))


@routes.direct("put_record")
def put_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    request = validate(RecordPut, direct_fields(event, "namespace", "key"))
    return put_record(records(), tenant, _direct_namespace(event), direct_field(event, "key"), request, meter=meter)


@routes.direct("get_record")
def get_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    query = validate(RecordRead, direct_fields(event, "namespace", "key"))
    return get_record(records(), tenant, _direct_namespace(event), direct_field(event, "key"), query)


@routes.direct("delete_record")
def delete_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    deleted = delete_record(records(), tenant, _direct_namespace(event), direct_field(event, "key"))
    return {"deleted": deleted}


@routes.direct("record_history")
def history_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    query = validate(HistoryQuery, direct_fields(event, "namespace", "key"))
    return record_history(records(), tenant, _direct_namespace(event), direct_field(event, "key"), query)


@routes.direct("search_records")
def search_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    return search_records(records(), tenant, validate(RecordSearch, direct_fields(event)), meter=meter)


@routes.direct("list_record_namespaces")
def namespaces_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    return list_namespaces(records(), tenant, validate(NamespacesQuery, direct_fields(event)))


@routes.direct("configure_record_namespace")
def configure_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    request = validate(NamespaceSettings, direct_fields(event, "namespace"))
    return configure_namespace(records(), tenant, _direct_namespace(event), request)


#: The `userIdentity` of a stream record for an item DynamoDB's Time to Live deleted.
TTL_IDENTITY = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


def expired(record: dict[str, Any]) -> None:
    """One stream record: an expired record version's body and document go (anything else is ignored)."""
    if record.get("eventName") != "REMOVE":
        return
    identity = record.get("userIdentity") or {}
    if {k: identity.get(k) for k in TTL_IDENTITY} != TTL_IDENTITY:
        return  # deletes by the API or an erase take care of their own
    image = (record.get("dynamodb") or {}).get("OldImage") or {}
    pk, sk = image.get("pk", {}).get("S", ""), image.get("sk", {}).get("S", "")
    tenant = image.get("tenant", {}).get("S")
    if not (pk.startswith("REC#") and sk.startswith(("CUR#", "VER#")) and tenant):
        return
    metered = image.get("metered_bytes", {}).get("N")
    drop_expired(
        records(),
        tenant,
        image.get("body_key", {}).get("S"),
        image.get("doc_id", {}).get("S"),
        event_id=record.get("eventID"),
        metered_bytes=int(metered) if metered else 0,
    )


def handle_stream(event: dict[str, Any]) -> dict[str, Any]:
    failures = []
    for record in event["Records"]:
        try:
            expired(record)
        except Exception:
            logger.exception("an expired record's body or document could not be deleted; the record is retried")
            failures.append({"itemIdentifier": (record.get("dynamodb") or {}).get("SequenceNumber", "")})
    return {"batchItemFailures": failures}


register = routes.register
_handler = routes.handler()


def lambda_handler(event: dict[str, Any], context: Any) -> Any:
    if isinstance(event, dict) and isinstance(event.get("Records"), list):
        with invocation_deadline(context, http=False):
            return handle_stream(event)
    return _handler(event, context)
