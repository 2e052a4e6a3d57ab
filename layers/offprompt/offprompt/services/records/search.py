"""Use case: search records under a namespace prefix — by text, by filter, or both (docs/adr/0034). Handler:
functions/records (`POST /records/search`, direct `search_records`).

- no `query`: DynamoDB only — the live current items under the prefix (or the versions valid `as_of`), newest
  `updated_at` first, filtered, then `offset`/`limit`; `score` is null.
- with `query`: the record index proposes candidates ((offset + limit) * 4, deeper while hits are dropped, at most
  MAX_SEARCH_DEPTH); one BatchGetItem reads each candidate's current item (or, `as_of`, its version), and a
  candidate is kept only when that item is the very version the index named, unexpired and not deleted (and, `as_of`,
  valid at that time): OpenSearch proposes, DynamoDB decides. Then the filter, `offset`/`limit`, the index's order.
- `refresh_ttl` (default true) moves the returned current records' `expires_at`, as a get does.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from offprompt.errors import InvalidInput
from offprompt.limits import MAX_SEARCH_DEPTH
from offprompt.memory.records import (
    check_filter,
    check_namespace,
    expires_at,
    is_live,
    iso,
    matches,
    millis,
    parse_time,
)
from offprompt.metering import Meter
from offprompt.ports import StoredRecord
from offprompt.services.records.context import Records
from offprompt.services.records.requests import RecordSearch
from offprompt.services.records.views import record_view

OVERFETCH = 4


def search_records(rec: Records, tenant: str, request: RecordSearch, *, meter: Meter | None = None) -> dict[str, Any]:
    prefix = check_namespace(request.namespace_prefix, allow_empty=True, what="namespace_prefix")
    spec = check_filter(request.filter)
    at = parse_time(request.as_of)
    query = request.query
    if query is not None and not query.strip():
        raise InvalidInput("query must not be empty or blank (leave it out to list by filter)")
    now = millis(rec.clock())
    wanted = request.offset + request.limit
    if query is None:
        found = _page(_newest_first(rec, tenant, prefix, at, now), rec, spec, wanted)
        scored: list[tuple[StoredRecord, dict[str, Any], float | None]] = [(r, v, None) for r, v in found]
    else:
        if meter is not None:
            meter.add(searches=1)
        scored = _by_text(rec, tenant, prefix, query, request.mode, at, now, spec, wanted)
    page = scored[request.offset : wanted]
    items = []
    for record, value, score in page:
        extra: dict[str, Any] = {"score": score}
        if at is None and request.refresh_ttl and record.ttl_minutes is not None:
            moved = expires_at(now, record.ttl_minutes)
            if moved is not None and moved != record.expires_at:
                rec.store.refresh_ttl(tenant, record, moved)
                extra["expires_at"] = iso(moved)
        items.append(record_view(record, value, **extra))
    return {"items": items}


def _newest_first(
    rec: Records, tenant: str, prefix: tuple[str, ...], at: float | None, now: float
) -> list[StoredRecord]:
    records = (
        rec.store.query_current(tenant, prefix, now) if at is None else rec.store.query_at(tenant, prefix, at, now)
    )
    return sorted(records, key=lambda r: (-r.updated_at, r.namespace, r.key))


def _page(
    records: Iterable[StoredRecord], rec: Records, spec: dict[str, Any], wanted: int
) -> list[tuple[StoredRecord, dict[str, Any]]]:
    found: list[tuple[StoredRecord, dict[str, Any]]] = []
    for record in records:
        if len(found) >= wanted:
            break
        value = rec.bodies.value(record)
        if value is not None and matches(value, spec):
            found.append((record, value))
    return found


def _by_text(
    rec: Records,
    tenant: str,
    prefix: tuple[str, ...],
    query: str,
    mode: str,
    at: float | None,
    now: float,
    spec: dict[str, Any],
    wanted: int,
) -> list[tuple[StoredRecord, dict[str, Any], float | None]]:
    size = min(wanted * OVERFETCH, MAX_SEARCH_DEPTH)
    while True:
        hits = rec.index.search(tenant, prefix, query, size=size, as_of=at, mode=mode)
        stored = rec.store.get_many(tenant, [(h.namespace, h.key, None if at is None else h.version) for h in hits])
        kept: list[tuple[StoredRecord, dict[str, Any], float | None]] = []
        seen: set[tuple[tuple[str, ...], str]] = set()
        for hit, record in _verified(hits, stored, at, now):
            if (hit.namespace, hit.key) in seen or record.namespace[: len(prefix)] != prefix:
                continue
            seen.add((hit.namespace, hit.key))
            value = rec.bodies.value(record)
            if value is not None and matches(value, spec):
                kept.append((record, value, hit.score))
            if len(kept) >= wanted:
                return kept
        if len(hits) < size or size >= MAX_SEARCH_DEPTH:
            return kept
        size = min(size * OVERFETCH, MAX_SEARCH_DEPTH)


def _verified(
    hits: Iterable[Any], stored: dict[tuple[tuple[str, ...], str, int], StoredRecord], at: float | None, now: float
) -> Iterator[tuple[Any, StoredRecord]]:
    """The hits whose version DynamoDB holds as the current one (or, `as_of`, as the one valid then), live."""
    for hit in hits:
        record = stored.get((hit.namespace, hit.key, hit.version))
        if record is None or record.deleted or not is_live(record.expires_at, now):
            continue
        if at is None and record.valid_to is not None:
            continue
        if at is not None and not (record.valid_from <= at and (record.valid_to is None or at < record.valid_to)):
            continue
        yield hit, record
