"""An in-memory RecordIndex (docs/adr/0034-records.md) for unit tests of the records use cases: the reference
implementation of the contract that tests/integration/test_record_index_contract.py runs against it and against the
real OpenSearch adapter in both its modes.

Documents live in a dict by id (the provisioned adapter's id). `calls` logs every call, for the use cases' tests
that check what was asked of the index (the contract's behaviour does not depend on it). bm25 is approximated by
counting query-word occurrences (a document with none is no hit), knn is cosine similarity to the embedded query (every
document in scope is a hit, as HNSW's k nearest), hybrid fuses both by reciprocal rank as the adapter does. Search sees
every write at once (no refresh interval). Arguments are checked by the adapter's own pure checks, so both refuse
the same things.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from offprompt.adapters.layout import record_doc_id
from offprompt.adapters.opensearch_query import check_search, fuse
from offprompt.adapters.opensearch_records import (
    EMBED_MAX_CHARS,
    check_doc,
    check_id,
    check_labels,
    check_tenant,
    check_time,
    valid_at,
)
from offprompt.limits import MAX_SEARCH_DEPTH
from offprompt.ports import Embedder, RecordDoc, RecordHit

_WORD = re.compile(r"\w+")


@dataclass
class _Stored:
    doc: RecordDoc
    valid_to: float | None = None
    vector: list[float] | None = None


class InMemoryRecordIndex:
    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder
        self.docs: dict[str, _Stored] = {}
        #: (method, argument) of every call, in order.
        self.calls: list[tuple[str, object]] = []

    def index(self, doc: RecordDoc) -> str:
        self.calls.append(("index", doc))
        check_doc(doc)
        doc_id = record_doc_id(doc.tenant, doc.namespace, doc.key, doc.version, doc.write_id)
        if doc_id not in self.docs:  # as the adapter's create: a retry never reopens a superseded version
            vector = None
            if self.embedder is not None and doc.text.strip():
                vector = self.embedder.embed([doc.text[:EMBED_MAX_CHARS]])[0]
            self.docs[doc_id] = _Stored(doc, None, vector)
        return doc_id

    def supersede(self, tenant: str, doc_id: str, valid_to: float) -> None:
        self.calls.append(("supersede", doc_id))
        check_tenant(tenant)
        check_id(doc_id)
        valid_to = check_time("valid_to", valid_to)
        if doc_id in self.docs:
            self.docs[doc_id].valid_to = valid_to

    def delete(self, tenant: str, doc_ids: Sequence[str]) -> None:
        self.calls.append(("delete", tuple(doc_ids)))
        check_tenant(tenant)
        for doc_id in doc_ids:
            check_id(doc_id)
        for doc_id in doc_ids:
            self.docs.pop(doc_id, None)

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
        self.calls.append(("search", (prefix, query, size, as_of)))
        check_tenant(tenant)
        prefix = check_labels(prefix, allow_empty=True)
        check_search(query, size, mode, self.embedder, "size")
        if as_of is not None:
            as_of = check_time("as_of", as_of)
        scope = [
            s
            for s in self.docs.values()
            if s.doc.tenant == tenant
            and s.doc.namespace[: len(prefix)] == prefix
            and valid_at(s.doc.valid_from, s.valid_to, as_of)
        ]
        if mode == "bm25":
            return self._bm25(scope, query)[:size]
        if mode == "knn":
            return self._knn(scope, query)[:size]
        depth = min(MAX_SEARCH_DEPTH, max(2 * size, 20))
        ranked = [self._bm25(scope, query)[:depth], self._knn(scope, query)[:depth]]
        return [
            RecordHit(h.namespace, h.key, h.version, score)
            for h, score in fuse(ranked, lambda h: (h.namespace, h.key, h.version), size)
        ]

    @staticmethod
    def _bm25(scope: list[_Stored], query: str) -> list[RecordHit]:
        words = set(_WORD.findall(query.lower()))
        hits = []
        for stored in scope:
            score = sum(1 for word in _WORD.findall(stored.doc.text.lower()) if word in words)
            if score:
                hits.append(_hit(stored.doc, float(score)))
        return _ordered(hits)

    def _knn(self, scope: list[_Stored], query: str) -> list[RecordHit]:
        assert self.embedder is not None
        target = self.embedder.embed([query])[0]
        return _ordered([_hit(s.doc, _cosine(target, s.vector)) for s in scope if s.vector is not None])


def _hit(doc: RecordDoc, score: float) -> RecordHit:
    return RecordHit(tuple(doc.namespace), doc.key, doc.version, score)


def _ordered(hits: list[RecordHit]) -> list[RecordHit]:
    return sorted(hits, key=lambda h: (-h.score, h.namespace, h.key, h.version))


def _cosine(a: list[float], b: list[float]) -> float:
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0
