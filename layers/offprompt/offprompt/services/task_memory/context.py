"""What every task-memory use case takes: the ports (namespaces in DynamoDB, blobs in S3, texts in OpenSearch),
the storage registry over them, and the size limits. Built by `offprompt.composition.task_memory`."""

from __future__ import annotations

from offprompt.limits import MAX_INLINE_RESPONSE_BYTES, MAX_UPLOAD_BYTES
from offprompt.ports import BlobStore, NamespaceStore, TextStore
from offprompt.services.task_memory.storages import storage_registry


class TaskMemory:
    def __init__(
        self,
        namespaces: NamespaceStore,
        blobs: BlobStore,
        texts: TextStore,
        *,
        bucket: str | None = None,
        max_inline_response_bytes: int = MAX_INLINE_RESPONSE_BYTES,
        max_upload_bytes: int = MAX_UPLOAD_BYTES,
    ) -> None:
        self.namespaces = namespaces
        self.blobs = blobs
        self.texts = texts
        self.storages = storage_registry(blobs, texts)
        self.bucket = bucket
        self.max_inline_response_bytes = max_inline_response_bytes
        self.max_upload_bytes = max_upload_bytes
