"""Conversation search (docs/adr/0048, issue 31): the index of runs and session items, and the table
changes that keep it exact."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from offprompt.ports.threads import StoredRun


@dataclass(frozen=True)
class ConversationDoc:
    """One run (or one session item) of a thread as indexed for search: what the stream indexer writes. The index
    proposes candidates; DynamoDB decides (as for records, ADR 0034): a hit is answered only if its run or item is
    still there and visible in the thread searched."""

    tenant: str
    thread_id: str
    kind: Literal["run", "item"]
    #: The run's seq, or the item's position in its session.
    seq: int
    #: The run's id, or the item's id.
    ref_id: str
    created_at: float
    #: The user side (a run's input; an item of role user) and the assistant side (a run's output; other roles).
    input_text: str
    output_text: str
    #: The run's `meta` string values, JSON flattened; "" for none.
    meta_text: str = ""
    #: The text of the run (or item) just before it in the thread, for the turns around a hit ("" for the first).
    context_text: str = ""


@dataclass(frozen=True)
class ThreadCut:
    """A thread searched, up to a seq (a fork's history in its parent stops at the fork point; None: all of it)."""

    thread_id: str
    through_seq: int | None = None


@dataclass(frozen=True)
class ConversationCandidate:
    """A document a retriever proposed, with each retriever's own score (None: that retriever did not return it)."""

    doc: ConversationDoc
    bm25: float | None = None
    knn: float | None = None


class ConversationIndex(Protocol):
    """Runs and session items in OpenSearch, one document per (tenant, thread, kind, seq): indexing the same one
    again replaces it (a retried stream batch makes no duplicate)."""

    def index(self, docs: Sequence[ConversationDoc]) -> list[str | None]:
        """Index the documents; the id each one got where only the engine names it (OpenSearch Serverless), so a
        delete can reach it before search sees it (the caller keeps it on the run's item), else None."""
        ...

    def delete(self, tenant: str, thread_id: str, kind: str, seqs: Sequence[int]) -> None:
        """Delete these documents; missing ones are fine."""
        ...

    def delete_ids(self, ids: Sequence[str]) -> None:
        """Delete the documents of these ids (ones `index` named, kept on the runs' items); missing ones are fine."""
        ...

    def delete_thread(self, tenant: str, thread_id: str) -> None:
        """Delete every document of a thread."""
        ...

    def indexed_through(self, tenant: str, thread_ids: Sequence[str], *, refresh: bool = False) -> dict[str, int]:
        """The highest run seq searchable in each thread (absent: none); `refresh` first makes every indexed
        document searchable where the engine allows it (a provisioned domain). `consistency: "search"` waits on it."""
        ...

    def candidates(
        self,
        tenant: str,
        *,
        bm25_query: str,
        embed_query: str,
        threads: Sequence[ThreadCut] | None,
        thread_prefix: str | None,
        since: float | None,
        until: float | None,
        size: int,
        mode: Literal["hybrid", "bm25", "knn"],
        wait_for_refresh: bool = False,
    ) -> list[ConversationCandidate]:
        """Up to `size` candidates from each retriever the mode uses (BM25 over the text fields, k-NN over the
        embedding), merged by document; only the tenant's, only in `threads` (each up to its cut) and/or under
        `thread_prefix`, only created in [since, until). Candidates only: the caller ranks them and checks each
        against DynamoDB."""
        ...


@dataclass(frozen=True)
class RunChange:
    """A run (or session item) written or removed, read from one change of the table: what the conversation indexer
    keeps the index exact with (docs/adr/0048). `id` names the change (a stream record's `eventID`) for a partial
    batch failure; `run` is the item as written (None for a removal)."""

    id: str
    tenant: str
    thread_id: str
    seq: int
    kind: Literal["run", "item"]
    removed: bool
    run: StoredRun | None = None
    #: The ids of the run's search documents its item named before the change (Serverless, `ConversationIndex.index`).
    doc_ids: tuple[str, ...] = ()


class RunChangeDecoder(Protocol):
    """A change of the table (one stream record, as Lambda delivers it) → the run change it means, or None."""

    def change_of(self, record: Mapping[str, object]) -> RunChange | None: ...
