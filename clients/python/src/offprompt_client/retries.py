"""How the framework doors (offprompt_client.langgraph, .openai_agents, .strands) repeat a request: up to four
attempts, 0.2 s then doubling between them, for what the service says stored nothing (429, 503, and whatever else a
door's `retryable` names) and, for requests safe to send again, a connection error (the answer was lost: the
request may or may not have been stored)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from offprompt_client.client import OffpromptClientError, OffpromptConnectionError

ATTEMPTS = 4


def busy(error: OffpromptClientError) -> bool:
    """429 and 503: the service refused before storing anything."""
    return error.status in (429, 503)


def with_retries(
    call: Callable[[], Any],
    *,
    resend: bool = True,
    retryable: Callable[[OffpromptClientError], bool] = busy,
) -> Any:
    """`call()`, repeated as the module docstring says; `resend`: a lost answer may be sent again."""
    for attempt in range(ATTEMPTS):
        try:
            return call()
        except OffpromptConnectionError:
            if not resend or attempt == ATTEMPTS - 1:
                raise
        except OffpromptClientError as error:
            if not retryable(error) or attempt == ATTEMPTS - 1:
                raise
        time.sleep(0.2 * 2**attempt)
    raise AssertionError("unreachable")
