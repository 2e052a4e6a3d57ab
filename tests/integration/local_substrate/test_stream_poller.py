"""The stack's stream poller (Lambda's event source mapping, locally) against the substrate: every record delivered
once and in order; an idle poller waits for the substrate's word that the table was written instead of asking an
empty stream five times a second; the shard list is not described again on every read."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from offprompt_local.memory_events import StreamPoller
from offprompt_local.resources import create_table

from .conftest import TABLE, Server, reset_moto, start_server

pytestmark = pytest.mark.usefixtures("aws_credentials")


class Counting:
    """A DynamoDB Streams client that counts the calls it passes on."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.client, name)

        def call(**kwargs: Any) -> Any:
            self.calls.append(name)
            return method(**kwargs)

        return call


class Received:
    def __init__(self) -> None:
        self.keys: list[str] = []
        self.changed = threading.Condition()

    def __call__(self, event: dict[str, Any], _context: Any) -> dict[str, Any]:
        with self.changed:
            self.keys += [r["dynamodb"]["Keys"]["sk"]["S"] for r in event["Records"]]
            self.changed.notify_all()
        return {"batchItemFailures": []}

    def wait_for(self, count: int, timeout: float) -> list[str]:
        with self.changed:
            self.changed.wait_for(lambda: len(self.keys) >= count, timeout=timeout)
            return list(self.keys)


@pytest.fixture
def substrate() -> Iterator[Server]:
    reset_moto()
    server = start_server("substrate")
    try:
        create_table(server.dynamodb(), TABLE)
        yield server
    finally:
        server.stop()
        reset_moto()


def _put(server: Server, n: int) -> None:
    server.dynamodb().put_item(TableName=TABLE, Item={"pk": {"S": "p"}, "sk": {"S": f"s{n:03d}"}})


def test_a_nudged_poller_delivers_every_write_once_in_order_and_idles_between(substrate: Server) -> None:
    streams, received = Counting(substrate.streams()), Received()
    # An idle wait far longer than the test: only the nudges can explain a delivery.
    poller = StreamPoller(substrate.dynamodb(), streams, TABLE, received, idle_interval=600, log=lambda _: None)
    substrate.handle.on_write(poller.nudge)
    _put(substrate, 0)
    poller.start()
    try:
        assert received.wait_for(1, timeout=30) == ["s000"]
        time.sleep(2.5)  # past IDLE_AFTER_S: the poller is idle now
        before = len(streams.calls)
        time.sleep(1.0)
        assert len(streams.calls) == before, "an idle poller read the stream without a write"
        for n in range(1, 6):
            _put(substrate, n)
        assert received.wait_for(6, timeout=30) == [f"s{n:03d}" for n in range(6)]
        substrate.dynamodb().get_item(TableName=TABLE, Key={"pk": {"S": "p"}, "sk": {"S": "s000"}})
        time.sleep(0.5)
        assert received.keys == [f"s{n:03d}" for n in range(6)]  # a read nudged nothing new in
    finally:
        poller.stop()


def test_a_busy_poller_does_not_describe_the_stream_on_every_read(substrate: Server) -> None:
    streams, received = Counting(substrate.streams()), Received()
    poller = StreamPoller(substrate.dynamodb(), streams, TABLE, received, interval=0.01, log=lambda _: None)
    poller.start()
    try:
        for n in range(20):
            _put(substrate, n)
            received.wait_for(n + 1, timeout=30)
        assert received.keys == [f"s{n:03d}" for n in range(20)]
    finally:
        poller.stop()
    reads, describes = streams.calls.count("get_records"), streams.calls.count("describe_stream")
    assert reads >= 20 and describes <= 1 + reads // 100, streams.calls
