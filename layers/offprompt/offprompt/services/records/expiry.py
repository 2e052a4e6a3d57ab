"""Use case: what DynamoDB's TTL sweep leaves of an expired record version — its S3 body, its document in the
record index and its bytes on the tenant's stored-bytes gauge (docs/adr/0034). Handler: functions/records (the
table's stream, REMOVE records of record items whose `userIdentity` is DynamoDB's TTL).

Each body and document belongs to exactly one item at a time (a replace moves the current item's to its version
item), so the item's removal frees them. Every step is retry-safe: the deletes are idempotent, the gauge moves once
per stream record (`event_id`), and any failure raises, so the handler reports the record for Lambda to retry.
"""

from __future__ import annotations

from offprompt.services.records.context import Records


def drop_expired(
    rec: Records,
    tenant: str,
    body_key: str | None,
    doc_id: str | None,
    *,
    event_id: str | None = None,
    metered_bytes: int = 0,
) -> None:
    if body_key:
        rec.bodies.delete(body_key)
    if doc_id:
        rec.index.delete(tenant, [doc_id])
    if event_id and metered_bytes > 0:
        rec.store.release_expired(tenant, event_id, metered_bytes)
