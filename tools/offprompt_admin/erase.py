"""`erase <tenant> --yes`: delete every DynamoDB item, S3 object and OpenSearch document of a tenant, then verify.

Idempotent: run it again after a failure (or a request that raced it) and it finishes the job.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

from .context import Context

COMMAND = "erase"
#: How the command waits out the fence window (a name of its own, so a test can move the erase's clock instead).
sleep = time.sleep
HELP = "erase every item, object and document of a tenant, then verify none is left (needs --yes)"


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(COMMAND, help=HELP, description=HELP)
    parser.add_argument("tenant")
    parser.add_argument("--yes", action="store_true", help="confirm: this cannot be undone")


def run(args: argparse.Namespace, context: Context) -> int:
    from offprompt.composition.tenant_data import stores_from_settings
    from offprompt.identifiers import check_identifier
    from offprompt.services.tenant_data import erase_tenant

    tenant = check_identifier("tenant", args.tenant)
    if not args.yes:
        print(f"refusing to erase {tenant!r} without --yes", file=sys.stderr)
        return 2
    stores = stores_from_settings(context.settings())
    report = erase_tenant(tenant, stores)
    deleted = Counter(report.deleted)
    read_units = report.scan_read_units
    while report.retry_after is not None:
        print(f"fenced {tenant!r}; erasing again in {report.retry_after} s", file=sys.stderr)
        sleep(report.retry_after)
        report = erase_tenant(tenant, stores)
        deleted.update(report.deleted)
        read_units += report.scan_read_units
    # what every pass deleted, and what the last one verified
    print(json.dumps({**report.to_dict(), "deleted": dict(deleted), "scan_read_units": read_units}, indent=1))
    return 0
