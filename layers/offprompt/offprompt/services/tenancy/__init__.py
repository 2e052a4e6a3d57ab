"""Tenant export, import and erase over every store (docs/adr/0024-tenant-export-erase.md)."""

from offprompt.services.tenancy.erase import EraseReport, erase_tenant, remaining
from offprompt.services.tenancy.export import ExportResult, S3ExportSink, S3ExportSource, export_tenant
from offprompt.services.tenancy.importer import import_tenant, read_manifest
from offprompt.services.tenancy.ports import TenantStores

__all__ = [
    "EraseReport",
    "ExportResult",
    "S3ExportSink",
    "S3ExportSource",
    "TenantStores",
    "erase_tenant",
    "export_tenant",
    "import_tenant",
    "read_manifest",
    "remaining",
]
