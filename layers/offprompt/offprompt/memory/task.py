"""Task memory's pure rules (Griptape 1.13 `TaskMemory.process_output`), with no I/O.

- Which storage an artifact goes to: Text → text storage; Blob/Image/Audio → blob storage; a ListArtifact
  element-wise, decided by its first item; everything else (Info, Error, Json, Boolean, Generic, Model, the
  Url kinds, Action) has no storage and is handed back unchanged.
- The answer: the exact `memory/tool.j2` line, "tool output is empty", or the conflict ErrorArtifact.
- `actions_to_json`: Griptape's `ActionsSubtask.actions_to_json()`.

Unlike Griptape, a list that mixes storages (or holds unstorable kinds) is refused as a whole before anything
is stored (Griptape stores the leading items, then raises).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from offprompt.artifacts import BaseArtifact, BlobArtifact, ErrorArtifact, InfoArtifact, ListArtifact, TextArtifact
from offprompt.artifacts.action import ToolAction
from offprompt.errors import InvalidInput

EMPTY_OUTPUT = "tool output is empty"
STORE_ERROR = "error storing tool output in memory"
DEFAULT_MEMORY_NAME = "TaskMemory"


class StorageKind(StrEnum):
    TEXT = "text"
    BLOB = "blob"


class MixedListError(InvalidInput):
    """A ListArtifact whose items do not all go to the storage its first item selects."""

    code = "mixed_list"


def storage_for(artifact: BaseArtifact) -> StorageKind | None:
    """Griptape's `get_storage_for`: the storage an artifact (a list: its first item) goes to, or None."""
    if isinstance(artifact, ListArtifact):
        return storage_for(artifact.value[0]) if artifact.value else None
    if isinstance(artifact, TextArtifact):
        return StorageKind.TEXT
    if isinstance(artifact, BlobArtifact):  # Image and Audio are Blob subclasses
        return StorageKind.BLOB
    return None


def items_to_store(artifact: BaseArtifact, kind: StorageKind) -> list[BaseArtifact]:
    """The artifacts to store, in order (a list's items), all of the storage `kind`, or MixedListError."""
    if not isinstance(artifact, ListArtifact):
        return [artifact]
    expected = TextArtifact if kind is StorageKind.TEXT else BlobArtifact
    for index, item in enumerate(artifact.value):
        if not isinstance(item, expected):
            raise MixedListError(
                f"artifact.value[{index}] is a {item.type} but the list's first item selects {kind.value} storage "
                f"(only {expected.__name__} items can be stored with it); nothing was stored",
                details={"index": index, "type": item.type, "storage": kind.value},
            )
    return list(artifact.value)


def tool_line(tool: str, activity: str, memory_name: str, namespace: str) -> str:
    """The exact text of Griptape's `memory/tool.j2`."""
    return (
        f'Output of "{tool}.{activity}" was stored in memory with memory_name "{memory_name}" '
        f'and artifact_namespace "{namespace}"'
    )


def stored_answer(tool: str, activity: str, memory_name: str, namespace: str) -> InfoArtifact:
    return InfoArtifact(value=tool_line(tool, activity, memory_name, namespace), name=namespace)


def empty_answer() -> InfoArtifact:
    return InfoArtifact(value=EMPTY_OUTPUT)


def conflict_answer() -> ErrorArtifact:
    return ErrorArtifact(value=STORE_ERROR)


def is_empty(artifact: BaseArtifact) -> bool:
    """Griptape's `if not output_artifact`: empty list, whitespace-only text, empty bytes, ..."""
    try:
        return not bool(artifact)
    except TypeError:  # no truth value: treat as present (Griptape would raise)
        return False


def actions_to_dicts(actions: Sequence[ToolAction]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for action in actions:
        entry: dict[str, Any] = {}
        if action.tag:
            entry["tag"] = action.tag
        if action.name:
            entry["name"] = action.name
        if action.path:
            entry["path"] = action.path
        if action.input:
            entry["input"] = action.input
        out.append(entry)
    return out


def actions_to_json(actions: Sequence[ToolAction]) -> str:
    """Griptape's `ActionsSubtask.actions_to_json()` (what it keeps as the namespace's metadata)."""
    return json.dumps(actions_to_dicts(actions), indent=2)


@dataclass(frozen=True)
class Plan:
    """What to do with one tool output: answer right away (`answer`), or store `items` into `namespace`."""

    answer: BaseArtifact | None
    namespace: str | None = None
    kind: StorageKind | None = None
    items: tuple[BaseArtifact, ...] = ()


def plan(artifact: BaseArtifact) -> Plan:
    """Decide, without I/O, how `process_output` treats `artifact` (namespace validated by the caller)."""
    if is_empty(artifact):
        return Plan(answer=empty_answer())
    kind = storage_for(artifact)
    if kind is None:
        return Plan(answer=artifact)
    return Plan(answer=None, namespace=artifact.name, kind=kind, items=tuple(items_to_store(artifact, kind)))
