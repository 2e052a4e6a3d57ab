"""Lazily built, per-process cached AWS clients (one botocore Config). Nothing is built at import time.

boto3 honours AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_<SERVICE>, which is how the local stack points the same code
at moto's server.

Every client obeys the invocation's deadline (offprompt.deadline, docs/adr/0010-deadlines.md): before each
attempt (first try or retry) a `before-send` hook caps the attempt's read timeout at the time left, or refuses
the attempt with DependencyTimeout when none is left; a `needs-retry` hook turns a timeout that leaves no time
for a retry into DependencyTimeout at once instead of sleeping for a retry that would be refused.
"""

from __future__ import annotations

import functools
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import ConnectionClosedError, ConnectTimeoutError, ReadTimeoutError

from offprompt import deadline
from offprompt.errors import DependencyTimeout

_CONFIG = Config(
    # 3 attempts in all (botocore's `max_attempts` counts retries): its sleeps before a retry are then at most
    # 1 s and 2 s (deadline.RETRY_BACKOFF_S).
    retries={"mode": "standard", "total_max_attempts": 3},
    connect_timeout=2,
    read_timeout=10,
    # Path-style keeps presigned URLs working against moto's server and in every region.
    s3={"addressing_style": "path"},
)
# Per-attempt read timeouts where 10 s is not right for a healthy call (the deadline still caps them): longer for
# big objects and model answers; shorter for conversation search's optional rerank model, whose failure the search
# survives in the fused order (docs/adr/0068) and should not spend the request's time on.
_READ_TIMEOUT_S = {"s3": 30.0, "bedrock-runtime": 60.0, "bedrock-agent-runtime": 5.0}
_TIMEOUTS = (ReadTimeoutError, ConnectTimeoutError, ConnectionClosedError)


_BUILT: list[str] = []  # the services whose client aws_client has built, in order


def built_services() -> tuple[str, ...]:
    """The services whose client this process has built (SnapStart's restore closes their connections)."""
    return tuple(_BUILT)


@functools.cache
def aws_client(service: str) -> Any:
    """The process's boto3 client for `service` (dynamodb, s3, bedrock-runtime, lambda)."""
    config = _CONFIG
    if service in _READ_TIMEOUT_S:
        config = config.merge(Config(read_timeout=_READ_TIMEOUT_S[service]))
    if service == "s3":
        # Presigned S3 URLs must be SigV4 (SigV2 is refused for new buckets and KMS-encrypted objects).
        config = config.merge(Config(signature_version="s3v4"))
    client = boto3.session.Session().client(service, config=config)
    read_timeout = float(config.read_timeout)
    events = client.meta.events
    events.register_first("before-send", functools.partial(_before_send, service=service, read_timeout=read_timeout))
    events.register_first("needs-retry", functools.partial(_needs_retry, service=service))
    _BUILT.append(service)
    return client


def _before_send(request: Any, *, service: str, read_timeout: float, **_: Any) -> None:
    """Each attempt's read timeout capped by the deadline (botocore reads `read_timeout` from the request's
    context); no attempt starts without time left."""
    timeout = deadline.attempt_timeout(read_timeout, service)
    context = getattr(request, "context", None)
    if isinstance(context, dict) and timeout is not None:
        context["read_timeout"] = timeout


def _needs_retry(caught_exception: Exception | None = None, *, service: str, **_: Any) -> None:
    """A timeout (or the deadline refusing an attempt) with no time left for a retry ends the call now."""
    if isinstance(caught_exception, DependencyTimeout):
        raise caught_exception
    left = deadline.remaining()
    if isinstance(caught_exception, _TIMEOUTS) and left is not None and left < deadline.RETRY_BACKOFF_S:
        raise deadline.timed_out(service) from caught_exception
    return None


def reset_clients() -> None:
    """Forget cached clients (tests start moto before building new ones)."""
    aws_client.cache_clear()
    _BUILT.clear()
