"""Ported from Griptape's test_url_artifact.py, test_image_url_artifact.py, test_audio_url_artifact.py."""

import pytest

from offprompt.artifacts import AudioUrlArtifact, BaseArtifact, ImageUrlArtifact, UrlArtifact, VideoUrlArtifact
from offprompt.errors import ArtifactError

KINDS = [UrlArtifact, ImageUrlArtifact, AudioUrlArtifact, VideoUrlArtifact]


@pytest.mark.parametrize("cls", KINDS)
def test_to_text_and_round_trip(cls):
    artifact = cls("https://example.com/x")
    assert artifact.to_text() == "https://example.com/x"
    again = BaseArtifact.from_dict(artifact.to_dict())
    assert type(again) is cls
    assert again.value == "https://example.com/x"


@pytest.mark.parametrize("cls", KINDS)
def test_to_bytes_never_fetches(cls, monkeypatch):
    # ADR 0001: Griptape does an HTTP GET; we raise ArtifactError (no outbound fetches, SSRF).
    import socket

    def no_network(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "create_connection", no_network)
    with pytest.raises(ArtifactError, match="does not fetch"):
        cls("http://169.254.169.254/latest/meta-data").to_bytes()


def test_subclasses_are_distinct_types():
    assert not isinstance(BaseArtifact.from_dict({"type": "UrlArtifact", "value": "u"}), ImageUrlArtifact)
    assert isinstance(BaseArtifact.from_dict({"type": "VideoUrlArtifact", "value": "u"}), UrlArtifact)
