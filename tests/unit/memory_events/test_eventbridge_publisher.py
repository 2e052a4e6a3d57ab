"""adapters/eventbridge: memory events on moto's EventBridge, read back through a rule into an SQS queue; batches of
≤ 10 entries and ≤ 256 KB; refused entries retried once, then reported."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from offprompt.adapters.eventbridge import MAX_ENTRIES, MAX_REQUEST_BYTES, EventBridgePublisher, batches, entry_size
from offprompt.ports import MemoryEvent

BUS = "offprompt-memory-events"


def event(n: int, kind: str = "run.added") -> MemoryEvent:
    return MemoryEvent(f"e{n}", kind, "2026-12-02T16:00:00Z", "acme", {"thread_id": "t", "seq": n})


def subscribed_queue() -> tuple[Any, str]:
    sqs = boto3.client("sqs", region_name="us-east-1")
    url = sqs.create_queue(QueueName="sink")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    events = boto3.client("events", region_name="us-east-1")
    events.create_event_bus(Name=BUS)
    events.put_rule(Name="all", EventBusName=BUS, EventPattern=json.dumps({"source": ["offprompt"]}))
    events.put_targets(Rule="all", EventBusName=BUS, Targets=[{"Id": "q", "Arn": arn}])
    return sqs, url


def drain(sqs: Any, url: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    while True:
        out = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)
        if not out.get("Messages"):
            return found
        for message in out["Messages"]:
            found.append(json.loads(message["Body"]))
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])


def test_events_arrive_on_the_bus_as_eventbridge_events(moto_aws: None) -> None:
    sqs, url = subscribed_queue()
    publisher = EventBridgePublisher(BUS, boto3.client("events", region_name="us-east-1"))
    assert publisher.publish([event(n) for n in range(23)]) == set()
    delivered = drain(sqs, url)
    assert sorted(d["detail"]["id"] for d in delivered) == sorted(f"e{n}" for n in range(23))
    first = next(d for d in delivered if d["detail"]["id"] == "e0")
    assert first["source"] == "offprompt" and first["detail-type"] == "run.added"
    assert first["detail"] == event(0).to_dict()


class Recording:
    """A client that refuses chosen entries (by event id) on their first `refusals` attempts."""

    def __init__(self, refuse: dict[str, int], *, fail_calls: int = 0) -> None:
        self.refuse = dict(refuse)
        self.calls: list[list[str]] = []
        self.fail_calls = fail_calls

    def put_events(self, Entries: list[dict[str, Any]]) -> dict[str, Any]:
        ids = [json.loads(e["Detail"])["id"] for e in Entries]
        self.calls.append(ids)
        if self.fail_calls:
            from botocore.exceptions import EndpointConnectionError

            self.fail_calls -= 1
            raise EndpointConnectionError(endpoint_url="https://events")
        results = []
        for event_id in ids:
            if self.refuse.get(event_id, 0) > 0:
                self.refuse[event_id] -= 1
                results.append({"ErrorCode": "InternalFailure", "ErrorMessage": "try again"})
            else:
                results.append({"EventId": "x"})
        return {"FailedEntryCount": sum("ErrorCode" in r for r in results), "Entries": results}


def test_refused_entries_are_sent_once_more_then_reported() -> None:
    client = Recording({"e3": 1, "e5": 2})
    failed = EventBridgePublisher(BUS, client).publish([event(n) for n in range(12)])
    assert failed == {"e5"}  # e3 went through on its second try; e5 was refused twice
    assert client.calls == [[f"e{n}" for n in range(10)], ["e3", "e5"], ["e10", "e11"]]


def test_a_failed_call_is_retried_once_then_every_entry_of_it_is_reported() -> None:
    assert EventBridgePublisher(BUS, Recording({}, fail_calls=1)).publish([event(1)]) == set()
    assert EventBridgePublisher(BUS, Recording({}, fail_calls=2)).publish([event(1), event(2)]) == {"e1", "e2"}


def test_batches_keep_to_ten_entries_and_256_kb() -> None:
    entry = {"Source": "offprompt", "DetailType": "x", "Detail": "d" * 100_000, "EventBusName": BUS}
    groups = batches([(str(n), entry) for n in range(7)])
    assert [len(g) for g in groups] == [2, 2, 2, 1]
    assert all(sum(entry_size(e) for _, e in g) <= MAX_REQUEST_BYTES for g in groups)
    small = {"Source": "offprompt", "DetailType": "x", "Detail": "{}", "EventBusName": BUS}
    assert [len(g) for g in batches([(str(n), small) for n in range(25)])] == [MAX_ENTRIES, MAX_ENTRIES, 5]


def test_an_entry_over_the_limit_is_reported_without_a_call() -> None:
    client = Recording({})
    huge = MemoryEvent("big", "run.added", "2026-12-02T16:00:00Z", "acme", {"x": "y" * MAX_REQUEST_BYTES})
    assert EventBridgePublisher(BUS, client).publish([huge, event(1)]) == {"big"}
    assert client.calls == [["e1"]]


@pytest.mark.parametrize("kind", ["run.added", "record.put"])
def test_detail_type_is_the_event_type(kind: str) -> None:
    client = Recording({})
    captured: list[dict[str, Any]] = []
    original = client.put_events

    def spy(Entries: list[dict[str, Any]]) -> dict[str, Any]:
        captured.extend(Entries)
        return original(Entries=Entries)

    client.put_events = spy  # type: ignore[method-assign]
    EventBridgePublisher(BUS, client).publish([event(1, kind)])
    assert captured[0]["DetailType"] == kind and captured[0]["Source"] == "offprompt"
    assert captured[0]["EventBusName"] == BUS
