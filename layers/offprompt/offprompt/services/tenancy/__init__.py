"""Tenant export, import and erase over every store (docs/adr/0024-tenant-export-erase.md)."""

from offprompt.services.tenancy.erase import EraseReport, erase_tenant, remaining
from offprompt.services.tenancy.export import ExportResult, S3ExportSink, S3ExportSource, export_tenant
from offprompt.services.tenancy.importer import import_tenant, read_manifest
from offprompt.services.tenancy.ports import TenantStores
from offprompt.services.tenancy.selfservice import EraseRequest, erase_self, export_self
from offprompt.services.tenancy.wiring import default_stores

__all__ = [
    "EraseReport",
    "EraseRequest",
    "ExportResult",
    "S3ExportSink",
    "S3ExportSource",
    "TenantStores",
    "default_stores",
    "erase_self",
    "erase_tenant",
    "export_self",
    "export_tenant",
    "import_tenant",
    "read_manifest",
    "remaining",
]
