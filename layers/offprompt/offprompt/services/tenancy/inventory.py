"""Where a tenant's data lives: its DynamoDB partitions, S3 prefixes and OpenSearch documents.

Every key design of the project, in one place (docs/adr/0024-tenant-export-erase.md):

DynamoDB (single table, pk/sk):
- `T#{tenant}#TH#{thread}`      `#THREAD` thread, `RUN#{seq}` run, `RUNID#{run_id}` run id (adapters/dynamodb_runs)
- `T#{tenant}#ALIAS#{alias}`    `#ALIAS` a Griptape Cloud-style thread alias
- `TASKMEM#{tenant}#{memory}`   `NS#{ns}` namespace record, `BATCH#{ns}#{start}` batch, `META#...` meta entry
  (adapters/dynamodb_namespaces)
- `RECEIPT#{tenant}#{memory}#{key}`  process-output idempotency receipts (adapters/dynamodb_receipts; they expire
  by TTL: erased, not exported)
- `U#{tenant}#…` usage counters, `RATE#{tenant}#…` rate windows (adapters/dynamodb_tenancy: erased, not exported);
- any item with a `tenant` attribute naming the tenant: the tenant record `TENANT#{tenant}` and its key listing,
  its API keys `APIKEY#{key_id}` (erased, so they stop working; never exported). Key designs added later should
  carry one, or add their prefix to `partition_prefixes`.

S3 (digest = identifiers.digest): `t/{d(tenant)}/` big runs · `taskmem/{d(tenant)}/` blobs and batch manifests ·
`uploads/{d(tenant)}/` pending uploads · `downloads/{d(tenant)}/` materialized load responses ·
`exports/{d(tenant)}/` exports.

OpenSearch: every document whose `tenant` keyword is the tenant (one per text chunk).
"""

from __future__ import annotations

from typing import Any

from offprompt.identifiers import digest, key

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
