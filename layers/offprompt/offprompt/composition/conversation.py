"""The conversation service built from settings: the process's default service and the local-stack summarizer hook.

The composition root for conversation memory (docs/adr/0018-composition-root.md): adapters are built here, never
in `offprompt.services`.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from offprompt.config import Settings
from offprompt.services.conversation.service import ConversationService

if TYPE_CHECKING:
    from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer
    from offprompt.adapters.tokenizer import TiktokenTokenizer
    from offprompt.ports import Summarizer
    from offprompt.services.conversation.cloud_threads import CloudThreadsService

# The local stack (no Bedrock there) installs a labelled stand-in here once, at start-up; Lambda never does.
_summarizer_override: Summarizer | None = None


def set_summarizer_override(summarizer: Summarizer | None) -> None:
    """Use `summarizer` instead of Bedrock in services built after this call (local stack only)."""
    global _summarizer_override
    _summarizer_override = summarizer


def tokenizer_class() -> type[TiktokenTokenizer] | type[BpeOpenAiTokenizer]:
    """The token counter: bpe-openai's Rust BPE where its extension is installed (the text layer; ~25 ms to load
    instead of tiktoken's ~80-105 ms on a cold start), else tiktoken. Both give the same tokens and counts for both
    encodings (tests/unit/test_bpe_tokenizer.py); docs/adr/0069."""
    from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer, bindings_installed
    from offprompt.adapters.tokenizer import TiktokenTokenizer

    return BpeOpenAiTokenizer if bindings_installed() else TiktokenTokenizer


def service_from_settings(settings: Settings) -> ConversationService:
    """DynamoDB runs, BPE counts (`tokenizer_class`), S3 for large runs (when a bucket is set), Bedrock (or the
    override) summaries."""
    from offprompt.adapters.bedrock import BedrockSummarizer
    from offprompt.adapters.dynamodb_runs import DynamoDbRunStore
    from offprompt.adapters.s3 import S3RunBodies

    counter = tokenizer_class()
    tokenizer = counter()
    return ConversationService(
        DynamoDbRunStore(settings.require("table_name")),
        tokenizer,
        blobs=S3RunBodies(settings.bucket_name) if settings.bucket_name else None,
        summarizer=_summarizer_override or BedrockSummarizer(settings.summary_model_id),
        summarize_mode=settings.summarize_mode,
        encodings=counter,
        # add-run counts only when the tokenizer is loaded already (docs/adr/0040); a SnapStart hook loads it
        count_on_add=lambda: tokenizer.loaded,
    )


@functools.cache
def default_service() -> ConversationService:
    """The process's service, built from the environment on first use (never at import)."""
    from offprompt.config import get_settings

    return service_from_settings(get_settings())


@functools.cache
def default_cloud_threads() -> CloudThreadsService:
    """The Griptape Cloud-compatible Threads API over the process's conversation service."""
    from offprompt.services.conversation.cloud_threads import CloudThreadsService

    return CloudThreadsService(default_service())


def prime_conversation() -> None:
    """What a warm conversation function holds (SnapStart's before-snapshot hook, docs/adr/0040): the service,
    the DynamoDB (and S3) clients and the tokenizer."""
    from offprompt.adapters.clients import aws_client

    service = default_service()
    service.tokenizer.count_tokens("")  # builds the process's encoding (either tokenizer_class)
    aws_client("dynamodb")
    if service.blobs is not None:
        aws_client("s3")
