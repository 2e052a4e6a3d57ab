"""`export <tenant> [--out DIR]`: write every item, document and object of a tenant as an export.

Without --out the export goes to the deployment's bucket under `exports/<tenant digest>/<export id>/` and the
command prints the manifest's presigned URL; with --out it is written to a local directory instead.
"""

from __future__ import annotations

import argparse
import json
import uuid
from datetime import UTC, datetime
from pathlib import Path

from .context import Context

COMMAND = "export"
HELP = "export a tenant's data (JSONL + object files) to S3 (presigned manifest URL) or a local directory"
DEFAULT_EXPIRES_IN = 7 * 24 * 3600  # SigV4's longest presigned URL (shorter when the credentials expire first)


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(COMMAND, help=HELP, description=HELP)
    parser.add_argument("tenant")
    parser.add_argument("--out", type=Path, help="write the export to this local directory instead of S3")
    parser.add_argument("--expires-in", type=int, default=DEFAULT_EXPIRES_IN, help="presigned URL lifetime (s)")


def run(args: argparse.Namespace, context: Context) -> int:
    from offprompt.composition.tenant_data import stores_from_settings
    from offprompt.identifiers import check_identifier
    from offprompt.services.tenant_data import S3ExportSink, export_tenant
    from offprompt.services.tenant_data.ports import ExportSink
    from offprompt_admin.files import DirectorySink

    tenant = check_identifier("tenant", args.tenant)
    settings = context.settings()
    stores = stores_from_settings(settings)
    export_id = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ-") + uuid.uuid4().hex[:8]
    sink: ExportSink
    if args.out is not None:
        sink = DirectorySink(args.out)
        location = str(args.out)
    else:
        prefix = stores.objects.export_prefix(tenant, export_id)
        sink = S3ExportSink(stores.objects, prefix, args.expires_in)
        location = f"s3://{settings.require('bucket_name')}/{prefix}"
    created_at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    result = export_tenant(tenant, stores, sink, export_id=export_id, created_at=created_at)
    while not result.complete:  # only with a deadline: the CLI has none, its backfill reads the whole table at once
        result = export_tenant(tenant, stores, sink, export_id=export_id, created_at=created_at)
    print(
        json.dumps(
            {**result.to_dict(), "location": location, "scan_read_units": result.scan_read_units},
            indent=1,
        )
    )
    return 0
