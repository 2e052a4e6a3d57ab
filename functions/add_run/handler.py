"""add-run: `POST /threads/{thread_id}/runs` (body: Griptape Run JSON) → 201 `{"run": <Run JSON>, "seq": n}`.

Direct invocation: `{"tenant", "thread_id", "run": <Run JSON>}` (or the Run's fields at the top level).
A retry with the same run id and content returns the first result; different content → Conflict (409).
The body is validated by the library's `RunIn` on both paths (422 `schema_invalid` / SchemaInvalid).

Use case: `offprompt.services.conversation.add_run`.
"""

from http import HTTPStatus
from typing import Annotated, Any

import api_common  # noqa: F401  (first: holds the collector over the init, docs/adr/0065)

# isort: split
from aws_lambda_powertools.metrics import MetricUnit

from api_common.entry import direct_field, json_response, observability
from api_common.errors import error_responses
from api_common.powertools import Body, Path, Response
from api_common.routes import FunctionRoutes, json_content
from api_common.scope_rules import write
from offprompt.composition.conversation import default_service, prime_conversation
from offprompt.metering import Meter
from offprompt.services.conversation import RunIn
from offprompt.services.conversation.add_run import add_run

DIRECT_ONLY_KEYS = ("tenant", "thread_id", "action")

routes = FunctionRoutes("add_run", default_action="add", prime=prime_conversation)


def add(tenant: str, thread_id: str, payload: Any, meter: Meter | None) -> dict[str, Any]:
    result = add_run(default_service(), tenant, thread_id, payload, meter=meter)
    logger, metrics = observability()
    if result.replayed:
        metrics.add_metric(name="RunsReplayed", unit=MetricUnit.Count, value=1)
    else:
        metrics.add_metric(name="RunsAdded", unit=MetricUnit.Count, value=1)
    logger.info("run added", extra={"seq": result.seq, "replayed": result.replayed})
    return result.to_dict()


@routes.post(
    "/threads/{thread_id}/runs",
    scope=write("threads", path="thread_id"),
    action="add",
    summary="Append a run to a thread",
    responses={
        201: json_content("AddRunResponse", "The run as stored and its sequence number"),
        **error_responses(409),
    },
)
def post_run(thread_id: Annotated[str, Path()], run: Annotated[RunIn, Body()]) -> Response[Any]:
    payload = run.model_dump(exclude_unset=True)  # the fields as sent: the idempotency hash covers them
    body = add(routes.tenant(), routes.param("thread_id", thread_id), payload, routes.meter())
    return json_response(body, HTTPStatus.CREATED)


@routes.direct("add")
def add_direct(tenant: str, event: dict[str, Any], meter: Meter | None) -> dict[str, Any]:
    thread_id = direct_field(event, "thread_id")
    payload = event["run"] if "run" in event else {k: v for k, v in event.items() if k not in DIRECT_ONLY_KEYS}
    return add(tenant, thread_id, payload, meter)


register = routes.register
lambda_handler = routes.handler()
