"""offprompt.deadline: budgets from the Lambda context, capped attempt timeouts, and the 503 it maps to."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from api_common.entry import invocation_deadline, make_handler
from api_common.errors import status_for
from offprompt import deadline
from offprompt.errors import DependencyTimeout, DependencyUnavailable

MARGIN = deadline.ANSWER_MARGIN_S + deadline.RETRY_BACKOFF_S


class Context:
    def __init__(self, remaining_ms: int) -> None:
        self.remaining_ms = remaining_ms
        self.aws_request_id = "req-1"

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


@pytest.mark.parametrize(
    ("remaining_ms", "http", "budget"),
    [
        (15_000, True, 15.0 - MARGIN),  # the function's timeout binds
        (60_000, True, 30.0 - MARGIN),  # API Gateway's 30 s binds
        (60_000, False, 60.0 - MARGIN),  # direct invocations: only the function's timeout
        (None, True, 30.0 - MARGIN),
        (None, False, None),
        (1_000, True, 0.0),  # never negative: the first attempt is refused
    ],
)
def test_invocation_budget(remaining_ms: int | None, http: bool, budget: float | None) -> None:
    assert deadline.invocation_budget(remaining_ms, http=http) == budget


def test_attempt_timeout_is_capped_by_the_deadline_and_refused_past_it() -> None:
    assert deadline.attempt_timeout(30.0, "x") == 30.0  # no deadline: the usual timeout
    assert deadline.remaining() is None
    with deadline.deadline_after(5.0):
        assert 4.5 < deadline.attempt_timeout(30.0, "x") <= 5.0  # type: ignore[operator]
        assert deadline.attempt_timeout(1.0, "x") == 1.0
        assert 4.5 < deadline.attempt_timeout(None, "x") <= 5.0  # type: ignore[operator]
    with deadline.deadline_after(0.05), pytest.raises(DependencyTimeout) as raised:
        deadline.attempt_timeout(30.0, "OpenSearch")
    assert raised.value.details == {"dependency": "OpenSearch"}
    assert deadline.remaining() is None  # reset on exit


def test_bind_carries_the_deadline_into_pool_threads() -> None:
    with deadline.deadline_after(10.0), ThreadPoolExecutor(2) as pool:
        unbound = pool.submit(deadline.remaining).result()
        bound = list(pool.map(deadline.bind(lambda _: deadline.remaining()), range(4)))
    assert unbound is None
    assert all(b is not None and 9.0 < b <= 10.0 for b in bound)


def test_dependency_timeout_is_a_503_with_its_own_code() -> None:
    exc = deadline.timed_out("dynamodb")
    assert isinstance(exc, DependencyUnavailable)  # whatever handles "unavailable" handles this too
    assert status_for(exc) == 503 and exc.to_dict()["code"] == "dependency_timeout"


def test_each_invocation_gets_its_own_deadline_from_the_context() -> None:
    seen: list[Any] = []

    def direct(tenant: str, event: dict[str, Any]) -> None:
        seen.append(deadline.remaining())

    handler = make_handler(lambda app: None, direct)
    handler({"tenant": "t"}, Context(10_000))
    handler({"tenant": "t"}, None)  # no runtime clock (a local tool): direct calls have no deadline
    assert 10.0 - MARGIN - 0.5 < seen[0] <= 10.0 - MARGIN
    assert seen[1] is None
    assert deadline.remaining() is None
    with invocation_deadline(object(), http=True):
        assert 30.0 - MARGIN - 0.5 < deadline.remaining() <= 30.0 - MARGIN  # type: ignore[operator]


def test_a_direct_invocation_raises_dependency_timeout_by_class_name() -> None:
    def direct(tenant: str, event: dict[str, Any]) -> None:
        time.sleep(0.01)
        deadline.attempt_timeout(10.0, "OpenSearch")

    handler = make_handler(lambda app: None, direct)
    with pytest.raises(DependencyTimeout) as raised:
        handler({"tenant": "t"}, Context(2_000))  # 2 s left: less than the margin, so no attempt starts
    assert type(raised.value).__name__ == "DependencyTimeout"
