"""`backfill-index <tenant> | --all`: put data written before the tenant index into it (one table Scan) and mark the
tenant indexed, so its exports and erases Query the index from then on. `--all` indexes every tenant's data and
marks every tenant it finds: run it once after deploying (on a new deployment it reads an empty table). A tenant
not marked is indexed by its first export or erase (docs/adr/0024, 0028, 0043)."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime

from .context import Context, emit

COMMAND = "backfill-index"
HELP = "index a tenant's data stored before the tenant index (one table Scan); later exports and erases Query"


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(COMMAND, help=HELP, description=HELP)
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("tenant", nargs="?")
    target.add_argument("--all", action="store_true", help="every tenant: index and mark every tenant found")


def run(args: argparse.Namespace, context: Context) -> int:
    from offprompt.composition.tenant_data import stores_from_settings
    from offprompt.identifiers import check_identifier
    from offprompt.services.tenant_data import backfill_index

    tenant = None if args.all else check_identifier("tenant", args.tenant)
    now = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    report = backfill_index(tenant, stores_from_settings(context.settings()), now)
    emit({"tenant": tenant, **report} if tenant is not None else {"all": True, **report})
    return 0
