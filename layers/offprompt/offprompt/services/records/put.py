"""Use case: put a record — create or replace (docs/adr/0034). Handler: functions/records (`PUT /records/{namespace}/
{key}`, direct `put_record`).

Reads top to bottom: check the request → the TTL (the request's, else the namespace's) → read the current item →
the value's body to S3 when it is over the item limit → index the version's text (before the commit, so a committed
version is always searchable once the index refreshes; the document id, unique to this attempt, goes on the item) →
one transaction: the previous version closed, the new one current, conditioned on the version it replaces, and the
charge → supersede the previous version's document (best effort). A concurrent writer that won first makes this one
read again and retry once (the last writer wins, no version is lost; this attempt's body and document are deleted);
then 409 `record_conflict`, nothing stored.
"""

from __future__ import annotations

import json
import logging
import uuid
from typing import Any

from offprompt.errors import PayloadTooLarge
from offprompt.limits import MAX_RECORD_VALUE_BYTES
from offprompt.memory.records import (
    check_index,
    check_key,
    check_namespace,
    check_ttl_minutes,
    check_value,
    expires_at,
    indexed_text,
    is_live,
    millis,
)
from offprompt.metering import Charge, Meter
from offprompt.ports import RecordConflict, RecordDoc, StoredRecord
from offprompt.services.records.context import Records
from offprompt.services.records.errors import RecordConflicted
from offprompt.services.records.requests import RecordPut
from offprompt.services.records.views import record_view

logger = logging.getLogger("offprompt.services.records.put")

ATTEMPTS = 2


def put_record(
    rec: Records,
    tenant: str,
    namespace: tuple[str, ...] | list[str],
    key: str,
    request: RecordPut,
    *,
    meter: Meter | None = None,
) -> dict[str, Any]:
    ns = check_namespace(namespace)
    check_key(key)
    value = check_value(request.value)
    index = check_index(request.index)
    ttl = check_ttl_minutes(request.ttl_minutes)
    data = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    if len(data) > MAX_RECORD_VALUE_BYTES:
        raise PayloadTooLarge(f"the value is {len(data)} bytes of JSON; at most {MAX_RECORD_VALUE_BYTES}")
    big = len(data) > rec.inline_bytes
    if big and not rec.big_values:
        raise PayloadTooLarge(f"the value is larger than {rec.inline_bytes} bytes and no bucket is configured")
    if ttl is None:
        ttl = rec.store.default_ttl(tenant, ns)
    text = indexed_text(value, index)
    for attempt in range(ATTEMPTS):
        now = millis(rec.clock())
        previous = rec.store.current(tenant, ns, key)
        version = (previous.version if previous else rec.store.last_version(tenant, ns, key)) + 1
        alive = previous is not None and not previous.deleted and is_live(previous.expires_at, now)
        body_key = rec.bodies.put_body(tenant, ns, key, version, data) if big else None
        doc_id = None
        try:
            if text:
                doc_id = rec.index.index(RecordDoc(tenant, ns, key, version, text, now, uuid.uuid4().hex))
            charge = _charge(meter, len(data), big)
            new = StoredRecord(
                namespace=ns,
                key=key,
                version=version,
                created_at=previous.created_at if alive and previous else now,
                updated_at=now,
                valid_from=now,
                value_json=None if big else data.decode("utf-8", "surrogatepass"),
                body_key=body_key,
                size=len(data),
                expires_at=expires_at(now, ttl),
                ttl_minutes=ttl,
                doc_id=doc_id,
                metered_bytes=len(data) if charge is not None else 0,
            )
            rec.store.write(tenant, new, previous, now, charge=charge)
        except RecordConflict:
            _discard(rec, tenant, body_key, doc_id)
            if attempt + 1 < ATTEMPTS:
                continue
            raise RecordConflicted(ns, key) from None
        except Exception:
            _discard(rec, tenant, body_key, doc_id)
            raise
        if meter is not None and charge is not None:
            meter.settle(charge)
        if previous is not None and previous.doc_id and previous.doc_id != doc_id:
            _supersede(rec, tenant, previous.doc_id, now)
        return record_view(new, value)
    raise AssertionError("unreachable")  # pragma: no cover


def _charge(meter: Meter | None, size: int, big: bool) -> Charge | None:
    """A put stores its value's bytes (every version is kept until TTL or erase: a replace adds, never swaps) and one
    record version (the day's `records_stored`)."""
    if meter is None:
        return None
    where = "bytes_stored_s3" if big else "bytes_stored_dynamodb"
    return meter.charge(stored_bytes=size, records_stored=1, **{where: size})


def _discard(rec: Records, tenant: str, body_key: str | None, doc_id: str | None) -> None:
    """What a put that did not commit leaves: its S3 body and its document (both its own: the body key and the
    document id carry this attempt's token, so a racing writer of the same version never shares them)."""
    if body_key is not None:
        rec.bodies.drop(body_key)
    if doc_id is None:
        return
    try:
        rec.index.delete(tenant, [doc_id])
    except Exception:
        logger.exception("could not remove an uncommitted record document (the DynamoDB check hides it)")


def _supersede(rec: Records, tenant: str, doc_id: str, valid_to: float) -> None:
    try:
        rec.index.supersede(tenant, doc_id, valid_to)
    except Exception:
        logger.exception("could not supersede a replaced record's document (the DynamoDB check hides it)")
