"""Put data written before the tenant index into it (`offprompt-admin backfill-index`; docs/adr/0024, 0028).

One filtered Scan finds the partition roots that lack the index attribute; each gets it (a conditional update: a
root deleted meanwhile is not re-created); then the tenant (or, with no tenant, the whole deployment) is marked
indexed, and export and erase Query the index from then on. Until a tenant is marked, its export and erase fall
back to the Scan: creating a tenant or a key never marks it (its data may predate the index). Run it once after
the deploy that adds the index (`--all` on a new deployment costs one Scan of an empty table). Idempotent.
"""

from __future__ import annotations

from offprompt.services.tenant_data.ports import TenantStores


def backfill_index(tenant: str | None, stores: TenantStores, now: str) -> dict[str, int | float]:
    """Index the tenant's roots (None: every tenant's) and mark it (the deployment) indexed."""
    stores.items.scan_read_units = 0.0
    roots = stores.items.unindexed_roots(tenant) if tenant is not None else stores.items.unindexed_roots_of_all()
    written = stores.items.set_index_attribute(roots)
    stores.items.mark_indexed(tenant, now)
    return {"roots_indexed": written, "read_units": stores.items.scan_read_units}
