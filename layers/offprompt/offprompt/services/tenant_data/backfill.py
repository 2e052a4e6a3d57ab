"""Put a tenant's data written before the tenant index into it (`offprompt_admin backfill-index`; ADR 0024).

One filtered whole-table Scan finds the tenant's partition roots that lack the index attribute; each gets it (a
conditional update: a root deleted meanwhile is not re-created); then the tenant's record partition is marked
`#INDEXED`, and its export and erase Query the index from then on. Run it after the deploy that adds the index
(every write since carries the attribute). Idempotent: a re-run writes only what is still missing.
"""

from __future__ import annotations

from collections.abc import Callable

from offprompt.identifiers import TENANT_INDEX_ATTRIBUTE
from offprompt.services.tenant_data.inventory import exact_partitions, index_attribute, partition_prefixes
from offprompt.services.tenant_data.ports import TenantStores


def backfill_index(tenant: str, stores: TenantStores, mark: Callable[[str], None]) -> dict[str, int | float]:
    """`mark(tenant)` records the tenant as indexed (the tenancy store's `mark_indexed`)."""
    stores.items.scan_read_units = 0.0
    roots = []
    for item in stores.items.scan(tenant, partition_prefixes(tenant), exact=exact_partitions(tenant)):
        indexed = index_attribute(item, tenant)
        if indexed is not item:
            roots.append({"pk": item["pk"], "sk": item["sk"], TENANT_INDEX_ATTRIBUTE: indexed[TENANT_INDEX_ATTRIBUTE]})
    written = stores.items.set_index_attribute(roots)
    mark(tenant)
    return {"roots_indexed": written, "read_units": stores.items.scan_read_units}
