"""A tenant's OpenSearch documents (the `tenant` keyword field), for export, import and erase
(docs/adr/0024-tenant-export-erase.md): paged by `search_after` on the documents' own (memory, namespace,
position, chunk) order, written back by bulk index under their ids, deleted by one delete-by-query."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from offprompt.errors import DependencyUnavailable, OffpromptError

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

SEARCH_PAGE_DOCS = 500
BULK_DOCS = 500


class OpenSearchTenantDocuments:
    """A tenant's documents in the text index (`tenant` keyword field)."""

    def __init__(self, client: OpenSearch | Callable[[], OpenSearch], index: str) -> None:
        self._client = client
        self.index = index

    @property
    def client(self) -> OpenSearch:
        if callable(self._client):
            self._client = self._client()
        return self._client

    def _exists(self) -> bool:
        return bool(self._call(lambda: self.client.indices.exists(index=self.index)))

    def scan(self, tenant: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """(id, source) of every document of the tenant, in (memory, namespace, position, chunk) order."""
        if not self._exists():
            return
        self._call(lambda: self.client.indices.refresh(index=self.index))
        after: list[Any] | None = None
        while True:
            body: dict[str, Any] = {
                "query": {"bool": {"filter": [{"term": {"tenant": tenant}}]}},
                "sort": [{"memory": "asc"}, {"namespace": "asc"}, {"position": "asc"}, {"chunk": "asc"}],
                "size": SEARCH_PAGE_DOCS,
            }
            if after is not None:
                body["search_after"] = after
            hits = self._call(functools.partial(self.client.search, index=self.index, body=body))["hits"]["hits"]
            for hit in hits:
                yield hit["_id"], hit["_source"]
            if len(hits) < SEARCH_PAGE_DOCS:
                return
            after = hits[-1]["sort"]

    def count(self, tenant: str) -> int:
        if not self._exists():
            return 0
        self._call(lambda: self.client.indices.refresh(index=self.index))
        body = {"query": {"bool": {"filter": [{"term": {"tenant": tenant}}]}}}
        return int(self._call(lambda: self.client.count(index=self.index, body=body))["count"])

    def put(self, docs: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Index documents under their own ids (an overwrite when repeated), then refresh."""
        for i in range(0, len(docs), BULK_DOCS):
            lines: list[str] = []
            for doc_id, source in docs[i : i + BULK_DOCS]:
                lines.append(json.dumps({"index": {"_index": self.index, "_id": doc_id}}))
                lines.append(json.dumps(source, ensure_ascii=False))
            out = self._call(functools.partial(self.client.bulk, body="\n".join(lines) + "\n"))
            if out.get("errors"):
                raise DependencyUnavailable("OpenSearch refused some documents; run the import again")
        self._call(lambda: self.client.indices.refresh(index=self.index))

    def delete(self, tenant: str) -> int:
        if not self._exists():
            return 0
        self._call(lambda: self.client.indices.refresh(index=self.index))
        out = self._call(
            lambda: self.client.delete_by_query(
                index=self.index,
                body={"query": {"bool": {"filter": [{"term": {"tenant": tenant}}]}}},
                refresh=True,
                conflicts="proceed",
            )
        )
        if out.get("failures") or out.get("timed_out"):
            raise DependencyUnavailable("OpenSearch did not delete every document; run the operation again")
        return int(out.get("deleted", 0))

    def _call(self, request: Callable[[], Any]) -> Any:
        try:
            return request()
        except OffpromptError:
            raise
        except Exception as exc:  # opensearch-py's transport and HTTP errors
            raise DependencyUnavailable(f"OpenSearch request failed: {type(exc).__name__}") from exc
