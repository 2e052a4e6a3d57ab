"""functions/memory_events: the stream batch → memory events on the bus (moto's EventBridge, read back through a rule
into SQS); records whose event was not delivered are the batch item failures, nothing else is."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import boto3
import pytest
from memory_events import handler

from offprompt.adapters.clients import reset_clients
from offprompt.composition import events as composition
from offprompt.config import get_settings
from offprompt.errors import InvalidInput
from offprompt.ports import MemoryEvent

SAMPLE = json.loads((Path(__file__).resolve().parents[3] / "events" / "events_stream.json").read_text())
BUS = "offprompt-memory-events"


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("OFFPROMPT_EVENT_BUS", BUS)
    get_settings.cache_clear()
    reset_clients()
    composition.set_publisher_override(None)
    yield
    composition.set_publisher_override(None)
    get_settings.cache_clear()
    reset_clients()


def test_the_sample_batch_reaches_the_bus(moto_aws: None, fresh: None) -> None:
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.create_queue(QueueName="sink")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    bridge = boto3.client("events", region_name="us-east-1")
    bridge.create_event_bus(Name=BUS)
    bridge.put_rule(Name="all", EventBusName=BUS, EventPattern=json.dumps({"source": ["offprompt"]}))
    bridge.put_targets(Rule="all", EventBusName=BUS, Targets=[{"Id": "q", "Arn": arn}])

    assert handler.lambda_handler(copy.deepcopy(SAMPLE), None) == {"batchItemFailures": []}
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    delivered = sorted((json.loads(m["Body"]) for m in messages), key=lambda d: d["detail"]["id"])
    assert [(d["detail-type"], d["detail"]["tenant"]) for d in delivered] == [
        ("output.stored", "tenant-a"),
        ("run.added", "tenant-a"),
    ]  # the API key's record means nothing
    text = json.dumps(delivered)
    assert "my name is Ada" not in text and "ab" * 32 not in text and "9f" * 32 not in text


class Refusing:
    def __init__(self, refuse: set[str]) -> None:
        self.refuse = refuse
        self.seen: list[str] = []

    def publish(self, events: Sequence[MemoryEvent]) -> set[str]:
        self.seen.extend(e.id for e in events)
        return {e.id for e in events} & self.refuse


def test_only_undelivered_records_are_reported(fresh: None) -> None:
    publisher = Refusing({"ev-run-1"})
    composition.set_publisher_override(publisher)
    response = handler.lambda_handler(copy.deepcopy(SAMPLE), None)
    assert response == {"batchItemFailures": [{"itemIdentifier": "111"}]}
    assert publisher.seen == ["ev-run-1", "ev-batch-1"]


def test_a_record_the_decoder_cannot_read_is_reported_alone(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    composition.set_publisher_override(Refusing(set()))
    from offprompt.adapters import stream_events

    original = stream_events.memory_event

    def fragile(record: Any) -> Any:
        if record["eventID"] == "ev-batch-1":
            raise ValueError("cannot read it")
        return original(record)

    monkeypatch.setattr(stream_events, "memory_event", fragile)
    assert handler.lambda_handler(copy.deepcopy(SAMPLE), None) == {"batchItemFailures": [{"itemIdentifier": "112"}]}


def test_an_empty_batch_and_a_non_stream_event(fresh: None) -> None:
    assert handler.lambda_handler({"Records": []}, None) == {"batchItemFailures": []}
    with pytest.raises(InvalidInput):
        handler.lambda_handler({"tenant": "a"}, None)
