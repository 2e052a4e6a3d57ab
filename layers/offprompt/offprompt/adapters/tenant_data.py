"""A tenant's raw data in each store, for export, import and erase (docs/adr/0024-tenant-export-erase.md).

- DynamoDB: every item whose partition key starts with one of the tenant's partition prefixes
  (`services.tenancy.inventory.partition_prefixes`). The table has no index by tenant, so finding them is a
  Scan of the whole table with a `begins_with` filter (read units for the whole table, see the ADR).
- S3: every object under the tenant's key prefixes (`t/`, `taskmem/`, `uploads/`, `downloads/`, `exports/`
  followed by the tenant's digest).
- OpenSearch: every document whose `tenant` keyword is the tenant, paged by `search_after` on the documents'
  own (memory, namespace, position, chunk) order, deleted by one delete-by-query.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from offprompt.errors import DependencyUnavailable, OffpromptError

from .aws_errors import failure_reason
from .clients import aws_client

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

SCAN_PAGE_ITEMS = 1000
BATCH_WRITE_ITEMS = 25
SEARCH_PAGE_DOCS = 500
BULK_DOCS = 500


class DynamoDbTenantItems:
    """Raw DynamoDB items (DynamoDB JSON) of a tenant's partitions, found by a filtered Scan."""

    def __init__(self, table_name: str, client: Any | None = None, *, segments: int = 1) -> None:
        self.table_name = table_name
        self._client = client
        self.segments = segments
        #: Read units the last `scan` consumed (ReturnConsumedCapacity=TOTAL), for the operator's report.
        self.scan_read_units = 0.0

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = aws_client("dynamodb")
        return self._client

    def scan(self, tenant: str, prefixes: Sequence[str], *, keys_only: bool = False) -> Iterator[dict[str, Any]]:
        """Every item whose `pk` begins with one of `prefixes` or whose `tenant` attribute is `tenant` (items of
        other key designs that record their tenant): a whole-table Scan, filtered server-side."""
        self.scan_read_units = 0.0
        names = [f":p{i}" for i in range(len(prefixes))]
        base: dict[str, Any] = {
            "TableName": self.table_name,
            "FilterExpression": " OR ".join([*(f"begins_with(pk, {n})" for n in names), "#tenant = :tenant"]),
            "ExpressionAttributeNames": {"#tenant": "tenant"},
            "ExpressionAttributeValues": {
                ":tenant": {"S": tenant},
                **{n: {"S": p} for n, p in zip(names, prefixes, strict=True)},
            },
            "ConsistentRead": True,
            "Limit": SCAN_PAGE_ITEMS,
            "ReturnConsumedCapacity": "TOTAL",
        }
        if keys_only:
            base["ProjectionExpression"] = "pk, sk"
        for segment in range(self.segments):
            start: dict[str, Any] | None = None
            while True:
                params = dict(base)
                if self.segments > 1:
                    params.update(Segment=segment, TotalSegments=self.segments)
                if start:
                    params["ExclusiveStartKey"] = start
                out = self._call("scan", **params)
                self.scan_read_units += float((out.get("ConsumedCapacity") or {}).get("CapacityUnits") or 0)
                yield from out.get("Items", [])
                start = out.get("LastEvaluatedKey")
                if not start:
                    break

    def put(self, items: Sequence[dict[str, Any]]) -> None:
        """Write items as they are (an overwrite: a repeated import writes the same items again)."""
        self._batch([{"PutRequest": {"Item": item}} for item in items])

    def delete(self, keys: Sequence[dict[str, Any]]) -> int:
        self._batch([{"DeleteRequest": {"Key": {"pk": k["pk"], "sk": k["sk"]}}} for k in keys])
        return len(keys)

    def _batch(self, requests: list[dict[str, Any]]) -> None:
        for i in range(0, len(requests), BATCH_WRITE_ITEMS):
            pending: dict[str, Any] = {self.table_name: requests[i : i + BATCH_WRITE_ITEMS]}
            for attempt in range(10):
                out = self._call("batch_write_item", RequestItems=pending)
                pending = out.get("UnprocessedItems") or {}
                if not pending:
                    break
                time.sleep(min(0.05 * 2**attempt, 2.0))
            if pending:
                raise DependencyUnavailable("DynamoDB left items unprocessed; run the operation again")

    def _call(self, operation: str, **params: Any) -> Any:
        try:
            return getattr(self.client, operation)(**params)
        except (ClientError, BotoCoreError) as exc:
            raise DependencyUnavailable(f"DynamoDB {operation} failed: {failure_reason(exc)}") from exc


class S3TenantObjects:
    """Objects under a tenant's key prefixes: list, read, write, delete."""

    def __init__(self, bucket: str, client: Any | None = None) -> None:
        self.bucket = bucket
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = aws_client("s3")
        return self._client

    def list(self, prefix: str) -> Iterator[tuple[str, int]]:
        """(key, size) of every object under `prefix`, in key order."""
        try:
            for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix):
                for obj in page.get("Contents", []):
                    yield obj["Key"], int(obj["Size"])
        except (ClientError, BotoCoreError) as exc:
            raise DependencyUnavailable(f"S3 list failed: {failure_reason(exc)}") from exc

    def get(self, key: str) -> tuple[bytes, str]:
        """The object's bytes and content type."""
        try:
            out = self.client.get_object(Bucket=self.bucket, Key=key)
            return out["Body"].read(), str(out.get("ContentType") or "application/octet-stream")
        except (ClientError, BotoCoreError) as exc:
            raise DependencyUnavailable(f"S3 get failed: {failure_reason(exc)}") from exc

    def put(self, key: str, data: bytes, content_type: str) -> None:
        try:
            self.client.put_object(
                Bucket=self.bucket, Key=key, Body=data, ContentType=content_type, ServerSideEncryption="AES256"
            )
        except (ClientError, BotoCoreError) as exc:
            raise DependencyUnavailable(f"S3 put failed: {failure_reason(exc)}") from exc

    def delete_prefix(self, prefix: str) -> int:
        deleted = 0
        try:
            for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix):
                keys = [{"Key": obj["Key"]} for obj in page.get("Contents", [])]
                if keys:
                    out = self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": keys, "Quiet": True})
                    if out.get("Errors"):
                        raise DependencyUnavailable("S3 could not delete some objects; run the operation again")
                    deleted += len(keys)
        except (ClientError, BotoCoreError) as exc:
            raise DependencyUnavailable(f"S3 delete failed: {failure_reason(exc)}") from exc
        return deleted

    def presign_get(self, key: str, expires_in: int) -> str:
        url: str = self.client.generate_presigned_url(
            "get_object", Params={"Bucket": self.bucket, "Key": key}, ExpiresIn=expires_in
        )
        return url


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
