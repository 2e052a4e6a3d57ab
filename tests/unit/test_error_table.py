"""The one error table: every library error class has its status, Unauthenticated and ConfigurationError included
(they used to live outside offprompt.errors, Unauthenticated special-cased in entry.py)."""

from __future__ import annotations

import inspect

import pytest

import offprompt.errors as errors_module
from api_common.errors import STATUS_BY_ERROR, error_headers, status_for
from offprompt.config import ConfigurationError as ConfigFromConfig
from offprompt.errors import (
    ConfigurationError,
    OffpromptError,
    QuotaExceeded,
    RateLimited,
    SchemaInvalid,
    Unauthenticated,
    schema_invalid,
)


def test_every_error_class_in_offprompt_errors_is_in_the_table() -> None:
    classes = {
        c
        for _, c in inspect.getmembers(errors_module, inspect.isclass)
        if issubclass(c, OffpromptError) and c is not OffpromptError
    }
    assert classes <= set(STATUS_BY_ERROR), classes - set(STATUS_BY_ERROR)


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (Unauthenticated("x"), 401, "unauthenticated"),
        (ConfigurationError("x"), 500, "configuration_error"),
        (SchemaInvalid("x"), 422, "schema_invalid"),
        (RateLimited("x", retry_after=1), 429, "rate_limited"),
        (QuotaExceeded("x", retry_after=60), 429, "quota_exceeded"),
    ],
)
def test_statuses_and_codes(error: OffpromptError, status: int, code: str) -> None:
    assert (int(status_for(error)), error.code) == (status, code)


def test_configuration_error_is_one_class() -> None:
    assert ConfigFromConfig is ConfigurationError


def test_schema_invalid_names_the_first_problem_and_lists_loc_type_msg() -> None:
    exc = schema_invalid(
        [{"loc": ("body", "top_k"), "type": "int_type", "msg": "bad"}, {"loc": (), "type": "t", "msg": "m"}]
    )
    assert exc.message == "body.top_k: bad"
    assert exc.to_dict()["details"] == [
        {"loc": ["body", "top_k"], "type": "int_type", "msg": "bad"},
        {"loc": [], "type": "t", "msg": "m"},
    ]


def test_a_429_says_when_to_retry() -> None:
    assert error_headers(QuotaExceeded("x", retry_after=3600)) == {"Retry-After": "3600"}
    assert error_headers(RateLimited("x", retry_after=0)) == {"Retry-After": "1"}  # never 0: retry at once
    assert error_headers(Unauthenticated("x")) is None
