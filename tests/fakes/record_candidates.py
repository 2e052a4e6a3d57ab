"""An in-memory RecordIndex (offprompt.ports.RecordIndex) for the records use cases' tests: what the OpenSearch
adapter does, by term counting. It proposes candidates as the real index does, stale ones included (a superseded
document stays searchable `as_of` its window; a deleted or never-committed one until its id is deleted), so the
use cases' DynamoDB check is exercised."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from offprompt.ports import RecordDoc, RecordHit

_WORD = re.compile(r"\w+")


@dataclass
class FakeRecordIndex:
    docs: dict[str, tuple[RecordDoc, float | None]] = field(default_factory=dict)
    #: Calls, for tests that check what the use cases asked for.
    calls: list[tuple[str, object]] = field(default_factory=list)

    def index(self, doc: RecordDoc) -> str:
        doc_id = hashlib.sha256(
            json.dumps([doc.tenant, list(doc.namespace), doc.key, doc.version]).encode()
        ).hexdigest()
        self.docs[doc_id] = (doc, None)
        self.calls.append(("index", doc_id))
        return doc_id

    def supersede(self, tenant: str, doc_id: str, valid_to: float) -> None:
        self.calls.append(("supersede", doc_id))
        if doc_id in self.docs and self.docs[doc_id][0].tenant == tenant:
            self.docs[doc_id] = (self.docs[doc_id][0], valid_to)

    def delete(self, tenant: str, doc_ids: Sequence[str]) -> None:
        self.calls.append(("delete", tuple(doc_ids)))
        for doc_id in doc_ids:
            if doc_id in self.docs and self.docs[doc_id][0].tenant == tenant:
                del self.docs[doc_id]

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
        terms = {w.lower() for w in _WORD.findall(query)}
        hits = []
        for doc, valid_to in self.docs.values():
            if doc.tenant != tenant or doc.namespace[: len(prefix)] != prefix:
                continue
            if as_of is None and valid_to is not None:
                continue
            if as_of is not None and not (doc.valid_from <= as_of and (valid_to is None or as_of < valid_to)):
                continue
            words = [w.lower() for w in _WORD.findall(doc.text)]
            score = float(sum(1 for w in words if w in terms)) / (1 + len(words)) ** 0.5
            if score > 0:
                hits.append(RecordHit(doc.namespace, doc.key, doc.version, score))
        hits.sort(key=lambda h: (-h.score, h.namespace, h.key))
        return hits[:size]
