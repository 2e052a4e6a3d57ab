"""Where a tenant's data lives: its DynamoDB partitions, S3 prefixes and OpenSearch documents.

Every key design of the project, in one place (docs/adr/0024-tenant-export-erase.md):

DynamoDB (single table, pk/sk):
- `T#{tenant}#TH#{thread}`      `#THREAD` thread, `RUN#{seq}` run, `RUNID#{run_id}` run id (adapters/dynamodb_runs)
- `T#{tenant}#ALIAS#{alias}`    `#ALIAS` a Griptape Cloud-style thread alias
- `TASKMEM#{tenant}#{memory}`   `NS#{ns}` namespace record, `BATCH#{ns}#{start}` batch, `META#...` meta entry
  (adapters/dynamodb_namespaces)
- `RECEIPT#{tenant}#{memory}#{key}`  process-output idempotency receipts (adapters/dynamodb_receipts; they expire
  by TTL: erased, not exported)
- `U#{tenant}#…` usage counters, `RATE#{tenant}#{shard}` rate windows (adapters/dynamodb_account: erased, not
  exported);
- any item with a `tenant` attribute naming the tenant: the tenant record `TENANT#{tenant}` and its key listing,
  its API keys `APIKEY#{key_id}` (erased, so they stop working; never exported). Key designs added later should
  carry one, or add their prefix to `partition_prefixes`.

Found by Query (`tenant_items`): the root item of each thread, alias, memory (namespace record), receipt and API
key carries `tenant_dir` and is listed by the sparse KEYS_ONLY `TenantIndex`; the tenancy partitions have fixed
keys (`fixed_partitions`). Tenants whose data predates the index (no `#INDEXED` marker) are found by the filtered
whole-table Scan until `offprompt_admin backfill-index` runs for them.

S3 (digest = identifiers.digest): `t/{d(tenant)}/` big runs · `taskmem/{d(tenant)}/` blobs and batch manifests ·
`uploads/{d(tenant)}/` pending uploads · `downloads/{d(tenant)}/` materialized load responses ·
`exports/{d(tenant)}/` exports.

OpenSearch: every document whose `tenant` keyword is the tenant (one per text chunk).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from offprompt.identifiers import TENANT_INDEX_ATTRIBUTE, digest, key, tenant_index_value
from offprompt.limits import RATE_SHARD_CAPACITY, USAGE_SHARDS
from offprompt.services.tenant_data.ports import TenantItems

#: S3 prefixes (before the tenant digest) whose objects an export carries: the stored data.
EXPORTED_S3_ROOTS = ("t", "taskmem")
#: S3 prefixes an erase also empties: pending uploads, one-day downloads and the tenant's own exports.
TRANSIENT_S3_ROOTS = ("uploads", "downloads", "exports")


def partition_prefixes(tenant: str) -> tuple[str, ...]:
    """Prefixes of the partition keys that belong to the tenant (the tenant part escaped as in the keys)."""
    return tuple(key(root, tenant) + "#" for root in ("T", "TASKMEM", "RECEIPT", "U", "RATE"))


def exact_partitions(tenant: str) -> tuple[str, ...]:
    """Partition keys that are the tenant's exactly (no prefix would tell `TENANT#a` from `TENANT#ab`)."""
    return (key("TENANT", tenant),)


#: The tenant record's partition holds this item once all the tenant's partitions are in the tenant index.
INDEXED_SK = "#INDEXED"
#: Sort keys of the items that root a partition (the partition exists while its root does) outside the tenant's
#: threads, aliases, memories and receipts: an API key; a rate window of the key design before the index.
OTHER_ROOT_SKS = ("#APIKEY", "#RATE")


def fixed_partitions(tenant: str, rate_per_second: int) -> tuple[str, ...]:
    """The tenant's partitions whose keys are known without the index: its record and key listing, its usage
    shards and its rate-window shards (adapters/dynamodb_account; `rate_per_second` from the tenant's plan)."""
    usage = (*(f"S{n}" for n in range(USAGE_SHARDS)), "Q")
    rate_shards = max(1, math.ceil(rate_per_second / RATE_SHARD_CAPACITY))
    return (
        key("TENANT", tenant),
        *(key("U", tenant, shard) for shard in usage),
        *(key("RATE", tenant, shard) for shard in range(rate_shards)),
    )


def is_partition_root(item: dict[str, Any], tenant: str) -> bool:
    """Whether the item roots one of the tenant's partitions (it carries the tenant index attribute)."""
    if item_kind(item, tenant) in ("thread", "alias", "namespace", "receipt"):
        return True
    return item["sk"]["S"] in OTHER_ROOT_SKS and item.get("tenant", {}).get("S", tenant) == tenant


def index_attribute(item: dict[str, Any], tenant: str) -> dict[str, Any]:
    """The item with the tenant index attribute its writer sets, if it is a partition root (import, backfill)."""
    if not is_partition_root(item, tenant) or TENANT_INDEX_ATTRIBUTE in item:
        return item
    return {**item, TENANT_INDEX_ATTRIBUTE: {"S": tenant_index_value(tenant, item["pk"]["S"])}}


def is_indexed(tenant: str, items: TenantItems) -> bool:
    """Whether the tenant's partitions are all in the tenant index: a tenant created with it, or backfilled."""
    return any(i["sk"]["S"] == INDEXED_SK for i in items.query_partition(key("TENANT", tenant)))


def tenant_items(
    tenant: str, items: TenantItems, *, keys_only: bool = False, indexed: bool | None = None
) -> Iterator[dict[str, Any]]:
    """Every DynamoDB item of the tenant. Indexed tenant: a Query of its fixed partitions, of the tenant index
    (every shard) and of each partition found there; it reads only the tenant's items. Otherwise (data written
    before the index, not backfilled): the filtered whole-table Scan."""
    items.scan_read_units = 0.0
    record = list(items.query_partition(key("TENANT", tenant)))
    if indexed is None:
        indexed = any(i["sk"]["S"] == INDEXED_SK for i in record)
    if not indexed:
        yield from items.scan(tenant, partition_prefixes(tenant), exact=exact_partitions(tenant), keys_only=keys_only)
        return
    rate = next((int(i.get("rate_per_second", {}).get("N", "0")) for i in record if i["sk"]["S"] == "#TENANT"), 0)
    # The #INDEXED marker last: an erase that stops halfway still finds the rest through the index next time.
    record.sort(key=lambda i: i["sk"]["S"] == INDEXED_SK)
    partitions = list(fixed_partitions(tenant, rate)[1:])
    seen = {key("TENANT", tenant), *partitions}
    partitions += [p for p in items.indexed_partitions(tenant) if p not in seen]
    for pk in partitions:
        yield from items.query_partition(pk, keys_only=keys_only)
    yield from ({"pk": i["pk"], "sk": i["sk"]} for i in record) if keys_only else record


def s3_prefixes(tenant: str, *, include_transient: bool) -> tuple[str, ...]:
    roots = EXPORTED_S3_ROOTS + (TRANSIENT_S3_ROOTS if include_transient else ())
    return tuple(f"{root}/{digest(tenant)}/" for root in roots)


def export_prefix(tenant: str, export_id: str) -> str:
    return f"exports/{digest(tenant)}/{export_id}/"


def item_kind(item: dict[str, Any], tenant: str) -> str:
    """What a raw item is: thread, run, run_id, alias, namespace, batch, meta; receipt or other (not exported)."""
    pk = item["pk"]["S"]
    sk = item["sk"]["S"]
    if pk.startswith(key("T", tenant, "TH") + "#"):
        if sk == "#THREAD":
            return "thread"
        if sk.startswith("RUN#"):
            return "run"
        if sk.startswith("RUNID#"):
            return "run_id"
    elif pk.startswith(key("T", tenant, "ALIAS") + "#") and sk == "#ALIAS":
        return "alias"
    elif pk.startswith(key("TASKMEM", tenant) + "#"):
        if sk.startswith("NS#"):
            return "namespace"
        if sk.startswith("BATCH#"):
            return "batch"
        if sk.startswith("META#"):
            return "meta"
    elif pk.startswith(key("RECEIPT", tenant) + "#"):
        return "receipt"
    return "other"


#: Attributes that tie an item to the exporting deployment's stored-bytes gauge (docs/adr/0021): an import drops
#: them, so removing imported data never takes bytes off a gauge that never counted them.
GAUGE_ATTRIBUTES = ("metered_bytes",)

#: The kinds an export carries and an import writes back (`other` items, e.g. credentials, are erased only).
EXPORTED_KINDS = ("thread", "run", "run_id", "alias", "namespace", "batch", "meta")
