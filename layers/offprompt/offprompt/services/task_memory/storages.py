"""The artifact storages of task memory, keyed by storage kind (Griptape's `artifact_storages: dict[type, storage]`).

Each entry owns its kind's data: `store` writes a batch's items and returns the batch entries DynamoDB keeps,
`load` returns the committed items' JSON, `discard` removes what an uncommitted store wrote, `delete` removes
everything of a namespace. A new kind of storage is one more class and one more entry in `storage_registry`.
Which kind an artifact goes to is `offprompt.memory.task.plan` (pure).
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, cast

from offprompt import deadline
from offprompt.artifacts import BaseArtifact, BlobArtifact, TextArtifact
from offprompt.errors import DependencyUnavailable, NotFound
from offprompt.memory.task import StorageKind
from offprompt.ports import BlobStore, StoredBatch, TextScope, TextStore
from offprompt.services.task_memory import keys
from offprompt.services.task_memory.artifact_json import envelope_json
from offprompt.services.task_memory.cleanup import best_effort

Entries = list[dict[str, object]]
#: Committed batches of a namespace with their entries (read from the batch, or its manifest), in order.
Resolved = list[tuple[StoredBatch, Entries]]


class ArtifactStorage(Protocol):
    kind: StorageKind

    def store(self, scope: TextScope, start: int, items: Sequence[BaseArtifact]) -> tuple[Entries, int]:
        """Write `items` at positions `start...`; return the batch entries and the bytes stored."""
        ...

    def load(self, scope: TextScope, resolved: Resolved) -> list[str]:
        """Each committed artifact's JSON (Griptape `to_json()` form), in order."""
        ...

    def discard(self, scope: TextScope, entries: Entries, lost_to: str | None) -> None:
        """Best-effort removal of what a store wrote whose commit failed (`lost_to`: the kind that won, if any)."""
        ...

    def delete(self, scope: TextScope) -> None:
        """Remove all of the namespace's data of this kind (idempotent)."""
        ...


class TextStorage:
    """Text artifacts: chunked into the TextStore (OpenSearch); an entry is the item's chunk count."""

    kind = StorageKind.TEXT

    def __init__(self, texts: TextStore) -> None:
        self.texts = texts

    def store(self, scope: TextScope, start: int, items: Sequence[BaseArtifact]) -> tuple[Entries, int]:
        texts = [cast(TextArtifact, item) for item in items]
        counts = self.texts.store(scope, start, texts)
        if len(counts) != len(texts):
            raise DependencyUnavailable("text store returned a wrong number of chunk counts")
        total = sum(len(t.value.encode("utf-8", "surrogatepass")) for t in texts)
        return [{"chunks": int(c)} for c in counts], total

    def load(self, scope: TextScope, resolved: Resolved) -> list[str]:
        layout = [(b.start + i, int(cast(int, e["chunks"]))) for b, entries in resolved for i, e in enumerate(entries)]
        return [a.to_json() for a in self.texts.load(scope, layout)]

    def discard(self, scope: TextScope, entries: Entries, lost_to: str | None) -> None:
        # Documents at positions no committed batch names are never read; only when the namespace was committed
        # as another kind is every text document in it garbage.
        if lost_to is not None and lost_to != self.kind.value:
            best_effort(functools.partial(self.texts.delete, scope))

    def delete(self, scope: TextScope) -> None:
        self.texts.delete(scope)


class BlobStorage:
    """Blob artifacts (Blob, Image, Audio): one S3 object per item; an entry is its key, size and JSON envelope."""

    kind = StorageKind.BLOB

    def __init__(self, blobs: BlobStore) -> None:
        self.blobs = blobs

    def store(self, scope: TextScope, start: int, items: Sequence[BaseArtifact]) -> tuple[Entries, int]:
        entries: Entries = []
        written: list[str] = []
        try:
            for offset, item in enumerate(items):
                blob = cast(BlobArtifact, item)
                key = keys.blob_key(scope.tenant, scope.memory, scope.namespace, start + offset)
                self.blobs.put(key, blob.value)
                written.append(key)
                entries.append({"key": key, "size": len(blob.value), "envelope": envelope_json(blob)})
        except Exception:
            for key in written:
                best_effort(functools.partial(self.blobs.delete_prefix, key))
            raise
        return entries, sum(int(cast(int, e["size"])) for e in entries)

    def load(self, scope: TextScope, resolved: Resolved) -> list[str]:
        entries = [e for _, es in resolved for e in es]
        if len(entries) <= 1:
            return [self._item_json(e) for e in entries]
        with ThreadPoolExecutor(max_workers=min(8, len(entries))) as pool:
            # deadline.bind: each thread obeys the request's deadline
            return list(pool.map(deadline.bind(self._item_json), entries))

    def _item_json(self, entry: dict[str, object]) -> str:
        try:
            data = self.blobs.get(str(entry["key"]))
        except NotFound:
            raise DependencyUnavailable("a committed blob is missing (deleted concurrently?); retry") from None
        envelope = json.loads(str(entry["envelope"]))
        envelope["value"] = base64.b64encode(data).decode("ascii")
        return json.dumps(envelope)

    def discard(self, scope: TextScope, entries: Entries, lost_to: str | None) -> None:
        for entry in entries:
            best_effort(functools.partial(self.blobs.delete_prefix, str(entry["key"])))

    def delete(self, scope: TextScope) -> None:
        # The namespace's whole S3 prefix: its blobs and the batch manifests of either kind (keys.manifest_key).
        self.blobs.delete_prefix(keys.namespace_prefix(scope.tenant, scope.memory, scope.namespace))


def storage_registry(blobs: BlobStore, texts: TextStore) -> dict[StorageKind, ArtifactStorage]:
    """The storages by kind, in the order a namespace delete visits them (S3 first, as before the registry)."""
    return {StorageKind.BLOB: BlobStorage(blobs), StorageKind.TEXT: TextStorage(texts)}
