"""An in-memory ConversationIndex (issue 31, docs/adr/0049) for tests of the search use case's own logic: scope,
fork cuts, verification against DynamoDB, the consistency wait. Never the test of an adapter (the OpenSearch
adapter has its own, on the real node).

Documents live in a dict by (tenant, thread, kind, seq): indexing one again replaces it. bm25 counts the query's
words in the text fields (a document with none is no candidate); knn is the share of the query's words the document
holds (every document in scope with one is a candidate). A document indexed is searchable at once unless `lag` holds
it back: `deliver()` (or `indexed_through` after `lag_calls` calls) makes the held ones searchable, as a stream
indexer catching up would. `calls` logs every candidates call's arguments.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Literal

from offprompt.ports import ConversationCandidate, ConversationDoc, ThreadCut

_WORD = re.compile(r"\w+")
DocKey = tuple[str, str, str, int]


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


class FakeConversationIndex:
    def __init__(self) -> None:
        self.docs: dict[DocKey, ConversationDoc] = {}
        self.held: dict[DocKey, ConversationDoc] = {}
        self.lag = False
        #: With `lag`: how many `indexed_through` calls deliver the held documents (None: never by itself).
        self.lag_calls: int | None = None
        self.through_calls = 0
        self.calls: list[dict[str, Any]] = []

    # ---- writes ----------------------------------------------------------------------------------------------
    def index(self, docs: Sequence[ConversationDoc]) -> list[str | None]:
        for doc in docs:
            key = (doc.tenant, doc.thread_id, doc.kind, doc.seq)
            (self.held if self.lag else self.docs)[key] = doc
        return [None] * len(docs)  # its ids are the runs' own (as a managed domain's)

    def delete_ids(self, ids: Sequence[str]) -> None:
        """Nothing to do: `index` names no id."""

    def deliver(self) -> None:
        self.docs.update(self.held)
        self.held.clear()

    def delete(self, tenant: str, thread_id: str, kind: str, seqs: Sequence[int]) -> None:
        for seq in seqs:
            self.docs.pop((tenant, thread_id, kind, seq), None)

    def delete_thread(self, tenant: str, thread_id: str) -> None:
        for key in [k for k in self.docs if k[:2] == (tenant, thread_id)]:
            del self.docs[key]

    # ---- reads -----------------------------------------------------------------------------------------------
    def indexed_through(self, tenant: str, thread_ids: Sequence[str], *, refresh: bool = False) -> dict[str, int]:
        self.through_calls += 1
        if self.held and self.lag_calls is not None and self.through_calls >= self.lag_calls:
            self.deliver()
        out: dict[str, int] = {}
        for t, thread, _kind, seq in self.docs:
            if t == tenant and thread in thread_ids:
                out[thread] = max(out.get(thread, 0), seq)
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
        self.calls.append(
            {"tenant": tenant, "threads": threads, "thread_prefix": thread_prefix, "since": since, "until": until}
        )
        cuts = {c.thread_id: c.through_seq for c in threads} if threads is not None else None

        def in_scope(doc: ConversationDoc) -> bool:
            if doc.tenant != tenant:
                return False
            if since is not None and doc.created_at < since:
                return False
            if until is not None and doc.created_at >= until:
                return False
            if cuts is None and thread_prefix is None:
                return True
            if cuts is not None and doc.thread_id in cuts:
                through = cuts[doc.thread_id]
                if through is None or doc.seq <= through:
                    return True
            return thread_prefix is not None and doc.thread_id.startswith(thread_prefix)

        terms = set(_words(bm25_query))
        scoped = [d for d in self.docs.values() if in_scope(d)]
        out: list[ConversationCandidate] = []
        for doc in scoped:
            text = _words(" ".join((doc.input_text, doc.output_text, doc.meta_text)))
            bm25 = float(sum(1 for w in text if w in terms)) or None
            knn = (len(terms & set(text)) / len(terms)) or None if terms else None
            if mode == "bm25":
                knn = None
            if mode == "knn":
                bm25 = None
            if bm25 is not None or knn is not None:
                out.append(ConversationCandidate(doc, bm25=bm25, knn=knn))
        out.sort(key=lambda c: -((c.bm25 or 0.0) + (c.knn or 0.0)))
        return out[: size * 2]
