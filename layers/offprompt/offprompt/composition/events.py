"""The memory events built from settings: the stream decoder and the publisher (EventBridge, or the override the
local stack installs: its JSONL sink, docs/adr/0036-memory-events.md)."""

from __future__ import annotations

import functools

from offprompt.config import Settings
from offprompt.ports import EventPublisher
from offprompt.services.events.context import Events

_publisher_override: EventPublisher | None = None


def set_publisher_override(publisher: EventPublisher | None) -> None:
    """The local stack delivers events to its sink instead of EventBridge (None restores EventBridge)."""
    global _publisher_override
    _publisher_override = publisher
    default_events.cache_clear()


def events_from_settings(settings: Settings) -> Events:
    from offprompt.adapters.stream_events import StreamEventDecoder

    if _publisher_override is not None:
        return Events(StreamEventDecoder(), _publisher_override)
    from offprompt.adapters.eventbridge import EventBridgePublisher

    return Events(StreamEventDecoder(), EventBridgePublisher(settings.require("event_bus_name")))


@functools.cache
def default_events() -> Events:
    """The process's events, built from the environment on first use (never at import)."""
    from offprompt.config import get_settings

    return events_from_settings(get_settings())
