"""`import <tenant> <location> [--merge]`: load an export into this deployment.

`location` is a local directory, an `s3://bucket/prefix/` in this deployment's account, or the https URL of an
export's manifest.json (the presigned URL `export` or `POST /export` printed).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .context import Context

COMMAND = "import"
HELP = "import a tenant export (local directory, s3://bucket/prefix/, or presigned manifest URL)"


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(COMMAND, help=HELP, description=HELP)
    parser.add_argument("tenant")
    parser.add_argument("location")
    parser.add_argument(
        "--merge", action="store_true", help="write into a tenant that already has data (finishes a partial import)"
    )


def run(args: argparse.Namespace, context: Context) -> int:
    from offprompt.adapters.tenant_objects import S3TenantObjects
    from offprompt.composition.tenant_data import stores_from_settings
    from offprompt.identifiers import check_identifier
    from offprompt.services.tenant_data import S3ExportSource, import_tenant
    from offprompt.services.tenant_data.ports import ExportSource
    from offprompt_admin.files import DirectorySource, UrlSource

    tenant = check_identifier("tenant", args.tenant)
    stores = stores_from_settings(context.settings())
    location: str = args.location
    source: ExportSource
    if location.startswith("s3://"):
        bucket, _, prefix = location[len("s3://") :].partition("/")
        source = S3ExportSource(S3TenantObjects(bucket), prefix if not prefix or prefix.endswith("/") else prefix + "/")
    elif location.startswith(("https://", "http://")):
        source = UrlSource(location)
    else:
        source = DirectorySource(Path(location))
    counts = import_tenant(tenant, stores, source, merge=args.merge)
    print(json.dumps({"tenant": tenant, "imported": counts}, indent=1))
    return 0
