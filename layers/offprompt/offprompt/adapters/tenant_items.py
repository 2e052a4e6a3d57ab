"""A tenant's raw DynamoDB items, for export, import, erase and the index backfill (docs/adr/0024, 0028).

What belongs to a tenant is the storage layout's (`layout.FAMILIES`): the stores write with its key functions, and
this enumerates and classifies with its families, so an erase finds what the stores wrote.

- An indexed tenant (the deployment is marked indexed, `DEPLOYMENT`/`#INDEXED`, or the tenant was backfilled,
  `TENANT#{t}`/`#INDEXED`): a Query of each of its fixed partitions (record, usage, rate windows), of its shards of
  the sparse KEYS_ONLY `TenantRoots` index (partition roots carry `tenant_dir`) and of each partition found there.
  It reads only the tenant's items.
- Any other tenant (data that may predate the index): the whole-table Scan, filtered server-side on the layout's
  partition prefixes of the tenant and on the `tenant` attribute (families keyed by something else: API keys).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from offprompt.errors import DependencyUnavailable

from . import layout
from .aws_errors import failure_reason
from .clients import aws_client
from .layout import DEPLOYMENT_PK, INDEXED_SK, TENANT_INDEX, TENANT_INDEX_ATTRIBUTE, TENANT_SK, tenant_index_values

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

    # ---- what the layout says ------------------------------------------------------------------------------
    exported_kinds: tuple[str, ...] = layout.exported_kinds()
    credential_kinds: tuple[str, ...] = layout.CREDENTIAL_KINDS

    def kind(self, item: dict[str, Any], tenant: str) -> str | None:
        """The layout's name for one of the tenant's items (None: not an item the layout knows as the tenant's)."""
        found = layout.classify(item, tenant)
        return found[1].name if found else None

    def with_index_attribute(self, item: dict[str, Any], tenant: str) -> dict[str, Any]:
        return layout.with_index_attribute(item, tenant)

    def without_gauge_attributes(self, item: dict[str, Any]) -> dict[str, Any]:
        return {name: value for name, value in item.items() if name not in layout.GAUGE_ATTRIBUTES}

    # ---- a tenant's items ----------------------------------------------------------------------------------
    def is_indexed(self, tenant: str) -> bool:
        """Whether every partition of the tenant is in the tenant index: the deployment was indexed as a whole
        (`offprompt-admin backfill-index --all`, or a table created with the index), or the tenant was."""
        markers = [
            {"pk": {"S": DEPLOYMENT_PK}, "sk": {"S": INDEXED_SK}},
            {"pk": {"S": layout.tenant_pk(tenant)}, "sk": {"S": INDEXED_SK}},
        ]
        out = self._call(
            "batch_get_item",
            RequestItems={self.table_name: {"Keys": markers, "ConsistentRead": True, "ProjectionExpression": "pk"}},
        )
        return bool(out.get("Responses", {}).get(self.table_name))

    def items(self, tenant: str, *, keys_only: bool = False, indexed: bool | None = None) -> Iterator[dict[str, Any]]:
        """Every DynamoDB item of the tenant (see the module docstring). The tenant record partition comes last, so
        an erase that stops halfway still finds the rest through the index (and its markers) next time."""
        self.scan_read_units = 0.0
        if indexed is None:
            indexed = self.is_indexed(tenant)
        if not indexed:
            prefixes, exact = layout.scan_filter(tenant)
            yield from self.scan(tenant, prefixes, exact=exact, keys_only=keys_only)
            return
        record = list(self.query_partition(layout.tenant_pk(tenant)))
        rate = next((int(i.get("rate_per_second", {}).get("N", "0")) for i in record if i["sk"]["S"] == TENANT_SK), 0)
        record.sort(key=lambda i: i["sk"]["S"] == INDEXED_SK)
        partitions = list(layout.fixed_partitions(tenant, rate)[1:])
        seen = {layout.tenant_pk(tenant), *partitions}
        partitions += [p for p in self.indexed_partitions(tenant) if p not in seen]
        for pk in partitions:
            for item in self.query_partition(pk, keys_only=keys_only):
                # an API key's partition is keyed by the key: the item names its tenant
                if not pk.startswith("APIKEY#") or keys_only or item.get("tenant", {}).get("S") == tenant:
                    yield item
        yield from ({"pk": i["pk"], "sk": i["sk"]} for i in record) if keys_only else record

    def unindexed_roots(self, tenant: str) -> list[dict[str, Any]]:
        """The tenant's partition roots that lack the index attribute (one filtered Scan): key + the attribute."""
        prefixes, exact = layout.scan_filter(tenant)
        roots = []
        for item in self.scan(tenant, prefixes, exact=exact):
            indexed = layout.with_index_attribute(item, tenant)
            if indexed is not item:
                roots.append(
                    {"pk": item["pk"], "sk": item["sk"], TENANT_INDEX_ATTRIBUTE: indexed[TENANT_INDEX_ATTRIBUTE]}
                )
        return roots

    def mark_indexed(self, tenant: str | None, now: str) -> None:
        """Record that every partition of `tenant` (None: of every tenant) is in the tenant index."""
        pk = DEPLOYMENT_PK if tenant is None else layout.tenant_pk(tenant)
        item = {"pk": {"S": pk}, "sk": {"S": INDEXED_SK}, "indexed_since": {"S": now}}
        if tenant is not None:
            item["tenant"] = {"S": tenant}
        self._call("put_item", TableName=self.table_name, Item=item)

    def unindexed_roots_of_all(self) -> list[dict[str, Any]]:
        """Every partition root of any tenant that lacks the index attribute (one whole-table Scan)."""
        roots = []
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "FilterExpression": f"attribute_not_exists({TENANT_INDEX_ATTRIBUTE})",
            "ConsistentRead": True,
            "ReturnConsumedCapacity": "TOTAL",
        }
        start: dict[str, Any] | None = None
        while True:
            out = self._call("scan", **{**params, **({"ExclusiveStartKey": start} if start else {})})
            for item in out.get("Items", []):
                tenant = layout.tenant_of_root(item)
                if tenant is not None:
                    value = layout.tenant_index_value(tenant, item["pk"]["S"])
                    roots.append({"pk": item["pk"], "sk": item["sk"], TENANT_INDEX_ATTRIBUTE: {"S": value}})
            start = out.get("LastEvaluatedKey")
            if not start:
                return roots

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

    def document_ids(self, tenant: str) -> list[str]:
        """The record-index document ids of the tenant's record items (one Query of its records partition)."""
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "KeyConditionExpression": "pk = :pk",
            "FilterExpression": "attribute_exists(doc_id)",
            "ProjectionExpression": "doc_id",
            "ExpressionAttributeValues": {":pk": {"S": layout.record_pk(tenant)}},
            "ConsistentRead": True,
            "ReturnConsumedCapacity": "TOTAL",
        }
        return sorted({item["doc_id"]["S"] for item in self._pages(params)})

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
