"""The partial batch response of a function on the table's DynamoDB stream (Powertools' `BatchProcessor`): the
records a use case could not handle, named by their `eventID`, are reported as batch item failures (by their
sequence numbers), so Lambda retries from the first of them; every record failing is still a partial response (all
reported), never an exception replaying the whole batch."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from api_common.powertools import DATA_CLASSES, complete_lazy_package


def partial_batch_response(event: dict[str, Any], failed: Collection[str], what: str) -> dict[str, Any]:
    """The batch's response: the records whose `eventID` is in `failed` reported failed (`what` says what was not
    done with them, for the log)."""
    # the batch utility imports data classes that import names from their package: its real __init__ (skipped
    # for the HTTP functions' cold starts, api_common.powertools) must have run first
    complete_lazy_package(DATA_CLASSES)
    from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
    from aws_lambda_powertools.utilities.data_classes.dynamo_db_stream_event import DynamoDBRecord

    def check(record: DynamoDBRecord) -> None:
        if record.event_id in failed:
            raise RuntimeError(f"stream record {record.event_id}: {what}")

    processor = BatchProcessor(event_type=EventType.DynamoDBStreams, raise_on_entire_batch_failure=False)
    return dict(process_partial_response(event=event, record_handler=check, processor=processor))
