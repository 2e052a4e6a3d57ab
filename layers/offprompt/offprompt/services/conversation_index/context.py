"""The ports the conversation indexer uses (built by `offprompt.composition.conversation_index`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from offprompt.ports import ConversationIndex, RunChange, RunChangeDecoder
from offprompt.ports.threads import RunReads
from offprompt.services.events.context import RunBodies


class DocumentIds(Protocol):
    """Where a run's search document ids are kept when only the engine names them (OpenSearch Serverless): on the
    run's item, so whatever removes the run finds them (docs/adr/0048)."""

    def remember(
        self, tenant: str, thread_id: str, seq: int, run_id: str, ids: Sequence[str]
    ) -> tuple[str, ...] | None:
        """Keep `ids` on run `run_id`'s item: the ids it named before, or None when the item is gone or holds
        another run (nothing kept: the caller deletes those documents)."""
        ...


@dataclass(frozen=True)
class Indexing:
    """What the indexer reads runs with (DynamoDB, S3 for big runs), the index it writes, how it reads a change, and
    where it keeps the ids the index names (None: the index's ids are the runs' own, a managed domain)."""

    runs: RunReads
    bodies: RunBodies
    index: ConversationIndex
    decoder: RunChangeDecoder
    doc_ids: DocumentIds | None = None


class RunScan(Protocol):
    """The table's run items (and forks' thread items), page by page (a whole-table read: `offprompt-admin reindex`)."""

    def run_changes_page(self, tenant: str | None, position: str | None) -> tuple[list[RunChange], str | None, int]:
        """One page: the run changes that index its runs, where the next page begins (None: the end), and how many
        forks on it got their fork registry entry again (docs/adr/0064)."""
        ...
