"""Use case: delete a record — a version too, a tombstone (docs/adr/0034). Handler: functions/records (`DELETE
/records/{namespace}/{key}`, direct `delete_record`).

Idempotent: a record that is not there (never put, deleted, expired) is left alone. Otherwise one transaction closes
the current version and makes the tombstone current, conditioned on the version it replaces (a concurrent writer
makes it read again, once); the tombstone keeps the record's TTL, so it stays until the TTL or an erase. Then the
closed version's document is superseded (best effort: searches check DynamoDB anyway).
"""

from __future__ import annotations

import logging

from offprompt.memory.records import check_key, check_namespace, is_live, millis
from offprompt.ports import RecordConflict, StoredRecord
from offprompt.services.records.context import Records
from offprompt.services.records.errors import RecordConflicted

logger = logging.getLogger("offprompt.services.records.delete")

ATTEMPTS = 2


def delete_record(rec: Records, tenant: str, namespace: tuple[str, ...] | list[str], key: str) -> bool:
    """Whether a live record was deleted (False: there was none)."""
    ns = check_namespace(namespace)
    check_key(key)
    for _attempt in range(ATTEMPTS):
        now = millis(rec.clock())
        previous = rec.store.current(tenant, ns, key)
        if previous is None or previous.deleted or not is_live(previous.expires_at, now):
            return False
        tombstone = StoredRecord(
            namespace=ns,
            key=key,
            version=previous.version + 1,
            created_at=previous.created_at,
            updated_at=now,
            valid_from=now,
            deleted=True,
            expires_at=previous.expires_at,
        )
        try:
            rec.store.write(tenant, tombstone, previous, now)
        except RecordConflict:
            continue
        if previous.doc_id:
            try:
                rec.index.supersede(tenant, previous.doc_id, now)
            except Exception:
                logger.exception("could not supersede a deleted record's document (the DynamoDB check hides it)")
        return True
    raise RecordConflicted(ns, key)
