"""Conversation threads: the thread record, its runs (one item each), forks, aliases, summaries and big runs'
bodies (DynamoDB, S3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from offprompt.ports.blobs import BlobStore

if TYPE_CHECKING:
    from collections.abc import Iterator

    from offprompt.metering import Charge


@dataclass(frozen=True)
class ThreadState:
    """A conversation thread's record: configuration, the run sequence counter and the summary state."""

    tenant: str
    thread_id: str
    exists: bool = False
    next_seq: int = 0  # the last sequence number handed out (0: none yet)
    memory_type: Literal["buffer", "summary"] = "buffer"
    max_runs: int | None = None
    offset: int = 1
    retention_days: int | None = None
    summary: str | None = None
    summary_through_seq: int = 0  # runs with seq <= this are folded into `summary`
    summary_version: int = 0  # bumped by every committed summary (compare-and-swap)
    burned_seqs: int = 0  # sequence numbers handed out that never became a run (retries, failures)
    # Sum of the stored token counts of every run allocated (burned and pruned ones too; a run stored uncounted adds
    # an estimate from its size, docs/adr/0040): with next_seq, the thread's average run size, which sizes
    # prompt-stack's first Query page. 0 on threads older than it.
    run_tokens: int = 0
    created_at: str | None = None
    updated_at: str | None = None
    summary_updated_at: str | None = None
    generation: str | None = None  # this incarnation of the thread: a delete ends it, and `put_run` checks it
    # Set through the Griptape Cloud-compatible Threads API (`/api/threads`); None for threads made elsewhere.
    name: str | None = None
    alias: str | None = None
    metadata_json: str | None = None  # the thread's `metadata` object as JSON
    # The number of stored runs, kept by the same transactions that add, prune and delete runs; None when it
    # cannot be trusted (a thread older than the count, or one with runs that expire: TTL deletes them unseen,
    # and readers hide expired runs before TTL deletes them), so callers count the runs instead.
    run_count: int | None = None
    # The run counter as read, trusted or not (the condition of `record_run_count`'s write-back).
    run_count_read: int | None = None
    # What the thread holds, fixed when it is created (docs/adr/0033): Griptape runs ("runs", also every thread
    # older than the field) or a framework session's items ("items": OpenAI Agents SDK / Strands entries).
    kind: Literal["runs", "items"] = "runs"
    # Forks (docs/adr/0037): the chain of (ancestor thread id, through_seq) this thread reads below its own runs,
    # nearest first, through_seq strictly decreasing (empty: not a fork); `fork_of` the thread it was forked from.
    ancestry: tuple[tuple[str, int], ...] = ()
    fork_of: str | None = None
    fork_request: str | None = None  # the request id of the fork that made it (a retry converges on it)
    # Who the thread's conversation is with (a thread setting): extraction strategies' `{actor_id}` (docs/adr/0051).
    actor_id: str | None = None
    # Live forks reading this thread's runs, and while there are any, the highest seq one of them reads: max_runs
    # pruning keeps every run <= fork_hold, a delete is refused (409 thread_has_forks).
    fork_count: int = 0
    fork_hold: int = 0
    # Bumped by every fork's hold and release, max_runs prune and pop; each of those conditions on the one it
    # planned with (docs/concurrency.md). 0 on a thread never forked, pruned or popped. Adds leave it alone.
    version: int = 0


@dataclass(frozen=True)
class ForkSpec:
    """A fork to create (`RunStore.fork_thread`): its id, the parent as read, the chain it reads and its settings."""

    thread_id: str
    parent: ThreadState
    through_seq: int
    ancestry: tuple[tuple[str, int], ...]
    now: str
    summary: str | None = None
    summary_through_seq: int = 0
    run_tokens: int = 0
    request_id: str | None = None


class ThreadExists(Exception):
    """fork_thread: the target thread id is taken."""


class ForkRaced(Exception):
    """fork_thread: the parent changed since it was read (deleted, deleting, or another fork moved its hold)."""


class ThreadHasForks(Exception):
    """delete_thread: live forks still read this thread's runs (nothing was changed)."""


class WrongThreadKind(Exception):
    """The thread holds the other kind of entries (runs vs framework items): its kind is fixed at creation."""

    def __init__(self, kind: str) -> None:
        super().__init__(f"the thread holds {kind}")
        self.kind = kind


class ThreadChanged(Exception):
    """A prune or pop planned with a thread version that moved (a fork took a hold, or another sweep went first):
    nothing was deleted; read the thread again (docs/concurrency.md)."""


class ThreadDeleting(Exception):
    """The thread is being deleted, or was deleted since its sequence number was taken."""


@dataclass(frozen=True)
class StoredRun:
    """One stored run: its Griptape JSON inline, or a pointer to the blob holding it (big runs)."""

    seq: int
    run_id: str
    content_hash: str
    input_tokens: int = 0  # tokens of the rendered user message ("User: ...")
    output_tokens: int = 0  # tokens of the rendered assistant message ("Assistant: ...")
    size: int = 0  # bytes of the run JSON (UTF-8)
    # False: stored without its counts (add-run without a loaded tokenizer, docs/adr/0040); the two counts above are
    # 0 then, and a reader that needs them counts the run itself (prompt-stack, list-runs).
    counted: bool = True
    created_at: str = ""
    run_json: str | None = None
    blob_key: str | None = None
    expires_at: int | None = None
    # The thread's memory type when the run was written: the summarizer's stream filter wakes only for "summary".
    memory_type: str = "buffer"
    # Bytes this run added to its tenant's stored-bytes gauge (hosted mode; 0 when it was not metered, or stored
    # before the gauge was kept per item): what removing it takes off the gauge.
    metered_bytes: int = 0
    # "items" for a framework session's item (docs/adr/0033), written on the item so a stream consumer knows the
    # thread's kind from the item alone (the memory events, docs/adr/0036); runs do not carry it.
    thread_kind: str = "runs"


class RunIdTaken(Exception):
    """put_run found the run id already stored (an idempotent retry, or a conflicting reuse)."""

    def __init__(self, seq: int, content_hash: str, run_id: str = "") -> None:
        super().__init__(f"run id already stored at seq {seq}")
        self.seq = seq
        self.content_hash = content_hash
        self.run_id = run_id


class RunBodyStore(BlobStore, Protocol):
    """Where a run too large for its DynamoDB item keeps its body (S3), and reading any run's body back."""

    def put_body(self, tenant: str, thread_id: str, run_id: str, data: bytes, generation: str) -> str:
        """Store a large run's body where the storage layout puts it; its key (the run item's `blob_key`)."""
        ...

    def drop_thread(self, tenant: str, thread_id: str) -> None:
        """Delete every body the thread owns (a thread delete)."""
        ...

    def run_json(self, stored: StoredRun) -> str:
        """The run's stored JSON: inline in the item, or its S3 body (`DependencyUnavailable` when gone)."""
        ...

    def drop(self, key: str) -> None:
        """Best-effort delete of an orphaned body (a failure is logged, never raised)."""
        ...


class ThreadReads(Protocol):
    """A thread's record by id (strongly consistent reads)."""

    def get_thread(self, tenant: str, thread_id: str) -> ThreadState | None: ...

    def get_threads(self, tenant: str, thread_ids: Sequence[str]) -> dict[str, ThreadState]:
        """The threads among `thread_ids` that exist and are not being deleted, by id: batch reads (≤ 100 items
        each), strongly consistent."""
        ...


class ThreadListing(Protocol):
    """The tenant's threads, a page at a time (through the tenant index)."""

    def list_threads(
        self,
        tenant: str,
        *,
        limit: int,
        after: str | None = None,
        prefix: str | None = None,
        order: Literal["activity", "id"] = "activity",
        whole: bool = False,
    ) -> tuple[list[ThreadState], str | None]:
        """A page of the tenant's threads (no summary text or metadata), the most recently written first
        (`activity`) or by id, after an opaque position:
        those after `after` whose id starts with `prefix`, at most `limit`, and the position to continue after (None:
        nothing is left). Through the tenant index, never a table Scan; reads only the page's thread items;
        eventually consistent (a thread created a moment ago may be missing). `whole`: each listed thread's state
        read whole and strongly consistent, as `get_threads` reads it (conversation search decides on them)."""
        ...


class ThreadSettings(Protocol):
    """A thread's settings and Threads API fields (creating the thread)."""

    def configure(
        self, tenant: str, thread_id: str, changes: dict[str, object], now: str, *, runs_only: bool = False
    ) -> ThreadState:
        """Create or update the thread's settings (None removes one). `runs_only`: the changes hold a setting only
        a runs thread honours, refused on an items thread (WrongThreadKind("items"), nothing changed); an
        undecided thread so configured holds runs from then on (its first append of items is refused)."""
        ...

    def set_thread_fields(self, tenant: str, thread_id: str, fields: dict[str, str], now: str) -> ThreadState:
        """Set `name`, `alias` and/or `metadata_json` on the thread record (creating it); returns the new state."""
        ...


class ThreadSummaries(Protocol):
    """The summary of a summary-memory thread (compare-and-swap)."""

    def commit_summary(
        self, tenant: str, thread_id: str, *, summary: str, through_seq: int, expected_version: int, now: str
    ) -> bool:
        """Compare-and-swap the summary; False when another summary was committed first (or covers more)."""
        ...


class ThreadDeletes(Protocol):
    """Deleting a thread: marked, emptied, then released."""

    def delete_thread(self, tenant: str, thread_id: str) -> int:
        """`ThreadHasForks` (nothing changed) while live forks hold the thread. A fork's delete releases its hold
        on the thread it reads, in the same write as its delete mark.

        Mark the thread deleting (adds in flight can no longer commit, new ones are refused; readers see an
        unknown thread), then delete every item but the marked thread item; `release_thread` ends it."""
        ...

    def release_thread(self, tenant: str, thread_id: str) -> None:
        """Delete the marked thread item once everything else is gone: the id can be used again."""
        ...


class ThreadForks(Protocol):
    """Forks (docs/adr/0037): a new thread reading its parent's runs up to a point."""

    def fork_thread(self, tenant: str, spec: ForkSpec) -> ThreadState:
        """Create the fork's thread item (only if the id is free: `ThreadExists`) and, when it reads the parent's
        runs, count it on the thread it holds (`spec.ancestry[0]`: fork_count + 1, fork_hold raised), conditioned
        on that thread being unchanged since read (`ForkRaced`): one transaction, whatever the history's length.
        A fork that reads runs is recorded in the tenant's fork registry in the same transaction (docs/adr/0064);
        its delete's mark removes it."""
        ...

    def forks_under(self, tenant: str, prefix: str) -> dict[str, tuple[tuple[str, int], ...]]:
        """The tenant's live forks that read another thread's runs and whose ids start with `prefix`, each with its
        ancestry (nearest first): one key Query of the fork registry (`begins_with` on the sort key), never a
        listing of the threads under the prefix (docs/adr/0064)."""
        ...


class ThreadAliases(Protocol):
    """A tenant's aliases of threads (Griptape Cloud's `alias`, unique per tenant)."""

    def claim_alias(self, tenant: str, alias: str, thread_id: str, *, replace: str | None = None) -> bool:
        """Point the tenant's `alias` at `thread_id` if it is free (or still points at `replace`); False if taken."""
        ...

    def alias_target(self, tenant: str, alias: str) -> str | None:
        """The thread id the tenant's alias points at, or None."""
        ...

    def release_alias(self, tenant: str, alias: str, thread_id: str) -> None:
        """Delete the alias if it still points at `thread_id`."""
        ...


class RunLog(Protocol):
    """Writing a thread's runs: sequence numbers, runs in and out, the counts kept with them."""

    def allocate_seq(
        self, tenant: str, thread_id: str, now: str, tokens: int = 0, count: int = 1, kind: str = "runs"
    ) -> ThreadState:
        """Atomically take the next `count` sequence numbers (creating the thread; the state's `next_seq` is the
        last of them) and add `tokens` (the runs' stored counts) to the thread's `run_tokens`.
        `ThreadDeleting` while a delete of the thread is unfinished; `WrongThreadKind` (nothing changed) when the
        thread holds the other `kind` ("runs" or "items"; a thread that never held an entry takes "items")."""
        ...

    def record_burned(self, tenant: str, thread_id: str, count: int = 1) -> None:
        """Count `count` sequence numbers given out that no run will ever have (a failed or replayed add)."""
        ...

    def put_run(
        self, tenant: str, thread_id: str, run: StoredRun, generation: str, charge: Charge | None = None
    ) -> None:
        """Store a run and its run-id record together; raise RunIdTaken if the run id is already stored, and
        `ThreadDeleting` (storing nothing) if the thread was deleted since `allocate_seq` gave `generation`.

        `charge` (hosted mode) is committed in the same write, under the plan's limits: QuotaExceeded (nothing
        stored, nothing charged) when a limit refuses it. The run then carries `metered_bytes` = its stored bytes,
        which its deletion takes off the gauge."""
        ...

    def put_runs(
        self, tenant: str, thread_id: str, runs: Sequence[StoredRun], generation: str, charge: Charge | None = None
    ) -> None:
        """`put_run` for several runs of one thread in one write (all or none): RunIdTaken when any run id is
        already stored (nothing is written then)."""
        ...

    def pop_run(self, tenant: str, thread_id: str, run: StoredRun, *, version: int) -> bool:
        """Delete `run` (and its run id) only if it is still stored, with the thread's counts and the tenant's
        gauge, in one transaction, the thread still at `version` (bumped): True when this call deleted it, False
        when another delete took it first; ThreadChanged when the thread moved, ThreadDeleting when it is being
        deleted."""
        ...

    def delete_runs(
        self, tenant: str, thread_id: str, runs: Sequence[StoredRun], *, version: int | None = None
    ) -> None:
        """Delete the runs (and their ids); the thread's run count and the tenant's stored-bytes gauge go down by
        exactly what was deleted (a run already gone counts nothing). With `version` (a sweep's plan), each
        transaction also checks the thread is still at the version planned with and bumps it: ThreadChanged, and
        nothing more deleted, when it moved."""
        ...

    def record_run_count(self, state: ThreadState, count: int) -> None:
        """Record a thread's counted runs (`count`, every stored run, expired or not) so later reads trust
        `run_count`; a no-op when a run was added or deleted since `state` was read (the next read counts again)."""
        ...


class RunReads(Protocol):
    """Reading a thread's runs (through a fork's ancestry)."""

    def get_run(
        self, tenant: str, thread_id: str, seq: int, ancestry: Sequence[tuple[str, int]] = ()
    ) -> StoredRun | None:
        """The run at `seq`; with a fork's `ancestry` (`ThreadState.ancestry`), read where that seq lives."""
        ...

    def get_runs(self, tenant: str, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], StoredRun]:
        """The runs (or items) stored at these (thread whose partition holds it, seq) keys, by key; missing ones
        left out, expired ones TTL has not deleted yet included: batch reads, strongly consistent."""
        ...

    def run_seq(self, tenant: str, thread_id: str, run_id: str, ancestry: Sequence[tuple[str, int]] = ()) -> int | None:
        """The sequence number of the stored run with this id, or None (one read of its run-id record; through a
        fork's `ancestry`, one per segment at most, an ancestor's run only at or before where the fork reads it)."""
        ...

    def page_runs(
        self,
        tenant: str,
        thread_id: str,
        *,
        lo: int,
        hi: int | None,
        newest_first: bool,
        limit: int,
        now_epoch: int,
        keys_only: bool = False,
        ancestry: Sequence[tuple[str, int]] = (),
    ) -> tuple[list[StoredRun], int | None]:
        """Unexpired runs with lo <= seq <= hi, one page; returns (runs, seq to continue after or None).

        With a fork's `ancestry` (`ThreadState.ancestry`, docs/adr/0037), over its combined history: its own runs,
        then each ancestor's up to where the chain reads it; segments past `limit` runs are not read."""
        ...

    def iter_keys(
        self,
        tenant: str,
        thread_id: str,
        *,
        lo: int,
        newest_first: bool,
        now_epoch: int,
        hi: int | None = None,
        ancestry: Sequence[tuple[str, int]] = (),
    ) -> Iterator[StoredRun]:
        """Every unexpired run in [lo, hi], keys and counts only, one Query page after another (through a fork's
        `ancestry`)."""
        ...

    def iter_full(
        self, tenant: str, thread_id: str, *, lo: int, now_epoch: int, ancestry: Sequence[tuple[str, int]] = ()
    ) -> Iterator[StoredRun]:
        """Every unexpired run from `lo` on, oldest first, with its item (inline body or body key)."""
        ...


class ExpiredRuns(Protocol):
    """Runs TTL deleted, taken off the tenant's stored-bytes gauge (the stream's REMOVE records)."""

    def release_expired(self, tenant: str, thread_id: str, event_id: str, metered_bytes: int) -> bool:
        """Take a run that TTL deleted off its tenant's stored-bytes gauge, once per stream record `event_id`."""
        ...


class ThreadHistory(ThreadReads, RunReads, Protocol):
    """A thread's record and its runs, read only (what a stream consumer or the extraction runner reads)."""


class RunStore(
    ThreadReads,
    ThreadListing,
    ThreadSettings,
    ThreadSummaries,
    ThreadDeletes,
    ThreadForks,
    ThreadAliases,
    RunLog,
    RunReads,
    ExpiredRuns,
    Protocol,
):
    """Runs of conversation threads, one item per run, ordered by a per-thread sequence number (DynamoDB): every
    concern above, as the one adapter (`adapters.dynamodb_runs.DynamoDbRunStore`) implements them. A use case that
    needs one concern may take its narrow protocol."""
