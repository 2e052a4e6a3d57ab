"""`ConversationIndex` on OpenSearch: one document per run (or session item) of a thread, in the SAME index as task
memory's text chunks and the long-term records (docs/adr/0048-conversation-index.md), so the Serverless data access
policy, the tenant erase (by the `tenant` keyword, `tenant_documents.py`) and the index definition cover them.

Document layout (mapping: `infra/opensearch/index.json`):

    _id           provisioned: `layout.conversation_doc_id(tenant, thread_id, kind, seq)` (indexing a run again
                  replaces its document); Serverless: the service's
    doc_kind      "conversation"
    tenant, thread_id, kind ("run" | "item"), ref_id (the run's or item's id)    keyword
    seq           long;  created_at: epoch seconds (double)
    input_text, output_text, meta_text, context_text    text (the `english` analyzer: stemmed BM25)
    embedding     with an embedder and some text: the vector of `recall.embedding_text` (its first EMBED_MAX_CHARS)
    write_id      Serverless only: one per `index` call, so the sort of a thread's documents is a unique key

Candidates: BM25 (`multi_match` of the fields, each boosted by `memory.recall.FIELD_WEIGHTS`, scores summed) and
k-NN (the embedded query, the scope filter inside the knn clause), each its own top `size`, in one round trip, merged
by document with each retriever's score. The scope: the tenant's conversation documents in `threads` (each up to its
`through_seq`) or under `thread_prefix`, created in [since, until). Hits are only candidates: the caller checks each
against DynamoDB (a removed run whose document is still there is never an answer).

Modes: "provisioned" (a managed domain) and "serverless" (docs/adr/0030): no custom ids, no refresh, no
delete-by-query. On Serverless a document is indexed without an id, after deleting the copies of the same runs that
search sees (a retried batch); `index` answers the ids the collection gave, which the indexer keeps on the runs'
items (`dynamodb_conversation_docs`), so a removal within the collection's refresh interval deletes them by id
(`delete_ids`); deletes also take the ids search finds. Candidates keep one per run (the best score).
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

from offprompt.errors import DependencyUnavailable, InvalidInput
from offprompt.limits import MAX_SEARCH_DEPTH
from offprompt.memory.recall import FIELD_WEIGHTS, embedding_text
from offprompt.ports import ConversationCandidate, ConversationDoc, ThreadCut

from .layout import conversation_doc_id
from .opensearch_query import KNN_MIN_CANDIDATES, call, describe, responses
from .opensearch_query import embed_query as embed_text
from .opensearch_records import EMBED_MAX_CHARS, SharedIndexAdapter, added_fields, check_tenant
from .opensearch_text import SWEEP_PAGE, bulk_delete, embed_texts, search_pages

if TYPE_CHECKING:
    pass

CONVERSATION_KIND = "conversation"
KINDS = ("run", "item")
TEXT_FIELDS = ("input_text", "output_text", "meta_text", "context_text")
#: The mapping's conversation fields (`put_mapping` adds them to an index created before conversations were indexed).
CONVERSATION_FIELDS = ("doc_kind", "thread_id", "kind", "seq", "ref_id", "created_at", *TEXT_FIELDS)
_SOURCE = ["tenant", "doc_kind", "thread_id", "kind", "seq", "ref_id", "created_at", *TEXT_FIELDS]
#: The longest query either retriever takes (the search route's own limit).
MAX_QUERY_CHARS = 2_000
#: Documents per bulk request.
BULK_DOCS = 200
#: Serverless: a thread's documents in a unique order (for paging them by search_after).
THREAD_ORDER = ("kind", "seq", "write_id")
ConversationIndexMode = Literal["provisioned", "domain", "serverless"]


def scope_filter(
    tenant: str,
    threads: Sequence[ThreadCut] | None,
    thread_prefix: str | None,
    since: float | None,
    until: float | None,
) -> dict[str, Any]:
    """The tenant's conversation documents in `threads` (each up to its cut) or under `thread_prefix` (neither: all
    of the tenant's), created in [since, until)."""
    filters: list[dict[str, Any]] = [{"term": {"doc_kind": CONVERSATION_KIND}}, {"term": {"tenant": tenant}}]
    where: list[dict[str, Any]] = []
    if threads is not None:
        whole = sorted({c.thread_id for c in threads if c.through_seq is None})
        if whole:
            where.append({"terms": {"thread_id": whole}})
        for cut in threads:
            if cut.through_seq is not None and cut.thread_id not in whole:
                where.append(
                    {
                        "bool": {
                            "filter": [
                                {"term": {"thread_id": cut.thread_id}},
                                {"range": {"seq": {"lte": cut.through_seq}}},
                            ]
                        }
                    }
                )
    if thread_prefix is not None:
        where.append({"prefix": {"thread_id": thread_prefix}})
    if threads is not None or thread_prefix is not None:
        # threads=[] and no prefix: nothing (OpenSearch ignores an empty `should`)
        filters.append({"bool": {"should": where, "minimum_should_match": 1}} if where else {"match_none": {}})
    window: dict[str, float] = {}
    if since is not None:
        window["gte"] = since
    if until is not None:
        window["lt"] = until
    if window:
        filters.append({"range": {"created_at": window}})
    return {"bool": {"filter": filters}}


def _check_doc(doc: ConversationDoc) -> None:
    check_tenant(doc.tenant)
    if not isinstance(doc.thread_id, str) or not doc.thread_id:
        raise InvalidInput("a thread id must be a non-empty string")
    if doc.kind not in KINDS:
        raise InvalidInput("a conversation document's kind must be run or item")
    _check_seq(doc.seq)
    if not isinstance(doc.ref_id, str):
        raise InvalidInput("a conversation document's ref_id must be a string")
    _check_time("created_at", doc.created_at)


def _check_seq(seq: object) -> int:
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq < 2**63:
        raise InvalidInput("a seq must be a non-negative integer")
    return seq


def _check_time(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidInput(f"{name} must be a finite number of epoch seconds")
    return float(value)


def _check_query(name: str, query: object) -> str:
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput(f"{name} must be a non-empty string")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(f"{name} is too long (at most {MAX_QUERY_CHARS} characters)")
    return query


class OpenSearchConversationIndex(SharedIndexAdapter):
    """The `ConversationIndex` port over the one OpenSearch index (see the module docstring for the layout)."""

    # ------------------------------------------------------------------------------------------- index

    def ensure_index(self) -> bool:
        """Create the index if it is missing (True), else add the conversation fields to its mapping (False; a no-op
        when it has them). Safe under races."""
        definition, fields = added_fields(self.embedder, self.mode, CONVERSATION_FIELDS)

        def create() -> Any:
            return self.client.indices.create(index=self.index_name, body=definition)

        if call("create index", create, tolerate=("resource_already_exists_exception",)) is not None:
            return True
        call("add the conversation fields", lambda: self.client.indices.put_mapping(index=self.index_name, body=fields))
        return False

    def _ensure_ready(self) -> None:
        if not self._ready:
            with self._lock:
                if not self._ready:
                    self.ensure_index()
                    self._ready = True

    def index(self, docs: Sequence[ConversationDoc]) -> list[str | None]:
        for doc in docs:
            _check_doc(doc)
        if not docs:
            return []
        self._ensure_ready()
        vectors = self._vectors(docs)
        write_id = uuid.uuid4().hex
        if self.mode == "serverless":  # a retried batch: the copies search sees go first (a batch has many tenants)
            by_tenant: dict[str, list[tuple[str, str, int]]] = {}
            for d in docs:
                by_tenant.setdefault(d.tenant, []).append((d.thread_id, d.kind, d.seq))
            for tenant, keys in by_tenant.items():
                self._delete_ids(self._ids_of(tenant, keys))
        assigned: list[str | None] = []
        for first in range(0, len(docs), BULK_DOCS):
            lines: list[str] = []
            for doc, vector in zip(docs[first : first + BULK_DOCS], vectors[first : first + BULK_DOCS], strict=True):
                source = self._source(doc, vector)
                if self.mode == "serverless":
                    source["write_id"] = write_id
                    lines.append(json.dumps({"index": {}}))
                else:
                    doc_id = conversation_doc_id(doc.tenant, doc.thread_id, doc.kind, doc.seq)
                    lines.append(json.dumps({"index": {"_id": doc_id}}))
                lines.append(json.dumps(source, ensure_ascii=False))
            answer = self._bulk("index conversation documents", "\n".join(lines) + "\n")
            _check_bulk(answer)
            assigned.extend(
                _assigned_ids(answer, len(lines) // 2) if self.mode == "serverless" else [None] * (len(lines) // 2)
            )
        return assigned

    def _vectors(self, docs: Sequence[ConversationDoc]) -> list[list[float] | None]:
        """What `recall.embedding_text` says a document's vector holds (its first EMBED_MAX_CHARS)."""
        texts = [embedding_text(d)[:EMBED_MAX_CHARS] for d in docs]
        return embed_texts(self.embedder, texts)

    @staticmethod
    def _source(doc: ConversationDoc, vector: list[float] | None) -> dict[str, Any]:
        source: dict[str, Any] = {
            "doc_kind": CONVERSATION_KIND,
            "tenant": doc.tenant,
            "thread_id": doc.thread_id,
            "kind": doc.kind,
            "seq": doc.seq,
            "ref_id": doc.ref_id,
            "created_at": float(doc.created_at),
            "input_text": doc.input_text,
            "output_text": doc.output_text,
            "meta_text": doc.meta_text,
            "context_text": doc.context_text,
        }
        if vector is not None:
            source["embedding"] = vector
        return source

    def delete(self, tenant: str, thread_id: str, kind: str, seqs: Sequence[int]) -> None:
        check_tenant(tenant)
        if kind not in KINDS:
            raise InvalidInput("a conversation document's kind must be run or item")
        wanted = sorted({_check_seq(s) for s in seqs})
        if not wanted:
            return
        self._ensure_ready()  # a bulk delete would create a missing index with dynamic mappings
        if self.mode == "serverless":
            self._delete_ids(self._ids_of(tenant, [(thread_id, kind, s) for s in wanted]))
        else:
            self._delete_ids([conversation_doc_id(tenant, thread_id, kind, s) for s in wanted])

    def delete_ids(self, ids: Sequence[str]) -> None:
        for doc_id in ids:
            if not isinstance(doc_id, str) or not doc_id:
                raise InvalidInput("a document id must be a non-empty string")
        if ids:
            self._ensure_ready()
            self._delete_ids(ids)

    def delete_thread(self, tenant: str, thread_id: str) -> None:
        check_tenant(tenant)
        self._ensure_ready()
        terms = [
            {"term": {"doc_kind": CONVERSATION_KIND}},
            {"term": {"tenant": tenant}},
            {"term": {"thread_id": thread_id}},
        ]
        if self.mode == "serverless":
            for page in search_pages(self._search, terms, THREAD_ORDER, SWEEP_PAGE):
                self._delete_ids([hit["_id"] for hit in page])
            return
        answer = call(
            "delete a thread's conversation documents",
            lambda: self.client.delete_by_query(
                index=self.index_name,
                body={"query": {"bool": {"filter": terms}}},
                conflicts="proceed",
                request_timeout=self.request_timeout,
            ),
        )
        if answer.get("failures") or answer.get("timed_out"):
            raise DependencyUnavailable("OpenSearch did not delete every document of the thread; retry")

    def _ids_of(self, tenant: str, keys: Sequence[tuple[str, str, int]]) -> list[str]:
        """Serverless: the ids of the documents search sees for these (thread, kind, seq)."""
        ids: list[str] = []
        for first in range(0, len(keys), BULK_DOCS):
            which = [
                {
                    "bool": {
                        "filter": [
                            {"term": {"thread_id": thread_id}},
                            {"term": {"kind": kind}},
                            {"term": {"seq": seq}},
                        ]
                    }
                }
                for thread_id, kind, seq in keys[first : first + BULK_DOCS]
            ]
            terms: list[dict[str, Any]] = [
                {"term": {"doc_kind": CONVERSATION_KIND}},
                {"term": {"tenant": tenant}},
                {"bool": {"should": which, "minimum_should_match": 1}},
            ]
            for page in search_pages(self._search, terms, ("thread_id", *THREAD_ORDER), SWEEP_PAGE):
                ids.extend(hit["_id"] for hit in page)
        return ids

    def _delete_ids(self, ids: Sequence[str]) -> None:
        if ids:
            bulk_delete(lambda body: self._bulk("delete conversation documents", body), ids)

    def _bulk(self, action: str, body: str) -> dict[str, Any]:
        answer = call(
            action, lambda: self.client.bulk(body=body, index=self.index_name, request_timeout=self.request_timeout)
        )
        return cast(dict[str, Any], answer)

    # ------------------------------------------------------------------------------------------ search

    def indexed_through(self, tenant: str, thread_ids: Sequence[str], *, refresh: bool = False) -> dict[str, int]:
        check_tenant(tenant)
        wanted = sorted(set(thread_ids))
        if not wanted:
            return {}
        if refresh and not self._refresh():
            return {}
        body = {
            "size": 0,
            "query": {
                "bool": {
                    "filter": [
                        {"term": {"doc_kind": CONVERSATION_KIND}},
                        {"term": {"tenant": tenant}},
                        {"terms": {"thread_id": wanted}},
                    ]
                }
            },
            "aggs": {
                "threads": {
                    "terms": {"field": "thread_id", "size": len(wanted)},
                    "aggs": {"top": {"max": {"field": "seq"}}},
                }
            },
        }
        answer = self._search_or_none(body)
        if answer is None:
            return {}
        out: dict[str, int] = {}
        for bucket in answer.get("aggregations", {}).get("threads", {}).get("buckets", []):
            top = bucket.get("top", {}).get("value")
            if isinstance(bucket.get("key"), str) and isinstance(top, int | float):
                out[bucket["key"]] = int(top)
        return out

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
        check_tenant(tenant)
        if mode not in ("hybrid", "bm25", "knn"):
            raise InvalidInput("mode must be one of hybrid, bm25, knn")
        if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_SEARCH_DEPTH:
            raise InvalidInput(f"size must be an integer from 1 to {MAX_SEARCH_DEPTH}")
        if mode == "knn" and self.embedder is None:
            raise InvalidInput("knn search needs an embedder, and none is configured")
        if mode == "hybrid" and self.embedder is None:  # the route's default: BM25 alone where nothing embeds
            mode = "bm25"
        since = None if since is None else _check_time("since", since)
        until = None if until is None else _check_time("until", until)
        scope = scope_filter(tenant, threads, thread_prefix, since, until)
        bodies: list[tuple[str, dict[str, Any]]] = []
        if mode != "knn":
            fields = [f"{name}^{FIELD_WEIGHTS.get(name, 1.0)}" for name in TEXT_FIELDS]
            match = {
                "multi_match": {"query": _check_query("query", bm25_query), "fields": fields, "type": "most_fields"}
            }
            bodies.append(
                ("bm25", {"size": size, "_source": _SOURCE, "query": {"bool": {"must": [match], "filter": [scope]}}})
            )
        if mode != "bm25":
            vector = embed_text(self.embedder, _check_query("query", embed_query))
            knn = {"vector": vector, "k": max(size, KNN_MIN_CANDIDATES), "filter": scope}
            bodies.append(("knn", {"size": size, "_source": _SOURCE, "query": {"knn": {"embedding": knn}}}))
        if wait_for_refresh and not self._refresh():
            return []
        try:
            answers = responses([b for _, b in bodies], self.index_name, self._search, self._msearch)
        except DependencyUnavailable as exc:
            if "index_not_found_exception" in str(exc):  # nothing was ever indexed
                return []
            raise
        merged: dict[tuple[str, str, int], dict[str, Any]] = {}
        for (retriever, _), answer in zip(bodies, answers, strict=True):
            for hit in answer.get("hits", {}).get("hits", []):
                doc = _doc(tenant, hit.get("_source") or {})
                key = (doc.thread_id, doc.kind, doc.seq)
                entry = merged.setdefault(key, {"doc": doc})
                score = float(hit["_score"]) if isinstance(hit.get("_score"), int | float) else 0.0
                if entry.get(retriever) is None or score > entry[retriever]:  # Serverless may hold a run twice
                    entry[retriever] = score
        return [ConversationCandidate(e["doc"], bm25=e.get("bm25"), knn=e.get("knn")) for e in merged.values()]

    def _refresh(self) -> bool:
        """Make what is indexed searchable (a provisioned domain; Serverless has no refresh: True). False: no index."""
        if self.mode != "provisioned":
            return True
        missing = ("index_not_found_exception",)
        return call("refresh", lambda: self.client.indices.refresh(index=self.index_name), tolerate=missing) is not None

    def _search(self, body: dict[str, Any]) -> dict[str, Any]:
        answer = call("search conversations", lambda: self.client.search(index=self.index_name, body=body))
        return cast(dict[str, Any], answer)

    def _search_or_none(self, body: dict[str, Any]) -> dict[str, Any] | None:
        missing = ("index_not_found_exception",)
        answer = call(
            "search conversations", lambda: self.client.search(index=self.index_name, body=body), tolerate=missing
        )
        return cast(dict[str, Any] | None, answer)

    def _msearch(self, lines: str) -> dict[str, Any]:
        return cast(dict[str, Any], call("search conversations (msearch)", lambda: self.client.msearch(body=lines)))


def _doc(tenant: str, source: dict[str, Any]) -> ConversationDoc:
    """A hit's document, checked to be the tenant's conversation document."""
    seq, created = source.get("seq"), source.get("created_at")
    if (
        source.get("doc_kind") != CONVERSATION_KIND
        or source.get("tenant") != tenant
        or not isinstance(source.get("thread_id"), str)
        or source.get("kind") not in KINDS
        or isinstance(seq, bool)
        or not isinstance(seq, int)
        or not isinstance(created, int | float)
    ):
        raise DependencyUnavailable("OpenSearch returned a document outside the searched conversations")
    return ConversationDoc(
        tenant=tenant,
        thread_id=source["thread_id"],
        kind=source["kind"],
        seq=seq,
        ref_id=str(source.get("ref_id") or ""),
        created_at=float(created),
        input_text=str(source.get("input_text") or ""),
        output_text=str(source.get("output_text") or ""),
        meta_text=str(source.get("meta_text") or ""),
        context_text=str(source.get("context_text") or ""),
    )


def _assigned_ids(answer: dict[str, Any], expected: int) -> list[str | None]:
    """Serverless: the id the collection gave each document of a bulk index request, in order."""
    items = answer.get("items")
    if not isinstance(items, list) or len(items) != expected:
        raise DependencyUnavailable("OpenSearch answered a bulk index request with a different number of items")
    ids: list[str | None] = []
    for item in items:
        result = item.get("index") if isinstance(item, dict) else None
        doc_id = result.get("_id") if isinstance(result, dict) else None
        if not isinstance(doc_id, str) or not doc_id:
            raise DependencyUnavailable("OpenSearch answered a bulk index request without a document id")
        ids.append(doc_id)
    return ids


def _check_bulk(answer: Any) -> None:
    if not isinstance(answer, dict):
        raise DependencyUnavailable("OpenSearch answered a bulk request with no items")
    if answer.get("errors"):
        for item in answer.get("items", []):
            result: Any = next(iter(item.values()), {}) if isinstance(item, dict) else {}
            if isinstance(result, dict) and "error" in result:
                kind, reason = describe(result["error"])
                raise DependencyUnavailable(f"OpenSearch refused a conversation document: {kind}: {reason}")
        raise DependencyUnavailable("OpenSearch refused some conversation documents")
