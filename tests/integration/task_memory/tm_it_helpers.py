"""Task-memory integration fixtures: moto DynamoDB/S3 plus the REAL OpenSearchTextStore on the local node."""

from __future__ import annotations

import functools
import hashlib
import math
import re
from collections.abc import Sequence
from typing import Any

import task_memory_support as support
from task_memory_support import http_event

TABLE = "offprompt-it"
BUCKET = "offprompt-it-bucket"
DIMENSIONS = 1024


class HashingEmbedder:
    """A deterministic bag-of-words embedder (Bedrock is not available locally): similar words → similar vectors."""

    dimensions = DIMENSIONS

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            vec = [0.0] * DIMENSIONS
            for word in re.findall(r"\w+", text.lower()):
                vec[int(hashlib.md5(word.encode()).hexdigest(), 16) % DIMENSIONS] += 1.0
            norm = math.sqrt(sum(v * v for v in vec)) or 1.0
            vec = [v / norm for v in vec] if any(vec) else [1.0 / math.sqrt(DIMENSIONS)] * DIMENSIONS
            out.append(vec)
        return out


def opensearch_text_store(client: Any, index: str, embedder: Any = None) -> Any:
    from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer
    from offprompt.adapters.opensearch_text import OpenSearchTextStore

    return OpenSearchTextStore(client, index, BpeOpenAiTokenizer(), embedder)


make_resources = functools.partial(support.make_resources, TABLE, BUCKET)
all_items = functools.partial(support.all_items, TABLE)
all_objects = functools.partial(support.all_objects, BUCKET)


def doc_count(client: Any, index: str) -> int:
    client.indices.refresh(index=index)
    return int(client.count(index=index)["count"])


class Ctx:
    aws_request_id = "it-request"
    function_name = "it"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:it"


def call(handler: Any, event: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
    return support.call(handler, event, Ctx())


__all__ = [
    "BUCKET",
    "TABLE",
    "Ctx",
    "HashingEmbedder",
    "all_items",
    "all_objects",
    "call",
    "doc_count",
    "http_event",
    "make_resources",
    "opensearch_text_store",
]
