"""Hosted mode's data side: a tenant's export, import and verified erase over every store, and the tenant index
backfill (ADR 0024: `export`, `importer`, `erase`, `inventory`, `selfservice`, `backfill`).

Stores built from settings by `offprompt.composition.tenant_data` (`default_stores`). Keys, plans and usage are the
other half of the hosted wing: `offprompt.services.account`."""

from __future__ import annotations

from .backfill import backfill_index
from .erase import EraseReport, erase_tenant, remaining
from .export import ExportResult, S3ExportSink, S3ExportSource, export_tenant
from .importer import import_tenant, read_manifest
from .ports import TenantStores
from .selfservice import EraseRequest, erase_self, export_self

__all__ = [
    "EraseReport",
    "EraseRequest",
    "ExportResult",
    "S3ExportSink",
    "S3ExportSource",
    "TenantStores",
    "backfill_index",
    "erase_self",
    "erase_tenant",
    "export_self",
    "export_tenant",
    "import_tenant",
    "read_manifest",
    "remaining",
]
