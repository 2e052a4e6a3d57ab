"""Use case: build the conversation index for data stored before it, or repair it (`offprompt-admin reindex <tenant>
| --all`, docs/adr/0048-conversation-index.md).

The table's run items (of one tenant, or every tenant's) are read page by page (a filtered whole-table Scan, as the
tenant index backfill reads it) and each page indexed as the stream indexer indexes written runs
(`index_changes`): idempotent (a run's document is replaced, never doubled), so a reindex can run beside the live
stream and be repeated. The forks' thread items on each page get their fork registry entry again (what a prefix
search reads instead of listing the threads, docs/adr/0064): the backfill for forks made before it. Resumable: each
page's position is reported (`progress`), and a reindex started from a position goes on after it; a page that fails
stops the reindex with the position to resume from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from offprompt.errors import DependencyUnavailable
from offprompt.services.conversation_index.context import Indexing, RunScan
from offprompt.services.conversation_index.index_changes import index_changes


@dataclass
class ReindexReport:
    runs: int = 0
    indexed: int = 0
    skipped: int = 0
    #: Forks whose fork registry entry the reindex wrote (again): docs/adr/0064.
    forks: int = 0
    pages: int = 0
    #: Where a later reindex goes on from (None: the whole table was read).
    position: str | None = None
    complete: bool = False

    def to_dict(self) -> dict[str, object]:
        return {
            "runs": self.runs,
            "indexed": self.indexed,
            "skipped": self.skipped,
            "forks": self.forks,
            "pages": self.pages,
            "complete": self.complete,
            **({} if self.complete else {"resume_from": self.position}),
        }


def reindex(
    ctx: Indexing,
    scan: RunScan,
    tenant: str | None,
    *,
    start: str | None = None,
    max_pages: int | None = None,
    progress: Callable[[ReindexReport], None] | None = None,
) -> ReindexReport:
    """Index every run item of `tenant` (None: all), from `start` on, at most `max_pages` Scan pages."""
    report = ReindexReport(position=start)
    while max_pages is None or report.pages < max_pages:
        changes, after, forks = scan.run_changes_page(tenant, report.position)
        outcome = index_changes(ctx, changes)
        if outcome.failed:
            raise DependencyUnavailable(
                f"the reindex stopped: {len(outcome.failed)} runs of a page were not indexed; resume from "
                f"{report.position!r}"
            )
        report.runs += len(changes)
        report.indexed += outcome.indexed
        report.skipped += outcome.skipped
        report.forks += forks
        report.pages += 1
        report.position = after
        if progress is not None:
            progress(report)
        if after is None:
            report.complete = True
            break
    return report
