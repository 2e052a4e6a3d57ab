"""Meta memory entries (Griptape 1.13 `ActionSubtaskMetaEntry`): `{thought, actions, answer}`, no `type` key."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from offprompt.errors import InvalidInput


@dataclass(frozen=True)
class ActionSubtaskMetaEntry:
    actions: str
    answer: str
    thought: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Griptape's form: key order thought, actions, answer; the `type` field is not serialized."""
        return {"thought": self.thought, "actions": self.actions, "answer": self.answer}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: Any) -> ActionSubtaskMetaEntry:
        if not isinstance(data, dict):
            raise InvalidInput("a meta entry must be a JSON object")
        thought, actions, answer = data.get("thought"), data.get("actions"), data.get("answer")
        if thought is not None and not isinstance(thought, str):
            raise InvalidInput("meta entry thought must be a string or null")
        if not isinstance(actions, str) or not isinstance(answer, str):
            raise InvalidInput("meta entry actions and answer must be strings")
        return cls(thought=thought, actions=actions, answer=answer)
