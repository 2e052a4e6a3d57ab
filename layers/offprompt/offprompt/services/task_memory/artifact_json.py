"""Artifact JSON as task memory stores and returns it, byte-compatible with Griptape."""

from __future__ import annotations

from collections.abc import Sequence

from offprompt.artifacts import ListArtifact, dumps
from offprompt.artifacts.envelope import envelope_json

__all__ = ["envelope_json", "list_artifact_json"]


def list_artifact_json(items_json: Sequence[str]) -> str:
    """A fresh ListArtifact around already-serialized items (Griptape's key order and separators)."""
    shell = ListArtifact().to_dict()
    shell["value"] = "\x00ITEMS\x00"
    head, _, tail = dumps(shell).partition('"\\u0000ITEMS\\u0000"')
    # One join: a chain of `+` copies a 1 MB blob's 1.4 MB of base64 once per `+`.
    return "".join((head, "[", ", ".join(items_json), "]", tail))
