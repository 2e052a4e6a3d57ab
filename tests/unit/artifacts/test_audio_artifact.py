"""Ported from Griptape's tests/unit/artifacts/test_audio_artifact.py (contract §9)."""

import re

from offprompt.artifacts import AudioArtifact, BaseArtifact

DATA = b"some binary audio data"


def test_to_text():
    assert AudioArtifact(DATA, format="pcm").to_text() == "Audio, format: pcm, size: 22 bytes"


def test_to_dict():
    data = AudioArtifact(DATA, format="pcm", meta={"model": "m"}).to_dict()
    assert data["format"] == "pcm"
    assert data["meta"] == {"model": "m"}
    assert data["value"] == "c29tZSBiaW5hcnkgYXVkaW8gZGF0YQ=="
    assert list(data)[-1] == "format"


def test_round_trip():
    artifact = AudioArtifact(DATA, format="pcm", name="x.pcm")
    again = BaseArtifact.from_dict(artifact.to_dict())
    assert isinstance(again, AudioArtifact)
    assert (again.value, again.format, again.name) == (DATA, "pcm", "x.pcm")


def test_mime_type_and_name():
    artifact = AudioArtifact(DATA, format="wav")
    assert artifact.mime_type == "audio/wav"
    assert re.fullmatch(r"audio_artifact_\d{12}_[a-z0-9]{4}\.wav", artifact.name)
