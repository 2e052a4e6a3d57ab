"""Ported from Griptape's tests/unit/artifacts/test_base_artifact.py (contract §9)."""

import pytest

from offprompt.artifacts import (
    BaseArtifact,
    BlobArtifact,
    ErrorArtifact,
    ImageArtifact,
    InfoArtifact,
    ListArtifact,
    TextArtifact,
)
from offprompt.errors import ArtifactError


@pytest.mark.parametrize(
    ("type_name", "cls"),
    [("TextArtifact", TextArtifact), ("ErrorArtifact", ErrorArtifact), ("InfoArtifact", InfoArtifact)],
)
def test_text_kinds_from_dict(type_name, cls):
    artifact = BaseArtifact.from_dict({"type": type_name, "value": "foobar"})
    assert type(artifact) is cls
    assert artifact.value == "foobar"


def test_list_from_dict():
    artifact = BaseArtifact.from_dict(
        {
            "type": "ListArtifact",
            "value": [
                {"type": "TextArtifact", "value": "foobar"},
                {"type": "ListArtifact", "value": [{"type": "InfoArtifact", "value": "nested"}]},
            ],
        }
    )
    assert isinstance(artifact, ListArtifact)
    assert artifact.value[0].to_text() == "foobar"
    assert isinstance(artifact.value[1].value[0], InfoArtifact)


def test_blob_from_dict_with_base64_bytes():
    artifact = BaseArtifact.from_dict({"type": "BlobArtifact", "value": b"Zm9vYmFy", "name": "foobar.txt"})
    assert isinstance(artifact, BlobArtifact)
    assert artifact.to_text() == "foobar"


def test_image_from_dict():
    artifact = BaseArtifact.from_dict(
        {"type": "ImageArtifact", "value": "aW1hZ2UgZGF0YQ==", "format": "png", "width": 256, "height": 256}
    )
    assert isinstance(artifact, ImageArtifact)
    assert artifact.to_text() == "Image, format: png, size: 10 bytes"


def test_unsupported_from_dict():
    # Griptape raises ValueError; ours is ArtifactError (ADR 0001).
    with pytest.raises(ArtifactError):
        BaseArtifact.from_dict({"type": "foo", "value": "foobar"})


def test_concrete_from_dict_without_type():
    assert TextArtifact.from_dict({"value": "x"}).value == "x"


def test_concrete_from_dict_dispatches_to_subclass():
    # ADR 0001: dispatch on type; a subclass of the class asked for is fine.
    from offprompt.artifacts import AudioArtifact

    artifact = BlobArtifact.from_dict({"type": "AudioArtifact", "value": "", "format": "wav"})
    assert isinstance(artifact, AudioArtifact)


def test_abstract_base_cannot_be_built_without_type():
    with pytest.raises(ArtifactError, match='"type" is required'):
        BaseArtifact.from_json('{"value": "x"}')


def test_str_is_to_text():
    assert str(InfoArtifact("i")) == "i"
