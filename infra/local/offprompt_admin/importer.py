"""`import <tenant> <location> [--merge]`: load an export into this deployment.

`location` is a local directory, an `s3://bucket/prefix/` in this deployment's account, or the https URL of an
export's manifest.json (the presigned URL `export` or `POST /export` printed).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

HELP = "import a tenant export (local directory, s3://bucket/prefix/, or presigned manifest URL)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tenant")
    parser.add_argument("location")
    parser.add_argument(
        "--merge", action="store_true", help="write into a tenant that already has data (finishes a partial import)"
    )


def run(args: argparse.Namespace) -> int:
    from offprompt.adapters.tenant_objects import S3TenantObjects
    from offprompt.config import get_settings
    from offprompt.identifiers import check_identifier
    from offprompt.services.tenancy import S3ExportSource, import_tenant
    from offprompt.services.tenancy.ports import ExportSource
    from offprompt.services.tenancy.wiring import stores_from_settings
    from offprompt_admin.files import DirectorySource, UrlSource

    tenant = check_identifier("tenant", args.tenant)
    stores = stores_from_settings(get_settings())
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
