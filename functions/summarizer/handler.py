"""summarizer: folds old runs of summary-memory threads into the summary, off the add-run path.

Triggers:
- the table's DynamoDB stream (batch, Powertools' `BatchProcessor`): each inserted run item names its thread;
  every thread in the batch is summarized once. A thread whose summarization fails reports its records in
  `batchItemFailures` (`ReportBatchItemFailures` in template.yaml), so Lambda retries only them; nothing was
  changed for it (compare-and-swap commit), so no run is lost. A record that cannot be read is reported alone.
- the same stream's REMOVE records of run items DynamoDB's TTL deleted (`userIdentity` the DynamoDB service) that
  carry `metered_bytes`: the tenant's stored-bytes gauge goes down by them, once per record
  (docs/adr/0021-stored-bytes-and-run-counts.md).
- a direct invocation `{"tenant", "thread_id"}` → `{"status", "through_seq", "summarized_runs"}`; errors
  are raised (DependencyUnavailable when Bedrock fails).

Use cases: `offprompt.services.conversation.summarize`, `expiry.release_expired_run`.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import api_common  # noqa: F401  (first: holds the collector over the init, docs/adr/0065)

# isort: split
from aws_lambda_powertools.metrics import MetricUnit

from api_common.entry import invocation_deadline, make_handler, observability
from api_common.powertools import DATA_CLASSES, APIGatewayHttpResolver, complete_lazy_package
from offprompt.composition.conversation import default_service, prime_conversation
from offprompt.composition.warm import register_snapstart
from offprompt.errors import InvalidInput
from offprompt.services.conversation.expiry import release_expired_run
from offprompt.services.conversation.summarize import summarize as summarize_thread

#: The `userIdentity` of a stream record for an item DynamoDB's Time to Live deleted.
TTL_IDENTITY = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


def summarize(tenant: str, thread_id: str) -> dict[str, Any]:
    result = summarize_thread(default_service(), tenant, thread_id)
    _, metrics = observability()
    if result.status == "committed":
        metrics.add_metric(name="SummariesCommitted", unit=MetricUnit.Count, value=1)
    elif result.status == "stale":
        metrics.add_metric(name="SummariesStale", unit=MetricUnit.Count, value=1)
    return asdict(result)


def handle_stream(event: dict[str, Any]) -> dict[str, Any]:
    """Powertools' `BatchProcessor` over the stream's records (`DynamoDBRecord` data classes): each record is
    reported on its own, so a record that cannot be handled (a poison record) is the only one retried.

    Every thread in the batch is summarized once: its later records share the first one's outcome (a failed
    thread reports all its records). Imported here, not at module level: only stream invocations pay for the
    batch utility (it pulls in Powertools' data classes and asyncio).
    """
    if not event.get("Records"):  # Powertools refuses an empty batch (UnexpectedBatchTypeError); nothing to do
        return {"batchItemFailures": []}
    # the batch utility imports data classes (sqs_event, ...) that import names from their package: its real
    # __init__ (skipped for the HTTP functions' cold starts, api_common.powertools) must have run first
    complete_lazy_package(DATA_CLASSES)
    from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
    from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import (
        DynamoDBRecord,
        DynamoDBRecordEventName,
    )

    logger, metrics = observability()
    outcomes: dict[tuple[str, str], Exception | None] = {}

    def summarize_thread_of(record: DynamoDBRecord) -> None:
        if record.event_name is DynamoDBRecordEventName.REMOVE and record.dynamodb is not None:
            release_expired(record.event_id, record.user_identity, record.dynamodb.old_image)
            return
        if record.event_name is not DynamoDBRecordEventName.INSERT or record.dynamodb is None:
            return
        image = record.dynamodb.new_image
        sk, tenant, thread_id = image.get("sk"), image.get("tenant"), image.get("thread_id")
        if not (isinstance(sk, str) and sk.startswith("RUN#")):
            return
        if not (isinstance(tenant, str) and tenant and isinstance(thread_id, str) and thread_id):
            return
        thread = (tenant, thread_id)
        if thread not in outcomes:
            try:
                summarize(tenant, thread_id)
                outcomes[thread] = None
            except Exception as exc:
                logger.exception("summarization failed; the stream records will be retried")
                metrics.add_metric(name="SummariesFailed", unit=MetricUnit.Count, value=1)
                outcomes[thread] = exc
        failed = outcomes[thread]
        if failed is not None:
            raise failed

    # Every record failing is still a partial response (all reported), never an exception replaying the batch.
    processor = BatchProcessor(event_type=EventType.DynamoDBStreams, raise_on_entire_batch_failure=False)
    response = process_partial_response(event=event, record_handler=summarize_thread_of, processor=processor)
    if metrics.metric_set:
        metrics.flush_metrics()
    return dict(response)


def release_expired(event_id: str | None, identity: dict[str, Any], image: dict[str, Any]) -> bool:
    """A run item TTL deleted: its `metered_bytes` off the tenant's gauge (a delete by anyone else is ignored:
    deletes by the API take the bytes off in their own transactions)."""
    if {k: identity.get(k) for k in TTL_IDENTITY} != TTL_IDENTITY or not event_id:
        return False
    sk, tenant, thread_id, metered = (
        image.get("sk"),
        image.get("tenant"),
        image.get("thread_id"),
        image.get("metered_bytes"),
    )
    if not (isinstance(sk, str) and sk.startswith("RUN#") and isinstance(tenant, str) and isinstance(thread_id, str)):
        return False
    if metered is None or int(metered) <= 0:
        return False  # not metered, or stored before runs carried their bytes (ADR 0021): nothing to take off
    return release_expired_run(default_service(), tenant, thread_id, event_id, int(metered))


def _no_routes(app: APIGatewayHttpResolver) -> None:
    return None


def direct(tenant: str, event: dict[str, Any]) -> dict[str, Any]:
    if "thread_id" not in event:
        raise InvalidInput('a direct invocation must name its "thread_id"')
    return summarize(tenant, event["thread_id"])


_direct_handler = make_handler(_no_routes, direct)


def _prime() -> None:
    prime_conversation()
    observability()  # built when a record is first summarized otherwise (api_common.entry)


_snapstart = register_snapstart(_prime)  # on a SnapStart init only (docs/adr/0040)


def lambda_handler(event: dict[str, Any], context: Any) -> Any:
    if isinstance(event, dict) and isinstance(event.get("Records"), list):
        with invocation_deadline(context, http=False):
            return handle_stream(event)
    return _direct_handler(event, context)
