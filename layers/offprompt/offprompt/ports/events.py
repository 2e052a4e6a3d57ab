"""Memory events (docs/adr/0036): a table change → its event, the bus, bring-your-own extraction's model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class MemoryEvent:
    """One change of a tenant's memory, for bring-your-own extraction: identifiers and sizes, never a value.

    `id` is the change's stream record id (a consumer dedupes on it: a retried batch delivers an event again),
    `type` one of `offprompt.events.EVENT_TYPES`, `time` ISO 8601 UTC."""

    id: str
    type: str
    time: str
    tenant: str
    detail: dict[str, object]

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "type": self.type, "time": self.time, "tenant": self.tenant, "detail": self.detail}


class ChangeDecoder(Protocol):
    """A change of the table (one stream record, as Lambda delivers it) → the memory event it means, or None."""

    def event_of(self, record: Mapping[str, object]) -> MemoryEvent | None: ...


@dataclass(frozen=True)
class ExtractedFact:
    """One fact an extractor found in a conversation turn: a record key (an identifier) and its JSON value."""

    key: str
    value: dict[str, object]


class FactExtractor(Protocol):
    """Bring-your-own extraction's model: a turn's text → the facts it states (docs/adr/0036)."""

    label: str

    def extract(self, text: str) -> list[ExtractedFact]: ...


class EventPublisher(Protocol):
    def publish(self, events: Sequence[MemoryEvent]) -> set[str]:
        """Deliver `events`; returns the ids of those that could not be delivered (the adapter retried them)."""
        ...
