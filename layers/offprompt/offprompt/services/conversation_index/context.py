"""The ports the conversation indexer uses (built by `offprompt.composition.conversation_index`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from offprompt.ports import ConversationIndex, RunChange, RunChangeDecoder
from offprompt.ports.threads import RunReads
from offprompt.services.events.context import RunBodies


@dataclass(frozen=True)
class Indexing:
    """What the indexer reads runs with (DynamoDB, S3 for big runs), the index it writes, and how it reads a change."""

    runs: RunReads
    bodies: RunBodies
    index: ConversationIndex
    decoder: RunChangeDecoder


class RunScan(Protocol):
    """The table's run items, page by page (a whole-table read: `offprompt-admin reindex`)."""

    def run_changes_page(self, tenant: str | None, position: str | None) -> tuple[list[RunChange], str | None]: ...
