"""Off-prompt task memory as a service: Griptape's `TaskMemory.process_output` / `load_artifacts` over ports.

Store = reserve positions (atomic counter) → write the data (OpenSearch chunks or S3 objects) → commit the
batch, the namespace record and the meta entry in one DynamoDB transaction. Readers only ever follow
committed batches, so they never see a reference to data that is not there, nor half a batch.
"""

from __future__ import annotations

import base64
import functools
import json
import re
import threading
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from offprompt.artifacts import BaseArtifact, BlobArtifact, ErrorArtifact, ListArtifact, TextArtifact, dumps
from offprompt.artifacts.action import ToolAction
from offprompt.errors import (
    ArtifactError,
    Conflict,
    DependencyUnavailable,
    InvalidInput,
    NotFound,
    OffpromptError,
    PayloadTooLarge,
)
from offprompt.identifiers import check_identifier, digest
from offprompt.memory import task
from offprompt.memory.meta import ActionSubtaskMetaEntry
from offprompt.ports import (
    BlobStore,
    NamespaceCommit,
    NamespaceRecord,
    NamespaceStore,
    SearchHit,
    SearchMode,
    StorageKindTaken,
    StoredBatch,
    TextScope,
    TextStore,
)

if TYPE_CHECKING:
    from offprompt.config import Settings

# Batch entries bigger than this go to an S3 manifest (DynamoDB items are capped at 400 KB).
MAX_INLINE_ENTRIES_BYTES = 300_000
# Values given by reference (`value_from`) may be this large.
MAX_UPLOAD_BYTES = 512 * 1024 * 1024
UPLOAD_EXPIRES_IN = 900
DOWNLOAD_EXPIRES_IN = 900
# A ListArtifact JSON larger than this is handed out as a presigned S3 GET (Lambda responses are capped at 6 MB).
MAX_INLINE_RESPONSE_BYTES = 5 * 1024 * 1024
MAX_TOP_K = 100
MAX_QUERY_CHARS = 10_000
SEARCH_MODES = ("bm25", "knn", "hybrid")
_UPLOAD_ID = re.compile(r"^[0-9a-f]{32}$")
_VALUE_FROM_TYPES = ("TextArtifact", "BlobArtifact", "ImageArtifact", "AudioArtifact")


class StorageKindConflict(Conflict):
    """The namespace already holds the other storage kind (Griptape answers with an ErrorArtifact)."""

    code = "storage_kind_conflict"

    def __init__(self, namespace: str, held: str | None, wanted: str) -> None:
        super().__init__(
            f'namespace "{namespace[:100]}" already holds {held or "other"} artifacts; '
            f"{wanted} artifacts cannot be stored in it",
            details={"namespace": namespace, "held": held, "wanted": wanted},
        )
        self.artifact: ErrorArtifact = task.conflict_answer()

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "artifact": self.artifact.to_dict()}


class UploadError(InvalidInput):
    code = "invalid_upload"


class NotTextNamespace(Conflict):
    code = "not_text_namespace"


@dataclass(frozen=True)
class ProcessResult:
    """The answer of process_output: the artifact to hand the model, and whether anything was stored."""

    artifact: BaseArtifact
    stored: bool
    namespace: str | None = None
    positions: tuple[int, int] | None = None  # (first, count)


@dataclass(frozen=True)
class Upload:
    upload_id: str
    url: str
    expires_in: int
    headers: dict[str, str]
    s3_uri: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class LoadedArtifacts:
    """Either the ListArtifact JSON inline (`body`), or a presigned GET of it (`download_url`)."""

    body: str | None
    size: int
    download_url: str | None = None
    expires_in: int | None = None


class TaskMemoryService:
    def __init__(
        self,
        namespaces: NamespaceStore,
        blobs: BlobStore,
        texts: TextStore,
        *,
        bucket: str | None = None,
        max_inline_response_bytes: int = MAX_INLINE_RESPONSE_BYTES,
        max_upload_bytes: int = MAX_UPLOAD_BYTES,
    ) -> None:
        self.namespaces = namespaces
        self.blobs = blobs
        self.texts = texts
        self.bucket = bucket
        self.max_inline_response_bytes = max_inline_response_bytes
        self.max_upload_bytes = max_upload_bytes

    @classmethod
    def from_settings(cls, settings: Settings) -> TaskMemoryService:
        from offprompt.adapters.dynamodb_namespaces import DynamoDbNamespaceStore
        from offprompt.adapters.s3 import S3BlobStore

        bucket = settings.require("bucket_name")
        return cls(
            DynamoDbNamespaceStore(settings.require("table_name")),
            S3BlobStore(bucket),
            LazyTextStore(functools.partial(text_store_from_settings, settings)),
            bucket=bucket,
        )

    # ---- keys ----------------------------------------------------------------------------------------
    @staticmethod
    def namespace_prefix(tenant: str, memory: str, namespace: str) -> str:
        return f"taskmem/{digest(tenant)}/{digest(tenant, memory, namespace)}/"

    def blob_key(self, tenant: str, memory: str, namespace: str, position: int) -> str:
        return f"{self.namespace_prefix(tenant, memory, namespace)}{position:012d}"

    @staticmethod
    def upload_prefix(tenant: str, memory: str) -> str:
        return f"uploads/{digest(tenant, memory)}/"

    # ---- uploads -------------------------------------------------------------------------------------
    def create_upload(self, tenant: str, memory: str) -> Upload:
        check_identifier("memory_name", memory)
        upload_id = uuid.uuid4().hex
        key = self.upload_prefix(tenant, memory) + upload_id
        url = self.blobs.presign_put(key, UPLOAD_EXPIRES_IN)
        headers = {"Content-Type": "application/octet-stream", "x-amz-server-side-encryption": "AES256"}
        return Upload(upload_id, url, UPLOAD_EXPIRES_IN, headers, f"s3://{self.bucket}/{key}")

    def _upload_key(self, tenant: str, memory: str, value_from: Any) -> str:
        if not isinstance(value_from, dict) or len(value_from) != 1:
            raise UploadError('value_from must be {"upload_id": "..."} or {"s3_uri": "s3://..."}')
        prefix = self.upload_prefix(tenant, memory)
        if "upload_id" in value_from:
            upload_id = value_from["upload_id"]
            if not isinstance(upload_id, str) or not _UPLOAD_ID.match(upload_id):
                raise UploadError("value_from.upload_id is not an upload id from POST .../uploads")
            return prefix + upload_id
        uri = value_from.get("s3_uri")
        if not isinstance(uri, str) or not uri.startswith("s3://"):
            raise UploadError('value_from must be {"upload_id": "..."} or {"s3_uri": "s3://..."}')
        bucket, _, key = uri[len("s3://") :].partition("/")
        if bucket != self.bucket or not key.startswith(prefix) or not _UPLOAD_ID.match(key[len(prefix) :]):
            raise UploadError("value_from.s3_uri must name an upload of this memory (from POST .../uploads)")
        return key

    def _artifact_from_upload(self, tenant: str, memory: str, envelope: Any, value_from: Any) -> BaseArtifact:
        if not isinstance(envelope, dict):
            raise ArtifactError("artifact must be a JSON object")
        if "value" in envelope:
            raise UploadError("give the artifact's value either inline or by value_from, not both")
        kind = envelope.get("type")
        if kind not in _VALUE_FROM_TYPES:
            raise UploadError(f"value_from works for {', '.join(_VALUE_FROM_TYPES)}; store list items one by one")
        key = self._upload_key(tenant, memory, value_from)
        size = self.blobs.size(key)
        if size is None:
            raise UploadError("the upload does not exist (not uploaded yet, expired or already used)")
        if size > self.max_upload_bytes:
            raise PayloadTooLarge(f"the upload is {size} bytes; at most {self.max_upload_bytes} bytes are accepted")
        artifact = BaseArtifact.from_dict({**envelope, "value": ""})
        data = self.blobs.get(key)
        if isinstance(artifact, TextArtifact):
            try:
                artifact.value = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise UploadError(f"the uploaded text is not valid UTF-8 (at byte {exc.start})") from None
        else:
            artifact.value = data
        return artifact

    # ---- process_output -------------------------------------------------------------------------------
    def process_output(
        self,
        tenant: str,
        memory: str,
        *,
        tool: str,
        activity: str,
        artifact: BaseArtifact | dict[str, Any],
        actions: Sequence[ToolAction] = (),
        thought: str | None = None,
        value_from: Any = None,
    ) -> ProcessResult:
        check_identifier("memory_name", memory)
        upload_key: str | None = None
        if value_from is not None:
            artifact = self._artifact_from_upload(tenant, memory, artifact, value_from)
            upload_key = self._upload_key(tenant, memory, value_from)
        elif not isinstance(artifact, BaseArtifact):
            artifact = BaseArtifact.from_dict(artifact)
        decided = task.plan(artifact)
        if decided.answer is not None:
            return ProcessResult(decided.answer, stored=False)
        assert decided.kind is not None and decided.namespace is not None
        namespace = check_identifier("namespace (artifact.name)", decided.namespace)
        kind, items = decided.kind, decided.items

        start, held = self.namespaces.allocate(tenant, memory, namespace, len(items))
        if held is not None and held != kind.value:
            raise StorageKindConflict(namespace, held, kind.value)
        if kind is task.StorageKind.TEXT:
            entries, total = self._write_text(tenant, memory, namespace, start, items)
        else:
            entries, total = self._write_blobs(tenant, memory, namespace, start, items)
        batch = self._batch(tenant, memory, namespace, start, kind.value, entries)

        answer = task.stored_answer(tool, activity, memory, namespace)
        actions_json = task.actions_to_json(actions)
        meta = ActionSubtaskMetaEntry(actions=actions_json, answer=answer.value, thought=thought)
        commit = NamespaceCommit(tool=tool, activity=activity, namespace_metadata=actions_json, total_bytes=total)
        try:
            self.namespaces.commit(tenant, memory, namespace, batch, commit, meta.to_dict())
        except StorageKindTaken as lost:
            self._discard(tenant, memory, namespace, kind, entries, batch, lost_to=lost.kind)
            raise StorageKindConflict(namespace, lost.kind, kind.value) from None
        if upload_key is not None:
            _best_effort(lambda: self.blobs.delete_prefix(upload_key))
        return ProcessResult(answer, stored=True, namespace=namespace, positions=(start, len(items)))

    def _write_text(
        self, tenant: str, memory: str, namespace: str, start: int, items: Sequence[BaseArtifact]
    ) -> tuple[list[dict[str, object]], int]:
        texts = [cast(TextArtifact, item) for item in items]
        counts = self.texts.store(TextScope(tenant, memory, namespace), start, texts)
        if len(counts) != len(texts):
            raise DependencyUnavailable("text store returned a wrong number of chunk counts")
        total = sum(len(t.value.encode("utf-8", "surrogatepass")) for t in texts)
        return [{"chunks": int(c)} for c in counts], total

    def _write_blobs(
        self, tenant: str, memory: str, namespace: str, start: int, items: Sequence[BaseArtifact]
    ) -> tuple[list[dict[str, object]], int]:
        entries: list[dict[str, object]] = []
        written: list[str] = []
        try:
            for offset, item in enumerate(items):
                blob = cast(BlobArtifact, item)
                key = self.blob_key(tenant, memory, namespace, start + offset)
                self.blobs.put(key, blob.value)
                written.append(key)
                entries.append({"key": key, "size": len(blob.value), "envelope": envelope_json(blob)})
        except Exception:
            for key in written:
                _best_effort(functools.partial(self.blobs.delete_prefix, key))
            raise
        return entries, sum(int(cast(int, e["size"])) for e in entries)

    def _batch(
        self, tenant: str, memory: str, namespace: str, start: int, kind: str, entries: list[dict[str, object]]
    ) -> StoredBatch:
        raw = json.dumps(entries, separators=(",", ":"))
        if len(raw.encode("utf-8")) <= MAX_INLINE_ENTRIES_BYTES:
            return StoredBatch(start=start, count=len(entries), kind=kind, entries=entries)
        manifest = f"{self.namespace_prefix(tenant, memory, namespace)}manifest/{start:012d}"
        self.blobs.put(manifest, raw.encode("utf-8"), content_type="application/json")
        return StoredBatch(start=start, count=len(entries), kind=kind, manifest_key=manifest)

    def _discard(
        self,
        tenant: str,
        memory: str,
        namespace: str,
        kind: task.StorageKind,
        entries: list[dict[str, object]],
        batch: StoredBatch,
        lost_to: str | None,
    ) -> None:
        """Best-effort removal of data written by a store whose commit lost the storage-kind race."""
        if kind is task.StorageKind.BLOB:
            for entry in entries:
                _best_effort(functools.partial(self.blobs.delete_prefix, str(entry["key"])))
        elif lost_to is not None and lost_to != kind.value:
            # The namespace is committed as blob storage, so every text document in it is garbage.
            _best_effort(functools.partial(self.texts.delete, TextScope(tenant, memory, namespace)))
        if batch.manifest_key:
            _best_effort(functools.partial(self.blobs.delete_prefix, batch.manifest_key))

    # ---- load ----------------------------------------------------------------------------------------
    def load_items_json(self, tenant: str, memory: str, namespace: str) -> list[str]:
        """Each stored artifact's JSON (Griptape `to_json()` form), in order, exactly as stored."""
        check_identifier("memory_name", memory)
        check_identifier("namespace", namespace)
        batches = self.namespaces.batches(tenant, memory, namespace)
        if not batches:
            return []
        resolved = [(b, self._entries(b)) for b in batches]
        if batches[0].kind == task.StorageKind.TEXT.value:
            layout = [
                (b.start + i, int(cast(int, e["chunks"]))) for b, entries in resolved for i, e in enumerate(entries)
            ]
            return [a.to_json() for a in self.texts.load(TextScope(tenant, memory, namespace), layout)]
        entries = [e for _, es in resolved for e in es]
        if len(entries) <= 1:
            return [self._blob_json(e) for e in entries]
        with ThreadPoolExecutor(max_workers=min(8, len(entries))) as pool:
            return list(pool.map(self._blob_json, entries))

    def _entries(self, batch: StoredBatch) -> list[dict[str, object]]:
        if batch.entries is not None:
            return batch.entries
        assert batch.manifest_key is not None
        entries: list[dict[str, object]] = json.loads(self.blobs.get(batch.manifest_key))
        return entries

    def _blob_json(self, entry: dict[str, object]) -> str:
        try:
            data = self.blobs.get(str(entry["key"]))
        except NotFound:
            raise DependencyUnavailable("a committed blob is missing (deleted concurrently?); retry") from None
        envelope = json.loads(str(entry["envelope"]))
        envelope["value"] = base64.b64encode(data).decode("ascii")
        return json.dumps(envelope)

    def load_artifacts(
        self, tenant: str, memory: str, namespace: str, *, max_inline_bytes: int | None = None
    ) -> LoadedArtifacts:
        """The namespace as ListArtifact JSON; past the inline limit, a presigned GET of that JSON in S3.

        `max_inline_bytes` lowers the inline limit for this call (e.g. a Step Functions state is capped at
        256 KB); it never raises it above `max_inline_response_bytes` (Lambda's response cap).
        """
        limit = self.max_inline_response_bytes
        if max_inline_bytes is not None:
            if isinstance(max_inline_bytes, bool) or not isinstance(max_inline_bytes, int) or max_inline_bytes < 1:
                raise InvalidInput("max_inline_bytes must be a positive integer")
            limit = min(limit, max_inline_bytes)
        items = self.load_items_json(tenant, memory, namespace)
        body = list_artifact_json(items)
        size = len(body)  # ASCII: json.dumps escapes everything else
        if size <= limit:
            return LoadedArtifacts(body=body, size=size)
        key = f"downloads/{digest(tenant)}/{uuid.uuid4().hex}.json"
        self.blobs.put(key, body.encode("ascii"), content_type="application/json")
        url = self.blobs.presign_get(key, DOWNLOAD_EXPIRES_IN)
        return LoadedArtifacts(body=None, size=size, download_url=url, expires_in=DOWNLOAD_EXPIRES_IN)

    # ---- admin & search --------------------------------------------------------------------------------
    def get_namespace(self, tenant: str, memory: str, namespace: str) -> NamespaceRecord:
        check_identifier("memory_name", memory)
        check_identifier("namespace", namespace)
        record = self.namespaces.get(tenant, memory, namespace)
        if record is None:
            raise NotFound(f'namespace "{namespace[:100]}" does not exist in memory "{memory[:100]}"')
        return record

    def list_namespaces(
        self, tenant: str, memory: str, limit: int = 100, cursor: str | None = None
    ) -> tuple[list[NamespaceRecord], str | None]:
        check_identifier("memory_name", memory)
        return self.namespaces.list_records(tenant, memory, _limit(limit), cursor)

    def delete_namespace(self, tenant: str, memory: str, namespace: str) -> None:
        """Delete the records first (readers then see nothing), then every S3 object and OpenSearch document.

        Data is removed even when no record exists, so retrying a delete that failed half-way finishes it.
        """
        check_identifier("memory_name", memory)
        check_identifier("namespace", namespace)
        existed = self.namespaces.delete(tenant, memory, namespace)
        self.blobs.delete_prefix(self.namespace_prefix(tenant, memory, namespace))
        self.texts.delete(TextScope(tenant, memory, namespace))
        if not existed:
            raise NotFound(f'namespace "{namespace[:100]}" does not exist in memory "{memory[:100]}"')

    def meta_entries(
        self, tenant: str, memory: str, limit: int = 100, cursor: str | None = None
    ) -> tuple[list[dict[str, object]], str | None]:
        check_identifier("memory_name", memory)
        return self.namespaces.meta_entries(tenant, memory, _limit(limit), cursor)

    def search(
        self, tenant: str, memory: str, namespace: str, query: str, top_k: int = 5, mode: str = "bm25"
    ) -> list[SearchHit]:
        check_identifier("memory_name", memory)
        check_identifier("namespace", namespace)
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("query must be a non-empty string")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidInput(f"query is longer than {MAX_QUERY_CHARS} characters")
        if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
            raise InvalidInput(f"top_k must be an integer from 1 to {MAX_TOP_K}")
        if mode not in SEARCH_MODES:
            raise InvalidInput(f"mode must be one of {', '.join(SEARCH_MODES)}")
        batches = self.namespaces.batches(tenant, memory, namespace)
        if not batches:
            raise NotFound(f'namespace "{namespace[:100]}" does not exist in memory "{memory[:100]}"')
        if batches[0].kind != task.StorageKind.TEXT.value:
            raise NotTextNamespace(f'namespace "{namespace[:100]}" holds blobs; only text can be searched')
        committed = {b.start + i for b in batches for i in range(b.count)}
        scope = TextScope(tenant, memory, namespace)
        k = top_k
        while True:
            hits = self.texts.search(scope, query, k, cast(SearchMode, mode))
            kept = [h for h in hits if h.position in committed]
            # Documents of stores that never committed are skipped; ask for more if they crowded the top k.
            if len(kept) >= top_k or len(hits) < k or k >= MAX_TOP_K * 10:
                return kept[:top_k]
            k = min(k * 4, MAX_TOP_K * 10)


# ---- helpers -----------------------------------------------------------------------------------------------


def envelope_json(artifact: BaseArtifact) -> str:
    """The artifact's JSON with an empty value, keeping every other field (ids, names, meta, formats) exactly."""
    data = artifact.to_dict()
    data["value"] = ""
    return dumps(data)


def list_artifact_json(items_json: Sequence[str]) -> str:
    """A fresh ListArtifact around already-serialized items (Griptape's key order and separators)."""
    shell = ListArtifact().to_dict()
    shell["value"] = "\x00ITEMS\x00"
    head, _, tail = dumps(shell).partition('"\\u0000ITEMS\\u0000"')
    return head + "[" + ", ".join(items_json) + "]" + tail


def _limit(limit: Any) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
        raise InvalidInput("limit must be an integer from 1 to 1000")
    return limit


def _best_effort(action: Callable[[], Any]) -> None:
    try:
        action()
    except (OffpromptError, OSError):
        pass
    except Exception:  # cleanup never hides the original outcome
        pass


def text_store_from_settings(settings: Settings) -> TextStore:
    """The OpenSearch text store (and its embedder, when configured), built on first use."""
    from offprompt.adapters.embeddings import BedrockTitanEmbedder
    from offprompt.adapters.opensearch_client import build_opensearch_client
    from offprompt.adapters.opensearch_text import OpenSearchTextStore
    from offprompt.adapters.tokenizer import TiktokenTokenizer

    client = build_opensearch_client(settings.require("opensearch_url"), settings.opensearch_auth)
    embedder = None
    if settings.embedding_model_id:
        embedder = BedrockTitanEmbedder(settings.embedding_model_id, settings.embedding_dimensions)
    # refresh="wait_for": when process-output returns, search sees the text (a later workflow step may search
    # at once); costs up to the index's refresh interval (1 s) per text store.
    store = OpenSearchTextStore(client, settings.opensearch_index, TiktokenTokenizer(), embedder, refresh="wait_for")
    return cast(TextStore, store)


class LazyTextStore:
    """A TextStore built on first use: blob-only requests never connect to OpenSearch."""

    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, factory: Callable[[], TextStore]) -> None:
        self._factory = factory
        self._store: TextStore | None = None

    def built(self) -> TextStore:
        if self._store is None:
            with self._lock:
                if self._store is None:
                    self._store = self._factory()
        return self._store

    def store(self, scope: TextScope, start_position: int, artifacts: Sequence[TextArtifact]) -> list[int]:
        return self.built().store(scope, start_position, artifacts)

    def load(self, scope: TextScope, layout: Sequence[tuple[int, int]]) -> list[TextArtifact]:
        return self.built().load(scope, layout)

    def search(self, scope: TextScope, query: str, top_k: int, mode: SearchMode) -> list[SearchHit]:
        return self.built().search(scope, query, top_k, mode)

    def delete(self, scope: TextScope) -> int:
        return self.built().delete(scope)


# ---- request shapes (shared by the HTTP and direct adapters) ------------------------------------------------


_M = TypeVar("_M", bound=BaseModel)


class SchemaInvalid(InvalidInput):
    """A request body/event does not have the expected shape (HTTP 422 on the API)."""

    code = "schema_invalid"


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ActionIn(_Request):
    type: Literal["ToolAction"] | None = None
    tag: str
    name: str
    path: str | None = None
    input: dict[str, Any] = Field(default_factory=dict)

    def to_action(self) -> ToolAction:
        return ToolAction(tag=self.tag, name=self.name, path=self.path, input=self.input)


class OutputRequest(_Request):
    tool: str = Field(min_length=1, max_length=256)
    activity: str = Field(min_length=1, max_length=256)
    artifact: dict[str, Any]
    actions: list[ActionIn] = Field(default_factory=list)
    thought: str | None = None
    value_from: dict[str, Any] | None = None


class SearchRequest(_Request):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    top_k: int = Field(default=5, ge=1, le=MAX_TOP_K, strict=True)
    mode: Literal["bm25", "knn", "hybrid"] = "bm25"


def parse_request(model: type[_M], data: Any) -> _M:
    """Validate a request; SchemaInvalid (with pydantic's error list in `details`) when it does not fit."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        errors = [
            {"loc": [str(p) for p in e["loc"]], "type": e["type"], "msg": e["msg"]}
            for e in exc.errors(include_url=False)[:20]
        ]
        raise SchemaInvalid("request does not match the schema", details={"errors": errors}) from None


def record_to_dict(record: NamespaceRecord) -> dict[str, Any]:
    return {
        "memory_name": record.memory,
        "namespace": record.namespace,
        "storage": record.kind,
        "tool": record.tool,
        "activity": record.activity,
        "namespace_metadata": record.namespace_metadata,
        "artifact_count": record.artifact_count,
        "total_bytes": record.total_bytes,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
    }


def hit_to_dict(hit: SearchHit) -> dict[str, Any]:
    return {
        "artifact_id": hit.artifact_id,
        "position": hit.position,
        "chunk": hit.chunk,
        "text": hit.text,
        "score": hit.score,
    }


@functools.cache
def default_service() -> TaskMemoryService:
    """The process's service, built from the environment on first use (never at import)."""
    from offprompt.config import get_settings

    return TaskMemoryService.from_settings(get_settings())
