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


@pytest.mark.parametrize("artifact", ARTIFACTS[:3], ids=lambda a: type(a).__name__)
def test_a_loaded_blob_is_its_artifacts_griptape_json_byte_for_byte(artifact: BaseArtifact) -> None:
    """The load splices the value's base64 into the stored envelope (ADR 0053): the same bytes as Griptape's
    `to_json()` of the artifact, and as serializing the whole envelope again."""
    import base64
    import json

    from offprompt.adapters.s3 import blob_item_json

    data = bytes(range(256)) * 3
    envelope = envelope_json(artifact)
    got = blob_item_json(envelope, data)
    assert got == dumps(json.loads(envelope) | {"value": base64.b64encode(data).decode("ascii")})
    assert got == artifact.model_copy(update={"value": data}).to_json()
    assert blob_item_json('{"type": "BlobArtifact", "value": "", "meta": {"value": ""}}', b"x") == (
        '{"type": "BlobArtifact", "value": "eA==", "meta": {"value": ""}}'
    )
