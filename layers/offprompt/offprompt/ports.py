"""Ports: what the services need from the outside world, as Protocols. Adapters implement them.

Services take ports in their constructors; tests may pass in-memory fakes for pure logic, but every adapter
is also tested against the real thing (moto for DynamoDB/S3, the local OpenSearch node, tiktoken's BPE).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from collections.abc import Iterator

    from offprompt.artifacts import BaseArtifact, TextArtifact
    from offprompt.memory.task import StorageKind
    from offprompt.metering import Charge


class Tokenizer(Protocol):
    encoding_name: str

    def count_tokens(self, text: str) -> int: ...

    def encode(self, text: str) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


class Summarizer(Protocol):
    """Turns Griptape's rendered summarize-conversation prompt into a summary (an LLM call)."""

    def summarize(self, prompt: str) -> str: ...


class Embedder(Protocol):
    dimensions: int

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


# ---- memory events (docs/adr/0036) ------------------------------------------------------------------------------
@dataclass(frozen=True)
class MemoryEvent:
    """One change of a tenant's memory, for bring-your-own extraction: identifiers and sizes, never a value.

    `id` is the change's stream record id (a consumer dedupes on it: a retried batch delivers an event again),
    `type` one of `offprompt.events.EVENT_TYPES`, `time` ISO 8601 UTC."""

    id: str
    type: str
    time: str
    tenant: str
    detail: dict[str, object]

    def to_dict(self) -> dict[str, object]:
        return {"id": self.id, "type": self.type, "time": self.time, "tenant": self.tenant, "detail": self.detail}


class ChangeDecoder(Protocol):
    """A change of the table (one stream record, as Lambda delivers it) → the memory event it means, or None."""

    def event_of(self, record: Mapping[str, object]) -> MemoryEvent | None: ...


@dataclass(frozen=True)
class ExtractedFact:
    """One fact an extractor found in a conversation turn: a record key (an identifier) and its JSON value."""

    key: str
    value: dict[str, object]


class FactExtractor(Protocol):
    """Bring-your-own extraction's model: a turn's text → the facts it states (docs/adr/0036)."""

    label: str

    def extract(self, text: str) -> list[ExtractedFact]: ...


class EventPublisher(Protocol):
    def publish(self, events: Sequence[MemoryEvent]) -> set[str]:
        """Deliver `events`; returns the ids of those that could not be delivered (the adapter retried them)."""
        ...


# ---- extraction strategies (docs/adr/0051) ------------------------------------------------------------------------
@dataclass(frozen=True)
class ModelRequest:
    """One extraction's question: the prompt (system, user) an HTTP model reads, and the same content structured,
    for the local rule-based stand-in: the new turns (run id, text) and what the namespace holds (key, text)."""

    system: str
    user: str
    turns: tuple[tuple[str, str], ...]
    known: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ModelAnswer:
    text: str
    input_tokens: int = 0
    output_tokens: int = 0


class ModelUnavailable(Exception):
    """The model did not answer (timeout, connection refused, 5xx/429 after the retries): nothing was decided."""


class ExtractionModel(Protocol):
    """The model extraction asks (`OFFPROMPT_EXTRACTION_MODEL`: `rules` | `openai:<model>` | `bedrock:<id>`)."""

    label: str

    def complete(self, request: ModelRequest) -> ModelAnswer:
        """The model's answer text (the operations contract is checked by the caller); ModelUnavailable."""
        ...


@dataclass
class ExtractionStatus:
    """Where one strategy stands on one thread."""

    thread_id: str
    strategy: str
    processed_through_seq: int = 0
    records_written: int = 0
    last_error: str | None = None
    paused: str | None = None  # why extraction is paused (the plan's extraction tokens), None when it is not
    failures: int = 0  # consecutive failed attempts (model down, malformed answers): the retry's backoff
    updated_at: str | None = None
    lease: str | None = None  # the attempt holding the thread (until `lease_until`, epoch seconds)
    lease_until: float = 0.0


class ExtractionLeaseTaken(Exception):
    """Another attempt holds the (thread, strategy), or the status moved since it was read."""


class ExtractionStore(Protocol):
    """A tenant's strategies and each thread's extraction status (DynamoDB, the tenant's `XTR#` partition)."""

    def put_strategy(self, tenant: str, strategy: dict[str, Any], *, max_strategies: int) -> dict[str, Any]:
        """Create or replace; `created_at` kept from the stored one. InvalidInput past `max_strategies`."""
        ...

    def get_strategy(self, tenant: str, name: str) -> dict[str, Any] | None: ...

    def list_strategies(self, tenant: str) -> list[dict[str, Any]]: ...

    def delete_strategy(self, tenant: str, name: str) -> bool: ...

    def statuses(self, tenant: str, thread_id: str) -> dict[str, ExtractionStatus]: ...

    def claim(self, tenant: str, status: ExtractionStatus, lease: str, until: float, now: float) -> None:
        """Take the (thread, strategy) for one attempt: conditioned on no live lease and on the status being the one
        read (its `processed_through_seq`); ExtractionLeaseTaken otherwise."""
        ...

    def save(self, tenant: str, status: ExtractionStatus, *, lease: str | None) -> None:
        """Write the status (releasing the lease); with `lease`, only while that lease holds (else
        ExtractionLeaseTaken and nothing written)."""
        ...


class Deferrer(Protocol):
    """Ask again later: a delayed message to the extraction queue (SQS), at most 15 minutes ahead."""

    def defer(self, message: dict[str, Any], seconds: float) -> None: ...


class BlobStore(Protocol):
    """Opaque bytes by key (S3). Keys are built by the services from digests, never from raw client input."""

    def put(
        self,
        key: str,
        data: bytes,
        *,
        content_type: str = "application/octet-stream",
        metadata: dict[str, str] | None = None,
    ) -> None: ...

    def get(self, key: str) -> bytes: ...

    def get_with_metadata(self, key: str) -> tuple[bytes, dict[str, str]]:
        """The object's bytes and its user metadata; NotFound when it does not exist."""
        ...

    def replace_metadata(self, key: str, metadata: dict[str, str]) -> None:
        """Replace the object's user metadata, its bytes unchanged (NotFound when it does not exist)."""
        ...

    def size(self, key: str) -> int | None:
        """The object's size, or None when it does not exist."""
        ...

    def delete_prefix(self, prefix: str) -> int: ...

    def presign_get(self, key: str, expires_in: int) -> str: ...

    def presign_put(self, key: str, expires_in: int) -> str: ...


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


class TaskMemoryKeys(Protocol):
    """Task memory's S3 layout (`offprompt.adapters.layout`, handed over by the composition root)."""

    def namespace_objects_prefix(self, tenant: str, memory: str, namespace: str) -> str: ...

    def blob_key(self, tenant: str, memory: str, namespace: str, store_id: str, offset: int) -> str: ...

    def manifest_key(self, tenant: str, memory: str, namespace: str, start: int) -> str: ...

    def upload_prefix(self, tenant: str, memory: str) -> str: ...

    def download_key(self, tenant: str, name: str) -> str: ...


@dataclass(frozen=True)
class TextScope:
    """Where a text lives: one namespace of one memory of one tenant."""

    tenant: str
    memory: str
    namespace: str


@dataclass(frozen=True)
class SearchHit:
    artifact_id: str
    position: int
    chunk: int
    text: str
    score: float


SearchMode = Literal["bm25", "knn", "hybrid"]


class TextStore(Protocol):
    """Text artifacts split into token-bounded chunks, one document per chunk (OpenSearch)."""

    def store(
        self, scope: TextScope, start_position: int, artifacts: Sequence[TextArtifact], *, searchable: bool = False
    ) -> list[int]:
        """Index artifacts at positions start_position, start_position + 1, ...; return each one's chunk count.

        Idempotent: a retry overwrites (or, without custom ids, finds its record) rather than duplicates. Visible to
        `load` as soon as it returns; to `search` within the index's refresh interval, or, with `searchable`, once
        it returns (it waits for the refresh: up to the interval, 1 s on a domain, longer on Serverless).
        """
        ...

    def load(self, scope: TextScope, layout: Sequence[tuple[int, int]]) -> list[TextArtifact]:
        """The artifacts at the given (position, chunk_count) pairs, in that order, byte-exact."""
        ...

    def search(self, scope: TextScope, query: str, top_k: int, mode: SearchMode) -> list[SearchHit]: ...

    def wait_searchable(self, scope: TextScope, start: int, counts: Sequence[int]) -> bool:
        """After the commit of a `searchable` store: whether search now finds its chunks (on Serverless it polls
        for a while; False when the index was slower: the text is stored and loadable all the same)."""
        ...

    def delete(self, scope: TextScope) -> int:
        """Delete every document of the namespace; return how many were deleted."""
        ...


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


class RunStore(Protocol):
    """Runs of conversation threads, one item per run, ordered by a per-thread sequence number (DynamoDB)."""

    def allocate_seq(
        self, tenant: str, thread_id: str, now: str, tokens: int = 0, count: int = 1, kind: str = "runs"
    ) -> ThreadState:
        """Atomically take the next `count` sequence numbers (creating the thread; the state's `next_seq` is the
        last of them) and add `tokens` (the runs' stored counts) to the thread's `run_tokens`.
        `ThreadDeleting` while a delete of the thread is unfinished; `WrongThreadKind` (nothing changed) when the
        thread holds the other `kind` ("runs" or "items"; a thread that never held an entry takes "items")."""
        ...

    def pop_run(self, tenant: str, thread_id: str, run: StoredRun, *, version: int) -> bool:
        """Delete `run` (and its run id) only if it is still stored, with the thread's counts and the tenant's
        gauge, in one transaction, the thread still at `version` (bumped): True when this call deleted it, False
        when another delete took it first; ThreadChanged when the thread moved, ThreadDeleting when it is being
        deleted."""
        ...

    def put_runs(
        self, tenant: str, thread_id: str, runs: Sequence[StoredRun], generation: str, charge: Charge | None = None
    ) -> None:
        """`put_run` for several runs of one thread in one write (all or none): RunIdTaken when any run id is
        already stored (nothing is written then)."""
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

    def record_burned(self, tenant: str, thread_id: str, count: int = 1) -> None:
        """Count `count` sequence numbers given out that no run will ever have (a failed or replayed add)."""
        ...

    def get_run(
        self, tenant: str, thread_id: str, seq: int, ancestry: Sequence[tuple[str, int]] = ()
    ) -> StoredRun | None:
        """The run at `seq`; with a fork's `ancestry` (`ThreadState.ancestry`), read where that seq lives."""
        ...

    def list_threads(
        self,
        tenant: str,
        *,
        limit: int,
        after: str | None = None,
        prefix: str | None = None,
        order: Literal["activity", "id"] = "activity",
    ) -> tuple[list[ThreadState], str | None]:
        """A page of the tenant's threads (no summary text or metadata), the most recently written first
        (`activity`) or by id, after an opaque position:
        those after `after` whose id starts with `prefix`, at most `limit`, and the position to continue after (None:
        nothing is left). Through the tenant index, never a table Scan; reads only the page's thread items;
        eventually consistent (a thread created a moment ago may be missing)."""
        ...

    def get_thread(self, tenant: str, thread_id: str) -> ThreadState | None: ...

    def get_threads(self, tenant: str, thread_ids: Sequence[str]) -> dict[str, ThreadState]:
        """The threads among `thread_ids` that exist and are not being deleted, by id: batch reads (≤ 100 items
        each), strongly consistent."""
        ...

    def get_runs(self, tenant: str, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], StoredRun]:
        """The runs (or items) stored at these (thread whose partition holds it, seq) keys, by key; missing ones
        left out, expired ones TTL has not deleted yet included: batch reads, strongly consistent."""
        ...

    def configure(
        self, tenant: str, thread_id: str, changes: dict[str, object], now: str, *, runs_only: bool = False
    ) -> ThreadState:
        """Create or update the thread's settings (None removes one). `runs_only`: the changes hold a setting only
        a runs thread honours, refused on an items thread (WrongThreadKind("items"), nothing changed); an
        undecided thread so configured holds runs from then on (its first append of items is refused)."""
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

    def delete_runs(
        self, tenant: str, thread_id: str, runs: Sequence[StoredRun], *, version: int | None = None
    ) -> None:
        """Delete the runs (and their ids); the thread's run count and the tenant's stored-bytes gauge go down by
        exactly what was deleted (a run already gone counts nothing). With `version` (a sweep's plan), each
        transaction also checks the thread is still at the version planned with and bumps it: ThreadChanged, and
        nothing more deleted, when it moved."""
        ...

    def release_expired(self, tenant: str, thread_id: str, event_id: str, metered_bytes: int) -> bool:
        """Take a run that TTL deleted off its tenant's stored-bytes gauge, once per stream record `event_id`."""
        ...

    def record_run_count(self, state: ThreadState, count: int) -> None:
        """Record a thread's counted runs (`count`, every stored run, expired or not) so later reads trust
        `run_count`; a no-op when a run was added or deleted since `state` was read (the next read counts again)."""
        ...

    def commit_summary(
        self, tenant: str, thread_id: str, *, summary: str, through_seq: int, expected_version: int, now: str
    ) -> bool:
        """Compare-and-swap the summary; False when another summary was committed first (or covers more)."""
        ...

    def fork_thread(self, tenant: str, spec: ForkSpec) -> ThreadState:
        """Create the fork's thread item (only if the id is free: `ThreadExists`) and, when it reads the parent's
        runs, count it on the thread it holds (`spec.ancestry[0]`: fork_count + 1, fork_hold raised), conditioned
        on that thread being unchanged since read (`ForkRaced`): one transaction, whatever the history's length."""
        ...

    def delete_thread(self, tenant: str, thread_id: str) -> int:
        """`ThreadHasForks` (nothing changed) while live forks hold the thread. A fork's delete releases its hold
        on the thread it reads, in the same write as its delete mark.

        Mark the thread deleting (adds in flight can no longer commit, new ones are refused; readers see an
        unknown thread), then delete every item but the marked thread item; `release_thread` ends it."""
        ...

    def release_thread(self, tenant: str, thread_id: str) -> None:
        """Delete the marked thread item once everything else is gone: the id can be used again."""
        ...

    def run_seq(self, tenant: str, thread_id: str, run_id: str, ancestry: Sequence[tuple[str, int]] = ()) -> int | None:
        """The sequence number of the stored run with this id, or None (one read of its run-id record; through a
        fork's `ancestry`, one per segment at most, an ancestor's run only at or before where the fork reads it)."""
        ...

    def set_thread_fields(self, tenant: str, thread_id: str, fields: dict[str, str], now: str) -> ThreadState:
        """Set `name`, `alias` and/or `metadata_json` on the thread record (creating it); returns the new state."""
        ...

    def claim_alias(self, tenant: str, alias: str, thread_id: str, *, replace: str | None = None) -> bool:
        """Point the tenant's `alias` at `thread_id` if it is free (or still points at `replace`); False if taken."""
        ...

    def alias_target(self, tenant: str, alias: str) -> str | None:
        """The thread id the tenant's alias points at, or None."""
        ...

    def release_alias(self, tenant: str, alias: str, thread_id: str) -> None:
        """Delete the alias if it still points at `thread_id`."""
        ...


# ---- task memory: namespace records, committed batches and meta entries (DynamoDB) -------------------------


@dataclass(frozen=True)
class NamespaceRecord:
    """A committed namespace of a task memory: what it holds and who wrote it last."""

    memory: str
    namespace: str
    kind: str  # "text" | "blob"
    tool: str
    activity: str
    namespace_metadata: str  # Griptape's actions_to_json() of the last store
    artifact_count: int
    total_bytes: int
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class StoredBatch:
    """One committed store: `count` artifacts at positions start..start+count-1, in order.

    `entries` (one dict per artifact: text `{"chunks": n}`, blob `{"key", "envelope", "size"}`) is kept in the
    item, or in a manifest object at `manifest_key` when too large for a DynamoDB item.
    """

    start: int
    count: int
    kind: str
    entries: list[dict[str, object]] | None = None
    manifest_key: str | None = None


#: One dict per artifact of a batch (text `{"chunks": n}`, blob `{"key", "size", "envelope"}`).
Entries = list[dict[str, object]]
#: Committed batches of a namespace with their entries (read from the batch, or its manifest), in order.
Resolved = list[tuple[StoredBatch, Entries]]


class ArtifactStorage(Protocol):
    """One kind of task-memory storage (Griptape's `artifact_storages: dict[type, storage]` entry); the registry
    `TaskMemory.storages` maps each `StorageKind` to one, built in `offprompt.composition`."""

    kind: StorageKind
    #: Whether what `store` writes is addressed by position (text documents): then positions are reserved before
    #: it writes; otherwise (blob objects, keyed by a store id) `store` takes `start=None` and the reservation can
    #: fold into the commit (`NamespaceStore.commit_first`).
    needs_positions: bool

    def store(
        self, scope: TextScope, start: int | None, items: Sequence[BaseArtifact], *, searchable: bool = False
    ) -> tuple[Entries, int]:
        """Write `items` (at positions `start...` when `needs_positions`); return the batch entries and the bytes
        stored. `searchable`: do not return before a search would find them (text; blobs are never searched)."""
        ...

    def wait_searchable(self, scope: TextScope, start: int, entries: Entries) -> bool:
        """After the commit of a `searchable` store: whether search finds what it stored (always True for kinds
        that are not searched)."""
        ...

    def load(self, scope: TextScope, resolved: Resolved) -> list[str]:
        """Each committed artifact's JSON (Griptape `to_json()` form), in order."""
        ...

    def discard(self, scope: TextScope, entries: Entries, lost_to: str | None) -> None:
        """Best-effort removal of what a store wrote whose commit failed (`lost_to`: the kind that won, if any)."""
        ...

    def reference(self, entries: Entries) -> str | None:
        """What a load needs to read a namespace created by this one store without a lookup (docs/adr/0053), or
        None (this kind, or these entries, cannot be loaded so)."""
        ...

    def load_reference(self, scope: TextScope, reference: str, limit: int) -> list[str] | None:
        """The namespace's artifacts' JSON read by `reference` alone, or None when the reference does not name the
        namespace as it is now (deleted, replaced, appended to, another tenant's, malformed) or the answer would
        pass `limit` bytes: the caller then reads by name."""
        ...

    def supersede(self, scope: TextScope, entries: Entries) -> None:
        """Before a store appends to a namespace: the references to its first batch stop loading (an append is
        not in them)."""
        ...

    def delete(self, scope: TextScope) -> None:
        """Remove all of the namespace's data of this kind (idempotent)."""
        ...


class BatchManifests(Protocol):
    """A batch's entries inline in its DynamoDB item, or (past MAX_INLINE_ENTRIES_BYTES) in an S3 manifest."""

    def batch_for(self, scope: TextScope, start: int, kind: str, entries: Entries) -> StoredBatch:
        """The batch to commit; entries too large for the item are written to a manifest object first."""
        ...

    def inline_batch(self, start: int, kind: str, entries: Entries) -> StoredBatch | None:
        """The batch with its entries inline, or None when they need a manifest (nothing is written)."""
        ...

    def entries(self, batch: StoredBatch) -> Entries:
        """The batch's entries, from the item or its manifest."""
        ...

    def discard(self, batch: StoredBatch) -> None:
        """Best-effort delete of an uncommitted batch's manifest (if it has one)."""
        ...


@dataclass(frozen=True)
class NamespaceCommit:
    """What a store adds to the namespace record when its batch commits."""

    tool: str
    activity: str
    namespace_metadata: str
    total_bytes: int
    #: The upload (`value_from`) this store consumes: committed at most once, by one store (`UploadTaken`).
    upload_id: str | None = None


class NamespaceStore(Protocol):
    """Namespace records, batches and meta entries of task memories, scoped by tenant."""

    def allocate(self, tenant: str, memory: str, namespace: str, count: int) -> Reservation:
        """Reserve `count` positions atomically; `NamespaceDeleting` while a delete of the namespace runs."""
        ...

    def commit(
        self,
        tenant: str,
        memory: str,
        namespace: str,
        batch: StoredBatch,
        update: NamespaceCommit,
        meta_entry: dict[str, object] | None,
        generation: str,
        charge: Charge | None = None,
    ) -> None:
        """Atomically add the batch, update the record and append the meta entry.

        `StorageKindTaken` when the namespace holds another kind; `NamespaceDeleting` when the namespace was
        deleted (or is being deleted) since `allocate` handed out `generation`; `UploadTaken` when another store
        already consumed `update.upload_id`; QuotaExceeded when `charge` (hosted mode, committed in the same
        write) is refused by the plan's limits: nothing is committed then. With a charge, the record's
        `metered_bytes` grows by `update.total_bytes` (what deleting the namespace takes off the gauge).
        """
        ...

    def commit_first(
        self,
        tenant: str,
        memory: str,
        namespace: str,
        batch: StoredBatch,
        update: NamespaceCommit,
        meta_entry: dict[str, object] | None,
        charge: Charge | None = None,
    ) -> bool:
        """`allocate` and `commit` in one write, for a name never used: the record is created with positions
        `0..batch.count-1` and this inline batch at 0. False (nothing written) when a record exists (committed,
        reserved, being deleted, or a bare counter): then reserve and commit. Raises as `commit` does for the
        upload and the charge."""
        ...

    def batches(self, tenant: str, memory: str, namespace: str) -> list[StoredBatch]:
        """The namespace's committed batches in position order (empty when unknown)."""
        ...

    def get(self, tenant: str, memory: str, namespace: str) -> NamespaceRecord | None: ...

    def list_records(
        self, tenant: str, memory: str, limit: int, cursor: str | None
    ) -> tuple[list[NamespaceRecord], str | None]: ...

    def delete(self, tenant: str, memory: str, namespace: str) -> bool:
        """Mark the record deleting (stores in flight can no longer commit, new ones are refused), then delete
        every batch (readers see nothing); return whether a committed record existed. `release` ends it."""
        ...

    def release(self, tenant: str, memory: str, namespace: str) -> None:
        """Clear the mark `delete` set, once the data is gone: the name can be stored into again."""
        ...

    def meta_entries(
        self, tenant: str, memory: str, limit: int, cursor: str | None
    ) -> tuple[list[dict[str, object]], str | None]: ...


@dataclass(frozen=True)
class Reservation:
    """Positions reserved in a namespace by `NamespaceStore.allocate`."""

    start: int
    kind: str | None  # the namespace's committed storage kind, if any
    generation: str  # this incarnation of the namespace: a delete ends it, and `commit` checks it


class NamespaceDeleting(Exception):
    """The namespace is being deleted, or was deleted since positions were reserved in it."""


class UploadTaken(Exception):
    """Raised by `NamespaceStore.commit` when another store already consumed the upload it names."""


class StorageKindTaken(Exception):
    """Raised by `NamespaceStore.commit` when the namespace is committed with another storage kind."""

    def __init__(self, kind: str | None) -> None:
        super().__init__(f"namespace holds {kind} artifacts")
        self.kind = kind


@dataclass(frozen=True)
class Receipt:
    """What an idempotency key has bought: a request (by hash) in progress until `lease_until`, or completed
    with its answer (`result_json`)."""

    request_hash: str
    completed: bool
    lease_until: int  # epoch seconds; an unfinished claim past it may be taken over
    result_json: str | None = None


class ReceiptStore(Protocol):
    """Idempotency keys of process-output (ADR 0026), one item per (tenant, memory, key)."""

    def claim(
        self, tenant: str, memory: str, key: str, request_hash: str, claim_id: str, now: int, lease_until: int
    ) -> Receipt | None:
        """Claim the key for this request; None when claimed, else the receipt that holds it (a live claim or
        a completed request)."""
        ...

    def complete(self, tenant: str, memory: str, key: str, result_json: str, expires_at: int) -> None: ...

    def release(self, tenant: str, memory: str, key: str, claim_id: str) -> None:
        """Drop this request's unfinished claim (it failed, or stored nothing): a retry runs afresh."""
        ...


# ---- hosted mode: tenants, API keys, usage, rate windows (docs/adr/0022, 0023)


@dataclass(frozen=True)
class KeyRecord:
    """An API key as stored: never the secret, only its SHA-256 (`secret_hash`)."""

    key_id: str
    tenant: str
    name: str
    created_at: str
    secret_hash: str
    plan: dict[str, object]  # offprompt.metering.Plan.to_dict(), copied onto the key for the authorizer's one read
    #: Set while the key's tenant is being erased (epoch seconds of the fence): only `DELETE /tenant` is admitted.
    erasing_since: float | None = None


@dataclass(frozen=True)
class TenantRecord:
    tenant: str
    plan: dict[str, object]
    key_count: int
    stored_bytes: int
    created_at: str | None


class TenantExists(Exception):
    """`put_tenant(..., only_new=True)` found the tenant already created; `record` is what is stored."""

    def __init__(self, record: TenantRecord) -> None:
        super().__init__(f"tenant {record.tenant!r} already exists")
        self.record = record


class KeyLimitReached(Exception):
    """The tenant already holds as many keys as its plan allows."""


class StoredBytesLimit(Exception):
    """A write would take the tenant past its plan's stored bytes."""


class AccountStore(Protocol):
    def get_tenant(self, tenant: str) -> TenantRecord | None: ...

    def put_tenant(self, tenant: str, plan: dict[str, object], now: str, *, only_new: bool = False) -> TenantRecord:
        """Create the tenant (or set its plan), and copy the plan onto each of its keys. With `only_new`, only
        create it: TenantExists (nothing written) when the tenant was created already (has a `created_at`)."""
        ...

    def add_key(self, record: KeyRecord, max_keys: int) -> None:
        """Store the key, its listing entry and the tenant's key count together (KeyLimitReached past max)."""
        ...

    def get_key(self, key_id: str) -> KeyRecord | None:
        """The key (a strongly consistent read); an unknown id costs what a known one does."""
        ...

    def list_keys(self, tenant: str) -> list[KeyRecord]: ...

    def delete_key(self, tenant: str, key_id: str) -> bool:
        """Remove the tenant's key (False when it has no such key; another tenant's key is never touched)."""
        ...

    def take_rate_token(self, tenant: str, second: int, shard: int, limit: int) -> bool:
        """Count one request in the tenant's window; False when the window already holds `limit`."""
        ...

    def take_scan(self, tenant: str, day: str, limit: int) -> bool:
        """Count one self-service export/erase of `day` under `limit` (0: unlimited); False past it."""
        ...

    def runs_added(self, tenant: str, day: str) -> int:
        """Runs the tenant added on `day` (the exact counter the charges of runs keep)."""
        ...

    def add_usage(self, tenant: str, day: str, counters: dict[str, int]) -> None:
        """Add a request's counters to one of the tenant's usage items for `day` (one write)."""
        ...

    def usage_items(self, tenant: str, first_day: str, last_day: str) -> list[tuple[str, dict[str, int]]]:
        """Every usage item of the tenant between the two days (inclusive): (day, counters)."""
        ...


# ---- long-term records (docs/adr/0034-records.md) --------------------------------------------------------------
@dataclass(frozen=True)
class StoredRecord:
    """One version of a record as stored: the current item (`valid_to` None) or a past version; a delete's
    tombstone has `deleted` and no value. Times are epoch seconds."""

    namespace: tuple[str, ...]
    key: str
    version: int
    created_at: float  # when the record's first version (of this life: after a delete it starts anew) was put
    updated_at: float  # when this version was written
    valid_from: float
    valid_to: float | None = None
    value_json: str | None = None  # inline value (JSON object text)
    body_key: str | None = None  # S3 body of a value over the item limit
    size: int = 0  # the value's UTF-8 bytes
    expires_at: int | None = None  # the table's TTL attribute (epoch seconds)
    ttl_minutes: float | None = None  # what `refresh_ttl` moves `expires_at` by
    deleted: bool = False
    doc_id: str | None = None  # the version's document in the record index (None: not indexed)
    metered_bytes: int = 0  # what it added to the tenant's stored-bytes gauge (hosted mode)


class RecordConflict(Exception):
    """Another writer replaced the record first: the version this write replaces is no longer the current one."""


class RecordStore(Protocol):
    """Records in DynamoDB: the current item and one item per past version in the tenant's partition."""

    def current(self, tenant: str, namespace: tuple[str, ...], key: str) -> StoredRecord | None:
        """The current item (consistent read), tombstone or expired included: the caller decides."""
        ...

    def last_version(self, tenant: str, namespace: tuple[str, ...], key: str) -> int:
        """The highest past version stored for the key (0 when none): a record created anew continues after it."""
        ...

    def write(
        self,
        tenant: str,
        new: StoredRecord,
        previous: StoredRecord | None,
        now: float,
        *,
        charge: Charge | None = None,
    ) -> None:
        """One transaction: `previous` (the current item read before) becomes its version item with `valid_to =
        now`, `new` becomes the current item, conditioned on `previous` still being current (none: on no current
        item). RecordConflict when another writer won; the plan's 429 when `charge` is refused."""
        ...

    def versions(self, tenant: str, namespace: tuple[str, ...], key: str, *, limit: int) -> list[StoredRecord]:
        """The record's versions, newest first (the current item first), at most `limit`."""
        ...

    def version_at(self, tenant: str, namespace: tuple[str, ...], key: str, at: float) -> StoredRecord | None:
        """The version with valid_from <= at < valid_to (the current item when it is open), or None."""
        ...

    def query_current(self, tenant: str, prefix: tuple[str, ...], now: float) -> Iterator[StoredRecord]:
        """Every live (unexpired, not deleted) current item under a namespace prefix."""
        ...

    def namespaces(self, tenant: str, prefix: tuple[str, ...], now: float) -> set[tuple[str, ...]]:
        """The namespaces of the live current items under a namespace prefix (keys and namespaces only read)."""
        ...

    def query_at(self, tenant: str, prefix: tuple[str, ...], at: float, now: float) -> Iterator[StoredRecord]:
        """Every unexpired, not deleted version under a namespace prefix that was valid at `at`."""
        ...

    def get_many(
        self, tenant: str, wanted: Sequence[tuple[tuple[str, ...], str, int | None]]
    ) -> dict[tuple[tuple[str, ...], str, int], StoredRecord]:
        """Items by (namespace, key, version): version None → the current item; else that version, current or
        past. Keyed by (namespace, key, the item's version); missing ones are absent."""
        ...

    def default_ttl(self, tenant: str, namespace: tuple[str, ...]) -> float | None:
        """The namespace's default TTL in minutes, else None."""
        ...

    def configure_namespace(
        self, tenant: str, namespace: tuple[str, ...], default_ttl_minutes: float | None
    ) -> None: ...

    def refresh_ttl(self, tenant: str, record: StoredRecord, expires_at: int) -> None:
        """Move the current item's `expires_at` (when it is still that version); best effort."""
        ...

    def release_expired(self, tenant: str, event_id: str, metered_bytes: int) -> bool:
        """Take a TTL-swept version's `metered_bytes` off the tenant's stored-bytes gauge, once per stream record
        (`event_id`: a marker in the same transaction makes a redelivery a no-op). Whether the gauge moved."""
        ...


class RecordBodyStore(Protocol):
    """Where a record version's value too large for its item goes (S3, under the tenant's `records/` root)."""

    def put_body(self, tenant: str, namespace: tuple[str, ...], key: str, version: int, data: bytes) -> str:
        """Store the bytes; returns their key (the item's `body_key`), unique to this writer."""
        ...

    def value(self, record: StoredRecord) -> dict[str, Any] | None:
        """The version's value: inline in its item or its S3 body (`DependencyUnavailable` when gone); None for a
        tombstone."""
        ...

    def drop(self, key: str) -> None:
        """Best-effort delete of a body no committed version references (logged, never raised)."""
        ...

    def delete(self, key: str) -> None:
        """Delete a body (a missing one is fine); `DependencyUnavailable` when the store fails, so the caller can
        retry (the TTL sweep reports its stream record as failed)."""
        ...


@dataclass(frozen=True)
class RecordDoc:
    tenant: str
    namespace: tuple[str, ...]
    key: str
    version: int
    text: str  # the indexed text (strings of the value at the record's index paths), non-empty
    valid_from: float  # epoch seconds
    #: A nonce per put attempt: part of the document id, so racing writers of one version never share a document.
    write_id: str = ""


@dataclass(frozen=True)
class RecordHit:
    namespace: tuple[str, ...]
    key: str
    version: int
    score: float


class RecordIndex(Protocol):
    """Record versions' text in OpenSearch: it proposes candidates, DynamoDB decides (docs/adr/0034)."""

    def index(self, doc: RecordDoc) -> str:
        """Index one version (no refresh wait); returns its document id (on a provisioned domain
        `layout.record_doc_id(tenant, namespace, key, version, write_id)`: indexing the same write again is one
        document; service-assigned on Serverless)."""
        ...

    def supersede(self, tenant: str, doc_id: str, valid_to: float) -> None:
        """Mark a version's document as valid until `valid_to` (a replace or delete closed it)."""
        ...

    def delete(self, tenant: str, doc_ids: Sequence[str]) -> None:
        """Delete documents by id; missing ids are fine."""
        ...

    def search(
        self,
        tenant: str,
        prefix: tuple[str, ...],
        query: str,
        *,
        size: int,
        as_of: float | None = None,
        mode: str = "bm25",
        wait_for_refresh: bool = False,
    ) -> list[RecordHit]:
        """The best `size` candidates under the namespace prefix (a label-wise prefix: ("a","b") matches ("a","b")
        and ("a","b","c"), never ("a","bc")); as_of None → versions not superseded; else versions with
        valid_from <= as_of < valid_to. Candidates only: the caller checks each against DynamoDB."""
        ...


# ---- LangGraph checkpoints (docs/adr/0039) ----------------------------------------------------------------------
@dataclass(frozen=True)
class TypedBlob:
    """LangGraph's `serde.dumps_typed` pair as stored: inline bytes (`data`) or an S3 object (`key`)."""

    type: str
    size: int
    data: bytes | None = None
    key: str | None = None


@dataclass(frozen=True)
class StoredCheckpoint:
    namespace: str
    checkpoint_id: str
    parent_id: str | None
    metadata_json: str
    blob: TypedBlob
    metered_bytes: int = 0
    written_at: float = 0.0  # a copy reads its sources' items written up to its own creation only


@dataclass(frozen=True)
class StoredCheckpointWrite:
    namespace: str
    checkpoint_id: str
    task_id: str
    task_path: str
    idx: int
    channel: str
    blob: TypedBlob
    metered_bytes: int = 0
    written_at: float = 0.0
    #: > 0: an idx < 0 write replacing one a live copy reads, stored beside it (the newest is the thread's)
    version: int = 0


@dataclass(frozen=True)
class CheckpointGroup:
    """One checkpoint id's items in one partition: the checkpoint (None when only writes are stored there, e.g. a
    copy's writes to a checkpoint it shares) and its pending writes."""

    namespace: str
    checkpoint_id: str
    checkpoint: StoredCheckpoint | None
    writes: tuple[StoredCheckpointWrite, ...] = ()


#: A namespace's bound on checkpoint ids: (id, inclusive).
IdBound = tuple[str, bool]


@dataclass(frozen=True)
class CheckpointThreadState:
    """A checkpoint thread's item: `ancestry` [(source thread, {ns: cut id}, copied at)] nearest first (a copy
    reads each source's items at ids <= its cut, written before it was made), `floors` {ns: (id, inclusive)} (ids
    below are hidden: a prune, or a delete that copies still read), `holds` {copy thread: {ns: cut}} (what live
    copies read of this thread's partition), `deleted` (deleted while copies held it: kept for them, hidden),
    `version` (bumped by every hold, release, floor change and sweep; each conditions on the one it planned with:
    docs/concurrency.md), `deleting` (the fence of a whole-thread delete under way: no copy holds it any more)."""

    thread_id: str
    created_at: float
    ancestry: tuple[tuple[str, dict[str, str], float], ...] = ()
    floors: dict[str, IdBound] | None = None
    holds: dict[str, dict[str, str]] | None = None
    deleted: bool = False
    version: int = 0
    deleting: bool = False

    @property
    def special(self) -> bool:
        """Reads need this state (a copy, or hidden items): such a thread keeps a head in each of its namespaces."""
        return bool(self.ancestry or self.floors)


@dataclass(frozen=True)
class NewestRead:
    """A namespace's newest items of one partition (one Query): its head's thread state, if the thread keeps one,
    and the newest checkpoint with its writes."""

    head: CheckpointThreadState | None
    group: CheckpointGroup | None


class CheckpointShared(Exception):
    """A put was refused: the checkpoint id is one a live copy reads (or a prune/delete hid) and is stored."""


class CheckpointThreadChanged(Exception):
    """The thread item's version is not the one a sweep, floor change or copy planned with (a copy, a release, a
    prune or a delete committed meanwhile): read the thread again and plan again (docs/concurrency.md)."""


class CheckpointRace(Exception):
    """Another writer created the same thread (or wrote the same items) at the same time: read again, retry."""


class CheckpointStore(Protocol):
    """LangGraph checkpoint threads in DynamoDB, one partition each (docs/adr/0039)."""

    def thread(self, tenant: str, thread_id: str) -> CheckpointThreadState | None: ...

    def thread_and_checkpoint(
        self, tenant: str, thread_id: str, namespace: str, checkpoint_id: str
    ) -> tuple[CheckpointThreadState | None, StoredCheckpoint | None]:
        """The thread item and one checkpoint item (one BatchGetItem, consistent)."""
        ...

    def newest(self, tenant: str, thread_id: str, namespace: str) -> NewestRead:
        """Newest first in the namespace, until the first checkpoint item (one Query when it holds < 100 writes)."""
        ...

    def groups(
        self, tenant: str, thread_id: str, namespace: str, *, lower: IdBound | None, upper: IdBound | None
    ) -> Iterator[CheckpointGroup]:
        """The partition's checkpoint groups of the namespace within the bounds, newest first, read lazily."""
        ...

    def namespaces(self, tenant: str, thread_id: str) -> list[str]:
        """The namespaces the partition holds items in (one Query per namespace)."""
        ...

    # The merged view: a thread's own items and each source's (ancestry) at ids up to its cut, written before the
    # copy, hidden below the thread's floors; one id found in several partitions is one group (the nearest
    # checkpoint item, the writes of all).
    def view_namespaces(self, tenant: str, state: CheckpointThreadState) -> list[str]: ...

    def view_groups(
        self,
        tenant: str,
        state: CheckpointThreadState,
        namespace: str,
        *,
        lower: IdBound | None = None,
        upper: IdBound | None = None,
    ) -> Iterator[CheckpointGroup]: ...

    def view_all_groups(
        self, tenant: str, state: CheckpointThreadState, *, upper: IdBound | None = None
    ) -> Iterator[CheckpointGroup]:
        """Every namespace's groups, newest first by (checkpoint_id, namespace)."""
        ...

    def view_latest(self, tenant: str, state: CheckpointThreadState, namespace: str) -> CheckpointGroup | None: ...

    def view_checkpoint(
        self, tenant: str, state: CheckpointThreadState, namespace: str, checkpoint_id: str
    ) -> CheckpointGroup | None: ...

    def own_items(self, tenant: str, thread_id: str) -> list[StoredCheckpoint | StoredCheckpointWrite]:
        """Every checkpoint and write of the thread's own partition."""
        ...

    def put_checkpoint(
        self,
        tenant: str,
        thread_id: str,
        checkpoint: StoredCheckpoint,
        *,
        create: CheckpointThreadState | None,
        head: CheckpointThreadState | None,
        must_be_new: bool,
        replacing: int | None = None,
        charge: Charge | None = None,
    ) -> None:
        """One transaction: the checkpoint item, the thread item when `create`, the namespace's head when `head`,
        the charge with the gauge moved by new - old metered bytes (ADR 0042). `must_be_new`: CheckpointShared when
        the item exists. Otherwise conditioned on what the caller read: no item (`replacing` None) or one holding
        `replacing` metered bytes; CheckpointRace when it changed meanwhile (read again and retry)."""
        ...

    def put_writes(
        self,
        tenant: str,
        thread_id: str,
        writes: Sequence[StoredCheckpointWrite],
        *,
        head: CheckpointThreadState | None,
        create: CheckpointThreadState | None = None,
        pricing: Callable[[Sequence[StoredCheckpointWrite]], Charge | None] | None = None,
    ) -> list[StoredCheckpointWrite]:
        """Store the writes, each conditioned on the stored item (ADR 0042): an idx ≥ 0 only where none is stored
        (the first wins), an idx < 0 replacing what is stored; `pricing(writes)` the charge of the writes stored
        together, committed with them (the gauge moved by new - old). `create`: the thread's root item too, unless
        one exists. The writes stored."""
        ...

    def copy(
        self,
        tenant: str,
        target: CheckpointThreadState,
        holds: Sequence[tuple[str, dict[str, str]]],
        *,
        source_version: int,
    ) -> bool:
        """One transaction: the target's thread item (only if absent) and a hold on each ancestor (each must
        exist, none fenced; each one's version bumped), the source (`holds[0]`) still at `source_version`. False
        when the target exists, an ancestor is gone or fenced, or the source changed."""
        ...

    def save_state(self, tenant: str, state: CheckpointThreadState, namespaces: Sequence[str]) -> int:
        """The thread item's ancestry, floors and deleted mark, conditioned on `state.version` and bumping it (the
        new version), and the heads of `namespaces` (removed when the state is not special). CheckpointThreadChanged
        when the version moved or the thread is gone."""
        ...

    def fence(self, tenant: str, thread_id: str, version: int) -> int:
        """Set the `deleting` fence on the thread item at `version` (bumping it; the new version): no copy holds
        it from now on. CheckpointThreadChanged when the version moved or the thread is gone."""
        ...

    def release_hold(self, tenant: str, ancestor: str, holder: str) -> None:
        """Remove `holder`'s hold (bumping the version)."""
        ...

    def delete_items(
        self,
        tenant: str,
        thread_id: str,
        items: Sequence[StoredCheckpoint | StoredCheckpointWrite],
        *,
        version: int | None,
    ) -> int | None:
        """Delete these items (their metered bytes off the gauge, once) in transactions that each check the
        thread item is still at the version planned with and bump it (the final version is returned).
        CheckpointThreadChanged when it moved: nothing of that chunk is deleted. None: a fenced thread's sweep
        (unchecked: no copy can hold it)."""
        ...

    def delete_thread_item(self, tenant: str, thread_id: str, version: int | None) -> bool:
        """Delete the thread item and every head, unless the thread changed since `version` (None: unless the
        fence is gone) or holds it (False)."""
        ...


class CheckpointBlobStore(Protocol):
    """Blobs too large for their item (S3, under the tenant's `checkpoints/` root)."""

    def put_blob(self, tenant: str, thread_id: str, namespace: str, name: str, data: bytes) -> str: ...

    def get_blob(self, key: str) -> bytes: ...

    def drop(self, key: str) -> None: ...


# ---- conversation search (docs/adr/0048, issue 31) ------------------------------------------------------------
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

    def index(self, docs: Sequence[ConversationDoc]) -> None: ...

    def delete(self, tenant: str, thread_id: str, kind: str, seqs: Sequence[int]) -> None:
        """Delete these documents; missing ones are fine."""
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


class RunChangeDecoder(Protocol):
    """A change of the table (one stream record, as Lambda delivers it) → the run change it means, or None."""

    def change_of(self, record: Mapping[str, object]) -> RunChange | None: ...


# ---- the audit log (docs/adr/0056) ---------------------------------------------------------------------------------
class AuditStore(Protocol):
    """A tenant's audit entries, in time order: `put_audit_entry` writes one (kept until `expires_at`, epoch
    seconds), `audit_page` reads them newest first between two times (ns), optionally one actor's only, from an
    opaque position."""

    def put_audit_entry(
        self, tenant: str, time_ns: int, entry: dict[str, Any], *, actor_id: str, expires_at: int
    ) -> None: ...

    def audit_page(
        self, tenant: str, since_ns: int, until_ns: int, *, actor_id: str | None, limit: int, after: str | None
    ) -> tuple[list[dict[str, Any]], str | None]: ...
