"""The task-memory service built from settings: the process's default service, its storage registry, its lazily
built text store and the local-stack embedder hook.

The composition root for task memory (docs/adr/0018-composition-root.md): adapters are built here, never in
`offprompt.services`.
"""

from __future__ import annotations

import functools
from typing import cast

from offprompt.config import Settings
from offprompt.limits import MAX_INLINE_RESPONSE_BYTES, MAX_UPLOAD_BYTES
from offprompt.memory.task import StorageKind
from offprompt.ports import ArtifactStorage, BlobStore, Embedder, NamespaceStore, ReceiptStore, TextStore
from offprompt.services.task_memory.service import TaskMemoryService

# The local stack (no Bedrock there) installs a labelled stand-in here once, at start-up; Lambda never does.
_embedder_override: Embedder | None = None


def set_embedder_override(embedder: Embedder | None) -> None:
    """Use `embedder` instead of Bedrock Titan in text stores built after this call (local stack only)."""
    global _embedder_override
    _embedder_override = embedder


def service_from_settings(settings: Settings) -> TaskMemoryService:
    """DynamoDB namespaces, S3 blobs in the required bucket, and OpenSearch text built only when text is used."""
    from offprompt.adapters.dynamodb_namespaces import DynamoDbNamespaceStore
    from offprompt.adapters.opensearch_text import LazyTextStore
    from offprompt.adapters.s3 import S3BlobStore

    bucket = settings.require("bucket_name")
    return task_memory_service(
        DynamoDbNamespaceStore(settings.require("table_name")),
        S3BlobStore(bucket),
        LazyTextStore(functools.partial(text_store_from_settings, settings)),
        bucket=bucket,
    )


def task_memory_service(
    namespaces: NamespaceStore,
    blobs: BlobStore,
    texts: TextStore,
    *,
    bucket: str | None = None,
    max_inline_response_bytes: int = MAX_INLINE_RESPONSE_BYTES,
    max_upload_bytes: int = MAX_UPLOAD_BYTES,
) -> TaskMemoryService:
    """The service over these ports, with the storage registry and the batch manifests built on them."""
    from offprompt.adapters import layout
    from offprompt.adapters.s3 import S3BatchManifests

    return TaskMemoryService(
        namespaces,
        blobs,
        texts,
        storages=storage_registry(blobs, texts),
        manifests=S3BatchManifests(blobs, layout),
        keys=layout,
        bucket=bucket,
        max_inline_response_bytes=max_inline_response_bytes,
        max_upload_bytes=max_upload_bytes,
    )


def storage_registry(blobs: BlobStore, texts: TextStore) -> dict[StorageKind, ArtifactStorage]:
    """Task memory's storages by kind (Griptape's `artifact_storages`), in the order a namespace delete visits
    them (S3 first). A new kind of storage is one adapter class and one entry here."""
    from offprompt.adapters import layout
    from offprompt.adapters.opensearch_text import TextStorage
    from offprompt.adapters.s3 import S3BlobStorage

    return {StorageKind.BLOB: S3BlobStorage(blobs, layout), StorageKind.TEXT: TextStorage(texts)}


def text_store_from_settings(settings: Settings) -> TextStore:
    """The OpenSearch text store (and its embedder: the override, else Titan when configured), built on first use."""
    from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer
    from offprompt.adapters.embeddings import BedrockTitanEmbedder
    from offprompt.adapters.opensearch_client import build_opensearch_client
    from offprompt.adapters.opensearch_text import OpenSearchTextStore
    from offprompt.adapters.s3_text_records import S3TextRecords

    client = build_opensearch_client(settings.require("opensearch_url"), settings.opensearch_auth)
    embedder: Embedder | None = _embedder_override
    if embedder is None and settings.embedding_model_id:
        embedder = BedrockTitanEmbedder(settings.embedding_model_id, settings.embedding_dimensions)
    # No refresh to wait for: a store returns once its text is durable and loadable (load reads by id, in real
    # time); search sees it within the index's refresh interval (1 s on a domain). A request that needs to search
    # at once asks for `consistency: "search"` (docs/adr/0031-store-without-waiting-for-search.md).
    # Chunking counts with bpe-openai's Rust BPE: tiktoken's counts at ~2x the speed (docs/adr/0025); conversation
    # functions keep tiktoken, so only task-memory functions load its 74 MB extension.
    tokenizer = BpeOpenAiTokenizer()
    if settings.opensearch_mode == "serverless":
        # OpenSearch Serverless: no refresh to wait for (search sees a store at the collection's pace); the exact
        # text and its server-generated document ids are kept in S3 for load and delete (docs/adr/0030).
        records = S3TextRecords(settings.require("bucket_name"))
        serverless = OpenSearchTextStore(
            client, settings.opensearch_index, tokenizer, embedder, mode="serverless", records=records
        )
        return cast(TextStore, serverless)
    store = OpenSearchTextStore(client, settings.opensearch_index, tokenizer, embedder)
    return cast(TextStore, store)


@functools.cache
def default_service() -> TaskMemoryService:
    """The process's service, built from the environment on first use (never at import)."""
    from offprompt.config import get_settings

    return service_from_settings(get_settings())


@functools.cache
def default_receipts() -> ReceiptStore:
    """The process's idempotency-key store for process-output (ADR 0026), built on first use."""
    from offprompt.adapters.dynamodb_receipts import DynamoDbReceiptStore
    from offprompt.config import get_settings

    return DynamoDbReceiptStore(get_settings().require("table_name"))


def prime_task_memory() -> None:
    """What a warm task-memory function holds (SnapStart's before-snapshot hook, docs/adr/0040): the service,
    the DynamoDB / S3 clients."""
    from offprompt.adapters.clients import aws_client

    default_service()
    aws_client("dynamodb")
    aws_client("s3")
