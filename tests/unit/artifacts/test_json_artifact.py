"""Ported from Griptape's tests/unit/artifacts/test_json_artifact.py (contract §9)."""

import json

import pytest
from griptape import artifacts as ga

from offprompt.artifacts import BaseArtifact, JsonArtifact


@pytest.mark.parametrize(
    "value", [{"foo": "bar"}, {"foo": 1}, {"foo": 1.0}, {"foo": True}, {"foo": None}, {"foo": [1, 2, 3]}, [1, 2], None]
)
def test_value_normalized_through_json(value):
    assert JsonArtifact(value).value == json.loads(json.dumps(value)) == ga.JsonArtifact(value).value


def test_tuple_becomes_list():
    assert JsonArtifact({"t": (1, 2)}).value == {"t": [1, 2]}


@pytest.mark.parametrize(
    ("raw", "parsed"), [('"foo"', "foo"), ("true", True), ("123.4", 123.4), ('{"a": 1}', {"a": 1})]
)
def test_python_construction_parses_strings(raw, parsed):
    assert JsonArtifact(raw).value == parsed == ga.JsonArtifact(raw).value


@pytest.mark.parametrize("value", [{"foo": "bar"}, [1, "x"], None, 1.5, "s", True])
def test_to_text(value):
    artifact = JsonArtifact(json.dumps(value))
    assert artifact.to_text() == json.dumps(value)


def test_to_dict_value():
    assert JsonArtifact({"foo": None}).to_dict()["value"] == {"foo": None}
    assert JsonArtifact(None).to_dict()["value"] is None


def test_wire_string_value_is_kept():
    # ADR 0001: Griptape re-parses a string on load; we keep the wire value as is, so it round-trips.
    artifact = BaseArtifact.from_dict({"type": "JsonArtifact", "value": "not json at all"})
    assert artifact.value == "not json at all"
    assert BaseArtifact.from_json(artifact.to_json()).value == "not json at all"


def test_unicode_keys_and_values_round_trip():
    artifact = JsonArtifact({"ключ 🔑": ["ü", {"ß": None}]})
    again = BaseArtifact.from_json(artifact.to_json())
    assert again.value == artifact.value
    assert ga.BaseArtifact.from_json(artifact.to_json()).value == artifact.value


def test_len_of_scalar_fails_like_griptape():
    with pytest.raises(TypeError):
        len(JsonArtifact(5))
