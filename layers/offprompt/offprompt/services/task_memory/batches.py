"""A namespace's committed batches: their entries inline in DynamoDB, or (when large) in an S3 manifest."""

from __future__ import annotations

import json

from offprompt.identifiers import check_identifier
from offprompt.limits import MAX_INLINE_ENTRIES_BYTES
from offprompt.ports import StoredBatch
from offprompt.services.task_memory import keys
from offprompt.services.task_memory.context import TaskMemory
from offprompt.services.task_memory.storages import Entries, Resolved


def batch_for(
    tm: TaskMemory, tenant: str, memory: str, namespace: str, start: int, kind: str, entries: Entries
) -> StoredBatch:
    """The batch to commit; entries past MAX_INLINE_ENTRIES_BYTES go to a manifest object first."""
    raw = json.dumps(entries, separators=(",", ":"))
    if len(raw.encode("utf-8")) <= MAX_INLINE_ENTRIES_BYTES:
        return StoredBatch(start=start, count=len(entries), kind=kind, entries=entries)
    manifest = keys.manifest_key(tenant, memory, namespace, start)
    tm.blobs.put(manifest, raw.encode("utf-8"), content_type="application/json")
    return StoredBatch(start=start, count=len(entries), kind=kind, manifest_key=manifest)


def resolve(tm: TaskMemory, tenant: str, memory: str, namespace: str) -> Resolved:
    """The committed batches of a namespace with their entries, in order."""
    check_identifier("memory_name", memory)
    check_identifier("namespace", namespace)
    return [(b, batch_entries(tm, b)) for b in tm.namespaces.batches(tenant, memory, namespace)]


def batch_entries(tm: TaskMemory, batch: StoredBatch) -> Entries:
    if batch.entries is not None:
        return batch.entries
    assert batch.manifest_key is not None
    entries: Entries = json.loads(tm.blobs.get(batch.manifest_key))
    return entries
