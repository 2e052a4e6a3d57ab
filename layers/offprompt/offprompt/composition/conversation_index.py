"""The conversation index built from settings (docs/adr/0048-conversation-index.md): the OpenSearch index of runs
(in the one index task memory and records share, with their embedder), the stream indexer's ports, search's optional
rerank model (docs/adr/0068), and the local stack's / tests' hooks. Nothing is built at import; the index connects on
first use (`LazyRecordIndex`'s way)."""

from __future__ import annotations

import functools
from typing import cast

from offprompt.composition.records import LazyRecordIndex, shared_index_parts
from offprompt.config import Settings
from offprompt.ports import ConversationIndex, Embedder, Reranker
from offprompt.services.conversation_index.context import Indexing, RunScan

# The local stack or a test installs an index here; Lambda never does.
_index_override: ConversationIndex | None = None
# The local stack (no Bedrock there) installs a labelled stand-in embedder here, as for task memory and records.
_embedder_override: Embedder | None = None


def set_embedder_override(embedder: Embedder | None) -> None:
    """Use `embedder` instead of Bedrock Titan in conversation indexes built after this call (local stack only)."""
    global _embedder_override
    _embedder_override = embedder
    default_indexing.cache_clear()
    default_conversation_index.cache_clear()


def set_conversation_index_override(index: ConversationIndex | None) -> None:
    """Use `index` instead of the OpenSearch conversation index in what is built after this call."""
    global _index_override
    _index_override = index
    default_indexing.cache_clear()
    default_conversation_index.cache_clear()


def conversation_index_from_settings(settings: Settings) -> ConversationIndex:
    """The override, else the OpenSearch conversation index, built (and connected) on first use."""
    if _index_override is not None:
        return _index_override
    return cast(ConversationIndex, LazyRecordIndex(functools.partial(_opensearch_index, settings)))  # type: ignore[arg-type]


def _opensearch_index(settings: Settings) -> ConversationIndex:
    from offprompt.adapters.opensearch_conversations import OpenSearchConversationIndex

    client, embedder, mode = shared_index_parts(settings, _embedder_override)
    return OpenSearchConversationIndex(client, settings.opensearch_index, embedder, mode=mode)


def indexing_from_settings(settings: Settings) -> Indexing:
    """The stream indexer's ports: runs in DynamoDB, big run bodies in S3 (when a bucket is set), the index, and the
    runs' items keeping the ids a Serverless collection gives their documents."""
    from offprompt.adapters.dynamodb_conversation_docs import DynamoDbConversationDocIds
    from offprompt.adapters.dynamodb_runs import DynamoDbRunStore
    from offprompt.adapters.s3 import S3RunBodies
    from offprompt.adapters.stream_runs import StreamRunDecoder
    from offprompt.services.conversation.context import InlineRunBodies

    bodies = S3RunBodies(settings.bucket_name) if settings.bucket_name else InlineRunBodies()
    table = settings.require("table_name")
    return Indexing(
        DynamoDbRunStore(table),
        bodies,
        conversation_index_from_settings(settings),
        StreamRunDecoder(),
        DynamoDbConversationDocIds(table),
    )


@functools.cache
def default_conversation_index() -> ConversationIndex:
    """The process's index for the search route (`POST /threads/search`, docs/adr/0049): built from the environment
    on first use, connected on its first call."""
    from offprompt.config import get_settings

    return conversation_index_from_settings(get_settings())


def reranker_from_settings(settings: Settings) -> Reranker | None:
    """The Bedrock rerank model when `OFFPROMPT_RERANK_MODEL_ID` is set (locally too: botocore's
    AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME points it at a server), else None: search answers the fused order."""
    if not settings.rerank_model_id:
        return None
    from offprompt.adapters.bedrock_rerank import BedrockReranker

    return BedrockReranker(settings.rerank_model_id)


@functools.cache
def default_reranker() -> Reranker | None:
    """The process's rerank model for conversation search, built from the environment on first use (its client on
    its first call)."""
    from offprompt.config import get_settings

    return reranker_from_settings(get_settings())


@functools.cache
def default_indexing() -> Indexing:
    """The process's indexer, built from the environment on first use (never at import)."""
    from offprompt.config import get_settings

    return indexing_from_settings(get_settings())


def run_scan_from_settings(settings: Settings) -> RunScan:
    """The table's run items page by page (`offprompt-admin reindex`)."""
    from offprompt.adapters.tenant_items import DynamoDbTenantItems

    return DynamoDbTenantItems(settings.require("table_name"))
