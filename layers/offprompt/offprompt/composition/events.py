"""The memory events built from settings: the stream decoder and the publisher (EventBridge, or the override the
local stack installs: its JSONL sink), and the example extractor's ports (docs/adr/0036-memory-events.md)."""

from __future__ import annotations

import functools

from offprompt.config import Settings
from offprompt.ports import EventPublisher, FactExtractor
from offprompt.services.events.context import Events, Extraction

_publisher_override: EventPublisher | None = None
#: The local stack's labelled rule-based stand-in for the Bedrock extractor; Lambda never sets it.
_extractor_override: FactExtractor | None = None


def set_fact_extractor_override(extractor: FactExtractor | None) -> None:
    """The example extractor uses `extractor` instead of Bedrock (local stack only; None restores Bedrock)."""
    global _extractor_override
    _extractor_override = extractor
    default_extraction.cache_clear()


def extraction_from_settings(settings: Settings) -> Extraction:
    """The example extractor's run reads (DynamoDB, S3 for big runs) and its model (Bedrock, or the override)."""
    from offprompt.adapters.bedrock import BedrockFactExtractor
    from offprompt.adapters.dynamodb_runs import DynamoDbRunStore
    from offprompt.adapters.s3 import S3RunBodies
    from offprompt.services.conversation.context import InlineRunBodies

    bodies = S3RunBodies(settings.bucket_name) if settings.bucket_name else InlineRunBodies()
    extractor = _extractor_override or BedrockFactExtractor(settings.extraction_model_id)
    return Extraction(DynamoDbRunStore(settings.require("table_name")), bodies, extractor)


@functools.cache
def default_extraction() -> Extraction:
    """The example extractor's ports, built from the environment on first use (never at import)."""
    from offprompt.config import get_settings

    return extraction_from_settings(get_settings())


def set_publisher_override(publisher: EventPublisher | None) -> None:
    """The local stack delivers events to its sink instead of EventBridge (None restores EventBridge)."""
    global _publisher_override
    _publisher_override = publisher
    default_events.cache_clear()


def publisher_overridden() -> bool:
    """Whether the local stack's sink stands in for EventBridge (extraction publishes there too)."""
    return _publisher_override is not None


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
