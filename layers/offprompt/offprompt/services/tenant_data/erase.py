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

Before anything is deleted or verified the tenant is indexed (`backfill.index_tenant`): an erase that finds the
tenant's indexing unfinished when its time budget ends answers "indexing" (HTTP 202, not verified) and the repeat
goes on with it (docs/adr/0043).

The documents the tenant's items name by id (its long-term records' versions, docs/adr/0034) first, then DynamoDB
(readers at once see no thread, namespace or alias; a store in flight can no longer commit, its reservation's record
being gone), then the rest of the documents and the objects (found by the tenant's own keyword and
prefixes, never through the items, so a repeat after a partial failure finds whatever is left). Idempotent.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from offprompt.errors import DependencyUnavailable
from offprompt.limits import ERASE_FENCE_WINDOW_S
from offprompt.services.tenant_data.backfill import RESUME_AFTER_S, IndexProgress, index_tenant
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
    #: Seconds until a repeat can go on with the erase (the fence is younger than the window, or the tenant is not
    #: indexed yet); None when finished.
    retry_after: int | None = None
    #: The tenant's indexing, when this invocation's budget ended before it was complete (nothing deleted yet).
    indexing: IndexProgress | None = None

    @property
    def verified(self) -> bool:
        return self.remaining is not None and not any(self.remaining.values())

    def to_dict(self) -> dict[str, Any]:
        if self.retry_after is not None:
            return {
                "tenant": self.tenant,
                "status": "indexing" if self.indexing is not None else "erasing",
                "deleted": self.deleted,
                "verified": False,
                "retry_after": self.retry_after,
                **({"indexing": self.indexing.to_dict()} if self.indexing is not None else {}),
            }
        return {"tenant": self.tenant, "deleted": self.deleted, "remaining": self.remaining, "verified": self.verified}


def remaining(tenant: str, stores: TenantStores, *, keep: tuple[str, ...] = ()) -> dict[str, int]:
    """How many items, objects and documents of an indexed tenant each store still holds (its items of the kinds
    in `keep` aside)."""
    items = sum(1 for _ in _items(tenant, stores, keep))
    objects = sum(1 for p in stores.objects.prefixes(tenant, include_transient=True) for _ in stores.objects.list(p))
    return {"dynamodb": items, "s3": objects, "opensearch": stores.documents.count(tenant)}


def erase_tenant(tenant: str, stores: TenantStores, *, fence: bool = True) -> EraseReport:
    """Erase the tenant (see the module docstring). `fence`: fence the tenant's API keys first, if it has any."""
    now = clock()
    fenced_since = stores.fence.fence(tenant, now) if fence else None
    # Nothing is deleted or verified before the tenant index lists every partition of the tenant (docs/adr/0043).
    progress = index_tenant(tenant, stores, _iso(now))
    if not progress.complete:
        nothing = {"dynamodb": 0, "opensearch": 0, "s3": 0}
        return EraseReport(tenant, nothing, None, progress.read_units, RESUME_AFTER_S, indexing=progress)
    # Kept to the end: the credentials of a fenced tenant (a repeat works with its key) and the marker saying the
    # tenant is indexed (a repeat after a failed verification needs no second backfill).
    keep = stores.items.credential_kinds if fenced_since is not None else (stores.items.marker_kind,)
    keys = [{"pk": i["pk"], "sk": i["sk"]} for i in _items(tenant, stores, keep)]
    read_units = progress.read_units + stores.items.scan_read_units
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
    _verify(tenant, stores, keep)
    # everything else is gone and stays gone: the keys, their listing, the record and the marker last
    last = [i for i in stores.items.items(tenant, keys_only=True) if stores.items.kind(i, tenant) in keep]
    markers = sum(1 for i in last if stores.items.kind(i, tenant) == stores.items.marker_kind)
    # (the marker is the erase's own bookkeeping, not the tenant's data: an erased tenant's repeat deletes nothing)
    deleted["dynamodb"] += stores.items.delete(last) - markers
    left = _verify(tenant, stores, ())
    return EraseReport(tenant, deleted, left, read_units + stores.items.scan_read_units)


def _verify(tenant: str, stores: TenantStores, keep: tuple[str, ...]) -> dict[str, int]:
    left = remaining(tenant, stores, keep=keep)
    if any(left.values()):
        # A write that raced the erase (a request still in flight): repeating the erase removes it.
        raise DependencyUnavailable(f"the erase left data behind ({left}); run it again")
    return left


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _items(tenant: str, stores: TenantStores, keep: tuple[str, ...]) -> Any:
    for item in stores.items.items(tenant, keys_only=True):
        if not keep or stores.items.kind(item, tenant) not in keep:
            yield item
