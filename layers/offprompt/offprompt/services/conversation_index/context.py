"""The ports the conversation indexer uses (built by `offprompt.composition.conversation_index`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from offprompt.ports import ConversationIndex, RunChangeDecoder, RunStore, StoredRun


class RunBodies(Protocol):
    def run_json(self, stored: StoredRun) -> str: ...


@dataclass(frozen=True)
class Indexing:
    """What the indexer reads runs with (DynamoDB, S3 for big runs), the index it writes, and how it reads a change."""

    runs: RunStore
    bodies: RunBodies
    index: ConversationIndex
    decoder: RunChangeDecoder
