"""The searchable text of a stored run or session item (docs/adr/0048-conversation-index.md): pure, no I/O.

What the conversation index holds for each run (`ConversationDoc`): the user side and the assistant side as text, and
the run's `meta`. Every text-bearing artifact counts, in Griptape's JSON as stored:

- Text, Generic, Info, Error and the Url kinds: their value (a string);
- Json: the value flattened, one `key: value` line per scalar (keys joined by "."), list members by position;
- List: each member's text, one per line; Boolean: "true" / "false";
- Action: the tool action (tag, name, path, input, output) flattened as JSON;
- Blob, Image and Audio: no bytes, their name and type (and format), e.g. `chart.png (ImageArtifact, png)`.

A session item (OpenAI Responses item, Bedrock Converse / Strands message: docs/adr/0033) is a JSON object: its
strings are flattened the same way, less identifiers and encoded bytes (`ITEM_SKIPPED_KEYS`); an item whose role is
"user" is the user side, every other item the assistant side (a tool call, its result, the model's answer).

Text is capped at `MAX_FIELD_CHARS` per field: a document must stay well inside OpenSearch's limits whatever a run
holds, and the first 100,000 characters of a turn carry what search can rank on.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

#: The most characters a document field holds (a run's JSON is at most a few MB; its text past this is not searched).
MAX_FIELD_CHARS = 100_000
#: Binary kinds: indexed by name and type only.
BLOB_TYPES = frozenset({"BlobArtifact", "ImageArtifact", "AudioArtifact"})
#: Keys of a session item that hold identifiers, markers or encoded bytes, not text.
ITEM_SKIPPED_KEYS = frozenset(
    {
        "id",
        "type",
        "role",
        "call_id",
        "status",
        "toolUseId",
        "signature",
        "encrypted_content",
        "bytes",
        "data",
        "file_data",
        "image_url",
        "format",
    }
)


@dataclass(frozen=True)
class TurnText:
    """The text of one run or item, as the index stores it."""

    input_text: str
    output_text: str
    meta_text: str = ""

    @property
    def joined(self) -> str:
        """Both sides on one text: the next turn's `context_text`."""
        return "\n".join(t for t in (self.input_text, self.output_text) if t)


def run_text(run: Any) -> TurnText:
    """The text of a Griptape Run as JSON (`{id, meta, input, output}`)."""
    if not isinstance(run, dict):
        return TurnText("", "")
    return TurnText(
        _cap(artifact_text(run.get("input"))),
        _cap(artifact_text(run.get("output"))),
        _cap(flatten(run.get("meta"))),
    )


def item_text(item: Any) -> TurnText:
    """The text of a session item (a JSON object): its strings flattened, on the side its role says."""
    if not isinstance(item, dict):
        return TurnText("", "")
    text = _cap("\n".join(_lines(item, "", skip=ITEM_SKIPPED_KEYS, keyed=False)))
    return TurnText(text, "") if item.get("role") == "user" else TurnText("", text)


def turn_text(body: str, *, item: bool) -> TurnText:
    """The text of a stored body (a run's or an item's JSON); unreadable JSON has none."""
    try:
        data = json.loads(body)
    except ValueError:
        return TurnText("", "")
    return item_text(data) if item else run_text(data)


def artifact_text(artifact: Any) -> str:
    """The text of one Griptape artifact as JSON (see the module docstring); "" for anything else."""
    if not isinstance(artifact, dict):
        return ""
    kind = artifact.get("type")
    value = artifact.get("value")
    if kind in BLOB_TYPES:
        details = ", ".join(str(d) for d in (kind, artifact.get("format")) if isinstance(d, str) and d)
        name = artifact.get("name")
        return f"{name} ({details})" if isinstance(name, str) and name else f"({details})"
    if kind == "ListArtifact" or (kind is None and isinstance(value, list)):
        return "\n".join(t for t in (artifact_text(v) for v in value or []) if t) if isinstance(value, list) else ""
    if kind == "BooleanArtifact":
        return "true" if value is True else "false" if value is False else ""
    if kind in ("JsonArtifact", "ActionArtifact"):
        return flatten(value)
    if isinstance(value, str):
        return value
    return flatten(value)


def flatten(value: Any) -> str:
    """JSON as text: one `path: value` line per scalar (object keys joined by "."), a bare string as itself."""
    if isinstance(value, str):
        return value
    return "\n".join(_lines(value, "", skip=frozenset(), keyed=True))


def _lines(value: Any, path: str, *, skip: frozenset[str], keyed: bool) -> Iterator[str]:
    """Scalars of `value`, each as `path: text` (`keyed`) or bare text."""
    if isinstance(value, dict):
        for key, member in value.items():
            if key in skip:
                continue
            yield from _lines(member, f"{path}.{key}" if path else str(key), skip=skip, keyed=keyed)
    elif isinstance(value, list):
        for member in value:
            yield from _lines(member, path, skip=skip, keyed=keyed)
    elif value is None:
        return
    else:
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        if not text.strip():
            return
        yield f"{path}: {text}" if keyed and path else text


def _cap(text: str) -> str:
    return text[:MAX_FIELD_CHARS]
