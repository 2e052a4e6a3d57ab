"""Put data written before the tenant index into it (docs/adr/0024, 0028, 0043).

The tenant index lists a partition only if its root carries the index attribute; data written before the index (or
by a writer that did not set it) is invisible to it. So nothing of a tenant is exported, erased or verified before
the tenant is known to be indexed: its own `#INDEXED` marker, put only once a backfill of it has read the whole
table (`index_tenant`, run first by export, erase and import; `offprompt-admin backfill-index`).

A backfill is the tenant's filtered whole-table Scan, one page at a time: each page's roots lacking the attribute get
it (a conditional update: a root deleted meanwhile is not re-created), then the position after the page is saved, so
an invocation that ends (its time budget spent, or killed) is resumed by the next from where it stopped. The marker
comes only after the last page. A write racing a backfill is made by code that indexes what it creates: a root on a
page already read carries the attribute, one on a page not read yet is read then. Idempotent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from offprompt import deadline
from offprompt.services.tenant_data.ports import TenantStores

#: Scan pages one invocation reads at most (None: as many as its time budget allows). The operator CLI has no
#: deadline and reads the whole table; a function stops when half of the time it had left is spent.
PAGES_PER_CALL: int | None = None
#: How long a caller should wait before resuming an unfinished backfill (it can go on at once).
RESUME_AFTER_S = 1


@dataclass(frozen=True)
class IndexProgress:
    """Where a tenant's indexing stands after one invocation's share of it."""

    complete: bool
    roots_indexed: int = 0
    #: Items the Scan read in this invocation.
    scanned: int = 0
    read_units: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"complete": self.complete, "roots_indexed": self.roots_indexed, "scanned": self.scanned}


def index_tenant(tenant: str, stores: TenantStores, now: str) -> IndexProgress:
    """Index the tenant if it is not known to be indexed, as far as this invocation's budget goes."""
    indexed, position = stores.items.index_state(tenant)
    if indexed:
        return IndexProgress(complete=True)
    stores.items.scan_read_units = 0.0
    budget = deadline.remaining()
    pages = written = scanned = 0
    while True:
        roots, position, read = stores.items.unindexed_roots_page(tenant, position)
        written += stores.items.set_index_attribute(roots)
        scanned += read
        pages += 1
        if position is None:
            stores.items.mark_indexed(tenant, now)
            return IndexProgress(True, written, scanned, stores.items.scan_read_units)
        stores.items.save_index_progress(tenant, position, now)
        if _spent(pages, budget):
            return IndexProgress(False, written, scanned, stores.items.scan_read_units)


def _spent(pages: int, budget: float | None) -> bool:
    if PAGES_PER_CALL is not None and pages >= PAGES_PER_CALL:
        return True
    left = deadline.remaining()
    return budget is not None and left is not None and left < budget / 2


def backfill_index(tenant: str | None, stores: TenantStores, now: str) -> dict[str, int | float]:
    """Index the tenant's roots and mark it indexed (None: every tenant's roots, marking every tenant it read).
    Without a deadline (the operator CLI) one call reads the whole table."""
    if tenant is not None:
        total = IndexProgress(False)
        units = 0.0
        while not total.complete:
            step = index_tenant(tenant, stores, now)
            units += step.read_units
            total = IndexProgress(step.complete, total.roots_indexed + step.roots_indexed, 0, units)
        return {"roots_indexed": total.roots_indexed, "read_units": units}
    stores.items.scan_read_units = 0.0
    roots, tenants = stores.items.unindexed_roots_of_all()
    written = stores.items.set_index_attribute(roots)
    for each in sorted(tenants):
        stores.items.mark_indexed(each, now)
    return {"roots_indexed": written, "tenants_marked": len(tenants), "read_units": stores.items.scan_read_units}
