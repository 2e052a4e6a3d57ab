"""Ported from Griptape's tests/unit/artifacts/test_boolean_artifact.py (contract §9)."""

import pytest
from griptape import artifacts as ga

from offprompt.artifacts import BaseArtifact, BooleanArtifact


def test_parse_bool():
    assert BooleanArtifact.parse_bool("true").value is True
    assert BooleanArtifact.parse_bool("false").value is False
    assert BooleanArtifact.parse_bool("True").value is True
    assert BooleanArtifact.parse_bool("False").value is False
    assert BooleanArtifact.parse_bool(True).value is True
    for bad in ("foo", None, 1, "yes"):
        with pytest.raises(ValueError, match="Cannot convert"):
            BooleanArtifact.parse_bool(bad)


def test_add():
    with pytest.raises(ValueError, match="Cannot add BooleanArtifact"):
        BooleanArtifact(True) + BooleanArtifact(True)


@pytest.mark.parametrize(
    ("value", "expected"), [(1, True), (0, False), (True, True), (False, False), ([1], True), ([], False)]
)
def test_value_type_conversion(value, expected):
    assert BooleanArtifact(value).value is expected is ga.BooleanArtifact(value).value


@pytest.mark.parametrize(("value", "expected"), [("true", True), ("false", False), ("FALSE", False), ("True", True)])
def test_strings_are_parsed(value, expected):
    # ADR 0001: Griptape's bool("false") is True; we parse the string.
    assert BooleanArtifact(value).value is expected


def test_wire_accepts_the_strings_griptape_writes_and_reads():
    assert BaseArtifact.from_dict({"type": "BooleanArtifact", "value": "false"}).value is False
    assert ga.BaseArtifact.from_dict({"type": "BooleanArtifact", "value": "false"}).value is False


def test_to_text_and_eq():
    assert BooleanArtifact(True).to_text() == "true"
    assert BooleanArtifact(False).to_text() == "false"
    assert BooleanArtifact(False) == False  # noqa: E712 (Griptape's __eq__ compares the value)
    assert BooleanArtifact(True) == True  # noqa: E712
    assert BooleanArtifact(True).to_bytes() == b"true"
