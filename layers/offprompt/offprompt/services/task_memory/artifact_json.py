"""Artifact JSON as task memory stores and returns it, byte-compatible with Griptape."""

from __future__ import annotations

from collections.abc import Sequence

from offprompt.artifacts import BaseArtifact, ListArtifact, dumps


def envelope_json(artifact: BaseArtifact) -> str:
    """The artifact's JSON with an empty value, keeping every other field (ids, names, meta, formats) exactly.

    A bytes or str value is emptied before serializing (a 50 MB blob was base64-encoded only to be dropped).
    """
    if isinstance(artifact.value, bytes | str):
        artifact = artifact.model_copy(update={"value": type(artifact.value)()})
    data = artifact.to_dict()
    data["value"] = ""
    return dumps(data)


def list_artifact_json(items_json: Sequence[str]) -> str:
    """A fresh ListArtifact around already-serialized items (Griptape's key order and separators)."""
    shell = ListArtifact().to_dict()
    shell["value"] = "\x00ITEMS\x00"
    head, _, tail = dumps(shell).partition('"\\u0000ITEMS\\u0000"')
    return head + "[" + ", ".join(items_json) + "]" + tail
