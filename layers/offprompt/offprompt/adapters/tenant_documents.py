"""A tenant's OpenSearch documents (the `tenant` keyword field: text chunks, long-term record versions and the
conversation documents of its runs, docs/adr/0048; an export leaves the last out), for export, import and erase
(docs/adr/0024-tenant-export-erase.md): paged by `search_after` on the documents' own order (`TENANT_ORDER`),
written back by bulk index under their ids, deleted by one delete-by-query.

On OpenSearch Serverless (`serverless=True`, docs/adr/0030-opensearch-serverless.md) there is no refresh and no
delete-by-query, and documents have server-generated ids: the order adds the store's `write_id` (a unique key), an
import indexes documents under new ids, and an erase deletes by id what the tenant's S3 text records name (at once,
whether search sees it yet or not) and then what search sees. The long-term records' documents are named by the
tenant's DynamoDB items instead: the erase reads their ids before it deletes the items and deletes them first
(`delete_ids`, docs/adr/0034). Search still sees deleted documents until the
collection refreshes, so `count` after an erase leaves out the documents this instance deleted.
"""

from __future__ import annotations

import functools
import json
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from offprompt.errors import ConfigurationError, DependencyUnavailable, OffpromptError

from .opensearch_text import SWEEP_PAGE, ascending, bulk_delete, each_of, search_pages
from .s3_text_records import S3TextRecords

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

SEARCH_PAGE_DOCS = 500
BULK_DOCS = 500
#: A unique sort key over a tenant's documents: text chunks by (memory, namespace, position, chunk), long-term record
#: versions (which have none of those) by (record_namespace, record_key, record_version), conversation documents by
#: (thread_id, kind, seq); each kind sorts its missing fields last (docs/adr/0034). Serverless adds `write_id`.
TENANT_ORDER = (
    "memory",
    "namespace",
    "position",
    "chunk",
    "record_namespace",
    "record_key",
    "record_version",
    "thread_id",
    "kind",
    "seq",
)
#: Conversation documents (docs/adr/0048) are derived from the tenant's runs: an export leaves them out (the import
#: writes the runs, and the stream indexes them); an erase and its count include them (the `tenant` keyword).
NOT_EXPORTED = {"term": {"doc_kind": "conversation"}}


class OpenSearchTenantDocuments:
    """A tenant's documents in the text index (`tenant` keyword field)."""

    def __init__(
        self,
        client: OpenSearch | Callable[[], OpenSearch],
        index: str,
        *,
        serverless: bool = False,
        records: S3TextRecords | None = None,
    ) -> None:
        if serverless and records is None:
            raise ConfigurationError("tenant documents on OpenSearch Serverless need the S3 text records")
        self._client = client
        self.index = index
        self.serverless = serverless
        self.records = records
        #: Serverless: the ids this instance deleted (search shows them until the collection refreshes).
        self._deleted: set[str] = set()

    @property
    def client(self) -> OpenSearch:
        if callable(self._client):
            self._client = self._client()
        return self._client

    def _exists(self) -> bool:
        return bool(self._call(lambda: self.client.indices.exists(index=self.index)))

    def _refresh(self) -> None:
        if not self.serverless:  # Serverless has no refresh: search sees what the collection has refreshed
            self._call(lambda: self.client.indices.refresh(index=self.index))

    def scan(self, tenant: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """(id, source) of every document of the tenant an export carries (its conversation documents aside), in
        TENANT_ORDER."""
        if not self._exists():
            return
        self._refresh()
        order = (*TENANT_ORDER, "write_id") if self.serverless else TENANT_ORDER
        after: list[Any] | None = None
        while True:
            body: dict[str, Any] = {
                "query": {"bool": {"filter": [{"term": {"tenant": tenant}}], "must_not": [NOT_EXPORTED]}},
                "sort": ascending(order),
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
        self._refresh()
        body = {"query": {"bool": {"filter": [{"term": {"tenant": tenant}}]}}}
        if not (self.serverless and self._deleted):
            return int(self._call(lambda: self.client.count(index=self.index, body=body))["count"])
        return sum(
            1 for page in self._visible(tenant) for hit in page if hit.get("_id") not in self._deleted
        )  # what search sees, less what this instance deleted

    def put(self, docs: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Index documents under their own ids (an overwrite when repeated), then refresh. Serverless: under new
        ids (the collection refuses chosen ones), so an import run twice indexes its documents twice (search shows
        one hit per position and chunk; a namespace delete removes both)."""
        write_id = uuid.uuid4().hex
        for i in range(0, len(docs), BULK_DOCS):
            lines: list[str] = []
            for doc_id, source in docs[i : i + BULK_DOCS]:
                if self.serverless:
                    lines.append(json.dumps({"index": {"_index": self.index}}))
                    source = {"write_id": write_id, **source}
                else:
                    lines.append(json.dumps({"index": {"_index": self.index, "_id": doc_id}}))
                lines.append(json.dumps(source, ensure_ascii=False))
            out = self._call(functools.partial(self.client.bulk, body="\n".join(lines) + "\n"))
            if out.get("errors"):
                raise DependencyUnavailable("OpenSearch refused some documents; run the import again")
        self._refresh()

    def delete(self, tenant: str) -> int:
        if not self._exists():
            return 0
        if self.serverless:
            return self._delete_serverless(tenant)
        self._refresh()
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

    def delete_ids(self, tenant: str, ids: Sequence[str]) -> int:
        """Delete by id (bulk, 500 a request; missing ids are fine) in both modes: on Serverless the only way to a
        document search does not see yet. Remembered, so a later `delete` does not try them again and `count`
        leaves them out until the collection refreshes. `tenant` is whose items named the ids."""
        wanted = [i for i in dict.fromkeys(ids) if i not in self._deleted]
        if not wanted or not self._exists():
            return 0
        deleted = self._delete_ids(wanted)
        if self.serverless:
            self._deleted.update(wanted)
        return len(deleted)

    def _delete_serverless(self, tenant: str) -> int:
        """The ids the tenant's text records name (every committed text, visible to search or not), then what
        search sees of the tenant (documents no record names). The records themselves go with the tenant's
        objects (their keys are under its `taskmem/` prefix)."""
        assert self.records is not None
        keys = list(self.records.keys(self.records.tenant_prefix(tenant)))
        tried = {i for ids in each_of(self.records.ids, keys) for i in ids} - self._deleted
        deleted = self._delete_ids(sorted(tried))
        tried |= self._deleted
        for page in self._visible(tenant):
            ids = [hit["_id"] for hit in page if hit.get("_id") not in tried]
            tried.update(ids)
            deleted |= self._delete_ids(ids)
        self._deleted |= tried
        return len(deleted)

    def _visible(self, tenant: str) -> Iterator[list[dict[str, Any]]]:
        def search(body: dict[str, Any]) -> dict[str, Any]:
            return dict(self._call(functools.partial(self.client.search, index=self.index, body=body)))

        return search_pages(search, [{"term": {"tenant": tenant}}], (*TENANT_ORDER, "write_id"), SWEEP_PAGE)

    def _delete_ids(self, ids: Sequence[str]) -> set[str]:
        return bulk_delete(
            lambda body: dict(self._call(functools.partial(self.client.bulk, body=body, index=self.index))), ids
        )

    def _call(self, request: Callable[[], Any]) -> Any:
        try:
            return request()
        except OffpromptError:
            raise
        except Exception as exc:  # opensearch-py's transport and HTTP errors
            raise DependencyUnavailable(f"OpenSearch request failed: {type(exc).__name__}") from exc
