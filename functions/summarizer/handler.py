"""summarizer: folds old runs of summary-memory threads into the summary, off the add-run path.

Triggers:
- the table's DynamoDB stream (batch): each inserted run item names its thread; every thread in the batch is
  summarized once. A thread whose summarization fails reports its records in `batchItemFailures`, so Lambda
  retries them; nothing was changed for it (compare-and-swap commit), so no run is lost.
- a direct invocation `{"tenant", "thread_id"}` → `{"status", "through_seq", "summarized_runs"}`; errors
  are raised (DependencyUnavailable when Bedrock fails).

Use case: `offprompt.services.conversation.summarize`.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from api_common.entry import invocation_deadline, make_handler, observability
from api_common.powertools import APIGatewayHttpResolver
from offprompt.composition.conversation import default_service
from offprompt.errors import InvalidInput
from offprompt.services.conversation.summarize import summarize as summarize_thread


def summarize(tenant: str, thread_id: str) -> dict[str, Any]:
    result = summarize_thread(default_service(), tenant, thread_id)
    _, metrics = observability()
    if result.status == "committed":
        metrics.add_metric(name="SummariesCommitted", unit=MetricUnit.Count, value=1)
    elif result.status == "stale":
        metrics.add_metric(name="SummariesStale", unit=MetricUnit.Count, value=1)
    return asdict(result)


def handle_stream(event: dict[str, Any]) -> dict[str, Any]:
    logger, metrics = observability()
    threads: dict[tuple[str, str], list[str]] = {}
    for record in event.get("Records") or []:
        dynamodb = record.get("dynamodb") or {}
        image = dynamodb.get("NewImage") or {}
        sk = (image.get("sk") or {}).get("S", "")
        tenant = (image.get("tenant") or {}).get("S")
        thread_id = (image.get("thread_id") or {}).get("S")
        if record.get("eventName") != "INSERT" or not sk.startswith("RUN#") or not tenant or not thread_id:
            continue
        threads.setdefault((tenant, thread_id), []).append(str(dynamodb.get("SequenceNumber")))
    failures: list[dict[str, str]] = []
    for (tenant, thread_id), sequence_numbers in threads.items():
        try:
            summarize(tenant, thread_id)
        except Exception:
            logger.exception("summarization failed; the stream records will be retried")
            metrics.add_metric(name="SummariesFailed", unit=MetricUnit.Count, value=1)
            failures.extend({"itemIdentifier": n} for n in sequence_numbers)
    if metrics.metric_set:
        metrics.flush_metrics()
    return {"batchItemFailures": failures}


def _no_routes(app: APIGatewayHttpResolver) -> None:
    return None


def direct(tenant: str, event: dict[str, Any]) -> dict[str, Any]:
    if "thread_id" not in event:
        raise InvalidInput('a direct invocation must name its "thread_id"')
    return summarize(tenant, event["thread_id"])


_direct_handler = make_handler(_no_routes, direct)


def lambda_handler(event: dict[str, Any], context: Any) -> Any:
    if isinstance(event, dict) and isinstance(event.get("Records"), list):
        with invocation_deadline(context, http=False):
            return handle_stream(event)
    return _direct_handler(event, context)
