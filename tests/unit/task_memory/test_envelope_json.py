"""envelope_json skips encoding the value it drops, and still writes exactly the artifact's JSON with value ""."""

from __future__ import annotations

import pytest

from offprompt.artifacts import AudioArtifact, BaseArtifact, BlobArtifact, ImageArtifact, Reference, TextArtifact, dumps
from offprompt.services.task_memory import envelope_json

ARTIFACTS = [
    BlobArtifact(b"\x00\xff" * 10, name="b", meta={"k": [1, "é"]}),
    ImageArtifact(b"png", format="png", width=2, height=3),
    AudioArtifact(b"wav", format="wav", name="a"),
    TextArtifact("hello 😀", reference=Reference(title="T"), meta={"x": None}),
]


@pytest.mark.parametrize("artifact", ARTIFACTS, ids=lambda a: type(a).__name__)
def test_envelope_is_the_artifact_json_with_an_empty_value(artifact: BaseArtifact) -> None:
    expected = artifact.to_dict() | {"value": ""}
    assert envelope_json(artifact) == dumps(expected)
    assert artifact.to_dict()["value"] != ""  # the artifact itself is untouched
