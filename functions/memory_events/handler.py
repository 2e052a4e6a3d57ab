"""memory_events: the table's changes published as memory events for bring-your-own extraction (docs/adr/0036).

Trigger: the table's DynamoDB stream (NEW_AND_OLD_IMAGES; template.yaml's filter passes only the item kinds that
can mean an event). Each record means zero or one event (`offprompt.adapters.stream_events`); the batch's events
go to the EventBridge bus in PutEvents calls of ≤ 10 (`adapters/eventbridge`). Powertools' `BatchProcessor`
reports each record on its own: a record whose event was not delivered (after one retry of the refused entries),
or that could not be read, is a batch item failure, so Lambda retries from it; records that mean nothing succeed.
Events may arrive twice (a retried batch): `id` is the stream record's `eventID`, for consumers to dedupe on.

Use case: `offprompt.services.events.publish_changes`.
"""

from __future__ import annotations

from typing import Any

import api_common  # noqa: F401  (first: holds the collector over the init, docs/adr/0065)

# isort: split
from aws_lambda_powertools.metrics import MetricUnit

from api_common.entry import invocation_deadline, observability
from api_common.stream_batch import partial_batch_response
from offprompt.composition.events import default_events
from offprompt.errors import InvalidInput
from offprompt.services.events.publish_changes import publish_changes


def handle_stream(event: dict[str, Any]) -> dict[str, Any]:
    records = event.get("Records")
    if not records:  # Powertools refuses an empty batch (UnexpectedBatchTypeError); nothing to do
        return {"batchItemFailures": []}
    logger, metrics = observability()
    result = publish_changes(default_events(), records)
    metrics.add_metric(name="MemoryEventsPublished", unit=MetricUnit.Count, value=len(result.published))
    if result.failed:
        logger.warning(
            "memory events not delivered; their records will be retried", extra={"records": len(result.failed)}
        )
        metrics.add_metric(name="MemoryEventsFailed", unit=MetricUnit.Count, value=len(result.failed))
    response = partial_batch_response(event, result.failed, "its memory event was not delivered")
    metrics.flush_metrics()
    return response


def lambda_handler(event: dict[str, Any], context: Any) -> Any:
    if not (isinstance(event, dict) and isinstance(event.get("Records"), list)):
        raise InvalidInput("the events function takes the table's DynamoDB stream records only")
    with invocation_deadline(context, http=False):
        return handle_stream(event)
