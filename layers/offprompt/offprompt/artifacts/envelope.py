"""An artifact's JSON envelope: what task memory keeps next to a stored value (byte-compatible with Griptape)."""

from __future__ import annotations

from offprompt.artifacts.base import BaseArtifact, dumps


def envelope_json(artifact: BaseArtifact) -> str:
    """The artifact's JSON with an empty value, keeping every other field (ids, names, meta, formats) exactly.

    A bytes or str value is emptied before serializing (a 50 MB blob was base64-encoded only to be dropped).
    """
    if isinstance(artifact.value, bytes | str):
        artifact = artifact.model_copy(update={"value": type(artifact.value)()})
    data = artifact.to_dict()
    data["value"] = ""
    return dumps(data)
