"""Ported from Griptape's tests/unit/artifacts/test_blob_artifact.py (contract §9)."""

import base64

import pytest
from griptape import artifacts as ga

from offprompt.artifacts import BaseArtifact, BlobArtifact


def test_value_type_conversion():
    assert BlobArtifact(1).value == b"1" == ga.BlobArtifact(1).value


def test_to_text_and_bytes():
    assert BlobArtifact(b"foobar", name="foobar.txt").to_text() == "foobar"
    assert BlobArtifact(b"foobar").to_bytes() == b"foobar"


def test_to_text_encoding():
    data = "ß".encode("ascii", errors="backslashreplace")
    assert BlobArtifact(data, encoding="ascii").to_text() == "\\xdf"


def test_to_text_encoding_error():
    with pytest.raises(ValueError):
        BlobArtifact("ß".encode(), encoding="ascii").to_text()


def test_to_text_encoding_error_handler():
    assert BlobArtifact("ß".encode(), encoding="ascii", encoding_error_handler="replace").to_text() == "��"


def test_to_dict():
    data = BlobArtifact(b"foobar", name="foobar.txt").to_dict()
    assert data["name"] == "foobar.txt"
    assert base64.b64decode(data["value"]) == b"foobar"
    assert data["value"] == "Zm9vYmFy"


def test_from_dict_round_trip():
    artifact = BlobArtifact(b"foobar", name="foobar.txt")
    again = BaseArtifact.from_dict(artifact.to_dict())
    assert isinstance(again, BlobArtifact)
    assert (again.name, again.value) == ("foobar.txt", b"foobar")


def test_mime_type_and_base64():
    assert BlobArtifact(b"x").mime_type == "application/octet-stream"
    assert BlobArtifact(b"\x00\xff").base64 == "AP8="


def test_add_fails():
    with pytest.raises(TypeError):
        BlobArtifact(b"a") + BlobArtifact(b"b")


def test_bool_and_len():
    assert not bool(BlobArtifact(b""))
    assert bool(BlobArtifact(b"foo"))
    assert len(BlobArtifact(b"foo")) == 3
