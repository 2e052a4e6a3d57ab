"""Use case: load — Griptape's `TaskMemory.load_artifacts`: a namespace as ListArtifact JSON, inline or, past the
inline limit, as presigned downloads. Handler: functions/load_artifacts."""

from __future__ import annotations

import json
import uuid
from typing import cast

from offprompt.errors import InvalidInput
from offprompt.identifiers import check_identifier
from offprompt.limits import DOWNLOAD_EXPIRES_IN
from offprompt.memory.task import StorageKind
from offprompt.metering import Meter
from offprompt.ports import Entries, Resolved, TextScope
from offprompt.services.task_memory.artifact_json import list_artifact_json
from offprompt.services.task_memory.context import TaskMemory
from offprompt.services.task_memory.results import BlobDownload, LoadedArtifacts


def load_items_json(tm: TaskMemory, tenant: str, memory: str, namespace: str) -> list[str]:
    """Each stored artifact's JSON (Griptape `to_json()` form), in order, exactly as stored."""
    return _items_json(tm, tenant, memory, namespace, resolve(tm, tenant, memory, namespace))


def resolve(tm: TaskMemory, tenant: str, memory: str, namespace: str) -> Resolved:
    """The committed batches of a namespace with their entries (from the item, or its S3 manifest), in order."""
    check_identifier("memory_name", memory)
    check_identifier("namespace", namespace)
    return [(b, tm.manifests.entries(b)) for b in tm.namespaces.batches(tenant, memory, namespace)]


def _items_json(tm: TaskMemory, tenant: str, memory: str, namespace: str, resolved: Resolved) -> list[str]:
    if not resolved:
        return []
    storage = tm.storages[StorageKind(resolved[0][0].kind)]
    return storage.load(TextScope(tenant, memory, namespace), resolved)


def load_artifacts(
    tm: TaskMemory,
    tenant: str,
    memory: str,
    namespace: str,
    *,
    max_inline_bytes: int | None = None,
    meter: Meter | None = None,
    ref: str | None = None,
) -> LoadedArtifacts:
    """The namespace as ListArtifact JSON; past the inline limit, presigned GETs instead (see LoadedArtifacts):
    a blob namespace lists its stored objects (its JSON would be base64: 4/3 the bytes, rebuilt and uploaded
    again), a text namespace's JSON is written to S3 once.

    `max_inline_bytes` lowers the inline limit for this call (e.g. a Step Functions state is capped at
    256 KB); it never raises it above `max_inline_response_bytes` (Lambda's response cap).

    `ref`: the reference the store that created the namespace returned (`ProcessResult.ref`): the objects it names
    are read without a lookup first (ADR 0053). One that does not name the namespace as it is now (deleted,
    replaced, appended to, another tenant's or namespace's, malformed) is ignored: the namespace is read by name.
    """
    if meter is not None:
        meter.add(loads=1)
    limit = tm.max_inline_response_bytes
    if max_inline_bytes is not None:
        if isinstance(max_inline_bytes, bool) or not isinstance(max_inline_bytes, int) or max_inline_bytes < 1:
            raise InvalidInput("max_inline_bytes must be a positive integer")
        limit = min(limit, max_inline_bytes)
    if ref is not None:
        check_identifier("memory_name", memory)
        check_identifier("namespace", namespace)
        by_ref = tm.storages[StorageKind.BLOB].load_reference(TextScope(tenant, memory, namespace), ref, limit)
        if by_ref is not None:
            body = list_artifact_json(by_ref)
            if len(body) <= limit:
                return LoadedArtifacts(body=body, size=len(body))
    resolved = resolve(tm, tenant, memory, namespace)
    blobs = _blob_entries(resolved)
    if blobs and _inline_json_size(blobs) > limit:
        # Large blobs are answered with their stored objects: nothing is downloaded, encoded or uploaded.
        downloads = [
            BlobDownload(
                envelope={k: v for k, v in json.loads(str(e["envelope"])).items() if k != "value"},
                size=int(cast(int, e["size"])),
                download_url=tm.blobs.presign_get(str(e["key"]), DOWNLOAD_EXPIRES_IN),
            )
            for e in blobs
        ]
        total = sum(d.size for d in downloads)
        return LoadedArtifacts(body=None, size=total, expires_in=DOWNLOAD_EXPIRES_IN, blobs=downloads)
    items = _items_json(tm, tenant, memory, namespace, resolved)
    body = list_artifact_json(items)
    size = len(body)  # ASCII: json.dumps escapes everything else
    if size <= limit:
        return LoadedArtifacts(body=body, size=size)
    key = tm.keys.download_key(tenant, uuid.uuid4().hex)
    tm.blobs.put(key, body.encode("ascii"), content_type="application/json")
    url = tm.blobs.presign_get(key, DOWNLOAD_EXPIRES_IN)
    return LoadedArtifacts(body=None, size=size, download_url=url, expires_in=DOWNLOAD_EXPIRES_IN)


def _blob_entries(resolved: Resolved) -> Entries:
    """The entries of a blob namespace, in order; [] for a text or empty one."""
    if not resolved or resolved[0][0].kind != StorageKind.BLOB.value:
        return []
    return [e for _, entries in resolved for e in entries]


def _inline_json_size(entries: Entries) -> int:
    """An upper estimate of the ListArtifact JSON of these blobs: envelopes + base64 values + separators."""
    return 256 + sum(len(str(e["envelope"])) + 4 * (int(cast(int, e["size"])) + 2) // 3 + 32 for e in entries)
