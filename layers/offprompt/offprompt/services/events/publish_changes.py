"""Use case: publish the memory events a batch of the table's changes means (docs/adr/0036-memory-events.md).
Handler: functions/memory_events (the table's DynamoDB stream).

Each stream record means zero or one event (`ChangeDecoder`); the events go to the publisher in one call (the
adapter batches them), and what comes back is which records failed: a record whose event was not delivered, or
that could not be read. The stream consumer reports exactly those, so Lambda retries them (a retry may deliver an
event twice: its `id` is the stream record's, for the consumer to dedupe on).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from offprompt.ports import MemoryEvent
from offprompt.services.events.context import Events

logger = logging.getLogger("offprompt.services.events.publish_changes")


@dataclass
class Published:
    published: list[MemoryEvent] = field(default_factory=list)
    #: Records that mean no event.
    skipped: int = 0
    #: `eventID`s of the records to retry.
    failed: set[str] = field(default_factory=set)


def publish_changes(ctx: Events, records: Sequence[Mapping[str, object]]) -> Published:
    result = Published()
    pending: list[MemoryEvent] = []
    for record in records:
        try:
            event = ctx.decoder.event_of(record)
        except Exception:  # a record the decoder cannot read: reported alone, never the batch
            logger.exception("a stream record could not be read")
            result.failed.add(str(record.get("eventID")))
            continue
        if event is None:
            result.skipped += 1
        else:
            pending.append(event)
    if pending:
        undelivered = ctx.publisher.publish(pending)
        result.failed |= undelivered
        result.published = [e for e in pending if e.id not in undelivered]
    return result
