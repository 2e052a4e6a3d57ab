"""extraction: long-term memory that builds itself — a tenant's extraction strategies, the runner, the status
(docs/adr/0051-extraction-strategies.md).

- `PUT /extraction/strategies/{name}` body `{type, namespace, trigger?: {after_runs, idle_seconds}, instructions?,
  enabled?}` → 200 the stored strategy (a body of the wrong shape 422; a bad name, template or a custom strategy
  without instructions 400 `invalid_input`)
- `GET /extraction/strategies` → `{"strategies": [...]}`; `GET /extraction/strategies/{name}` → the strategy, else
  404 `strategy_not_found`; `DELETE /extraction/strategies/{name}` → 204 (idempotent; the records it wrote stay)
- `GET /threads/{thread_id}/extraction` → `{"thread_id", "strategies": {name: {processed_through_seq, pending_runs,
  records_written, last_error, paused, enabled, updated_at}}}`

Direct invocation: `{"tenant", "action", ...}` with action one of put_strategy, get_strategy, list_strategies,
delete_strategy (`name`), thread_extraction (`thread_id`).

The extraction queue (SQS; an EventBridge rule on the memory-event bus sends `run.added` and `items.appended` to it,
and the runner sends itself delayed checks): each message names a tenant and a thread; each (tenant, thread) of a
batch is extracted once (`run.extract_thread`); a message whose extraction raised is a batch item failure (SQS
retries it, then its dead-letter queue keeps it).

Use cases: `offprompt.services.extraction.{strategies,status,run}`.
"""

from __future__ import annotations

import json
import logging
from http import HTTPStatus
from typing import Annotated, Any

from api_common.entry import direct_field, direct_fields, invocation_deadline, json_response
from api_common.errors import error_responses
from api_common.powertools import Body, Path, Response
from api_common.routes import NO_CONTENT, FunctionRoutes, json_content
from api_common.scope_rules import ADMIN, read
from offprompt.composition.extraction import default_extractions
from offprompt.events import ITEMS_APPENDED, RUN_ADDED
from offprompt.metering import Meter
from offprompt.services.extraction.requests import StrategyPut
from offprompt.services.extraction.run import extract_thread
from offprompt.services.extraction.status import thread_extraction
from offprompt.services.extraction.strategies import (
    delete_strategy,
    get_strategy,
    list_strategies,
    put_strategy,
)
from offprompt.validation import validate

# Looked up at call time, so tests can substitute a context built on their own adapters.
extractions = default_extractions

routes = FunctionRoutes("extraction")
logger = logging.getLogger("extraction.handler")


@routes.put(
    "/extraction/strategies/{name}",
    scope=ADMIN,
    action="put_strategy",
    summary="Create or replace an extraction strategy",
    responses={200: json_content("StrategyView", "The strategy as stored"), **error_responses()},
)
def put(name: Annotated[str, Path()], request: Annotated[StrategyPut, Body()]) -> Response[Any]:
    return json_response(put_strategy(extractions(), routes.tenant(), routes.param("name", name), request))


@routes.get(
    "/extraction/strategies",
    scope=ADMIN,
    action="list_strategies",
    summary="The tenant's extraction strategies, by name",
    responses={200: json_content("StrategiesList", "Every strategy"), **error_responses()},
)
def list_all() -> Response[Any]:
    return json_response(list_strategies(extractions(), routes.tenant()))


@routes.get(
    "/extraction/strategies/{name}",
    scope=ADMIN,
    action="get_strategy",
    summary="One extraction strategy",
    responses={200: json_content("StrategyView", "The strategy"), **error_responses(404)},
)
def get(name: Annotated[str, Path()]) -> Response[Any]:
    return json_response(get_strategy(extractions(), routes.tenant(), routes.param("name", name)))


@routes.delete(
    "/extraction/strategies/{name}",
    scope=ADMIN,
    action="delete_strategy",
    summary="Delete an extraction strategy (idempotent; the records it wrote stay)",
    responses={204: NO_CONTENT, **error_responses()},
)
def delete(name: Annotated[str, Path()]) -> Response[Any]:
    delete_strategy(extractions(), routes.tenant(), routes.param("name", name))
    return Response(status_code=HTTPStatus.NO_CONTENT, body="")


@routes.get(
    "/threads/{thread_id}/extraction",
    scope=read("threads", path="thread_id"),
    action="thread_extraction",
    summary="Where each extraction strategy stands on the thread",
    responses={200: json_content("ThreadExtraction", "Each strategy's status"), **error_responses(404)},
)
def status(thread_id: Annotated[str, Path()]) -> Response[Any]:
    return json_response(thread_extraction(extractions(), routes.tenant(), routes.param("thread_id", thread_id)))


@routes.direct("put_strategy")
def put_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    request = validate(StrategyPut, direct_fields(event, "name"))
    return put_strategy(extractions(), tenant, direct_field(event, "name"), request)


@routes.direct("get_strategy")
def get_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    return get_strategy(extractions(), tenant, direct_field(event, "name"))


@routes.direct("list_strategies")
def list_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    return list_strategies(extractions(), tenant)


@routes.direct("delete_strategy")
def delete_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    return {"deleted": delete_strategy(extractions(), tenant, direct_field(event, "name"))}


@routes.direct("thread_extraction")
def status_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> Any:
    return thread_extraction(extractions(), tenant, direct_field(event, "thread_id"))


def thread_of(body: Any) -> tuple[str, str] | None:
    """The (tenant, thread) a queue message names: a memory event as the bus delivers it (`run.added`,
    `items.appended`), or the runner's own delayed check `{"tenant", "thread_id"}`; None for anything else."""
    if not isinstance(body, dict):
        return None
    if body.get("detail-type") in (RUN_ADDED, ITEMS_APPENDED) and isinstance(body.get("detail"), dict):
        body = {"tenant": body["detail"].get("tenant"), **(body["detail"].get("detail") or {})}
    tenant, thread_id = body.get("tenant"), body.get("thread_id")
    return (tenant, thread_id) if isinstance(tenant, str) and isinstance(thread_id, str) else None


def handle_queue(event: dict[str, Any]) -> dict[str, Any]:
    """One batch of the extraction queue: each (tenant, thread) extracted once; its messages fail together."""
    threads: dict[tuple[str, str], list[str]] = {}
    for record in event["Records"]:
        try:
            found = thread_of(json.loads(record.get("body") or "null"))
        except ValueError:
            found = None
        if found is None:
            logger.warning("an extraction queue message names no thread; dropped")
            continue
        threads.setdefault(found, []).append(record.get("messageId", ""))
    failures = []
    for (tenant, thread_id), message_ids in threads.items():
        try:
            extract_thread(extractions(), tenant, thread_id)
        except Exception:
            logger.exception("extraction failed; the messages are retried")
            failures += [{"itemIdentifier": m} for m in message_ids]
    return {"batchItemFailures": failures}


register = routes.register
_handler = routes.handler()


def lambda_handler(event: dict[str, Any], context: Any) -> Any:
    if isinstance(event, dict) and isinstance(event.get("Records"), list):
        with invocation_deadline(context, http=False):
            return handle_queue(event)
    return _handler(event, context)
