"""The time budget of the current invocation, read by the adapters before every dependency call.

The function layer sets an absolute deadline per invocation (`deadline_after`), derived from the Lambda
context's remaining time and, for HTTP requests, API Gateway's 30 s integration limit, minus a margin
(`invocation_budget`; docs/adr/0010-deadlines.md). The adapters ask `attempt_timeout()` for the timeout of
each attempt of a call (OpenSearch request, botocore HTTP request): the attempt's usual timeout, capped by
what is left, or `DependencyTimeout` when nothing useful is left, so neither a hung dependency nor a retry
runs past the deadline. Without a deadline (scripts, tests that set none) every call keeps its usual timeout.

The deadline lives in a context variable, so concurrent requests in one process (the local dev server) each
have their own; work handed to a thread pool carries it with `bind()`. Nothing happens at import time.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import ParamSpec, TypeVar

from offprompt.errors import DependencyTimeout

P = ParamSpec("P")
R = TypeVar("R")

#: API Gateway HTTP APIs end an integration after 30 s (a hard limit).
API_GATEWAY_LIMIT_S = 30.0
#: Kept back from the caller's limit: time to build and return the error answer, log and flush metrics.
ANSWER_MARGIN_S = 1.0
#: Kept back too: botocore's longest sleep before a retry (standard mode, 3 attempts: up to 1 s, then 2 s),
#: which an attempt that ends at the deadline may still take before the next attempt is refused.
RETRY_BACKOFF_S = 2.0
#: An attempt is not started with less than this left: it could not finish, and would only delay the answer.
MIN_ATTEMPT_S = 0.1

_DEADLINE: ContextVar[float | None] = ContextVar("offprompt_deadline", default=None)


def invocation_budget(remaining_ms: float | None, *, http: bool) -> float | None:
    """Seconds an invocation may spend on dependency calls; None when nothing bounds it."""
    limits = []
    if remaining_ms is not None:
        limits.append(remaining_ms / 1000.0)
    if http:
        limits.append(API_GATEWAY_LIMIT_S)
    if not limits:
        return None
    return max(0.0, min(limits) - ANSWER_MARGIN_S - RETRY_BACKOFF_S)


@contextlib.contextmanager
def deadline_after(seconds: float | None) -> Iterator[None]:
    """Dependency calls made inside the block end within `seconds` from now (None: no deadline)."""
    token = _DEADLINE.set(None if seconds is None else time.monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def remaining() -> float | None:
    """Seconds left until the deadline (negative once past), None without a deadline."""
    deadline = _DEADLINE.get()
    return None if deadline is None else deadline - time.monotonic()


def attempt_timeout(default: float | None, dependency: str) -> float | None:
    """The timeout of the next attempt of a call to `dependency`: `default`, capped by the deadline.

    Raises DependencyTimeout when less than MIN_ATTEMPT_S is left (so a retry never starts past the deadline).
    """
    left = remaining()
    if left is None:
        return default
    if left < MIN_ATTEMPT_S:
        raise timed_out(dependency)
    return left if default is None else min(default, left)


def timed_out(dependency: str) -> DependencyTimeout:
    return DependencyTimeout(
        f"{dependency} did not answer within this request's time budget; nothing was committed, retry later",
        details={"dependency": dependency},
    )


def bind(fn: Callable[P, R]) -> Callable[P, R]:
    """`fn` running under the caller's deadline in whichever thread calls it (thread pools)."""
    deadline = _DEADLINE.get()

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        token = _DEADLINE.set(deadline)
        try:
            return fn(*args, **kwargs)
        finally:
            _DEADLINE.reset(token)

    return run
