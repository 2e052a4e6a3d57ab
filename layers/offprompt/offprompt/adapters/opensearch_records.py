"""`RecordIndex` on OpenSearch: one document per indexed long-term record version, in the SAME index as task
memory's text chunks (docs/adr/0034-records.md), so the Serverless data access policy, the tenant erase and export
(`tenant_documents.py`, by the `tenant` keyword) and the index backfill cover records unchanged.

Document layout (mapping: `infra/opensearch/index.json`, the record fields beside the text store's):

    _id               provisioned: `layout.record_doc_id(tenant, namespace, key, version, write_id)`; Serverless: the
                      service's
    doc_kind          "record" (text chunks have none: their searches filter on `memory`, which records lack)
    tenant            keyword
    record_namespace  the namespace path, labels joined by "." (a label never holds a ".", ADR 0034)
    record_prefixes   every label-wise prefix of the path: ("a", "b", "c") -> ["a", "a.b", "a.b.c"]; a prefix search is
                      one `term` on it, so ("a", "b") matches ("a", "b") and ("a", "b", "c"), never ("a", "bc")
    record_key        keyword;  record_version: long
    valid_from        epoch seconds (double); valid_to: absent while the version is current, set by `supersede`
    text              the record's indexed text (standard analyzer, BM25)
    embedding         only with an embedder and a non-blank text (its first EMBED_MAX_CHARS characters)
    write_id          Serverless only: the put attempt's nonce (else one per `index` call), so the tenant erase's sort
                      key stays unique

Searches: bm25, knn and hybrid exactly as the text store's (`opensearch_query`), filtered by doc_kind, tenant and
prefix, and by validity: current (no `valid_to`) or, for `as_of=t`, `valid_from <= t < valid_to`. Hits are only
*candidates*: the caller checks every one against DynamoDB (ADR 0034), so a stale refresh state is never an answer.

Modes (`mode`): "provisioned" (a managed domain; "domain", the settings' spelling, is the same) and "serverless"
(docs/adr/0030-opensearch-serverless.md): no custom ids (a document is indexed without one and the assigned id is
returned), no refresh or `wait_for`, no delete-by-query (deletes are by id). `wait_for_refresh` on search refreshes
the index first on a provisioned domain; Serverless has no refresh to ask for, so there it is ignored: a version is
searchable within the collection's own interval (10-60 s).
"""

from __future__ import annotations

import math
import threading
import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

from offprompt.errors import ConfigurationError, DependencyUnavailable, InvalidInput
from offprompt.ports import RecordDoc, RecordHit

from .layout import record_doc_id
from .opensearch_query import call, check_search, fuse, responses, search_bodies
from .opensearch_text import bulk_delete, index_definition

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

    from offprompt.ports import Embedder

RECORD_KIND = "record"
#: The mapping's record fields (`put_mapping` adds them to an index created before records existed).
RECORD_FIELDS = (
    "doc_kind",
    "record_namespace",
    "record_prefixes",
    "record_key",
    "record_version",
    "valid_from",
    "valid_to",
)
#: The characters of a record's text that are embedded (Titan V2 takes 8,192 tokens or 50,000 characters).
EMBED_MAX_CHARS = 20_000
_SOURCE = ["tenant", "doc_kind", "record_namespace", "record_key", "record_version"]
RecordIndexMode = Literal["provisioned", "domain", "serverless"]


# ---- checks and document shapes (pure; the in-memory fake of the tests uses them too) -----------------------------
def check_labels(labels: object, *, allow_empty: bool) -> tuple[str, ...]:
    """A namespace (or prefix) as a tuple of non-empty labels without "."; InvalidInput otherwise."""
    if not isinstance(labels, tuple | list) or (not labels and not allow_empty):
        raise InvalidInput("a namespace must be a non-empty list of labels")
    for label in labels:
        if not isinstance(label, str) or not label or "." in label:
            raise InvalidInput("a namespace label must be a non-empty string without '.'")
    return tuple(labels)


def check_doc(doc: RecordDoc) -> None:
    check_tenant(doc.tenant)
    check_labels(doc.namespace, allow_empty=False)
    if not isinstance(doc.key, str) or not doc.key:
        raise InvalidInput("a record key must be a non-empty string")
    if isinstance(doc.version, bool) or not isinstance(doc.version, int) or not 0 <= doc.version < 2**63:
        raise InvalidInput("a record version must be a non-negative integer")
    if not isinstance(doc.text, str) or not doc.text:
        raise InvalidInput("a record's indexed text must be a non-empty string")
    check_time("valid_from", doc.valid_from)


def check_tenant(tenant: object) -> None:
    if not isinstance(tenant, str) or not tenant:
        raise InvalidInput("tenant must be a non-empty string")


def check_id(doc_id: object) -> None:
    if not isinstance(doc_id, str) or not doc_id:
        raise InvalidInput("a record document id must be a non-empty string")


def check_time(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidInput(f"{name} must be a finite number of epoch seconds")
    return float(value)


def path_prefixes(namespace: Sequence[str]) -> list[str]:
    """Every label-wise prefix of the namespace as a path: ("a", "b") -> ["a", "a.b"]."""
    return [".".join(namespace[: n + 1]) for n in range(len(namespace))]


def valid_at(valid_from: float, valid_to: float | None, as_of: float | None) -> bool:
    """Whether a version is a candidate: current (no valid_to) for `as_of` None, else valid_from <= as_of < valid_to."""
    if as_of is None:
        return valid_to is None
    return valid_from <= as_of and (valid_to is None or as_of < valid_to)


def index_mode(mode: str) -> Literal["provisioned", "serverless"]:
    """An adapter of the shared index's mode: "provisioned" ("domain", the settings' spelling) or "serverless"."""
    if mode not in ("provisioned", "domain", "serverless"):
        raise ConfigurationError(f"OpenSearch mode must be provisioned or serverless, got {mode!r}")
    return "serverless" if mode == "serverless" else "provisioned"


def added_fields(embedder: Embedder | None, mode: str, fields: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The index definition (for an adapter's first write to create the index) and the `put_mapping` body that adds
    `fields` (and Serverless's `write_id`) to an index created before they existed (a no-op when it has them)."""
    serverless = mode == "serverless"
    definition = index_definition(embedder.dimensions if embedder else None, serverless=serverless)
    properties = definition["mappings"]["properties"]
    names = (*fields, "write_id") if serverless else tuple(fields)
    return definition, {"properties": {name: properties[name] for name in names}}


class SharedIndexAdapter:
    """What an adapter of the shared index (records here, conversations in `opensearch_conversations`) is built with:
    a client or a zero-argument factory called on first use, the index, the embedder, the mode. The index is created
    (or, when it exists, given the adapter's fields) on the instance's first write (`ensure_index`, its own)."""

    def __init__(
        self,
        client: OpenSearch | Callable[[], OpenSearch],
        index_name: str,
        embedder: Embedder | None,
        *,
        mode: RecordIndexMode = "provisioned",
        request_timeout: float = 30.0,
    ) -> None:
        self.mode = index_mode(mode)
        self._client = client
        self.index_name = index_name
        self.embedder = embedder
        self.request_timeout = request_timeout
        self._ready = False
        self._lock = threading.Lock()

    @property
    def client(self) -> OpenSearch:
        if callable(self._client):
            self._client = self._client()
        return self._client


class OpenSearchRecordIndex(SharedIndexAdapter):
    """The `RecordIndex` port over the one OpenSearch index (see the module docstring for the layout)."""

    # ------------------------------------------------------------------------------------------- index

    def ensure_index(self) -> bool:
        """Create the index from the definition if it is missing (True), else add the record fields to its mapping
        (False): an index created before records existed gets them, and adding fields it already has is a no-op.
        Safe under races (a concurrent create answers resource_already_exists)."""
        definition, body = added_fields(self.embedder, self.mode, RECORD_FIELDS)

        # a lambda of this module, not a functools.partial: the request then leaves from here, so the shared `call`
        # wrapper is only a callback on the path (tests/infrastructure/test_call_depth.py)
        def create() -> Any:
            return self.client.indices.create(index=self.index_name, body=definition)

        if call("create index", create, tolerate=("resource_already_exists_exception",)) is not None:
            return True
        call("add the record fields", lambda: self.client.indices.put_mapping(index=self.index_name, body=body))
        return False

    def _ensure_ready(self) -> None:
        """`ensure_index` once per instance (a Lambda container), as the text store does before its first store."""
        if not self._ready:
            with self._lock:
                if not self._ready:
                    self.ensure_index()
                    self._ready = True

    def index(self, doc: RecordDoc) -> str:
        check_doc(doc)
        self._ensure_ready()
        source: dict[str, Any] = {
            "doc_kind": RECORD_KIND,
            "tenant": doc.tenant,
            "record_namespace": ".".join(doc.namespace),
            "record_prefixes": path_prefixes(doc.namespace),
            "record_key": doc.key,
            "record_version": doc.version,
            "valid_from": float(doc.valid_from),
            "text": doc.text,
        }
        if self.embedder is not None and doc.text.strip():
            vectors = self.embedder.embed([doc.text[:EMBED_MAX_CHARS]])
            if len(vectors) != 1:
                raise DependencyUnavailable(f"the embedder returned {len(vectors)} vectors for one record")
            source["embedding"] = vectors[0]
        if self.mode == "serverless":  # the collection chooses the id (ADR 0030 C1)
            source["write_id"] = doc.write_id or uuid.uuid4().hex
            answer = call(
                "index a record",
                lambda: self.client.index(index=self.index_name, body=source, request_timeout=self.request_timeout),
            )
            doc_id = answer.get("_id") if isinstance(answer, dict) else None
            if not isinstance(doc_id, str) or not doc_id:
                raise DependencyUnavailable("OpenSearch indexed a record without naming its id")
            return doc_id
        doc_id = record_doc_id(doc.tenant, doc.namespace, doc.key, doc.version, doc.write_id)
        # create, not index: a retry must not reopen a version that `supersede` has closed since
        call(
            "index a record",
            lambda: self.client.create(
                index=self.index_name, id=doc_id, body=source, request_timeout=self.request_timeout
            ),
            tolerate=("version_conflict_engine_exception",),
        )
        return doc_id

    def supersede(self, tenant: str, doc_id: str, valid_to: float) -> None:
        """Close the version's validity at `valid_to` (a partial update by id; Serverless serves it, ADR 0030 C2).
        A missing document is fine: nothing searchable to close. `tenant` is not read back from the document (that
        would be a second round trip): ids come from the tenant's own items, and search filters by tenant."""
        check_tenant(tenant)
        check_id(doc_id)
        body = {"doc": {"valid_to": check_time("valid_to", valid_to)}}
        call(
            "supersede a record",
            lambda: self.client.update(
                index=self.index_name, id=doc_id, body=body, request_timeout=self.request_timeout
            ),
            tolerate=("document_missing_exception", "index_not_found_exception"),
        )

    def delete(self, tenant: str, doc_ids: Sequence[str]) -> None:
        """Delete by id, in bulk requests of 500 (Serverless has no delete-by-query); missing ids are fine."""
        check_tenant(tenant)
        for doc_id in doc_ids:
            check_id(doc_id)
        if not doc_ids:
            return
        self._ensure_ready()  # a bulk delete would create a missing index with dynamic mappings
        bulk_delete(
            lambda body: call(
                "delete records",
                lambda: self.client.bulk(body=body, index=self.index_name, request_timeout=self.request_timeout),
            ),
            doc_ids,
        )

    # ------------------------------------------------------------------------------------------ search

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
        check_tenant(tenant)
        prefix = check_labels(prefix, allow_empty=True)
        check_search(query, size, mode, self.embedder, "size")
        if as_of is not None:
            as_of = check_time("as_of", as_of)
        if wait_for_refresh and self.mode == "provisioned":
            missing = ("index_not_found_exception",)
            if call("refresh", lambda: self.client.indices.refresh(index=self.index_name), tolerate=missing) is None:
                return []  # no record (nor text) was ever indexed
        scope = record_scope(tenant, prefix, as_of)
        bodies = search_bodies(mode, query, size, scope, _SOURCE, self.embedder)
        try:
            answers = responses(bodies, self.index_name, self._search, self._msearch)
        except DependencyUnavailable as exc:
            if "index_not_found_exception" in str(exc):  # no record (nor text) was ever indexed
                return []
            raise
        ranked = [self._hits(tenant, prefix, answer) for answer in answers]
        if len(ranked) == 1:
            return ranked[0][:size]
        fused = fuse(ranked, lambda h: (h.namespace, h.key, h.version), size)
        return [RecordHit(h.namespace, h.key, h.version, score) for h, score in fused]

    def _search(self, body: dict[str, Any]) -> dict[str, Any]:
        answer = call("search records", lambda: self.client.search(index=self.index_name, body=body))
        return cast(dict[str, Any], answer)

    def _msearch(self, lines: str) -> dict[str, Any]:
        return cast(dict[str, Any], call("search records (msearch)", lambda: self.client.msearch(body=lines)))

    @staticmethod
    def _hits(tenant: str, prefix: tuple[str, ...], answer: dict[str, Any]) -> list[RecordHit]:
        """The answer's hits, checked to be the tenant's records under the prefix, best first, one per version (a
        Serverless retry may have indexed a version twice), ties by (namespace, key, version)."""
        best: dict[tuple[tuple[str, ...], str, int], RecordHit] = {}
        for hit in answer.get("hits", {}).get("hits", []):
            source = hit.get("_source") or {}
            path = source.get("record_namespace")
            namespace = tuple(path.split(".")) if isinstance(path, str) else ()
            key, version = source.get("record_key"), source.get("record_version")
            if (
                source.get("doc_kind") != RECORD_KIND
                or source.get("tenant") != tenant
                or namespace[: len(prefix)] != prefix
                or not isinstance(key, str)
                or isinstance(version, bool)
                or not isinstance(version, int)
            ):
                raise DependencyUnavailable("OpenSearch returned a document outside the searched records")
            found = RecordHit(namespace, key, version, _score(hit))
            identity = (found.namespace, found.key, found.version)
            if identity not in best or found.score > best[identity].score:
                best[identity] = found
        return sorted(best.values(), key=lambda h: (-h.score, h.namespace, h.key, h.version))


def record_scope(tenant: str, prefix: tuple[str, ...], as_of: float | None) -> dict[str, Any]:
    """The filter of a record search: the tenant's records under the prefix, valid now or at `as_of`."""
    filters: list[dict[str, Any]] = [{"term": {"doc_kind": RECORD_KIND}}, {"term": {"tenant": tenant}}]
    if prefix:
        filters.append({"term": {"record_prefixes": ".".join(prefix)}})
    open_ended = {"bool": {"must_not": [{"exists": {"field": "valid_to"}}]}}
    if as_of is None:
        return {"bool": {"filter": [*filters, open_ended]}}
    filters.append({"range": {"valid_from": {"lte": as_of}}})
    still_valid = {"bool": {"should": [open_ended, {"range": {"valid_to": {"gt": as_of}}}], "minimum_should_match": 1}}
    return {"bool": {"filter": [*filters, still_valid]}}


def _score(hit: dict[str, Any]) -> float:
    score = hit.get("_score")
    return float(score) if isinstance(score, int | float) else 0.0
