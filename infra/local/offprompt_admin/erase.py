"""`erase <tenant> --yes`: delete every DynamoDB item, S3 object and OpenSearch document of a tenant, then verify.

Idempotent: run it again after a failure (or a request that raced it) and it finishes the job.
"""

from __future__ import annotations

import argparse
import json
import sys

HELP = "erase every item, object and document of a tenant, then verify none is left (needs --yes)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tenant")
    parser.add_argument("--yes", action="store_true", help="confirm: this cannot be undone")


def run(args: argparse.Namespace) -> int:
    from offprompt.config import get_settings
    from offprompt.identifiers import check_identifier
    from offprompt.services.tenancy import erase_tenant
    from offprompt.services.tenancy.wiring import stores_from_settings

    tenant = check_identifier("tenant", args.tenant)
    if not args.yes:
        print(f"refusing to erase {tenant!r} without --yes", file=sys.stderr)
        return 2
    report = erase_tenant(tenant, stores_from_settings(get_settings()))
    print(json.dumps({**report.to_dict(), "scan_read_units": report.scan_read_units}, indent=1))
    return 0
