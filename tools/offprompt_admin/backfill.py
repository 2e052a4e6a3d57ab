"""`backfill-index <tenant>`: put a tenant's data written before the tenant index into it (one table Scan), so
its export and erase Query the index from then on (docs/adr/0024-tenant-export-erase.md)."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime

from .context import Context, emit

COMMAND = "backfill-index"
HELP = "index a tenant's data stored before the tenant index (one table Scan); later exports and erases Query"


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(COMMAND, help=HELP, description=HELP)
    parser.add_argument("tenant")


def run(args: argparse.Namespace, context: Context) -> int:
    from offprompt.composition.tenant_data import stores_from_settings
    from offprompt.identifiers import check_identifier
    from offprompt.services.tenant_data import backfill_index

    tenant = check_identifier("tenant", args.tenant)
    records = context.tenancy().records
    now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    report = backfill_index(tenant, stores_from_settings(context.settings()), lambda t: records.mark_indexed(t, now))
    emit({"tenant": tenant, **report})
    return 0
