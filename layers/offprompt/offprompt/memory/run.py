"""Run: one turn of a conversation (input and output artifacts), in Griptape's JSON form."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from offprompt.artifacts import BaseArtifact, dumps
from offprompt.artifacts.base import check_json, new_id
from offprompt.errors import ArtifactError


class Run(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", arbitrary_types_allowed=True)

    id: str = Field(default_factory=new_id)
    meta: dict[str, Any] | None = None
    input: BaseArtifact
    output: BaseArtifact

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "Run",
            "id": self.id,
            "meta": self.meta,
            "input": self.input.to_dict(),
            "output": self.output.to_dict(),
        }

    def to_json(self) -> str:
        return dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: Any) -> Run:
        """Decode Griptape's Run JSON. `type` is optional (Run is concrete); `id` defaults to a new one."""
        if not isinstance(data, dict):
            raise ArtifactError("a run must be a JSON object")
        payload = {k: v for k, v in data.items() if k != "module_name"}
        if payload.pop("type", "Run") != "Run":
            raise ArtifactError(f'expected a Run, got "{str(data.get("type"))[:100]}"')
        if unexpected := sorted(set(payload) - {"id", "meta", "input", "output"}):
            raise ArtifactError(f"Run: unexpected key(s) {', '.join(unexpected)[:200]}")
        for key in ("input", "output"):
            if key not in payload:
                raise ArtifactError(f"Run.{key} is required")
        run_id = payload.get("id")
        if run_id is not None and not isinstance(run_id, str):
            raise ArtifactError("Run.id must be a string")
        meta = payload.get("meta")
        if meta is not None and not isinstance(meta, dict):
            raise ArtifactError("Run.meta must be an object or null")
        check_json(meta, "Run.meta")
        artifacts = {}
        for key in ("input", "output"):
            try:
                artifacts[key] = BaseArtifact.from_dict(payload[key])
            except ArtifactError as exc:
                raise ArtifactError(f"Run.{key}: {exc.message}") from None
        return cls(id=new_id() if run_id is None else run_id, meta=meta, **artifacts)

    @classmethod
    def from_json(cls, text: str | bytes) -> Run:
        try:
            return cls.from_dict(json.loads(text))
        except (ValueError, RecursionError) as exc:
            if isinstance(exc, ArtifactError):
                raise
            raise ArtifactError(f"not valid JSON: {str(exc)[:200]}") from None

    @classmethod
    def from_stored_json(cls, text: str | bytes) -> Run:
        """Decode a run this service stored (`to_json` of a validated Run): the common all-text run is rebuilt
        without re-validating what was validated on the way in; anything else goes through `from_json`."""
        data = json.loads(text)
        if isinstance(data, dict) and data.keys() == _RUN_KEYS:
            user, assistant = _stored_text(data["input"]), _stored_text(data["output"])
            if user is not None and assistant is not None and isinstance(data["id"], str):
                meta = data["meta"]
                if meta is None or isinstance(meta, dict):
                    return cls.model_construct(id=data["id"], meta=meta, input=user, output=assistant)
        return cls.from_dict(data)


_RUN_KEYS = {"type", "id", "meta", "input", "output"}
_TEXT_KEYS = {"type", "id", "reference", "meta", "name", "value"}


def _stored_text(data: Any) -> BaseArtifact | None:
    """A TextArtifact exactly as `to_dict` writes it (no reference), rebuilt without validation; else None."""
    from offprompt.artifacts import TextArtifact

    if not (isinstance(data, dict) and data.keys() == _TEXT_KEYS and data["type"] == "TextArtifact"):
        return None
    value, meta, name, artifact_id = data["value"], data["meta"], data["name"], data["id"]
    if data["reference"] is not None or not isinstance(meta, dict):
        return None
    if not (isinstance(value, str) and isinstance(name, str) and isinstance(artifact_id, str)):
        return None
    return TextArtifact.model_construct(id=artifact_id, reference=None, meta=meta, name=name, value=value)
