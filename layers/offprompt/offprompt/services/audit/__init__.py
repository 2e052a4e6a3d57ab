"""The per-tenant audit log (issue 36, docs/adr/0056): who wrote, deleted, exported or erased what, and the answer.

An entry holds the time, the actor (`{"type": "key" | "token" | "jwt" | "iam" | "local" | "direct", "id"}`: an API
key's id today, a token's id once tokens exist), how the call came (`http`, `mcp`, `direct`), the operation (the
route's template `POST /threads/{thread_id}/runs`, the MCP tool, the direct action), the resource ids the call named
(path parameters and identifier fields, never a body, a value or a query), the status and the error code. The
request pipeline writes it (functions/api_common/audit.py) after the answer is known, for every route, tool and
direct action whose declaration says it audits; a failed audit write leaves the answer as it was and is logged.
"""

from __future__ import annotations

import base64
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from offprompt.errors import InvalidInput
from offprompt.ports import AuditStore

#: How long an entry is kept when the plan names no retention (DynamoDB's TTL deletes it after).
DEFAULT_RETENTION_DAYS = 90
MAX_LIMIT = 200
DEFAULT_LIMIT = 50
#: A resource id longer than this is cut (an id is at most 256 characters today; the entry stays small).
MAX_ID_CHARS = 512


@dataclass(frozen=True)
class Actor:
    """Who called: `type` says what `id` names (an API key's id, a token's id, a JWT subject, ...)."""

    type: str
    id: str = ""


@dataclass(frozen=True)
class AuditEvent:
    tenant: str
    actor: Actor
    via: str  # "http" | "mcp" | "direct"
    operation: str
    status: int
    code: str | None = None
    resources: Mapping[str, str] = field(default_factory=dict)


def _iso(time_ns: int) -> str:
    # (plain locals as receivers: tests/infrastructure/test_iam_least_privilege.py follows a method called on a
    # call or an attribute to every def of that name)
    stamp = datetime.fromtimestamp(time_ns / 1e9, UTC)
    text = stamp.isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def _ns(name: str, value: str | None, default: int) -> int:
    if value is None or value == "":
        return default
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f'"{name}" must be an ISO 8601 time (2026-12-05T04:30:00Z)') from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return int(parsed.timestamp() * 1e9)


def encode_cursor(position: str) -> str:
    return base64.urlsafe_b64encode(position.encode("utf-8")).decode("ascii").rstrip("=")


def decode_cursor(cursor: str) -> str:
    try:
        return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("utf-8")
    except ValueError:
        raise InvalidInput('"cursor" is not a cursor this listing returned') from None


def audit_now() -> float:
    """Now, in epoch seconds (a test moves it: `monkeypatch.setattr(offprompt.services.audit, "audit_now", ...)`)."""
    return time.time()


class AuditLog:
    def __init__(self, store: AuditStore, *, clock: Callable[[], float] | None = None) -> None:
        self.audit_store = store
        self._clock = clock

    def audit_clock(self) -> float:
        return self._clock() if self._clock is not None else audit_now()

    def write_entry(self, event: AuditEvent, *, retention_days: int = DEFAULT_RETENTION_DAYS) -> dict[str, Any]:
        """Write one entry (DependencyUnavailable when the store fails: the caller decides what that means)."""
        now_ns = int(self.audit_clock() * 1e9)
        ids: dict[str, str] = dict(event.resources)
        entry = {
            "entry_id": uuid.uuid4().hex,
            "at": _iso(now_ns),
            "actor": {"type": event.actor.type, "id": event.actor.id},
            "via": event.via,
            "operation": event.operation,
            "resources": {k: str(v)[:MAX_ID_CHARS] for k, v in ids.items()},
            "status": int(event.status),
            "code": event.code,
        }
        days = retention_days if retention_days > 0 else DEFAULT_RETENTION_DAYS
        expires_at = int(now_ns / 1e9) + days * 86400
        self.audit_store.put_audit_entry(event.tenant, now_ns, entry, actor_id=event.actor.id, expires_at=expires_at)
        return entry

    def audit_entries(
        self,
        tenant: str,
        *,
        since: str | None = None,
        until: str | None = None,
        key_id: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> dict[str, Any]:
        """The tenant's entries newest first, `since` <= at < `until`, one actor's only with `key_id`; a `cursor`
        when more may follow (a page can be short: the key filter reads a bounded number of entries per call)."""
        size = DEFAULT_LIMIT if limit is None else limit
        if not 1 <= size <= MAX_LIMIT:
            raise InvalidInput(f'"limit" must be between 1 and {MAX_LIMIT}')
        since_ns = _ns("since", since, 0)
        until_ns = _ns("until", until, int(self.audit_clock() * 1e9) + 60 * 10**9)
        if since_ns >= until_ns:
            raise InvalidInput('"since" must be before "until"')
        after = decode_cursor(cursor) if cursor else None
        entries, position = self.audit_store.audit_page(
            tenant, since_ns, until_ns, actor_id=key_id or None, limit=size, after=after
        )
        return {"entries": entries, "cursor": encode_cursor(position) if position else None}
