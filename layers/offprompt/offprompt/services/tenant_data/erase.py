"""Erase a tenant: every DynamoDB item, S3 object and OpenSearch document the storage layout defines as the
tenant's, then a verification over the same layout that finds none (docs/adr/0024, 0028).

- A tenant with API keys (self-service `DELETE /tenant` with a key, or the operator's erase of such a tenant) is
  fenced first: its record and its keys are marked erasing, and from then on every request of its keys but
  `DELETE /tenant` is refused (409 `tenant_erasing`). Its data goes; its credentials stay until the very end, so the
  erase can always be repeated with the same key. A request admitted just before the fence may still be running,
  for at most `ERASE_FENCE_WINDOW_S` (API Gateway ends every request within 30 s), and land a write: so until the
  fence is that old the erase answers "erasing" (HTTP 202 with Retry-After); the repeat after that deletes what
  such a straggler left, verifies, removes the credentials, verifies again and answers `verified: true`.
- Any other tenant (a JWT or IAM principal: no credential of ours to fence): delete, then verify; a write that raced
  the erase is found by the verification (503: repeat the erase).

The documents the tenant's items name by id (its long-term records' versions, docs/adr/0034) first, then DynamoDB
(readers at once see no thread, namespace or alias; a store in flight can no longer commit, its reservation's record
being gone), then the rest of the documents and the objects (found by the tenant's own keyword and
prefixes, never through the items, so a repeat after a partial failure finds whatever is left). Idempotent.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from offprompt.errors import DependencyUnavailable
from offprompt.limits import ERASE_FENCE_WINDOW_S
from offprompt.services.tenant_data.ports import TenantStores

#: The clock the fence window is read with (one place to read it).
clock = time.time


@dataclass(frozen=True)
class EraseReport:
    tenant: str
    deleted: dict[str, int]
    #: What each store still holds of the tenant after the verification (None: not verified yet, `retry_after`).
    remaining: dict[str, int] | None
    scan_read_units: float
    #: Seconds until a repeat can finish the erase (the fence is younger than the window); None when finished.
    retry_after: int | None = None

    @property
    def verified(self) -> bool:
        return self.remaining is not None and not any(self.remaining.values())

    def to_dict(self) -> dict[str, Any]:
        if self.retry_after is not None:
            return {
                "tenant": self.tenant,
                "status": "erasing",
                "deleted": self.deleted,
                "verified": False,
                "retry_after": self.retry_after,
            }
        return {"tenant": self.tenant, "deleted": self.deleted, "remaining": self.remaining, "verified": self.verified}


def remaining(
    tenant: str, stores: TenantStores, *, indexed: bool | None = None, keep_credentials: bool = False
) -> dict[str, int]:
    """How many items, objects and documents of the tenant each store still holds (`indexed`: whether the tenant
    index lists all its partitions; by default the markers say); with `keep_credentials`, its credentials aside."""
    items = sum(1 for _ in _items(tenant, stores, indexed, keep_credentials))
    objects = sum(1 for p in stores.objects.prefixes(tenant, include_transient=True) for _ in stores.objects.list(p))
    return {"dynamodb": items, "s3": objects, "opensearch": stores.documents.count(tenant)}


def erase_tenant(tenant: str, stores: TenantStores, *, fence: bool = True) -> EraseReport:
    """Erase the tenant (see the module docstring). `fence`: fence the tenant's API keys first, if it has any."""
    now = clock()
    fenced_since = stores.fence.fence(tenant, now) if fence else None
    keep_credentials = fenced_since is not None
    # Decided once: the erase deletes the markers saying so, and the verification must look where the erase did.
    indexed = stores.items.is_indexed(tenant)
    keys = [{"pk": i["pk"], "sk": i["sk"]} for i in _items(tenant, stores, indexed, keep_credentials)]
    read_units = stores.items.scan_read_units
    # The documents the items name go before the items (on Serverless only their ids find the freshest of them):
    # a failure here leaves the items, so a repeat reads the ids again.
    by_id = stores.documents.delete_ids(tenant, stores.items.document_ids(tenant))
    deleted = {"dynamodb": stores.items.delete(keys)}
    deleted["opensearch"] = by_id + stores.documents.delete(tenant)
    deleted["s3"] = sum(
        stores.objects.delete_prefix(p) for p in stores.objects.prefixes(tenant, include_transient=True)
    )
    if fenced_since is not None and now < fenced_since + ERASE_FENCE_WINDOW_S:
        # A request admitted before the fence may still land a write: verify once none can be running.
        wait = max(1, math.ceil(fenced_since + ERASE_FENCE_WINDOW_S - now))
        return EraseReport(tenant, deleted, None, read_units + stores.items.scan_read_units, retry_after=wait)
    left = remaining(tenant, stores, indexed=indexed, keep_credentials=keep_credentials)
    if any(left.values()):
        # A write that raced the erase (a request still in flight): repeating the erase removes it.
        raise DependencyUnavailable(f"the erase left data behind ({left}); run it again")
    if keep_credentials:  # everything else is gone and stays gone: the keys, their listing and the record last
        credentials = [
            {"pk": i["pk"], "sk": i["sk"]}
            for i in stores.items.items(tenant, keys_only=True, indexed=indexed)
            if stores.items.kind(i, tenant) in stores.items.credential_kinds
        ]
        deleted["dynamodb"] += stores.items.delete(credentials)
        left = remaining(tenant, stores, indexed=indexed)
        if any(left.values()):
            raise DependencyUnavailable(f"the erase left data behind ({left}); run it again")
    return EraseReport(tenant, deleted, left, read_units + stores.items.scan_read_units)


def _items(tenant: str, stores: TenantStores, indexed: bool | None, keep_credentials: bool) -> Any:
    for item in stores.items.items(tenant, keys_only=True, indexed=indexed):
        if not keep_credentials or stores.items.kind(item, tenant) not in stores.items.credential_kinds:
            yield item
