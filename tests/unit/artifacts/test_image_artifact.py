"""Ported from Griptape's tests/unit/artifacts/test_image_artifact.py (contract §9)."""

import re

from offprompt.artifacts import BaseArtifact, ImageArtifact

DATA = b"some binary png image data"


def image(**kwargs):
    return ImageArtifact(DATA, format="png", width=512, height=512, **kwargs)


def test_to_text():
    assert image().to_text() == "Image, format: png, size: 26 bytes"


def test_to_dict():
    data = image(meta={"model": "m"}).to_dict()
    assert (data["format"], data["width"], data["height"]) == ("png", 512, 512)
    assert data["meta"] == {"model": "m"}
    assert data["value"] == "c29tZSBiaW5hcnkgcG5nIGltYWdlIGRhdGE="


def test_round_trip():
    artifact = image(name="a.png")
    again = BaseArtifact.from_dict(artifact.to_dict())
    assert isinstance(again, ImageArtifact)
    assert again.to_text() == artifact.to_text()
    assert (again.value, again.name, again.width, again.height) == (DATA, "a.png", 512, 512)


def test_mime_type():
    assert image().mime_type == "image/png"


def test_generated_name():
    name = image().name
    assert re.fullmatch(r"image_artifact_\d{12}_[a-z0-9]{4}\.png", name)


def test_generated_name_is_stable_across_loads():
    # ADR 0001: a stored name is never regenerated.
    artifact = image()
    assert BaseArtifact.from_json(artifact.to_json()).name == artifact.name
