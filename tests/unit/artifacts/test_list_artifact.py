"""Ported from Griptape's tests/unit/artifacts/test_list_artifact.py (contract §9)."""

import pytest

from offprompt.artifacts import BaseArtifact, BlobArtifact, InfoArtifact, ListArtifact, TextArtifact
from offprompt.errors import ArtifactError


def test_to_text():
    assert ListArtifact([TextArtifact("foo"), TextArtifact("bar")]).to_text() == "foo\n\nbar"
    assert ListArtifact([TextArtifact("foo"), TextArtifact("bar")], item_separator="test").to_text() == "footestbar"


def test_to_dict():
    assert ListArtifact([TextArtifact("foobar")]).to_dict()["value"][0]["value"] == "foobar"
    assert ListArtifact().to_dict()["value"] == []


def test_getitem_iter_and_generic_subscript():
    artifact = ListArtifact[TextArtifact]([TextArtifact("a"), TextArtifact("b")])
    assert artifact[1].value == "b"
    assert [a.value for a in artifact] == ["a", "b"]


def test_add():
    artifact = ListArtifact([TextArtifact("foo")]) + ListArtifact([TextArtifact("bar")])
    assert isinstance(artifact, ListArtifact)
    assert [a.value for a in artifact.value] == ["foo", "bar"]


def test_validate_uniform_types():
    with pytest.raises(ValueError, match="not the same type"):
        try:
            ListArtifact([TextArtifact("foo"), BlobArtifact(b"bar")], validate_uniform_types=True)
        except ArtifactError as exc:
            raise ValueError(exc.message) from None
    assert ListArtifact([TextArtifact("foo"), BlobArtifact(b"bar")]).has_items()


def test_child_type_and_is_type():
    assert ListArtifact([TextArtifact("foo")]).child_type is TextArtifact
    assert ListArtifact().child_type is None
    assert ListArtifact([InfoArtifact("foo")]).is_type(InfoArtifact)
    assert not ListArtifact([InfoArtifact("foo")]).is_type(TextArtifact)
    assert ListArtifact([TextArtifact("foo")]).is_type(BaseArtifact)
    assert not ListArtifact().is_type(TextArtifact)


def test_has_items_and_bool():
    assert not ListArtifact().has_items()
    assert ListArtifact([TextArtifact("foo")]).has_items()
    assert bool(ListArtifact([TextArtifact("")]))  # a list holding one empty text is True, as in Griptape
    assert not bool(ListArtifact())


def test_nested_round_trip_keeps_kinds():
    artifact = ListArtifact([ListArtifact([InfoArtifact("i"), BlobArtifact(b"\x00")]), TextArtifact("t")])
    again = BaseArtifact.from_json(artifact.to_json())
    assert isinstance(again.value[0], ListArtifact)
    assert [type(a) for a in again.value[0].value] == [InfoArtifact, BlobArtifact]
    assert again.value[0].value[1].value == b"\x00"
