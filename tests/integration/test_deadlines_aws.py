"""botocore calls obey the invocation's deadline against an endpoint that accepts and never answers.

The endpoint is a listening socket nobody reads: the kernel completes the TCP handshake, botocore sends its
request and waits. Without a deadline a call waits for the client's read timeout on each of its attempts.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from offprompt.adapters.clients import aws_client, reset_clients
from offprompt.adapters.dynamodb_runs import DynamoDbRunStore
from offprompt.adapters.s3 import S3BlobStore
from offprompt.deadline import deadline_after
from offprompt.errors import DependencyTimeout

BUDGET_S = 1.0
SLACK_S = 0.75  # connection setup, signing, and the scheduler of a shared 2-core machine


@pytest.fixture
def hung_endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    monkeypatch.setenv("AWS_ENDPOINT_URL", url)
    reset_clients()
    try:
        yield url
    finally:
        listener.close()
        reset_clients()


def test_a_call_to_a_hung_endpoint_ends_at_the_deadline(hung_endpoint: str) -> None:
    client = aws_client("dynamodb")
    started = time.monotonic()
    with deadline_after(BUDGET_S), pytest.raises(DependencyTimeout) as raised:
        client.get_item(TableName="t", Key={"pk": {"S": "a"}, "sk": {"S": "b"}})
    elapsed = time.monotonic() - started
    assert BUDGET_S - 0.05 <= elapsed < BUDGET_S + SLACK_S, elapsed
    assert raised.value.code == "dependency_timeout" and raised.value.details == {"dependency": "dynamodb"}


def test_the_adapters_raise_dependency_timeout_not_unavailable(hung_endpoint: str) -> None:
    for call in (
        lambda: DynamoDbRunStore("t").get_thread("tenant", "thread"),
        lambda: S3BlobStore("bucket").get("key"),
    ):
        started = time.monotonic()
        with deadline_after(BUDGET_S), pytest.raises(DependencyTimeout):
            call()
        assert time.monotonic() - started < BUDGET_S + SLACK_S


def test_no_attempt_starts_once_the_deadline_has_passed(hung_endpoint: str) -> None:
    client = aws_client("s3")
    started = time.monotonic()
    with deadline_after(0.0), pytest.raises(DependencyTimeout):
        client.head_object(Bucket="b", Key="k")
    assert time.monotonic() - started < 0.5


def test_without_a_deadline_the_clients_read_timeout_applies(hung_endpoint: str) -> None:
    """The deadline is what ends the calls above: the client's own per-attempt timeout is longer."""
    config = aws_client("dynamodb").meta.config
    assert config.read_timeout == 10 and config.connect_timeout == 2
    assert config.retries == {"mode": "standard", "total_max_attempts": 3}
    assert aws_client("s3").meta.config.read_timeout == 30
