"""What every task-memory use case takes: the ports (namespaces in DynamoDB, blobs in S3, texts in OpenSearch),
the storage registry over them (`storages`: one ArtifactStorage per StorageKind, Griptape's `artifact_storages`),
the batch manifests, and the size limits. Built by `offprompt.composition.task_memory`."""

from __future__ import annotations

from collections.abc import Mapping

from offprompt.limits import MAX_INLINE_RESPONSE_BYTES, MAX_UPLOAD_BYTES
from offprompt.memory.task import StorageKind
from offprompt.ports import ArtifactStorage, BatchManifests, BlobStore, NamespaceStore, TaskMemoryKeys, TextStore


class TaskMemory:
    def __init__(
        self,
        namespaces: NamespaceStore,
        blobs: BlobStore,
        texts: TextStore,
        *,
        storages: Mapping[StorageKind, ArtifactStorage],
        manifests: BatchManifests,
        keys: TaskMemoryKeys,
        bucket: str | None = None,
        max_inline_response_bytes: int = MAX_INLINE_RESPONSE_BYTES,
        max_upload_bytes: int = MAX_UPLOAD_BYTES,
    ) -> None:
        self.namespaces = namespaces
        self.blobs = blobs
        self.texts = texts
        self.storages = storages
        self.manifests = manifests
        self.keys = keys  # where uploads and materialized downloads go (the storage layout)
        self.bucket = bucket
        self.max_inline_response_bytes = max_inline_response_bytes
        self.max_upload_bytes = max_upload_bytes
