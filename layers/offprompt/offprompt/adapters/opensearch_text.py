"""`TextStore` on OpenSearch: one document per token-bounded chunk, deterministic ids, exact reassembly.

Why ~830 lines (docs/adr/0058): the store's write, load, search and delete paths, in both modes, share the chunk
layout, the bulk sender and the Serverless sweep; the call-depth rule wants each OpenSearch call in the module of the
method a use case calls. Serverless's S3 records are in `s3_text_records`.

Document layout (mapping: `infra/opensearch/index.json`, loaded through `opensearch_index.json` here):

    _id          sha256 digest of [tenant, memory, namespace, position, chunk]   (identifiers.digest)
    tenant, memory, namespace, artifact_id      keyword
    position     the artifact's position in the namespace;  chunk: 0, 1, ... within the artifact
    text         the chunk (standard analyzer, BM25)
    artifact     chunk 0 only: the artifact's JSON envelope without "value", as a JSON *string*
                 (stored, never indexed; a string is returned byte for byte, whatever JSON numbers or
                 nesting `meta` holds)
    embedding    only when an embedder is configured, and only for chunks with non-blank text

`load` rebuilds each artifact as envelope + "".join(chunk texts) -> `BaseArtifact.from_dict`, so it is the
exact artifact that was stored. It reads with mget (real-time: no refresh needed after `store`).
Search is near-real-time (visible after the index's next refresh, 1 s by default) unless `refresh=True`.
See docs/adr/0005-text-storage.md.

`mode="serverless"` speaks OpenSearch Serverless's subset of the API (docs/adr/0030-opensearch-serverless.md):
documents get server-generated ids (plus a `write_id` per store, a unique sort key), nothing waits for or forces a
refresh, and each artifact's exact JSON and its documents' ids are kept in S3 (`S3TextRecords`, under the tenant's
`taskmem/` prefix): load reads the record (immediate and exact, whatever the collection's search delay), a retried
store finds it and writes nothing twice, delete removes the recorded ids by bulk delete, then sweeps what search sees.
"""

from __future__ import annotations

import functools
import itertools
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, cast

from offprompt import deadline
from offprompt.artifacts import BaseArtifact, TextArtifact
from offprompt.cleanup import best_effort
from offprompt.errors import ArtifactError, ConfigurationError, DependencyUnavailable, InvalidInput
from offprompt.memory.chunking import DEFAULT_CHUNK_TOKENS, chunk_text, iter_chunks
from offprompt.ports import Embedder, Entries, Resolved, SearchHit, SearchMode, TextScope, TextStore, Tokenizer

from .layout import chunk_doc_id
from .opensearch_query import call, check_search, fuse, responses, search_bodies
from .opensearch_query import describe as _describe
from .opensearch_query import error_type as _error_type
from .opensearch_query import translate as _translate
from .s3_text_records import S3TextRecords, TextRecord

__all__ = ["LazyTextStore", "OpenSearchTextStore", "S3TextRecords", "TextRecord", "TextStorage"]  # (and helpers)

#: How long a store that asked to be searchable (consistency=search) waits on Serverless, and how often it looks.
SEARCHABLE_WAIT_S = 20.0
SEARCHABLE_POLL_S = 0.5

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

    from offprompt.memory.task import StorageKind

INDEX_DEFINITION_PATH = Path(__file__).with_name("opensearch_index.json")

BULK_MAX_BYTES = 5 * 1024 * 1024
BULK_MAX_DOCS = 500
MGET_PAGE = 500
EMBED_BATCH = 64
_SOURCE_FIELDS = ["tenant", "memory", "namespace", "artifact_id", "position", "chunk", "text"]
OpenSearchMode = Literal["domain", "serverless"]
#: Serverless: documents deleted by id per bulk request, and ids read per search page of a sweep.
DELETE_PAGE = 500
SWEEP_PAGE = 500
#: Serverless: the sort of a namespace's documents; `write_id` (one per store call) makes the key unique.
NAMESPACE_ORDER = ("position", "chunk", "write_id")


def index_definition(dimensions: int | None = None, *, serverless: bool = False) -> dict[str, Any]:
    """The index settings and mapping, with the embedding dimension set to `dimensions` when given.

    `serverless`: what an OpenSearch Serverless vector search collection accepts: no shard or replica settings
    (Serverless manages them), the Faiss engine for the k-NN field (vector collections do not offer Lucene's), and
    the `write_id` keyword the serverless store sorts by."""
    definition: dict[str, Any] = json.loads(INDEX_DEFINITION_PATH.read_text(encoding="utf-8"))
    properties = definition["mappings"]["properties"]
    if dimensions is not None:
        properties["embedding"]["dimension"] = dimensions
    if serverless:
        definition["settings"] = {"index": {"knn": True}}
        properties["embedding"]["method"]["engine"] = "faiss"
        properties["write_id"] = {"type": "keyword"}
    return definition


def document_id(scope: TextScope, position: int, chunk: int) -> str:
    return chunk_doc_id(scope.tenant, scope.memory, scope.namespace, position, chunk)


class OpenSearchTextStore:
    """The `TextStore` port over one OpenSearch index (see the module docstring for the layout)."""

    def __init__(
        self,
        client: OpenSearch | Callable[[], OpenSearch],
        index: str,
        tokenizer: Tokenizer,
        embedder: Embedder | None = None,
        chunk_tokens: int = DEFAULT_CHUNK_TOKENS,
        *,
        refresh: bool | Literal["wait_for"] = False,
        bulk_max_bytes: int = BULK_MAX_BYTES,
        bulk_max_docs: int = BULK_MAX_DOCS,
        mget_page: int = MGET_PAGE,
        request_timeout: float = 60.0,
        mode: OpenSearchMode = "domain",
        records: S3TextRecords | None = None,
    ) -> None:
        """`client` is a client or a zero-argument factory called on first use (e.g. a cached builder).

        `refresh=True` refreshes the index after each store, so search sees the text at once (load never
        needs it); `"wait_for"` makes the store's last bulk request wait for the index's next scheduled refresh
        (up to `refresh_interval`, 1 s by default) instead of forcing one. The index is created from the
        definition on the first store of this instance if it does not exist yet.
        `request_timeout` applies to bulk, mget and delete-by-query requests.

        `mode="serverless"` (OpenSearch Serverless) needs `records` and refuses `refresh`: Serverless offers no
        refresh, so a store's text becomes searchable at the collection's own pace (load does not depend on it).
        """
        chunk_text("", tokenizer, chunk_tokens)  # validates chunk_tokens now, not at the first store
        if mode not in ("domain", "serverless"):
            raise ConfigurationError(f"OpenSearch mode must be domain or serverless, got {mode!r}")
        if mode == "serverless" and (records is None or refresh is not False):
            raise ConfigurationError("the serverless text store needs S3 text records and cannot refresh")
        self.mode = mode
        self.records = records
        self._client = client
        self.index = index
        self.tokenizer = tokenizer
        self.embedder = embedder
        self.chunk_tokens = chunk_tokens
        self.refresh = refresh
        self._index_ready = False
        self.bulk_max_bytes = bulk_max_bytes
        self.bulk_max_docs = bulk_max_docs
        self.mget_page = mget_page
        self.request_timeout = request_timeout

    @property
    def client(self) -> OpenSearch:
        if callable(self._client):
            self._client = self._client()
        return self._client

    # ------------------------------------------------------------------------------------------- index

    def ensure_index(self, dimensions: int | None = None) -> bool:
        """Create the index if it does not exist; True if this call created it. Safe under races.

        Asks first (a HEAD any node answers): creating an index that exists is a cluster-state task the cluster
        manager refuses, on the first store of every environment (issue 34; ADR 0059)."""
        if dimensions is None and self.embedder is not None:
            dimensions = self.embedder.dimensions
        body = index_definition(dimensions, serverless=self.mode == "serverless")
        try:
            if self.client.indices.exists(index=self.index):
                return False
            self.client.indices.create(index=self.index, body=body)
        except Exception as exc:
            if _error_type(exc) == "resource_already_exists_exception":
                return False
            translated = _translate(exc, "create index")
            if translated is exc:
                raise
            raise translated from exc
        return True

    # ------------------------------------------------------------------------------------------- store

    def store(
        self, scope: TextScope, start_position: int, artifacts: Sequence[TextArtifact], *, searchable: bool = False
    ) -> list[int]:
        _check_scope(scope)
        _check_int("start_position", start_position)
        for artifact in artifacts:
            if not isinstance(artifact, TextArtifact):
                raise InvalidInput(f"only TextArtifacts go to text storage, got {type(artifact).__name__}")
            _check_unicode(artifact)
        if not self._index_ready:
            # Once per instance (i.e. per Lambda container): an index created on the fly by a first bulk write
            # would get dynamic mappings (no knn_vector, no strict schema).
            self.ensure_index()
            self._index_ready = True
        if self.mode == "serverless":  # `searchable`: Serverless refreshes at its own pace (`wait_searchable`)
            return self._store_serverless(scope, start_position, artifacts)
        counts = self._index(
            scope,
            [(start_position + offset, artifact) for offset, artifact in enumerate(artifacts)],
            refresh="wait_for" if self.refresh == "wait_for" or searchable else None,
        )
        if self.refresh is True and artifacts:
            self._call("refresh", lambda: self.client.indices.refresh(index=self.index))
        return counts

    def wait_searchable(self, scope: TextScope, start: int, counts: Sequence[int]) -> bool:
        """After a commit: whether search finds every chunk of the positions stored there. A domain store with
        `searchable` already waited for its refresh; on Serverless this polls, within SEARCHABLE_WAIT_S and the
        request's deadline (False when the index is slower: the text is stored and loadable all the same)."""
        expected = sum(counts)
        if not expected or self.mode != "serverless":
            return True
        body = {
            "query": {
                "bool": {
                    "filter": [
                        *_scope_terms(scope),
                        {"range": {"position": {"gte": start, "lt": start + len(counts)}}},
                    ]
                }
            }
        }
        waited_until = time.monotonic() + SEARCHABLE_WAIT_S
        while True:
            found = int(self._call("count", lambda: self.client.count(index=self.index, body=body))["count"])
            if found >= expected:
                return True
            left = deadline.remaining()
            if time.monotonic() >= waited_until or (left is not None and left < SEARCHABLE_POLL_S + 1):
                return False
            time.sleep(SEARCHABLE_POLL_S)

    def _index(
        self,
        scope: TextScope,
        items: Sequence[tuple[int, TextArtifact]],
        *,
        refresh: str | None = None,
        ids: dict[tuple[int, int], str] | None = None,
        write_id: str | None = None,
    ) -> list[int]:
        """Chunk and bulk-index `items` ((position, artifact) pairs); their chunk counts. The last request carries
        `refresh` (wait_for: every earlier request has completed, so the refresh it waits for makes the whole store
        searchable). `write_id` (serverless): documents without `_id`, each server id put in `ids`."""
        counts: list[int] = []
        sender = _BulkSender(functools.partial(self._bulk, ids=ids))
        early = self.embedder is not None
        try:
            batch: list[bytes] = []
            batch_bytes = 0
            batch_docs: list[tuple[int, int]] = []
            for position, artifact in items:
                count = 0
                for chunk, line in self._document_lines(scope, position, artifact, write_id):
                    count += 1
                    if batch and (
                        batch_bytes + len(line) > self.bulk_max_bytes or len(batch_docs) >= self.bulk_max_docs
                    ):
                        sender.send(batch, batch_docs)
                        batch, batch_bytes, batch_docs = [], 0, []
                    batch.append(line)
                    batch_bytes += len(line)
                    batch_docs.append((position, chunk))
                    if early and len(batch_docs) >= EMBED_BATCH and sender.idle():
                        # An embedded batch leaves while the next one is embedded: OpenSearch indexes meanwhile.
                        sender.send(batch, batch_docs)
                        batch, batch_bytes, batch_docs = [], 0, []
                counts.append(count)
            sender.wait()
            if batch:
                self._bulk(batch, batch_docs, refresh=refresh, ids=ids)
        finally:
            sender.close()
        return counts

    def _store_serverless(self, scope: TextScope, start: int, artifacts: Sequence[TextArtifact]) -> list[int]:
        """Index the artifacts without ids, then record each one's JSON and ids in S3. An artifact whose record
        already holds the same JSON (a retried store) is not indexed again; if anything fails, the documents this
        call indexed are deleted again (best effort), so a retry does not leave duplicates behind."""
        records = self._records()
        counts: dict[int, int] = {}
        todo: list[tuple[int, TextArtifact, str]] = []
        earlier = each_of(functools.partial(records.get, scope), [start + i for i in range(len(artifacts))])
        for offset, (artifact, previous) in enumerate(zip(artifacts, earlier, strict=True)):
            position = start + offset
            artifact_json = artifact.to_json()
            if previous is not None and previous.artifact_json == artifact_json:
                counts[position] = previous.chunks
                continue
            if previous is not None:  # a position rewritten with another text (the services never do this)
                self._delete_ids(previous.ids)
            todo.append((position, artifact, artifact_json))
        ids: dict[tuple[int, int], str] = {}
        try:
            written = self._index(scope, [(p, a) for p, a, _ in todo], ids=ids, write_id=uuid.uuid4().hex)
            new = [
                (position, TextRecord(artifact_json, count, [ids[(position, c)] for c in range(count)]))
                for (position, _, artifact_json), count in zip(todo, written, strict=True)
            ]
            each_of(lambda entry: records.put(scope, entry[0], entry[1]), new)
        except Exception:
            best_effort(functools.partial(self._delete_ids, list(ids.values())))
            raise
        counts.update((position, record.chunks) for position, record in new)
        return [counts[start + offset] for offset in range(len(artifacts))]

    def _records(self) -> S3TextRecords:
        if self.records is None:
            raise ConfigurationError("the serverless text store needs S3 text records")
        return self.records

    def _document_lines(
        self, scope: TextScope, position: int, artifact: TextArtifact, write_id: str | None = None
    ) -> Iterator[tuple[int, bytes]]:
        """(chunk number, the two NDJSON lines of its bulk `index` action), chunking as it goes and
        embedding `EMBED_BATCH` chunks at a time."""
        envelope = artifact.to_dict()
        del envelope["value"]
        chunks = iter_chunks(artifact.value, self.tokenizer, self.chunk_tokens)
        for first in itertools.count(0, EMBED_BATCH):
            texts = list(itertools.islice(chunks, EMBED_BATCH))
            if not texts:
                return
            vectors = self._embed_chunks(texts)
            for i, text in enumerate(texts):
                chunk = first + i
                doc: dict[str, Any] = {
                    "tenant": scope.tenant,
                    "memory": scope.memory,
                    "namespace": scope.namespace,
                    "artifact_id": artifact.id,
                    "position": position,
                    "chunk": chunk,
                    "text": text,
                }
                if chunk == 0:
                    doc["artifact"] = json.dumps(envelope)
                if vectors[i] is not None:
                    doc["embedding"] = vectors[i]
                action: dict[str, Any] = {"index": {"_id": document_id(scope, position, chunk)}}
                if write_id is not None:  # Serverless: the collection chooses the id
                    doc["write_id"] = write_id
                    action = {"index": {}}
                line = json.dumps(action) + "\n" + json.dumps(doc, ensure_ascii=False) + "\n"
                yield chunk, line.encode("utf-8")

    def _embed_chunks(self, texts: list[str]) -> list[list[float] | None]:
        return embed_texts(self.embedder, texts)

    def _bulk(
        self,
        lines: list[bytes],
        docs: list[tuple[int, int]],
        refresh: str | None = None,
        ids: dict[tuple[int, int], str] | None = None,
    ) -> None:
        body = b"".join(lines)
        params = {"refresh": refresh} if refresh else {}
        response = self._call(
            "bulk index",
            lambda: self.client.bulk(body=body, index=self.index, request_timeout=self.request_timeout, **params),
        )
        items = response.get("items")
        if not isinstance(items, list) or len(items) != len(docs):
            raise DependencyUnavailable(
                f"OpenSearch bulk response has {len(items) if isinstance(items, list) else 'no'} items "
                f"for {len(docs)} documents"
            )
        failed = [(doc, item) for doc, item in zip(docs, items, strict=True) if not _item_ok(item)]
        if ids is not None:
            for doc, item in zip(docs, items, strict=True):
                if not _item_ok(item):
                    continue
                written: dict[str, Any] = next(iter(item.values()))
                doc_id = written.get("_id")
                if not isinstance(doc_id, str) or not doc_id:
                    raise DependencyUnavailable("OpenSearch bulk response names no id for an indexed document")
                ids[doc] = doc_id
        if failed:
            (position, chunk), item = failed[0]
            result: Any = next(iter(item.values()), {}) if isinstance(item, dict) else {}
            error = result.get("error") if isinstance(result, dict) else None
            kind, reason = _describe(error)
            raise DependencyUnavailable(
                f"OpenSearch rejected {len(failed)} of {len(docs)} chunk documents; first: position {position} "
                f"chunk {chunk}: status {result.get('status')} {kind}: {reason}",
                details={"failed": len(failed), "position": position, "chunk": chunk, "error": kind},
            )

    # -------------------------------------------------------------------------------------------- load

    def load(self, scope: TextScope, layout: Sequence[tuple[int, int]]) -> list[TextArtifact]:
        _check_scope(scope)
        wanted: list[tuple[int, int]] = []
        for entry in layout:
            if not isinstance(entry, tuple | list) or len(entry) != 2:
                raise InvalidInput("layout entries must be (position, chunk_count) pairs")
            position, count = entry
            _check_int("position", position)
            _check_int("chunk count", count)
            if count < 1:
                raise InvalidInput(f"chunk count must be at least 1, got {count}")
            wanted.extend((position, chunk) for chunk in range(count))
        if self.mode == "serverless":
            return each_of(functools.partial(self._load_record, scope), list(layout))
        docs: list[dict[str, Any]] = []
        for first in range(0, len(wanted), self.mget_page):
            docs.extend(self._mget(scope, wanted[first : first + self.mget_page]))
        artifacts: list[TextArtifact] = []
        cursor = 0
        for position, count in layout:
            artifacts.append(self._rebuild(scope, position, docs[cursor : cursor + count]))
            cursor += count
        return artifacts

    def _mget(self, scope: TextScope, page: list[tuple[int, int]]) -> list[dict[str, Any]]:
        ids = [document_id(scope, position, chunk) for position, chunk in page]
        # Source filtering makes OpenSearch re-serialize every _source (about 2x the server time of a plain
        # mget), so it is only worth it when the documents carry 1024-float embeddings.
        options: dict[str, Any] = {"_source_excludes": "embedding"} if self.embedder is not None else {}
        response = self._call(
            "load (mget)",
            lambda: self.client.mget(
                index=self.index, body={"ids": ids}, request_timeout=self.request_timeout, **options
            ),
        )
        found = response.get("docs")
        if not isinstance(found, list) or len(found) != len(ids):
            raise DependencyUnavailable("OpenSearch mget answered with a different number of documents")
        sources: list[dict[str, Any]] = []
        for (position, chunk), doc_id, doc in zip(page, ids, found, strict=True):
            if not isinstance(doc, dict) or doc.get("_id") != doc_id:
                raise DependencyUnavailable("OpenSearch mget answered with documents out of order")
            if "error" in doc:
                kind, reason = _describe(doc["error"])
                raise DependencyUnavailable(
                    f"OpenSearch could not read position {position} chunk {chunk}: {kind}: {reason}"
                )
            if not doc.get("found"):
                raise DependencyUnavailable(
                    f"text chunk {chunk} of the artifact at position {position} of namespace {scope.namespace!r} "
                    "is missing from OpenSearch (the namespace record and the stored text disagree)",
                    details={"position": position, "chunk": chunk},
                )
            source = doc.get("_source")
            expected = {
                "tenant": scope.tenant,
                "memory": scope.memory,
                "namespace": scope.namespace,
                "position": position,
                "chunk": chunk,
            }
            if not isinstance(source, dict) or any(source.get(k) != v for k, v in expected.items()):
                raise DependencyUnavailable(
                    f"the document for position {position} chunk {chunk} belongs to another scope or position"
                )
            if not isinstance(source.get("text"), str):
                raise DependencyUnavailable(f"the document for position {position} chunk {chunk} has no text")
            sources.append(source)
        return sources

    def _load_record(self, scope: TextScope, entry: tuple[int, int]) -> TextArtifact:
        """Serverless: the artifact at `position` from its S3 record, exact and immediate (search need not see it)."""
        position, count = entry
        where = f"the artifact at position {position} of namespace {scope.namespace!r}"
        record = self._records().get(scope, position)
        if record is None:
            raise DependencyUnavailable(
                f"the text record of {where} is missing (the namespace record and the stored text disagree)",
                details={"position": position},
            )
        if record.chunks != count:
            raise DependencyUnavailable(f"the text record of {where} has {record.chunks} chunks, not {count}")
        try:
            artifact = BaseArtifact.from_json(record.artifact_json)
        except (TypeError, ValueError, ArtifactError) as exc:
            raise DependencyUnavailable(f"the text record of {where} is unreadable: {exc}") from None
        if not isinstance(artifact, TextArtifact):
            raise DependencyUnavailable(f"the text record of {where} is not a TextArtifact")
        return artifact

    def _rebuild(self, scope: TextScope, position: int, docs: list[dict[str, Any]]) -> TextArtifact:
        head = docs[0]
        where = f"the artifact at position {position} of namespace {scope.namespace!r}"
        if any(doc.get("artifact_id") != head.get("artifact_id") for doc in docs):
            raise DependencyUnavailable(f"the chunks of {where} belong to different artifacts")
        try:
            envelope = json.loads(head["artifact"])
            if not isinstance(envelope, dict) or envelope.get("type") != "TextArtifact":
                raise ArtifactError("not a TextArtifact envelope")
            envelope["value"] = "".join(doc["text"] for doc in docs)
            artifact = BaseArtifact.from_dict(envelope)
        except (KeyError, TypeError, ValueError, ArtifactError) as exc:
            raise DependencyUnavailable(f"the stored envelope of {where} is unreadable: {exc}") from None
        if not isinstance(artifact, TextArtifact) or artifact.id != head.get("artifact_id"):
            raise DependencyUnavailable(f"the stored envelope of {where} does not match its chunks")
        return artifact

    # ------------------------------------------------------------------------------------------ search

    def search(self, scope: TextScope, query: str, top_k: int, mode: SearchMode) -> list[SearchHit]:
        """The best `top_k` chunks of the namespace for `query`, best first.

        bm25: `match` on text. knn: the embedder's vector, `knn` on embedding with the scope filter inside
        the knn clause (so k counts only this namespace's chunks). hybrid: both in one msearch, fused by
        reciprocal rank: score = sum over the two lists of 1 / (RRF_K + rank), rank from 1, each list
        `max(2 * top_k, 20)` deep (capped at MAX_SEARCH_DEPTH). Ties are broken by (position, chunk).
        """
        _check_scope(scope)
        check_search(query, top_k, mode, self.embedder, "top_k")
        scope_filter = {"bool": {"filter": _scope_terms(scope)}}
        bodies = search_bodies(mode, query, top_k, scope_filter, _SOURCE_FIELDS, self.embedder)
        ranked = [self._hits(scope, r) for r in responses(bodies, self.index, self._search, self._msearch)]
        if len(ranked) == 1:
            return ranked[0][:top_k]
        fused = fuse(ranked, lambda h: (h.position, h.chunk), top_k)
        return [SearchHit(h.artifact_id, h.position, h.chunk, h.text, score) for h, score in fused]

    def _msearch(self, lines: str) -> dict[str, Any]:
        return cast(dict[str, Any], self._call("hybrid search (msearch)", lambda: self.client.msearch(body=lines)))

    def _search(self, body: dict[str, Any]) -> dict[str, Any]:
        return cast(dict[str, Any], self._call("search", lambda: self.client.search(index=self.index, body=body)))

    def _hits(self, scope: TextScope, response: dict[str, Any]) -> list[SearchHit]:
        """The response's hits, checked to lie in the scope, best first. Serverless: one hit per (position, chunk),
        the best (a store that died before recording its documents and was retried leaves a second copy, until the
        namespace's delete sweeps it)."""
        hits: list[SearchHit] = []
        for hit in response.get("hits", {}).get("hits", []):
            source = hit.get("_source") or {}
            if (source.get("tenant"), source.get("memory"), source.get("namespace")) != (
                scope.tenant,
                scope.memory,
                scope.namespace,
            ):
                raise DependencyUnavailable("OpenSearch returned a document outside the searched namespace")
            hits.append(
                SearchHit(
                    artifact_id=source["artifact_id"],
                    position=source["position"],
                    chunk=source["chunk"],
                    text=source["text"],
                    score=float(hit.get("_score") or 0.0),
                )
            )
        hits.sort(key=lambda h: (-h.score, h.position, h.chunk))
        if self.mode == "serverless":
            best: dict[tuple[int, int], SearchHit] = {}
            for hit in hits:
                best.setdefault((hit.position, hit.chunk), hit)
            hits = list(best.values())
        return hits

    # ------------------------------------------------------------------------------------------ delete

    def delete(self, scope: TextScope) -> int:
        """Delete the namespace's chunks; returns how many. Refreshes first: delete-by-query only sees
        refreshed documents, and a store that just returned may not be refreshed yet."""
        _check_scope(scope)
        if self.mode == "serverless":
            return self._delete_serverless(scope)
        self._call("refresh", lambda: self.client.indices.refresh(index=self.index))
        response = self._call(
            "delete namespace",
            lambda: self.client.delete_by_query(
                index=self.index,
                body={"query": {"bool": {"filter": _scope_terms(scope)}}},
                refresh=True,
                conflicts="proceed",
                request_timeout=self.request_timeout,
            ),
        )
        failures = response.get("failures") or []
        if failures:
            kind, reason = _describe(failures[0].get("cause") if isinstance(failures[0], dict) else None)
            raise DependencyUnavailable(f"OpenSearch failed to delete {len(failures)} documents: {kind}: {reason}")
        if response.get("timed_out"):
            raise DependencyUnavailable("OpenSearch timed out deleting the namespace (retry to finish)")
        return int(response.get("deleted", 0))

    def _delete_serverless(self, scope: TextScope) -> int:
        """Serverless (no delete-by-query): the ids the namespace's S3 records name, by bulk delete, at once; then
        what search sees of the namespace (documents no record names), in pages; then the records. Returns how many
        documents this call deleted (a document deleted earlier is still visible to search until the collection
        refreshes, and counts as not found)."""
        records = self._records()
        prefix = records.scope_prefix(scope)
        tried = {i for ids in each_of(records.ids, list(records.keys(prefix))) for i in ids}
        deleted = self._delete_ids(sorted(tried))
        for page in search_pages(self._search, _scope_terms(scope), NAMESPACE_ORDER, SWEEP_PAGE):
            ids = [hit["_id"] for hit in page if hit.get("_id") not in tried]
            tried.update(ids)
            deleted |= self._delete_ids(ids)
        records.delete_prefix(prefix)
        return len(deleted)

    def _delete_ids(self, ids: Sequence[str]) -> set[str]:
        return bulk_delete(
            lambda body: self._call(
                "delete documents",
                lambda: self.client.bulk(body=body, index=self.index, request_timeout=self.request_timeout),
            ),
            ids,
        )

    # ---------------------------------------------------------------------------------------- plumbing

    def _call(self, action: str, request: Callable[[], Any]) -> Any:
        return call(action, request)


class LazyTextStore:
    """A TextStore built on first use: blob-only requests never configure, build or connect an OpenSearch store.

    `factory` (the composition root's `text_store_from_settings`) runs once, on the first text call."""

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

    def store(
        self, scope: TextScope, start_position: int, artifacts: Sequence[TextArtifact], *, searchable: bool = False
    ) -> list[int]:
        return self.built().store(scope, start_position, artifacts, searchable=searchable)

    def wait_searchable(self, scope: TextScope, start: int, counts: Sequence[int]) -> bool:
        return self.built().wait_searchable(scope, start, counts)

    def load(self, scope: TextScope, layout: Sequence[tuple[int, int]]) -> list[TextArtifact]:
        return self.built().load(scope, layout)

    def search(self, scope: TextScope, query: str, top_k: int, mode: SearchMode) -> list[SearchHit]:
        return self.built().search(scope, query, top_k, mode)

    def delete(self, scope: TextScope) -> int:
        return self.built().delete(scope)


class TextStorage:
    """Text artifacts (the `StorageKind.TEXT` entry of task memory's storage registry): chunked into a TextStore
    (this module's OpenSearch store); an entry is the item's chunk count. Lives next to the store so that a use case
    reaches OpenSearch through one module of ours (docs/architecture.md)."""

    def __init__(self, texts: TextStore) -> None:
        from offprompt.memory.task import StorageKind

        self.kind: StorageKind = StorageKind.TEXT
        self.needs_positions = True  # document ids are positions: reserved before anything is indexed
        self.texts = texts

    def store(
        self, scope: TextScope, start: int | None, items: Sequence[BaseArtifact], *, searchable: bool = False
    ) -> tuple[Entries, int]:
        if start is None:
            raise ValueError("text documents are addressed by position: reserve positions first")
        texts = [cast(TextArtifact, item) for item in items]
        counts = self.texts.store(scope, start, texts, searchable=searchable)
        if len(counts) != len(texts):
            raise DependencyUnavailable("text store returned a wrong number of chunk counts")
        total = sum(len(t.value.encode("utf-8", "surrogatepass")) for t in texts)
        return [{"chunks": int(c)} for c in counts], total

    def wait_searchable(self, scope: TextScope, start: int, entries: Entries) -> bool:
        return self.texts.wait_searchable(scope, start, [int(cast(int, e["chunks"])) for e in entries])

    def load(self, scope: TextScope, resolved: Resolved) -> list[str]:
        layout = [(b.start + i, int(cast(int, e["chunks"]))) for b, entries in resolved for i, e in enumerate(entries)]
        return [a.to_json() for a in self.texts.load(scope, layout)]

    def discard(self, scope: TextScope, entries: Entries, lost_to: str | None) -> None:
        # Documents at positions no committed batch names are never read; only when the namespace was committed
        # as another kind is every text document in it garbage.
        if lost_to is not None and lost_to != self.kind.value:
            best_effort(functools.partial(self.texts.delete, scope))

    def delete(self, scope: TextScope) -> None:
        self.texts.delete(scope)

    def reference(self, entries: Entries) -> str | None:
        return None  # text is loaded by name (its documents by position)

    def load_reference(self, scope: TextScope, reference: str, limit: int) -> list[str] | None:
        return None

    def supersede(self, scope: TextScope, entries: Entries) -> None:
        return None


def embed_texts(embedder: Embedder | None, texts: Sequence[str]) -> list[list[float] | None]:
    """Embeddings for the non-blank texts (None for blank ones, and for all without an embedder)."""
    vectors: list[list[float] | None] = [None] * len(texts)
    if embedder is None:
        return vectors
    wanted = [i for i, text in enumerate(texts) if text.strip()]
    if wanted:
        embedded = embedder.embed([texts[i] for i in wanted])
        if len(embedded) != len(wanted):
            raise DependencyUnavailable(f"the embedder returned {len(embedded)} vectors for {len(wanted)} texts")
        for i, vector in zip(wanted, embedded, strict=True):
            vectors[i] = vector
    return vectors


def ascending(order: Sequence[str]) -> list[dict[str, Any]]:
    """A sort on `order`, ascending, that an index whose mapping lacks one of the fields (created by an earlier
    version: the record or conversation fields came later) answers too: its documents all miss that field."""
    return [{field: {"order": "asc", "unmapped_type": "keyword"}} for field in order]


def search_pages(
    search: Callable[[dict[str, Any]], dict[str, Any]], filters: list[dict[str, Any]], order: Sequence[str], size: int
) -> Iterator[list[dict[str, Any]]]:
    """Serverless: every document search sees under `filters`, in pages of `size` hits (`_id` and sort values only),
    by `search_after` on `order` (which must be a unique key: Serverless recommends search_after for deep paging)."""
    after: list[Any] | None = None
    while True:
        body: dict[str, Any] = {
            "size": size,
            "_source": False,
            "query": {"bool": {"filter": filters}},
            "sort": ascending(order),
        }
        if after is not None:
            body["search_after"] = after
        hits = search(body).get("hits", {}).get("hits", [])
        if hits:
            yield hits
        if len(hits) < size:
            return
        after = hits[-1]["sort"]


def bulk_delete(bulk: Callable[[str], dict[str, Any]], ids: Iterable[str], page: int = DELETE_PAGE) -> set[str]:
    """Serverless (no delete-by-query): delete documents by id, `page` per bulk request; the ids that were there.
    An id already gone answers not_found, which is not a failure (deletes are idempotent)."""
    wanted = list(dict.fromkeys(ids))
    deleted: set[str] = set()
    for first in range(0, len(wanted), page):
        chunk = wanted[first : first + page]
        body = "".join(json.dumps({"delete": {"_id": doc_id}}) + "\n" for doc_id in chunk)
        items = bulk(body).get("items")
        if not isinstance(items, list) or len(items) != len(chunk):
            raise DependencyUnavailable("OpenSearch bulk delete answered with a different number of items")
        for doc_id, item in zip(chunk, items, strict=True):
            result = item.get("delete") if isinstance(item, dict) else None
            if not isinstance(result, dict):
                raise DependencyUnavailable("OpenSearch bulk delete answered with a malformed item")
            if result.get("result") == "deleted":
                deleted.add(doc_id)
            elif result.get("status") != 404:
                kind, reason = _describe(result.get("error"))
                raise DependencyUnavailable(
                    f"OpenSearch failed to delete a document: {result.get('status')} {kind}: {reason}"
                )
    return deleted


def each_of(work: Callable[[Any], Any], items: list[Any]) -> list[Any]:
    """`work` over `items`, up to 8 at a time when there are several (S3 round trips); results in order."""
    if len(items) <= 1:
        return [work(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(8, len(items)), thread_name_prefix="offprompt-records") as pool:
        return list(pool.map(deadline.bind(work), items))


class _BulkSender:
    """Sends bulk requests with one in flight while the caller prepares the next (chunking, JSON): the
    client's CPU work overlaps OpenSearch's indexing. The store sends its last batch itself."""

    def __init__(self, bulk: Callable[[list[bytes], list[tuple[int, int]]], None]) -> None:
        self._bulk = bulk
        self._pool: ThreadPoolExecutor | None = None
        self._pending: Future[None] | None = None

    def send(self, lines: list[bytes], docs: list[tuple[int, int]]) -> None:
        self.wait()
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="offprompt-bulk")
        self._pending = self._pool.submit(deadline.bind(self._bulk), lines, docs)

    def idle(self) -> bool:
        """No request in flight (or the one sent has finished)."""
        return self._pending is None or self._pending.done()

    def wait(self) -> None:
        """Wait for the request in flight; re-raise its error."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)


def _scope_terms(scope: TextScope) -> list[dict[str, Any]]:
    return [
        {"term": {"tenant": scope.tenant}},
        {"term": {"memory": scope.memory}},
        {"term": {"namespace": scope.namespace}},
    ]


def _check_scope(scope: TextScope) -> None:
    for field in ("tenant", "memory", "namespace"):
        value = getattr(scope, field, None)
        if not isinstance(value, str) or not value:
            raise InvalidInput(f"{field} must be a non-empty string")


def _check_unicode(artifact: TextArtifact) -> None:
    """Refuse unpaired surrogates (valid JSON escapes, but not unicode text: UTF-8 cannot encode them)."""
    for field, value in (("value", artifact.value), ("id", artifact.id)):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidInput(f"the artifact's {field} contains unpaired surrogates (not valid unicode)") from None


def _check_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value > 2**31 - 1:
        raise InvalidInput(f"{name} must be an integer from 0 to {2**31 - 1}")


def _item_ok(item: Any) -> bool:
    if not isinstance(item, dict) or len(item) != 1:
        return False
    result = next(iter(item.values()))
    return isinstance(result, dict) and isinstance(result.get("status"), int) and 200 <= result["status"] < 300
