"""The one place a failed AWS call becomes the library's error (docs/adr/0058).

`aws_call` goes around an SDK call of botocore: a ClientError whose code the caller expects (a condition that
failed, a missing object) is kept for the caller to read (`refused`), any other botocore failure becomes
DependencyUnavailable("<what> failed: <AWS error code, or the exception's class>"). A request past its deadline is
DependencyTimeout already (raised by the clients' retry handler, `adapters/clients.py`); opensearch-py's errors are
translated by `opensearch_query.translate`.

    with aws_call_allowing("DynamoDB put_item", CONDITION_FAILED) as call:
        client.put_item(**params)
    if call.refused:
        return False
"""

from __future__ import annotations

from types import TracebackType

from botocore.exceptions import BotoCoreError, ClientError

from offprompt.errors import DependencyUnavailable

#: DynamoDB's code for a write whose condition expression was false (nothing written).
CONDITION_FAILED = "ConditionalCheckFailedException"


def error_code(exc: ClientError, default: str = "") -> str:
    """The AWS error code of a ClientError (`default` when the response carries none)."""
    return str(exc.response.get("Error", {}).get("Code", default))


def failure_reason(exc: Exception, *, default_code: str = "") -> str:
    """A ClientError's AWS error code; for any other exception (BotoCoreError), its class name."""
    return error_code(exc, default_code) if isinstance(exc, ClientError) else type(exc).__name__


def _translated(what: str, exc: BaseException | None) -> None:
    if isinstance(exc, ClientError | BotoCoreError):
        raise DependencyUnavailable(f"{what} failed: {failure_reason(exc, default_code='ClientError')}") from exc


class aws_call:  # lower case: a context manager used like a function (`with aws_call(...)`)
    """Around one AWS SDK call: a ClientError or BotoCoreError raised as DependencyUnavailable naming `what` and
    the reason; other exceptions (the library's own, a transaction's `Cancelled`) pass unchanged."""

    def __init__(self, what: str) -> None:
        self.what = what

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        _translated(self.what, exc)


class aws_call_allowing:  # lower case: as aws_call
    """`aws_call` that lets the caller handle some AWS error codes: a ClientError with one of `codes` is swallowed
    and its code kept in `refused` (the exception in `error`), for the caller to read after the block."""

    def __init__(self, what: str, *codes: str) -> None:
        self.what = what
        self.codes = codes
        self.refused: str | None = None
        self.error: ClientError | None = None

    def __enter__(self) -> aws_call_allowing:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> bool:
        if isinstance(exc, ClientError) and error_code(exc) in self.codes:
            self.refused, self.error = error_code(exc), exc
            return True
        _translated(self.what, exc)
        return False
