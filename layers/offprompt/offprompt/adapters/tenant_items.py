"""A tenant's raw DynamoDB items, for export, import and erase (docs/adr/0024-tenant-export-erase.md).

A tenant with the tenant index: Queries of its partitions, found in the sparse KEYS_ONLY `TenantIndex` (partition
roots carry `tenant_dir`) and by their fixed keys (`services.tenant_data.inventory.tenant_items`). A tenant whose
data predates the index: every item whose partition key starts with one of the tenant's partition prefixes or
whose `tenant` attribute names the tenant, by a Scan of the whole table filtered server-side.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from offprompt.errors import DependencyUnavailable
from offprompt.identifiers import TENANT_INDEX, TENANT_INDEX_ATTRIBUTE, tenant_index_values

from .aws_errors import failure_reason
from .clients import aws_client

SCAN_PAGE_ITEMS = 1000
BATCH_WRITE_ITEMS = 25


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

    def scan(
        self,
        tenant: str,
        prefixes: Sequence[str],
        *,
        exact: Sequence[str] = (),
        keys_only: bool = False,
    ) -> Iterator[dict[str, Any]]:
        """Every item whose `pk` begins with one of `prefixes`, equals one of `exact`, or whose `tenant` attribute is
        `tenant` (items of other key designs that record their tenant): a whole-table Scan, filtered server-side."""
        names = [f":p{i}" for i in range(len(prefixes))]
        equal = [f":e{i}" for i in range(len(exact))]
        clauses = [*(f"begins_with(pk, {n})" for n in names), *(f"pk = {n}" for n in equal), "#tenant = :tenant"]
        base: dict[str, Any] = {
            "TableName": self.table_name,
            "FilterExpression": " OR ".join(clauses),
            "ExpressionAttributeNames": {"#tenant": "tenant"},
            "ExpressionAttributeValues": {
                ":tenant": {"S": tenant},
                **{n: {"S": p} for n, p in zip(names, prefixes, strict=True)},
                **{n: {"S": p} for n, p in zip(equal, exact, strict=True)},
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
                yield from out.get("Items", [])
                start = out.get("LastEvaluatedKey")
                if not start:
                    break

    def query_partition(self, pk: str, *, keys_only: bool = False) -> Iterator[dict[str, Any]]:
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "KeyConditionExpression": "pk = :pk",
            "ExpressionAttributeValues": {":pk": {"S": pk}},
            "ConsistentRead": True,
            "ReturnConsumedCapacity": "TOTAL",
        }
        if keys_only:
            params["ProjectionExpression"] = "pk, sk"
        yield from self._pages(params)

    def indexed_partitions(self, tenant: str) -> list[str]:
        """Distinct partition keys in the tenant's index shards (an index read is eventually consistent: a
        partition created a moment ago may be missing; an erase's verification pass and a re-run find it)."""
        found: set[str] = set()
        for value in tenant_index_values(tenant):
            params = {
                "TableName": self.table_name,
                "IndexName": TENANT_INDEX,
                "KeyConditionExpression": "#d = :d",
                "ExpressionAttributeNames": {"#d": TENANT_INDEX_ATTRIBUTE},
                "ExpressionAttributeValues": {":d": {"S": value}},
                "ReturnConsumedCapacity": "TOTAL",
            }
            found.update(item["pk"]["S"] for item in self._pages(params))
        return sorted(found)

    def set_index_attribute(self, items: Sequence[dict[str, Any]]) -> int:
        written = 0
        for item in items:
            out = self._call(
                "update_item",
                TableName=self.table_name,
                Key={"pk": item["pk"], "sk": item["sk"]},
                UpdateExpression="SET #d = :d",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames={"#d": TENANT_INDEX_ATTRIBUTE},
                ExpressionAttributeValues={":d": item[TENANT_INDEX_ATTRIBUTE]},
                allow_condition_failure=True,
            )
            written += out is not None
        return written

    def _pages(self, params: dict[str, Any]) -> Iterator[dict[str, Any]]:
        start: dict[str, Any] | None = None
        while True:
            page = {**params, **({"ExclusiveStartKey": start} if start else {})}
            out = self._call("query", **page)
            yield from out.get("Items", [])
            start = out.get("LastEvaluatedKey")
            if not start:
                return

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

    def _call(self, operation: str, *, allow_condition_failure: bool = False, **params: Any) -> Any:
        try:
            out = getattr(self.client, operation)(**params)
        except ClientError as exc:
            if (
                allow_condition_failure
                and exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException"
            ):
                return None
            raise DependencyUnavailable(f"DynamoDB {operation} failed: {failure_reason(exc)}") from exc
        except BotoCoreError as exc:
            raise DependencyUnavailable(f"DynamoDB {operation} failed: {failure_reason(exc)}") from exc
        consumed = out.get("ConsumedCapacity")
        if isinstance(consumed, dict):
            self.scan_read_units += float(consumed.get("CapacityUnits") or 0)
        return out
