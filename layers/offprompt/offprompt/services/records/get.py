"""Use case: read a record — its current version or the one valid `as_of` a time, and its history (docs/adr/0034).
Handler: functions/records (`GET /records/{namespace}/{key}`, `.../history`; direct `get_record`,
`record_history`).

A read never returns an expired version (`expires_at <= now`), swept or not, and a tombstone answers 404.
`refresh_ttl` (default true, as LangGraph's `refresh_on_read`) moves a current record's `expires_at` to now + its TTL.
"""

from __future__ import annotations

from typing import Any

from offprompt.memory.records import check_key, check_namespace, expires_at, is_live, iso, millis, parse_time
from offprompt.services.records.context import Records
from offprompt.services.records.errors import RecordNotFound
from offprompt.services.records.requests import HistoryQuery, RecordRead
from offprompt.services.records.views import record_view


def get_record(
    rec: Records, tenant: str, namespace: tuple[str, ...] | list[str], key: str, query: RecordRead
) -> dict[str, Any]:
    ns = check_namespace(namespace)
    check_key(key)
    at = parse_time(query.as_of)
    now = millis(rec.clock())
    stored = rec.store.current(tenant, ns, key) if at is None else rec.store.version_at(tenant, ns, key, at)
    if stored is None or stored.deleted or not is_live(stored.expires_at, now):
        raise RecordNotFound(ns, key)
    value = rec.bodies.value(stored)
    if at is None and query.refresh_ttl and stored.ttl_minutes is not None:
        moved = expires_at(now, stored.ttl_minutes)
        if moved is not None and moved != stored.expires_at:
            rec.store.refresh_ttl(tenant, stored, moved)
            return record_view(stored, value, expires_at=iso(moved))
    return record_view(stored, value)


def record_history(
    rec: Records, tenant: str, namespace: tuple[str, ...] | list[str], key: str, query: HistoryQuery
) -> dict[str, Any]:
    """Every stored, unexpired version, newest first: `{"versions": [record + "deleted"]}` (a tombstone's value is
    null). 404 when there is none."""
    ns = check_namespace(namespace)
    check_key(key)
    now = millis(rec.clock())
    versions = [v for v in rec.store.versions(tenant, ns, key, limit=query.limit) if is_live(v.expires_at, now)]
    if not versions:
        raise RecordNotFound(ns, key)
    return {"versions": [record_view(v, rec.bodies.value(v), deleted=v.deleted) for v in versions]}
