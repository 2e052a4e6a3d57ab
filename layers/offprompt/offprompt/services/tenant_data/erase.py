"""Erase a tenant: every DynamoDB item, S3 object and OpenSearch document, then a pass that proves none is left.

DynamoDB first (readers at once see no thread, namespace or alias; a store in flight can no longer commit,
its reservation's record being gone), then the text documents and the objects (found by the tenant's own
keyword and prefixes, never through the items, so a re-run after a partial failure finds whatever is left).
Idempotent: erasing an erased tenant deletes nothing and verifies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from offprompt import metering
from offprompt.errors import DependencyUnavailable
from offprompt.services.tenant_data.inventory import is_indexed, s3_prefixes, tenant_items
from offprompt.services.tenant_data.ports import TenantStores


@dataclass(frozen=True)
class EraseReport:
    tenant: str
    deleted: dict[str, int]
    remaining: dict[str, int]
    scan_read_units: float

    @property
    def verified(self) -> bool:
        return not any(self.remaining.values())

    def to_dict(self) -> dict[str, Any]:
        return {"tenant": self.tenant, "deleted": self.deleted, "remaining": self.remaining, "verified": self.verified}


def remaining(tenant: str, stores: TenantStores, *, indexed: bool | None = None) -> dict[str, int]:
    """How many items, objects and documents of the tenant each store still holds (`indexed`: whether the tenant
    index lists all its partitions; by default its record says)."""
    items = sum(1 for _ in tenant_items(tenant, stores.items, keys_only=True, indexed=indexed))
    objects = sum(1 for p in s3_prefixes(tenant, include_transient=True) for _ in stores.objects.list(p))
    return {"dynamodb": items, "s3": objects, "opensearch": stores.documents.count(tenant)}


def erase_tenant(tenant: str, stores: TenantStores) -> EraseReport:
    # Decided once: the erase deletes the record saying so, and the verification must look where the erase did.
    indexed = is_indexed(tenant, stores.items)
    keys = [{"pk": i["pk"], "sk": i["sk"]} for i in tenant_items(tenant, stores.items, keys_only=True, indexed=indexed)]
    read_units = stores.items.scan_read_units
    metering.tenant_erased(tenant)  # from here on, this request writes nothing of the tenant (no usage)
    deleted = {"dynamodb": stores.items.delete(keys)}
    deleted["opensearch"] = stores.documents.delete(tenant)
    deleted["s3"] = sum(stores.objects.delete_prefix(p) for p in s3_prefixes(tenant, include_transient=True))
    left = remaining(tenant, stores, indexed=indexed)
    report = EraseReport(tenant, deleted, left, read_units + stores.items.scan_read_units)
    if not report.verified:
        # A write that raced the erase (a request still in flight): running the erase again removes it.
        raise DependencyUnavailable(f"the erase left data behind ({left}); run it again")
    return report
