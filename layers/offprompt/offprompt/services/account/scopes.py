"""Scopes on keys and tokens: what a key may reach of its tenant (docs/keys.md, docs/adr/0055).

A key with no scope reaches its whole tenant. A scoped key reaches only what its scope names, per resource family:

- `actions`: `read` and/or `write` (a delete is a write);
- `threads.prefix`: conversation threads whose id starts with it (the exact code points: a look-alike character is
  another id); `checkpoints.prefix` the same for LangGraph checkpoint threads;
- `records.namespace_prefix`: records whose namespace starts with these labels, label by label (`["users", "u-4"]`
  does not reach `["users", "u-42"]`);
- `memories.names`: the task memories named.

A family the scope does not name is out of reach; the empty prefix (`""`, `[]`) names a whole family. Pure logic: no
I/O, one module every entry point (routes, MCP tools, the key and token use cases) decides by.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from offprompt.errors import SchemaInvalid, ScopeDenied, schema_invalid
from offprompt.limits import IDENTIFIER_MAX_CHARS, MAX_NAME_CHARS

Action = Literal["read", "write"]
Family = Literal["threads", "records", "memories", "checkpoints"]
FAMILIES: tuple[Family, ...] = ("threads", "records", "memories", "checkpoints")
#: A record namespace's labels (at most 8, as `offprompt.memory.records` allows).
_Label = Annotated[str, Field(min_length=1, max_length=IDENTIFIER_MAX_CHARS, pattern=r"^[^.]+$")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PrefixScope(_Strict):
    prefix: str = Field(max_length=IDENTIFIER_MAX_CHARS)


class RecordScope(_Strict):
    namespace_prefix: list[_Label] = Field(max_length=8)


class MemoryScope(_Strict):
    names: list[Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS)]] = Field(min_length=1, max_length=50)


class Scope(_Strict):
    """A key's or token's scope (`POST /keys` `scopes`, `POST /keys/{key_id}/tokens` `scopes`)."""

    actions: list[Action] = Field(min_length=1, max_length=2)
    threads: PrefixScope | None = None
    records: RecordScope | None = None
    memories: MemoryScope | None = None
    checkpoints: PrefixScope | None = None

    # ---- deciding ------------------------------------------------------------------------------------------------
    def can(self, action: Action) -> bool:
        return action in self.actions

    def whole(self, family: Family) -> bool:
        """Whether the scope reaches every resource of `family` (the empty prefix)."""
        if family == "memories":
            return False
        reach = getattr(self, family)
        if reach is None:
            return False
        return not (reach.namespace_prefix if family == "records" else reach.prefix)

    def reaches(self, family: Family, resource: str | Sequence[str]) -> bool:
        """Whether `resource` (a thread or checkpoint thread id, a memory name, a record namespace's labels) is in
        the scope. Exact code points, whole labels: no normalization, no decoding here (the caller passes the
        decoded identifier the use case gets)."""
        if family == "threads" or family == "checkpoints":
            reach = self.threads if family == "threads" else self.checkpoints
            return reach is not None and isinstance(resource, str) and resource.startswith(reach.prefix)
        if family == "memories":
            return self.memories is not None and isinstance(resource, str) and resource in self.memories.names
        if self.records is None or isinstance(resource, str):
            return False
        labels = list(resource)
        wanted = self.records.namespace_prefix
        return labels[: len(wanted)] == wanted

    def narrows(self, other: Scope | None) -> bool:
        """Whether this scope reaches nothing `other` (None: unscoped) does not."""
        if other is None:
            return True
        if not set(self.actions) <= set(other.actions):
            return False
        for family in FAMILIES:
            mine, theirs = getattr(self, family), getattr(other, family)
            if mine is None:
                continue
            if theirs is None:
                return False
            if family == "memories" and not set(mine.names) <= set(theirs.names):
                return False
            if family == "records" and mine.namespace_prefix[: len(theirs.namespace_prefix)] != list(
                theirs.namespace_prefix
            ):
                return False
            if family in ("threads", "checkpoints") and not mine.prefix.startswith(theirs.prefix):
                return False
        return True

    # ---- travelling (API Gateway's authorizer context holds strings only) -------------------------------------------
    def dumps(self) -> str:
        return json.dumps(self.model_dump(exclude_none=True), separators=(",", ":"), sort_keys=True)


def parse_scope(value: Any) -> Scope | None:
    """A scope from its stored or carried form (a JSON string, a mapping, None); SchemaInvalid when it is not one."""
    if value is None or value == "":
        return None
    if isinstance(value, Scope):
        return value
    try:
        data = json.loads(value) if isinstance(value, str) else value
        return Scope.model_validate(data)
    except ValueError as exc:
        if isinstance(exc, ValidationError):
            raise schema_invalid([dict(e) for e in exc.errors(include_url=False)]) from None
        raise SchemaInvalid("a scope is a JSON object") from None


def require(scope: Scope | None, family: Family, action: Action, *resources: str | Sequence[str]) -> None:
    """ScopeDenied unless `scope` (None: unscoped) may do `action` on every one of `resources` of `family`; with no
    resource (a write that creates one whose id the server picks), only a scope reaching the whole family may."""
    if scope is None:
        return
    if not scope.can(action):
        raise ScopeDenied(f"this key may not {action}")
    if not resources:
        if not scope.whole(family):
            raise ScopeDenied(f"this key reaches only part of its tenant's {family}: name the resource")
        return
    for resource in resources:
        if not scope.reaches(family, resource):
            raise ScopeDenied(f"outside this key's scope ({family})")


def require_unscoped(scope: Scope | None, what: str) -> None:
    """ScopeDenied for a scoped key or a token: `what` (key management, usage, export, erase) is the tenant's own."""
    if scope is not None:
        raise ScopeDenied(f"{what} needs an unscoped key")


def require_narrower(scope: Scope | None, parent: Scope | None) -> None:
    if scope is None and parent is not None:
        raise ScopeDenied("a scoped key can only give a scope within its own")
    if scope is not None and not scope.narrows(parent):
        raise ScopeDenied("the scope asked for is wider than the key's own")
