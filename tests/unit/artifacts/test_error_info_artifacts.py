"""Ported from Griptape's tests/unit/artifacts/test_error_artifact.py and test_info_artifact.py (contract §9)."""

from offprompt.artifacts import BaseArtifact, ErrorArtifact, InfoArtifact


def test_value_type_conversion():
    assert ErrorArtifact(1).value == "1"
    assert InfoArtifact(1).value == "1"


def test_to_text_and_dict():
    assert ErrorArtifact("foobar").to_text() == "foobar"
    assert InfoArtifact("foobar").to_text() == "foobar"
    assert ErrorArtifact("foobar").to_dict()["value"] == "foobar"
    assert InfoArtifact("foobar").to_dict()["type"] == "InfoArtifact"


def test_exception_kept_in_memory_only():
    exc = RuntimeError("boom")
    artifact = ErrorArtifact("foobar", exception=exc)
    assert artifact.exception is exc
    assert "exception" not in artifact.to_dict()
    again = BaseArtifact.from_json(artifact.to_json())
    assert isinstance(again, ErrorArtifact) and again.exception is None


def test_whitespace_is_truthy_unlike_text():
    assert bool(ErrorArtifact(" "))
    assert bool(InfoArtifact(" "))
    assert not bool(InfoArtifact(""))
