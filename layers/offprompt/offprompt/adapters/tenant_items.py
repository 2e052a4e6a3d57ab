"""A tenant's raw DynamoDB items, for export, import, erase and the index backfill (docs/adr/0024, 0028).

What belongs to a tenant is the storage layout's (`layout.FAMILIES`): the stores write with its key functions, and
this enumerates and classifies with its families, so an erase finds what the stores wrote.

- `items`: a Query of each of the tenant's fixed partitions (record, usage, rate windows), of its shards of the
  sparse KEYS_ONLY `TenantRoots` index (partition roots carry `tenant_dir`) and of each partition found there. It
  reads only the tenant's items, and finds all of them only once the tenant is indexed (`TENANT#{t}`/`#INDEXED`):
  the services index a tenant (`services/tenant_data/backfill.index_tenant`) before they list it (docs/adr/0043).
- The backfill: the whole-table Scan, filtered server-side on the layout's partition prefixes of the tenant and on
  the `tenant` attribute (families keyed by something else: API keys), one page at a time from a saved position
  (`TENANT#{t}`/`#BACKFILL`), so a table too big for one invocation is indexed over several.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from typing import Any

from offprompt.errors import DependencyUnavailable
from offprompt.ports import RunChange

from . import layout
from .aws_errors import CONDITION_FAILED, aws_call, aws_call_allowing
from .clients import aws_client
from .dynamodb_conversation_docs import DOC_IDS, doc_ids_of
from .dynamodb_transaction import Cancelled, Transaction
from .layout import (
    BACKFILL_SK,
    INDEXED_SK,
    TENANT_INDEX,
    TENANT_INDEX_ATTRIBUTE,
    TENANT_SK,
    tenant_index_values,
)
from .stream_runs import scanned_run

SCAN_PAGE_ITEMS = 1000
BATCH_WRITE_ITEMS = 25


class DynamoDbTenantItems:
    """Raw DynamoDB items (DynamoDB JSON) of a tenant's partitions, found through the tenant index."""

    def __init__(self, table_name: str, client: Any | None = None) -> None:
        self.table_name = table_name
        self._client = client
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
    marker_kind: str = layout.INDEX_MARKER_KIND

    def kind(self, item: dict[str, Any], tenant: str) -> str | None:
        """The layout's name for one of the tenant's items (None: not an item the layout knows as the tenant's)."""
        found = layout.classify(item, tenant)
        return found[1].name if found else None

    def with_index_attribute(self, item: dict[str, Any], tenant: str) -> dict[str, Any]:
        return layout.with_index_attribute(item, tenant)

    def without_gauge_attributes(self, item: dict[str, Any]) -> dict[str, Any]:
        dropped = (*layout.GAUGE_ATTRIBUTES, *layout.DEPLOYMENT_ATTRIBUTES)
        return {name: value for name, value in item.items() if name not in dropped}

    # ---- a tenant's items ----------------------------------------------------------------------------------
    def index_state(self, tenant: str) -> tuple[bool, dict[str, Any] | None]:
        """Whether the tenant is indexed (its `#INDEXED` marker, put only by a complete backfill), and where an
        unfinished backfill of it stopped (None: not begun). One strongly consistent read of two items."""
        keys = [{"pk": {"S": layout.tenant_pk(tenant)}, "sk": {"S": sk}} for sk in (INDEXED_SK, BACKFILL_SK)]
        out = self._call("batch_get_item", RequestItems={self.table_name: {"Keys": keys, "ConsistentRead": True}})
        found = {i["sk"]["S"]: i for i in out.get("Responses", {}).get(self.table_name, [])}
        if INDEXED_SK in found:
            return True, None
        progress = found.get(BACKFILL_SK)
        return False, (progress["position"]["M"] if progress is not None and "position" in progress else None)

    def items(self, tenant: str, *, keys_only: bool = False) -> Iterator[dict[str, Any]]:
        """Every DynamoDB item of an indexed tenant (see the module docstring), without the attributes that only name
        this deployment's search documents. The tenant record partition comes last, its marker the very last, so an
        erase that stops halfway still finds the rest next time."""
        self.scan_read_units = 0.0
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
                    yield item if keys_only else _without_deployment_attributes(item)
        yield from ({"pk": i["pk"], "sk": i["sk"]} for i in record) if keys_only else record

    def unindexed_roots_page(
        self, tenant: str, start: dict[str, Any] | None
    ) -> tuple[list[dict[str, Any]], dict[str, Any] | None, int]:
        """One page of the tenant's filtered Scan from `start`: the partition roots on it that lack the index
        attribute (key + the attribute), where the next page begins (None: the table is read), items read."""
        prefixes, exact = layout.scan_filter(tenant)
        out = self._call("scan", **self._scan_params(tenant, prefixes, exact, start=start))
        roots = []
        for item in out.get("Items", []):
            indexed = layout.with_index_attribute(item, tenant)
            if indexed is not item:
                roots.append(_missing_index_attributes(item, indexed))
        return roots, out.get("LastEvaluatedKey"), int(out.get("ScannedCount", 0))

    def save_index_progress(self, tenant: str, position: dict[str, Any], now: str) -> None:
        """Where the tenant's backfill goes on from (its Scan's next page), for the next invocation."""
        item = {
            "pk": {"S": layout.tenant_pk(tenant)},
            "sk": {"S": BACKFILL_SK},
            "position": {"M": position},
            "updated_at": {"S": now},
            "tenant": {"S": tenant},
        }
        self._call("put_item", TableName=self.table_name, Item=item)

    def mark_indexed(self, tenant: str, now: str) -> None:
        """Record that every partition of `tenant` is in the tenant index (after its backfill read the whole
        table), and drop the backfill's position."""
        pk = {"S": layout.tenant_pk(tenant)}
        item = {"pk": pk, "sk": {"S": INDEXED_SK}, "indexed_since": {"S": now}, "tenant": {"S": tenant}}
        self._call("put_item", TableName=self.table_name, Item=item)
        self._call("delete_item", TableName=self.table_name, Key={"pk": pk, "sk": {"S": BACKFILL_SK}})

    def unindexed_roots_of_all(self) -> tuple[list[dict[str, Any]], set[str]]:
        """Every partition root of any tenant that lacks the index attribute, and every tenant a root of which
        the Scan read (one whole-table Scan; a tenant whose keys carry its digest is left to its own backfill: its
        roots cannot be read back as its)."""
        roots = []
        tenants: set[str] = set()
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "ConsistentRead": True,
            "ReturnConsumedCapacity": "TOTAL",
        }
        start: dict[str, Any] | None = None
        while True:
            out = self._call("scan", **{**params, **({"ExclusiveStartKey": start} if start else {})})
            for item in out.get("Items", []):
                tenant = layout.tenant_of_root(item)
                if tenant is None:
                    continue
                if not layout.part(tenant).startswith(layout.DIGEST_MARK):  # (else its other roots are unreadable)
                    tenants.add(tenant)
                indexed = layout.with_index_attribute(item, tenant)
                if indexed is not item:
                    roots.append(_missing_index_attributes(item, indexed))
            start = out.get("LastEvaluatedKey")
            if not start:
                return roots, tenants

    def _scan_params(
        self,
        tenant: str,
        prefixes: Sequence[str],
        exact: Sequence[str],
        *,
        start: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A whole-table Scan page of the items whose `pk` begins with one of `prefixes`, equals one of `exact`, or
        whose `tenant` attribute is `tenant` (items of other key designs that record their tenant), filtered
        server-side."""
        names = [f":p{i}" for i in range(len(prefixes))]
        equal = [f":e{i}" for i in range(len(exact))]
        clauses = [*(f"begins_with(pk, {n})" for n in names), *(f"pk = {n}" for n in equal), "#tenant = :tenant"]
        params: dict[str, Any] = {
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
        if start:
            params["ExclusiveStartKey"] = start
        return params

    def run_changes_page(self, tenant: str | None, position: str | None) -> tuple[list[RunChange], str | None, int]:
        """One whole-table Scan page of run items (`RUN#`: runs and session items) of `tenant` (None: every
        tenant's), as the changes that index them (`offprompt-admin reindex`, docs/adr/0048), and the position to go
        on from (None: the table was read to its end). Positions are opaque JSON strings. The forks' thread items on
        the page get their fork registry entry again (docs/adr/0064: forks made before it); how many is the third."""
        values: dict[str, Any] = {":run": {"S": f"{layout.RUN_PREFIX}#"}, ":thread": {"S": layout.THREAD_SK}}
        expression = "(begins_with(sk, :run) OR (sk = :thread AND attribute_exists(ancestry)))"
        if tenant is not None:
            values[":threads"] = {"S": layout.thread_prefix_pk(tenant)}
            expression += " AND begins_with(pk, :threads)"
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "FilterExpression": expression,
            "ExpressionAttributeValues": values,
            "Limit": SCAN_PAGE_ITEMS,
            "ReturnConsumedCapacity": "TOTAL",
        }
        if position:
            params["ExclusiveStartKey"] = json.loads(position)
        out = self._call("scan", **params)
        items = out.get("Items", [])
        changes = [c for c in (scanned_run(item) for item in items if item["sk"]["S"] != layout.THREAD_SK) if c]
        linked = sum(self._link_fork(item) for item in items if item["sk"]["S"] == layout.THREAD_SK)
        after = out.get("LastEvaluatedKey")
        return changes, json.dumps(after, sort_keys=True) if after else None, linked

    def _link_fork(self, thread_item: dict[str, Any]) -> bool:
        """Put a fork's registry entry (docs/adr/0064), on condition that the fork is still the one read and not
        being deleted (so a fork deleted meanwhile, whose delete removed its entry, gets none again)."""
        tenant = thread_item.get("tenant", {}).get("S")
        link = layout.fork_link(thread_item, tenant) if tenant else None
        if link is None:
            return False
        check: dict[str, Any] = {
            "TableName": self.table_name,
            "Key": {"pk": thread_item["pk"], "sk": thread_item["sk"]},
            "ConditionExpression": "attribute_exists(pk) AND attribute_not_exists(#deleting)",
            "ExpressionAttributeNames": {"#deleting": "deleting"},
        }
        if "generation" in thread_item:
            check["ConditionExpression"] += " AND #gen = :gen"
            check["ExpressionAttributeNames"]["#gen"] = "generation"
            check["ExpressionAttributeValues"] = {":gen": thread_item["generation"]}
        tx = Transaction()
        tx.add("fork", {"ConditionCheck": check})
        tx.put("link", {"TableName": self.table_name, "Item": link})
        try:
            with aws_call("DynamoDB transact_write_items"), tx.cancellation():
                self.client.transact_write_items(TransactItems=tx.request())
        except Cancelled as cancelled:
            if cancelled.failed("fork"):
                return False  # deleted (or made again) since the Scan read it
            raise cancelled.unavailable() from None
        return True

    def document_ids(self, tenant: str) -> list[str]:
        """The document ids the tenant's items name: its record items' `doc_id` (one Query of its records
        partition) and its runs' Serverless search document ids (a Query of each thread partition's runs)."""
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "KeyConditionExpression": "pk = :pk",
            "FilterExpression": "attribute_exists(doc_id)",
            "ProjectionExpression": "doc_id",
            "ExpressionAttributeValues": {":pk": {"S": layout.record_pk(tenant)}},
            "ConsistentRead": True,
            "ReturnConsumedCapacity": "TOTAL",
        }
        ids = {item["doc_id"]["S"] for item in self._pages(params)}
        threads = layout.thread_prefix_pk(tenant)
        for pk in self.indexed_partitions(tenant):
            if pk.startswith(threads):
                ids.update(self._run_document_ids(pk))
        return sorted(ids)

    def _run_document_ids(self, pk: str) -> set[str]:
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :runs)",
            "FilterExpression": "attribute_exists(#ids)",
            "ProjectionExpression": "#ids",
            "ExpressionAttributeNames": {"#ids": DOC_IDS},
            "ExpressionAttributeValues": {":pk": {"S": pk}, ":runs": {"S": f"{layout.RUN_PREFIX}#"}},
            "ConsistentRead": True,
            "ReturnConsumedCapacity": "TOTAL",
        }
        return {i for item in self._pages(params) for i in doc_ids_of(item)}

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
        """Set the index attributes each root lacks (`_missing_index_attributes`), never replacing one a writer
        set meanwhile (a thread's newer activity stays)."""
        written = 0
        for item in items:
            attributes = {k: v for k, v in item.items() if k not in ("pk", "sk")}
            names = {f"#a{n}": name for n, name in enumerate(attributes)}
            out = self._call(
                "update_item",
                TableName=self.table_name,
                Key={"pk": item["pk"], "sk": item["sk"]},
                UpdateExpression="SET " + ", ".join(f"#a{n} = if_not_exists(#a{n}, :a{n})" for n in range(len(names))),
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues={f":a{n}": value for n, value in enumerate(attributes.values())},
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
        """Write items as they are (an overwrite: a repeated import writes the same items again), and each fork's
        fork registry entry, which is not exported (docs/adr/0064)."""
        links = [link for item in items if (link := _fork_link_of(item)) is not None]
        self._batch([{"PutRequest": {"Item": item}} for item in [*items, *links]])

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
        allowed = (CONDITION_FAILED,) if allow_condition_failure else ()
        with aws_call_allowing(f"DynamoDB {operation}", *allowed) as call:
            out = getattr(self.client, operation)(**params)
        if call.refused:
            return None
        consumed = out.get("ConsumedCapacity")
        if isinstance(consumed, dict):
            self.scan_read_units += float(consumed.get("CapacityUnits") or 0)
        return out


def _fork_link_of(item: dict[str, Any]) -> dict[str, Any] | None:
    tenant = item.get("tenant", {}).get("S")
    return layout.fork_link(item, tenant) if tenant and item["sk"]["S"] == layout.THREAD_SK else None


def _missing_index_attributes(item: dict[str, Any], indexed: dict[str, Any]) -> dict[str, Any]:
    """The root's key and the index attributes `layout.with_index_attribute` added to it."""
    return {"pk": item["pk"], "sk": item["sk"], **{k: v for k, v in indexed.items() if k not in item}}


def _without_deployment_attributes(item: dict[str, Any]) -> dict[str, Any]:
    if not any(name in item for name in layout.DEPLOYMENT_ATTRIBUTES):
        return item
    return {name: value for name, value in item.items() if name not in layout.DEPLOYMENT_ATTRIBUTES}
