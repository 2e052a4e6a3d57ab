"""Extraction strategies (docs/adr/0051-extraction-strategies.md): the pure rules, no I/O.

- a strategy: `{type, namespace, trigger: {after_runs, idle_seconds}, instructions?, enabled}`; its namespace is a
  template of `/`-separated labels whose variables are `{actor_id}`, `{thread_id}`, `{strategy}`;
- when a thread's pending runs are due (`due_in`): at least `after_runs` of them, the newest `idle_seconds` old;
- the prompt per strategy type (the same answer contract for every type) and the answer's validation
  (`parse_operations`: `{"operations": [{"op", "key", "text", "source_run_ids"}]}`, anything else refused whole).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from offprompt.errors import InvalidInput
from offprompt.identifiers import check_identifier
from offprompt.memory.records import MAX_LABELS, check_label

STRATEGY_TYPES = ("facts", "preferences", "summary", "custom")
VARIABLES = ("actor_id", "thread_id", "strategy")
#: Strategies one tenant may keep.
MAX_STRATEGIES = 20
#: Characters of a strategy's instructions.
MAX_INSTRUCTIONS_CHARS = 4_000
#: The longest wait a trigger may ask for (a day).
MAX_IDLE_SECONDS = 86_400
MAX_AFTER_RUNS = 1_000
#: Runs one extraction reads at most (the rest are the next extraction's).
MAX_RUNS_PER_EXTRACTION = 50
#: Characters of one run's text in a prompt, and of what the namespace already holds.
MAX_RUN_CHARS = 4_000
MAX_EXISTING = 50
#: Operations one answer may hold, and characters of one fact's text.
MAX_OPERATIONS = 100
MAX_FACT_CHARS = 2_000

_VARIABLE = re.compile(r"\{([^{}]*)\}")


@dataclass(frozen=True)
class Strategy:
    name: str
    type: Literal["facts", "preferences", "summary", "custom"]
    namespace: str
    after_runs: int = 1
    idle_seconds: int = 0
    instructions: str | None = None
    enabled: bool = True
    created_at: str | None = None
    updated_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "namespace": self.namespace,
            "trigger": {"after_runs": self.after_runs, "idle_seconds": self.idle_seconds},
            "instructions": self.instructions,
            "enabled": self.enabled,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }

    def needs(self, variable: str) -> bool:
        return "{" + variable + "}" in self.namespace


def strategy_of(stored: Mapping[str, Any]) -> Strategy:
    """A stored strategy (the API's shape) as a Strategy."""
    trigger = stored.get("trigger") or {}
    return Strategy(
        name=stored["name"],
        type=stored["type"],
        namespace=stored["namespace"],
        after_runs=int(trigger.get("after_runs", 1)),
        idle_seconds=int(trigger.get("idle_seconds", 0)),
        instructions=stored.get("instructions"),
        enabled=bool(stored.get("enabled", True)),
        created_at=stored.get("created_at"),
        updated_at=stored.get("updated_at"),
    )


def check_strategy_name(name: object) -> str:
    label = check_label(name, "strategy name")
    return label


def check_template(template: str) -> str:
    """A namespace template: 1 to 8 `/`-separated labels; a label is literal text with `{variable}`s (only those of
    VARIABLES); the literal parts follow the label rules (no "."). InvalidInput otherwise."""
    labels = template.split("/")
    if not template or len(labels) > MAX_LABELS:
        raise InvalidInput(f"namespace must have 1 to {MAX_LABELS} labels separated by '/'")
    for label in labels:
        for name in _VARIABLE.findall(label):
            if name not in VARIABLES:
                raise InvalidInput(f"namespace has an unknown variable {{{name}}} (known: {', '.join(VARIABLES)})")
        literal = _VARIABLE.sub("x", label)
        if "{" in literal or "}" in literal:
            raise InvalidInput("namespace has an unbalanced '{' or '}'")
        check_label(literal, "namespace label")
    return template


def check_instructions(strategy_type: str, instructions: str | None) -> None:
    if strategy_type == "custom" and not (instructions and instructions.strip()):
        raise InvalidInput('a "custom" strategy needs "instructions"')


class Unresolved(Exception):
    """The namespace needs a variable the thread does not have (its `actor_id`)."""

    def __init__(self, variable: str) -> None:
        super().__init__(f"the namespace needs {{{variable}}} and the thread has no {variable} (PUT /threads/{{id}})")
        self.variable = variable


def render_namespace(strategy: Strategy, values: Mapping[str, str | None]) -> tuple[str, ...]:
    """The template's labels with the variables filled in: Unresolved when one is missing, InvalidInput when a value
    makes a label that cannot be one (a thread id holding ".")."""

    def fill(match: re.Match[str]) -> str:
        value = values.get(match.group(1))
        if not value:
            raise Unresolved(match.group(1))
        return value

    labels = tuple(_VARIABLE.sub(fill, label) for label in strategy.namespace.split("/"))
    for label in labels:
        check_label(label)
    return labels


def due_in(pending: int, newest_age_seconds: float, strategy: Strategy) -> float | None:
    """0 when the pending runs are due now; the seconds left when only the idle time is missing; None when more runs
    are needed (the next run's event asks again)."""
    if pending < strategy.after_runs or pending <= 0:
        return None
    left = strategy.idle_seconds - newest_age_seconds
    return max(0.0, left)


# ---- the prompt -------------------------------------------------------------------------------------------------
_TASKS = {
    "facts": "Extract durable facts about the user and their world (who they are, what they do, where they live, "
    "what they own, decisions made). One fact per operation, stated as a short sentence.",
    "preferences": "Extract the user's stable preferences (likes, dislikes, how they want things done). One "
    "preference per operation, stated as a short sentence.",
    "summary": 'Keep one running summary of the conversation under the key "summary": update it (or add it if '
    "missing) so it covers what is known so far, in at most 10 sentences.",
    "custom": "Follow the instructions below.",
}

_CONTRACT = (
    'Answer with JSON only: {"operations": [{"op": "add"|"update"|"delete"|"noop", "key": str, '
    '"text": str, "source_run_ids": [str]}]}. Consolidate with what is already known: "add" only what is new '
    '(key: a short snake_case name of the subject, e.g. "home_city"); "update" an existing key whose fact changed; '
    '"delete" an existing key the conversation says is no longer true; "noop" when the fact is already known. '
    "Never add a fact that is already known under another key. Skip small talk, questions and anything not durable. "
    "source_run_ids: the ids of the runs the fact comes from."
)


@dataclass(frozen=True)
class Turn:
    run_id: str
    seq: int
    text: str


@dataclass(frozen=True)
class Known:
    key: str
    text: str


def turn_text(run: Any) -> str:
    """A run's text as the model reads it: a Griptape run's user input and answer; a framework session's item (its
    role and its content's text); nothing for anything else."""
    if not isinstance(run, dict):
        return ""
    if "input" in run or "output" in run:
        said = [("User", artifact_text(run.get("input"))), ("Assistant", artifact_text(run.get("output")))]
        return "\n".join(f"{who}: {text}" for who, text in said if text.strip())
    role = run.get("role") or run.get("type") or "item"
    text = _content_text(run.get("content"))
    return f"{str(role).capitalize()}: {text}" if text.strip() else ""


def artifact_text(artifact: Any) -> str:
    """A Griptape artifact's text: a text's value, a list's texts joined; other kinds have none."""
    if not isinstance(artifact, dict):
        return ""
    value = artifact.get("value")
    if isinstance(value, str) and artifact.get("type") in ("TextArtifact", "GenericArtifact", None):
        return value
    if isinstance(value, list):
        return "\n".join(artifact_text(v) for v in value)
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_content_text(part) for part in content)
    if isinstance(content, dict):
        return str(content.get("text") or content.get("value") or "")
    return ""


def build_prompt(strategy: Strategy, turns: Sequence[Turn], known: Sequence[Known]) -> tuple[str, str]:
    """(system, user) for the model: the task of the strategy's type, its instructions, the answer contract; the
    records the namespace holds, then the new runs."""
    system = "You maintain an agent's long-term memory. " + _TASKS[strategy.type]
    if strategy.instructions:
        system += "\nInstructions: " + strategy.instructions
    system += "\n" + _CONTRACT
    known_lines = [f"- {k.key}: {k.text[:MAX_FACT_CHARS]}" for k in known] or ["(nothing yet)"]
    turn_lines = [f"[run {t.run_id}] {t.text[:MAX_RUN_CHARS]}" for t in turns]
    user = "Already known:\n" + "\n".join(known_lines) + "\n\nNew conversation:\n" + "\n".join(turn_lines)
    return system, user


# ---- the answer ---------------------------------------------------------------------------------------------------
class Operation(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    op: Literal["add", "update", "delete", "noop"]
    key: str = Field(min_length=1, max_length=256)
    text: str = Field(default="", max_length=MAX_FACT_CHARS)
    source_run_ids: list[str] = Field(default_factory=list, max_length=MAX_RUNS_PER_EXTRACTION)


class Operations(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)

    operations: list[Operation] = Field(max_length=MAX_OPERATIONS)


class MalformedAnswer(Exception):
    """The model's answer is not the operations contract: nothing of it is written."""


#: The JSON schema sent as structured output (`response_format`, name `memory_operations`).
OPERATIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["operations"],
    "properties": {
        "operations": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["op", "key", "text", "source_run_ids"],
                "properties": {
                    "op": {"type": "string", "enum": ["add", "update", "delete", "noop"]},
                    "key": {"type": "string"},
                    "text": {"type": "string"},
                    "source_run_ids": {"type": "array", "items": {"type": "string"}},
                },
            },
        }
    },
}


def parse_operations(text: str) -> list[Operation]:
    """The answer's operations (a fenced ```json block is unwrapped), else MalformedAnswer; a key that is no
    identifier makes the whole answer malformed (the model must say what it means)."""
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    try:
        parsed = Operations.model_validate(json.loads(body))
    except (ValueError, ValidationError) as exc:
        raise MalformedAnswer(f"the model's answer is not the operations contract: {str(exc)[:300]}") from None
    for operation in parsed.operations:
        try:
            check_identifier("key", operation.key)
        except InvalidInput as exc:
            raise MalformedAnswer(f"the model's answer has an unusable key: {exc.message}") from None
        if operation.op in ("add", "update") and not operation.text.strip():
            raise MalformedAnswer(f'the model\'s answer has an empty text for "{operation.key[:100]}"')
    return parsed.operations
