"""conversation_index: every run and session item as a search document, off add-run's path (docs/adr/0048).

Trigger: the table's DynamoDB stream (NEW_AND_OLD_IMAGES; template.yaml's filter passes only `RUN#` items: runs and
session items, inserted, modified or removed). Each record means zero or one run change
(`offprompt.adapters.stream_runs`): a written run is indexed (its text, its context), a removed one's document
deleted, in the stream's order. Powertools' `BatchProcessor` reports the records not applied (the first failure and
every record after it) as batch item failures, so Lambda retries from the first; a batch that keeps failing goes to
the dead-letter queue. A retried record writes the same document again (ids are the run's), never a second one.

Use case: `offprompt.services.conversation_index.index_changes`.
"""

from __future__ import annotations

from typing import Any

import api_common  # noqa: F401  (first: holds the collector over the init, docs/adr/0065)

# isort: split
from aws_lambda_powertools.metrics import MetricUnit

from api_common.entry import invocation_deadline, observability
from api_common.stream_batch import partial_batch_response
from offprompt.composition.conversation_index import default_indexing
from offprompt.errors import InvalidInput
from offprompt.services.conversation_index.index_changes import index_stream_records


def handle_stream(event: dict[str, Any]) -> dict[str, Any]:
    records = event.get("Records")
    if not records:  # Powertools refuses an empty batch (UnexpectedBatchTypeError); nothing to do
        return {"batchItemFailures": []}
    logger, metrics = observability()
    outcome = index_stream_records(default_indexing(), records)
    metrics.add_metric(name="ConversationDocumentsIndexed", unit=MetricUnit.Count, value=outcome.indexed)
    metrics.add_metric(name="ConversationDocumentsDeleted", unit=MetricUnit.Count, value=outcome.deleted)
    if outcome.failed:
        logger.warning(
            "conversation index: records not applied will be retried", extra={"records": len(outcome.failed)}
        )
        metrics.add_metric(name="ConversationIndexFailed", unit=MetricUnit.Count, value=len(outcome.failed))
    response = partial_batch_response(event, set(outcome.failed), "not applied to the conversation index")
    metrics.flush_metrics()
    return response


def lambda_handler(event: dict[str, Any], context: Any) -> Any:
    if not (isinstance(event, dict) and isinstance(event.get("Records"), list)):
        raise InvalidInput("the conversation index function takes the table's DynamoDB stream records only")
    with invocation_deadline(context, http=False):
        return handle_stream(event)
