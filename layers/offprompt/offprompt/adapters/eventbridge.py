"""EventPublisher on Amazon EventBridge: PutEvents to the stack's memory-event bus (docs/adr/0036-memory-events.md).

Entries go in calls of at most 10 (PutEvents' limit) and 256 KB (its request limit, counted as EventBridge counts
an entry: Source, DetailType, Detail, EventBusName, 14 bytes for Time). An entry EventBridge refuses (a
`FailedEntryCount` entry, or the whole call failing) is sent once more; what still fails is returned, for the
stream consumer to report as batch item failures. `Source` is `offprompt`, `DetailType` the event's type, `Detail`
the event's JSON, `Time` its time.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from offprompt.events import SOURCE
from offprompt.ports import MemoryEvent

from .aws_errors import failure_reason
from .clients import aws_client

logger = logging.getLogger("offprompt.adapters.eventbridge")

#: PutEvents' limits: entries per call, bytes per call (and so per entry).
MAX_ENTRIES = 10
MAX_REQUEST_BYTES = 256 * 1024
_TIME_BYTES = 14


class EventBridgePublisher:
    def __init__(self, bus_name: str, client: Any | None = None) -> None:
        self.bus_name = bus_name
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = aws_client("events")
        return self._client

    def publish(self, events: Sequence[MemoryEvent]) -> set[str]:
        failed: set[str] = set()
        entries: list[tuple[str, dict[str, Any]]] = []
        for event in events:
            entry = self._entry(event)
            if entry_size(entry) > MAX_REQUEST_BYTES:  # never deliverable; an event holds identifiers only
                logger.error("memory event %s is larger than PutEvents accepts; reported as failed", event.id)
                failed.add(event.id)
            else:
                entries.append((event.id, entry))
        for batch in batches(entries):
            undelivered = self._put(batch)
            if undelivered:
                failed |= {event_id for event_id, _ in self._put(undelivered)}  # once more, the refused ones only
        return failed

    def _entry(self, event: MemoryEvent) -> dict[str, Any]:
        return {
            "Source": SOURCE,
            "DetailType": event.type,
            "Detail": json.dumps(event.to_dict(), separators=(",", ":"), ensure_ascii=False),
            "EventBusName": self.bus_name,
            "Time": datetime.fromisoformat(event.time.replace("Z", "+00:00")),
        }

    def _put(self, batch: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
        """One PutEvents call; the entries it did not deliver."""
        try:
            out = self.client.put_events(Entries=[entry for _, entry in batch])
        except (ClientError, BotoCoreError) as exc:
            logger.warning("PutEvents failed: %s", failure_reason(exc, default_code="ClientError"))
            return batch
        if not out.get("FailedEntryCount"):
            return []
        results = out.get("Entries") or []
        refused = [b for b, r in zip(batch, results, strict=False) if r.get("ErrorCode")]
        for result in results:
            if result.get("ErrorCode"):
                logger.warning("PutEvents refused an entry: %s", result.get("ErrorCode"))
        return refused if len(results) == len(batch) else batch


def entry_size(entry: dict[str, Any]) -> int:
    """A PutEvents entry's size as EventBridge counts it."""
    size = _TIME_BYTES
    for name in ("Source", "DetailType", "Detail", "EventBusName"):
        size += len(str(entry.get(name, "")).encode("utf-8"))
    return size


def batches(entries: list[tuple[str, dict[str, Any]]]) -> list[list[tuple[str, dict[str, Any]]]]:
    """Consecutive calls of at most MAX_ENTRIES entries and MAX_REQUEST_BYTES."""
    out: list[list[tuple[str, dict[str, Any]]]] = []
    current: list[tuple[str, dict[str, Any]]] = []
    size = 0
    for item in entries:
        item_size = entry_size(item[1])
        if current and (len(current) == MAX_ENTRIES or size + item_size > MAX_REQUEST_BYTES):
            out.append(current)
            current, size = [], 0
        current.append(item)
        size += item_size
    if current:
        out.append(current)
    return out
