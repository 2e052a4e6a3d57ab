"""Ported from Griptape's tests/unit/artifacts/test_text_artifact.py (contract §9); token counts are elsewhere."""

import pytest
from griptape import artifacts as ga

from offprompt.artifacts import BaseArtifact, TextArtifact


def test_value_type_conversion():
    assert TextArtifact(1).value == "1"
    assert TextArtifact(1).value == ga.TextArtifact(1).value


def test_add():
    result = TextArtifact("foo", meta={"a": 1}) + TextArtifact("bar")
    assert isinstance(result, TextArtifact)
    assert result.value == "foobar"
    assert result.meta == {}


def test_to_dict_from_dict_and_json():
    artifact = TextArtifact("foobar")
    assert artifact.to_dict()["value"] == "foobar"
    assert BaseArtifact.from_dict(artifact.to_dict()).value == "foobar"
    assert BaseArtifact.from_json(artifact.to_json()).value == "foobar"
    assert TextArtifact.from_json(artifact.to_json()).value == "foobar"


def test_name_defaults_to_id_and_meta_to_empty():
    artifact = TextArtifact("foo")
    assert artifact.name == artifact.id
    assert artifact.meta == {}
    assert TextArtifact("foo", name="bar").name == "bar"


def test_ids_are_uuid4_hex_and_distinct():
    a, b = TextArtifact("a"), TextArtifact("a")
    assert a.id != b.id and len(a.id) == 32
    assert a != b  # equality includes the id, as in Griptape


def test_to_bytes_encoding():
    assert TextArtifact("ß", encoding="ascii", encoding_error_handler="backslashreplace").to_bytes() == b"\\xdf"
    assert TextArtifact("ß").to_bytes() == "ß".encode()


def test_to_bytes_encoding_error():
    with pytest.raises(ValueError):
        TextArtifact("ß", encoding="ascii").to_bytes()


@pytest.mark.parametrize("value", ["", " ", "\n\t", "x", " x "])
def test_whitespace_only_text_is_falsy(value):
    # ADR 0001: same as Griptape.
    assert bool(TextArtifact(value)) == bool(ga.TextArtifact(value)) == bool(value.strip())
    assert len(TextArtifact(value)) == len(value)


def test_str_is_text():
    assert str(TextArtifact("foo")) == "foo"
