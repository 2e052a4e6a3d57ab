"""Long-term records built from settings (docs/adr/0034-records.md): the process's default `Records`, its record
index built on first use, and the local stack's / tests' override hook.

The composition root for records (docs/adr/0018-composition-root.md): adapters are built here, never in
`offprompt.services`. The OpenSearch record index (`offprompt.adapters.opensearch_records`) is imported inside the
factory and built on the first call that needs it (`LazyRecordIndex`): routes that never search or index (a get, a
delete, a put with `index: false`) never configure or connect OpenSearch.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, Literal, cast

from offprompt.config import Settings
from offprompt.ports import Embedder, RecordIndex
from offprompt.services.records.context import Records

# The local stack or a test installs a record index here; Lambda never does.
_index_override: RecordIndex | None = None
# The local stack (no Bedrock there) installs a labelled stand-in embedder here, as for task memory.
_embedder_override: Embedder | None = None


def set_embedder_override(embedder: Embedder | None) -> None:
    """Use `embedder` instead of Bedrock Titan in record indexes built after this call (local stack only)."""
    global _embedder_override
    _embedder_override = embedder


def set_record_index_override(index: RecordIndex | None) -> None:
    """Use `index` instead of the OpenSearch record index in `Records` built after this call."""
    global _index_override
    _index_override = index


class LazyRecordIndex:
    """A RecordIndex built on first use. Attribute access hands out the built index's own bound methods, so this
    module is never on the stack of an OpenSearch call (tests/infrastructure/test_call_depth.py)."""

    def __init__(self, build: Callable[[], RecordIndex]) -> None:
        self._build = build
        self._built: RecordIndex | None = None
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if self._built is None:
            with self._lock:
                if self._built is None:
                    self._built = self._build()
        return getattr(self._built, name)


def records_from_settings(settings: Settings) -> Records:
    """DynamoDB records, S3 for big values (when a bucket is set), the OpenSearch record index built on first use."""
    from offprompt.adapters.dynamodb_records import DynamoDbRecordStore
    from offprompt.adapters.s3 import InlineRecordBodies, S3RecordBodies

    bucket = settings.bucket_name
    index = _index_override or cast(
        RecordIndex, LazyRecordIndex(functools.partial(record_index_from_settings, settings))
    )
    return Records(
        DynamoDbRecordStore(settings.require("table_name")),
        S3RecordBodies(bucket) if bucket else InlineRecordBodies(),
        index,
        big_values=bool(bucket),
    )


def record_index_from_settings(settings: Settings) -> RecordIndex:
    """The OpenSearch record index (and its embedder: the local override, else Titan when configured)."""
    from offprompt.adapters.opensearch_records import OpenSearchRecordIndex

    client, embedder, mode = shared_index_parts(settings, _embedder_override)
    return OpenSearchRecordIndex(client, settings.opensearch_index, embedder, mode=mode)


def shared_index_parts(
    settings: Settings, embedder_override: Embedder | None
) -> tuple[Any, Embedder | None, Literal["provisioned", "serverless"]]:
    """What an adapter of the shared index (records, conversations) is built with: a client, the embedder (the
    override, else Titan when configured, else none) and the mode."""
    from offprompt.adapters.embeddings import BedrockTitanEmbedder
    from offprompt.adapters.opensearch_client import build_opensearch_client

    client = build_opensearch_client(settings.require("opensearch_url"), settings.opensearch_auth)
    embedder: Embedder | None = embedder_override
    if embedder is None and settings.embedding_model_id:
        embedder = BedrockTitanEmbedder(settings.embedding_model_id, settings.embedding_dimensions)
    mode: Literal["provisioned", "serverless"] = (
        "serverless" if settings.opensearch_mode == "serverless" else "provisioned"
    )
    return client, embedder, mode


@functools.cache
def default_records() -> Records:
    """The process's records, built from the environment on first use (never at import)."""
    from offprompt.config import get_settings

    return records_from_settings(get_settings())
