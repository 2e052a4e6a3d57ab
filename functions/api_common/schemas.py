"""Response bodies as the OpenAPI document declares them (request models live in the library's services).

Routes name these classes (`api_common.routes.json_content("ThreadsPage", ...)`); only the OpenAPI document's
resolver imports this module (`FunctionRoutes.openapi_app`): a handler serving requests never does (docs/adr/0063).

Griptape JSON (artifacts, runs, prompt stacks) is declared as open objects: its shape is Griptape's, checked
by the library's own decoders and by tests against Griptape itself.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel


class _Open(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="allow")


class AddRunResponse(_Open):
    run: dict[str, Any]
    seq: int


class RunsPage(_Open):
    runs: list[dict[str, Any]]
    next_cursor: str | None


class ThreadsPage(_Open):
    """A page of a tenant's threads by id (each without its summary text); None: no more."""

    threads: list[dict[str, Any]]
    next_cursor: str | None


class ThreadSearchHit(_Open):
    """One hit of a conversation search (docs/adr/0049): the run (Griptape Run JSON, as list-runs answers it) or
    the session item, the thread it was found in (a fork's shared run: the fork searched), its seq, the ranking's
    score, the rerank model's score when one is set and scored it (docs/adr/0068), and with `context`, the runs
    (items) around it in that thread."""

    thread_id: str
    seq: int
    run_id: str | None = None
    run: dict[str, Any] | None = None
    item_id: str | None = None
    item: dict[str, Any] | None = None
    score: float
    rerank_score: float | None = None
    created_at: str
    context: list[dict[str, Any]] | None = None


class ThreadSearchResult(_Open):
    """The best hits first (ties: newest first; with a rerank model, those it scored first in its order); only runs
    and items DynamoDB still holds, visible in a thread searched."""

    hits: list[ThreadSearchHit]


class ThreadView(_Open):
    thread_id: str


class ForkedThread(_Open):
    """A fork (docs/adr/0037): its id, the thread it was forked from, the run it forks after (`through_seq`) and
    the threads it reads below its own runs (nearest first); `replayed` when a retry found the fork made first."""

    thread_id: str
    forked_from: str | None
    through_seq: int
    after_run_id: str | None
    ancestry: list[dict[str, Any]]
    kind: str
    replayed: bool


class ItemsAppended(_Open):
    """The seqs the appended items have, in order (a retried request's stored items keep theirs)."""

    seqs: list[int]
    replayed: int


class ItemsPage(_Open):
    """A framework session's newest items, oldest first; `next_before` pages to older ones (None: no more);
    `tokens`: their stored counts (cl100k_base over each item's JSON)."""

    items: list[dict[str, Any]]
    seqs: list[int]
    next_before: int | None
    tokens: int


class PoppedItem(_Open):
    """The item a pop removed (None when the session held none)."""

    item: dict[str, Any] | None
    seq: int | None


class PromptStackJSON(_Open):
    """Griptape's PromptStack JSON (`PromptStack.from_dict` reads it)."""

    type: str
    messages: list[dict[str, Any]]


class ArtifactJSON(_Open):
    """A Griptape artifact's JSON (`BaseArtifact.from_dict` reads it)."""

    type: str


class BlobDownload(_Open):
    """One stored blob: its artifact JSON without `value`, and a presigned GET of its bytes (`value` = their base64)."""

    artifact: dict[str, Any]
    size: int
    download_url: str


class BlobDownloads(_Open):
    """A blob namespace too large for a response: the stored objects themselves, nothing rebuilt."""

    type: Literal["BlobDownloads"]
    size: int
    expires_in: int
    artifacts: list[BlobDownload]


class LoadedNamespace(RootModel[ArtifactJSON | BlobDownloads]):
    """Griptape's ListArtifact JSON when it fits a response (5 MB), else (a blob namespace) BlobDownloads."""

    model_config = ConfigDict(defer_build=True)


class Download(_Open):
    download_url: str
    expires_in: int
    size: int


class Upload(_Open):
    upload_id: str
    url: str
    expires_in: int
    headers: dict[str, str]
    s3_uri: str


class NamespaceRecord(_Open):
    memory_name: str
    namespace: str
    storage: str


class NamespacesPage(_Open):
    namespaces: list[NamespaceRecord]
    next_cursor: str | None


class MetaPage(_Open):
    entries: list[dict[str, Any]]
    next_cursor: str | None


class SearchHits(_Open):
    hits: list[dict[str, Any]]


class CloudThread(_Open):
    """A thread as Griptape Cloud's Threads API shows it."""

    thread_id: str
    name: str
    alias: str | None
    metadata: dict[str, Any]
    created_at: str
    updated_at: str


class Pagination(_Open):
    page: int
    page_size: int
    total_count: int
    total_pages: int


class CloudThreadsPage(_Open):
    threads: list[CloudThread]
    pagination: Pagination


class CloudMessage(_Open):
    """A run as a Griptape Cloud message: `input`/`output` are the artifacts' JSON as strings."""

    message_id: str
    thread_id: str
    index: int
    input: str
    output: str
    metadata: dict[str, Any]
    created_at: str


class CloudMessagesPage(_Open):
    messages: list[CloudMessage]
    pagination: Pagination


class KeyInfo(_Open):
    key_id: str
    prefix: str
    name: str
    created_at: str
    scopes: dict[str, Any] | None = Field(
        default=None, description="what the key may reach (docs/keys.md); absent: all"
    )
    expires_at: str | None = None


class NewKey(KeyInfo):
    key: str = Field(description="the API key; shown only in this response (send it as Authorization: Bearer)")


class NewToken(_Open):
    token: str = Field(description="the short-lived token (send it as Authorization: Bearer); never stored")
    token_id: str
    key_id: str
    expires_at: str
    scopes: dict[str, Any] | None = None


class KeyList(_Open):
    keys: list[KeyInfo]


class Usage(_Open):
    tenant: str
    days: list[dict[str, Any]]
    totals: dict[str, Any]
    stored_bytes: int
    plan: dict[str, Any] | None = None


class AuditActor(_Open):
    type: str = Field(description="key | token | jwt | iam | local | direct: what `id` names")
    id: str


class AuditEntry(_Open):
    """One audited call (docs/adr/0056): never a value, only the operation, the ids it named and its answer."""

    entry_id: str
    at: str
    actor: AuditActor
    via: str = Field(description="http | mcp | direct")
    operation: str = Field(description="The route (`POST /threads/{thread_id}/runs`), the MCP tool or direct action")
    resources: dict[str, str]
    status: int
    code: str | None = None


class AuditPage(_Open):
    entries: list[AuditEntry]
    cursor: str | None = Field(default=None, description="Pass it back for the next page; null at the end")


class ExportResult(_Open):
    """A tenant export: its manifest (JSON listing each file with size, SHA-256 and a presigned GET)."""

    tenant: str
    export_id: str
    manifest_url: str | None
    expires_in: int
    counts: dict[str, int]
    complete: bool


class ExportPending(_Open):
    """An export not made yet: the tenant's data is still being indexed; repeat it after `retry_after` seconds."""

    tenant: str
    status: str
    complete: bool
    retry_after: int
    indexing: dict[str, Any]


class EraseReport(_Open):
    """What a tenant erase deleted per store, and what a verification pass found left (nothing when verified)."""

    tenant: str
    deleted: dict[str, int]
    remaining: dict[str, int]
    verified: bool


class ErasePending(_Open):
    """A fenced erase not verified yet: repeat `DELETE /tenant` after `retry_after` seconds to finish it."""

    tenant: str
    status: str
    deleted: dict[str, int]
    verified: bool
    retry_after: int
    indexing: dict[str, Any] | None = None


class RecordView(_Open):
    """A record (docs/adr/0034): times ISO 8601 UTC; `valid_to` and `expires_at` null when open."""

    namespace: list[str]
    key: str
    value: dict[str, Any] | None
    version: int
    created_at: str
    updated_at: str
    valid_from: str
    valid_to: str | None
    expires_at: str | None


class ExtractionTrigger(_Open):
    after_runs: int
    idle_seconds: int


class StrategyView(_Open):
    """An extraction strategy (docs/adr/0051): its namespace a template (`{actor_id}`, `{thread_id}`, `{strategy}`)."""

    name: str
    type: Literal["facts", "preferences", "summary", "custom"]
    namespace: str
    trigger: ExtractionTrigger
    instructions: str | None
    enabled: bool
    created_at: str
    updated_at: str


class StrategiesList(_Open):
    strategies: list[StrategyView]


class StrategyStatus(_Open):
    """Where a strategy stands on a thread: `last_error` why the last attempt wrote nothing (null after a success),
    `paused` why the plan holds extraction back."""

    processed_through_seq: int
    pending_runs: int
    records_written: int
    last_error: str | None
    paused: str | None
    enabled: bool
    updated_at: str | None


class ThreadExtraction(_Open):
    thread_id: str
    strategies: dict[str, StrategyStatus]


class RecordHistory(_Open):
    """A record's stored versions, newest first (`deleted`: a delete's tombstone, whose value is null)."""

    versions: list[RecordView]


class RecordsFound(_Open):
    """Search results: records, each with its `score` (null without a query)."""

    items: list[RecordView]


class RecordNamespaces(_Open):
    namespaces: list[list[str]]


class RecordNamespaceSettings(_Open):
    namespace: list[str]
    default_ttl_minutes: float | None


class TypedBlobView(_Open):
    """LangGraph's `serde.dumps_typed` pair: its type and the bytes as base64."""

    type: str
    data: str


class CheckpointKey(_Open):
    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str


class PendingWriteView(_Open):
    task_id: str
    task_path: str
    idx: int
    channel: str
    value: TypedBlobView


class CheckpointTupleView(_Open):
    """A checkpoint tuple (docs/adr/0039): pending writes sorted by (task_path, task_id, idx)."""

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_checkpoint_id: str | None
    checkpoint: TypedBlobView
    metadata: dict[str, Any]
    pending_writes: list[PendingWriteView]


class CheckpointsPage(_Open):
    """Newest first; `next_cursor` continues a page cut by its blob budget (null: no more)."""

    checkpoints: list[CheckpointTupleView]
    next_cursor: str | None


class WritesStored(_Open):
    stored: int


class CheckpointThreadCopied(_Open):
    """A copy (a fork): the source and the newest checkpoint id it shares in each namespace."""

    thread_id: str
    copied_from: str
    through: dict[str, str]


class CheckpointThreadPruned(_Open):
    thread_id: str
    strategy: str
