"""Off-prompt task memory over ports: Griptape's `TaskMemory.process_output` / `load_artifacts`.

Store = reserve positions (atomic counter) → write the data (OpenSearch chunks or S3 objects) → commit the
batch, the namespace record and the meta entry in one DynamoDB transaction. Readers only ever follow
committed batches, so they never see a reference to data that is not there, nor half a batch.
"""

from __future__ import annotations

import base64
import functools
import json
import logging
import re
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from offprompt import deadline
from offprompt.artifacts import BaseArtifact, BlobArtifact, TextArtifact
from offprompt.artifacts.action import ToolAction
from offprompt.errors import (
    ArtifactError,
    DependencyUnavailable,
    InvalidInput,
    NotFound,
    PayloadTooLarge,
)
from offprompt.identifiers import check_identifier, digest
from offprompt.limits import (
    DOWNLOAD_EXPIRES_IN,
    MAX_INLINE_ENTRIES_BYTES,
    MAX_INLINE_RESPONSE_BYTES,
    MAX_META_BYTES,
    MAX_PAGE_LIMIT,
    MAX_QUERY_CHARS,
    MAX_SEARCH_DEPTH,
    MAX_TOP_K,
    MAX_UPLOAD_BYTES,
    SEARCH_MODES,
    UPLOAD_EXPIRES_IN,
)
from offprompt.memory import task
from offprompt.memory.meta import ActionSubtaskMetaEntry
from offprompt.ports import (
    BlobStore,
    NamespaceCommit,
    NamespaceDeleting,
    NamespaceRecord,
    NamespaceStore,
    SearchHit,
    SearchMode,
    StorageKindTaken,
    StoredBatch,
    TextScope,
    TextStore,
)
from offprompt.services.task_memory.artifact_json import envelope_json, list_artifact_json
from offprompt.services.task_memory.errors import (
    NamespaceDeleted,
    NotTextNamespace,
    StorageKindConflict,
    UploadError,
)
from offprompt.services.task_memory.results import BlobDownload, LoadedArtifacts, ProcessResult, Upload

_UPLOAD_ID = re.compile(r"^[0-9a-f]{32}$")
_VALUE_FROM_TYPES = ("TextArtifact", "BlobArtifact", "ImageArtifact", "AudioArtifact")

_log = logging.getLogger("offprompt.task_memory")


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

    # ---- keys ----------------------------------------------------------------------------------------
    @staticmethod
    def namespace_prefix(tenant: str, memory: str, namespace: str) -> str:
        return f"taskmem/{digest(tenant)}/{digest(tenant, memory, namespace)}/"

    def blob_key(self, tenant: str, memory: str, namespace: str, position: int) -> str:
        return f"{self.namespace_prefix(tenant, memory, namespace)}{position:012d}"

    @staticmethod
    def upload_prefix(tenant: str, memory: str) -> str:
        # Under the tenant's digest first, so an erase finds a tenant's pending uploads by prefix (ADR 0024).
        return f"uploads/{digest(tenant)}/{digest(tenant, memory)}/"

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
        actions_json = task.actions_to_json(actions)
        meta_bytes = len(actions_json.encode("utf-8", "surrogatepass")) + len(
            (thought or "").encode("utf-8", "surrogatepass")
        )
        if meta_bytes > MAX_META_BYTES:  # checked before a position is reserved or anything is written
            raise PayloadTooLarge(
                f"thought and actions together are {meta_bytes} bytes; at most {MAX_META_BYTES} are kept as "
                "meta memory (store large tool inputs as artifacts instead)"
            )

        try:
            reservation = self.namespaces.allocate(tenant, memory, namespace, len(items))
        except NamespaceDeleting:
            raise NamespaceDeleted(namespace) from None
        start, held = reservation.start, reservation.kind
        if held is not None and held != kind.value:
            raise StorageKindConflict(namespace, held, kind.value)
        if kind is task.StorageKind.TEXT:
            entries, total = self._write_text(tenant, memory, namespace, start, items)
        else:
            entries, total = self._write_blobs(tenant, memory, namespace, start, items)
        batch = self._batch(tenant, memory, namespace, start, kind.value, entries)

        answer = task.stored_answer(tool, activity, memory, namespace)
        meta = ActionSubtaskMetaEntry(actions=actions_json, answer=answer.value, thought=thought)
        commit = NamespaceCommit(tool=tool, activity=activity, namespace_metadata=actions_json, total_bytes=total)
        try:
            self.namespaces.commit(tenant, memory, namespace, batch, commit, meta.to_dict(), reservation.generation)
        except StorageKindTaken as lost:
            self._discard(tenant, memory, namespace, kind, entries, batch, lost_to=lost.kind)
            raise StorageKindConflict(namespace, lost.kind, kind.value) from None
        except NamespaceDeleting:
            # Our text documents sit at positions no committed batch names (and none will: positions are never
            # reused), so readers never see them; our blobs and manifest go now.
            self._discard(tenant, memory, namespace, kind, entries, batch, lost_to=None)
            raise NamespaceDeleted(namespace) from None
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
        return self._items_json(tenant, memory, namespace, self._resolve(tenant, memory, namespace))

    def _resolve(self, tenant: str, memory: str, namespace: str) -> list[tuple[StoredBatch, list[dict[str, object]]]]:
        check_identifier("memory_name", memory)
        check_identifier("namespace", namespace)
        return [(b, self._entries(b)) for b in self.namespaces.batches(tenant, memory, namespace)]

    def _items_json(
        self, tenant: str, memory: str, namespace: str, resolved: list[tuple[StoredBatch, list[dict[str, object]]]]
    ) -> list[str]:
        if not resolved:
            return []
        if resolved[0][0].kind == task.StorageKind.TEXT.value:
            layout = [
                (b.start + i, int(cast(int, e["chunks"]))) for b, entries in resolved for i, e in enumerate(entries)
            ]
            return [a.to_json() for a in self.texts.load(TextScope(tenant, memory, namespace), layout)]
        entries = [e for _, es in resolved for e in es]
        if len(entries) <= 1:
            return [self._blob_json(e) for e in entries]
        with ThreadPoolExecutor(max_workers=min(8, len(entries))) as pool:
            # deadline.bind: each thread obeys the request's deadline
            return list(pool.map(deadline.bind(self._blob_json), entries))

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
        """The namespace as ListArtifact JSON; past the inline limit, presigned GETs instead (see LoadedArtifacts):
        a blob namespace lists its stored objects (its JSON would be base64: 4/3 the bytes, rebuilt and uploaded
        again), a text namespace's JSON is written to S3 once.

        `max_inline_bytes` lowers the inline limit for this call (e.g. a Step Functions state is capped at
        256 KB); it never raises it above `max_inline_response_bytes` (Lambda's response cap).
        """
        limit = self.max_inline_response_bytes
        if max_inline_bytes is not None:
            if isinstance(max_inline_bytes, bool) or not isinstance(max_inline_bytes, int) or max_inline_bytes < 1:
                raise InvalidInput("max_inline_bytes must be a positive integer")
            limit = min(limit, max_inline_bytes)
        resolved = self._resolve(tenant, memory, namespace)
        blobs = _blob_entries(resolved)
        if blobs and _inline_json_size(blobs) > limit:
            # Large blobs are answered with their stored objects: nothing is downloaded, encoded or uploaded.
            downloads = [
                BlobDownload(
                    envelope={k: v for k, v in json.loads(str(e["envelope"])).items() if k != "value"},
                    size=int(cast(int, e["size"])),
                    download_url=self.blobs.presign_get(str(e["key"]), DOWNLOAD_EXPIRES_IN),
                )
                for e in blobs
            ]
            total = sum(d.size for d in downloads)
            return LoadedArtifacts(body=None, size=total, expires_in=DOWNLOAD_EXPIRES_IN, blobs=downloads)
        items = self._items_json(tenant, memory, namespace, resolved)
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

    def delete_namespace(self, tenant: str, memory: str, namespace: str) -> bool:
        """Delete the records first (readers then see nothing), then every S3 object and OpenSearch document.

        Idempotent: data is removed even when no record exists, so retrying a delete that failed half-way
        finishes it; returns whether a record existed (an unknown namespace is not an error, README).
        """
        check_identifier("memory_name", memory)
        check_identifier("namespace", namespace)
        existed = self.namespaces.delete(tenant, memory, namespace)  # marked: stores in flight cannot commit
        self.blobs.delete_prefix(self.namespace_prefix(tenant, memory, namespace))
        self.texts.delete(TextScope(tenant, memory, namespace))
        self.namespaces.release(tenant, memory, namespace)  # only now may the name be stored into again
        return existed

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
        if not batches:  # an unknown namespace holds nothing: no hits, as a load of it is an empty list
            return []
        if batches[0].kind != task.StorageKind.TEXT.value:
            raise NotTextNamespace(f'namespace "{namespace[:100]}" holds blobs; only text can be searched')
        committed = {b.start + i for b in batches for i in range(b.count)}
        scope = TextScope(tenant, memory, namespace)
        k = top_k
        while True:
            hits = self.texts.search(scope, query, k, cast(SearchMode, mode))
            kept = [h for h in hits if h.position in committed]
            # Documents of stores that never committed are skipped; ask for more if they crowded the top k.
            if len(kept) >= top_k or len(hits) < k or k >= MAX_SEARCH_DEPTH:
                return kept[:top_k]
            k = min(k * 4, MAX_SEARCH_DEPTH)


def _blob_entries(resolved: list[tuple[StoredBatch, list[dict[str, object]]]]) -> list[dict[str, object]]:
    """The entries of a blob namespace, in order; [] for a text or empty one."""
    if not resolved or resolved[0][0].kind != task.StorageKind.BLOB.value:
        return []
    return [e for _, entries in resolved for e in entries]


def _inline_json_size(entries: list[dict[str, object]]) -> int:
    """An upper estimate of the ListArtifact JSON of these blobs: envelopes + base64 values + separators."""
    return 256 + sum(len(str(e["envelope"])) + 4 * (int(cast(int, e["size"])) + 2) // 3 + 32 for e in entries)


def _limit(limit: Any) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE_LIMIT:
        raise InvalidInput(f"limit must be an integer from 1 to {MAX_PAGE_LIMIT}")
    return limit


def _best_effort(action: Callable[[], Any]) -> None:
    """Run a cleanup step; a failure is logged (what is left is swept later) and never hides the request's outcome."""
    try:
        action()
    except Exception as exc:
        _log.warning("cleanup failed; left for the sweep", extra={"error": type(exc).__name__}, exc_info=True)
