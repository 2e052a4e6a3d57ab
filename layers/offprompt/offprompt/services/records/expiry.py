"""Use case: what DynamoDB's TTL sweep leaves of an expired record version — its S3 body and its document in the
record index (docs/adr/0034). Handler: functions/records (the table's stream, REMOVE records of record items whose
`userIdentity` is DynamoDB's TTL).

Each body and document belongs to exactly one item at a time (a replace moves the current item's to its version
item), so the item's removal frees them. Both deletes are idempotent: a retried stream record deletes nothing twice.
"""

from __future__ import annotations

from offprompt.services.records.context import Records


def drop_expired(rec: Records, tenant: str, body_key: str | None, doc_id: str | None) -> None:
    if body_key:
        rec.bodies.drop(body_key)
    if doc_id:
        rec.index.delete(tenant, [doc_id])
