"""The one translation of a failed AWS call into the library's errors (adapters/aws_errors.py, docs/adr/0058)."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError, ReadTimeoutError

from offprompt.adapters.aws_errors import CONDITION_FAILED, aws_call, aws_call_allowing
from offprompt.errors import DependencyUnavailable, NotFound


def client_error(code: str) -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": "internal detail"}}, "PutItem")


def test_a_client_error_is_dependency_unavailable_naming_the_call_and_its_code() -> None:
    with pytest.raises(DependencyUnavailable) as caught, aws_call("DynamoDB put_item"):
        raise client_error("ProvisionedThroughputExceededException")
    assert str(caught.value) == "DynamoDB put_item failed: ProvisionedThroughputExceededException"
    assert isinstance(caught.value.__cause__, ClientError)


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (EndpointConnectionError(endpoint_url="http://localhost:1"), "EndpointConnectionError"),
        (ReadTimeoutError(endpoint_url="http://localhost:1"), "ReadTimeoutError"),
    ],
)
def test_a_botocore_failure_is_dependency_unavailable_naming_its_class(error: Exception, reason: str) -> None:
    with pytest.raises(DependencyUnavailable, match=f"^S3 get failed: {reason}$"), aws_call("S3 get"):
        raise error


def test_an_allowed_code_is_kept_for_the_caller_and_nothing_raised() -> None:
    with aws_call_allowing("DynamoDB put_item", CONDITION_FAILED) as call:
        raise client_error(CONDITION_FAILED)
    assert call.refused == CONDITION_FAILED
    assert call.error is not None and call.error.response["Error"]["Code"] == CONDITION_FAILED


def test_an_allowed_code_does_not_allow_the_others() -> None:
    with (
        pytest.raises(DependencyUnavailable, match="InternalServerError"),
        aws_call_allowing("DynamoDB delete_item", CONDITION_FAILED, "NoSuchKey"),
    ):
        raise client_error("InternalServerError")


def test_a_call_that_succeeds_refuses_nothing() -> None:
    with aws_call_allowing("DynamoDB get_item", CONDITION_FAILED) as call:
        pass
    assert call.refused is None and call.error is None


@pytest.mark.parametrize("call", [lambda: aws_call("S3 get"), lambda: aws_call_allowing("S3 get", "NoSuchKey")])
def test_other_exceptions_pass_unchanged(call: Any) -> None:
    with pytest.raises(NotFound), call():
        raise NotFound("no such artifact")
    with pytest.raises(KeyError), call():
        raise KeyError("Body")
