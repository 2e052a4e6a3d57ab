"""Hosted mode: tenants, plans, API keys, the authorizer's check, rate limits and usage metering; a tenant's
export, import and erase over every store (ADR 0024: `export`, `importer`, `erase`, `inventory`, `selfservice`).

Built from settings by `offprompt.composition.tenancy` (`default_tenancy`)."""

from __future__ import annotations

from .backfill import backfill_index
from .erase import EraseReport, erase_tenant, remaining
from .export import ExportResult, S3ExportSink, S3ExportSource, export_tenant
from .importer import import_tenant, read_manifest
from .keys import KeyParts, bearer_token, hash_secret, looks_like_key, new_key, parse_key, verify_secret
from .ports import TenantStores
from .selfservice import EraseRequest, erase_self, export_self
from .service import STORING_ROUTES, Principal, TenancyService, plan_named

__all__ = [
    "STORING_ROUTES",
    "EraseReport",
    "EraseRequest",
    "ExportResult",
    "KeyParts",
    "Principal",
    "S3ExportSink",
    "S3ExportSource",
    "TenancyService",
    "TenantStores",
    "backfill_index",
    "bearer_token",
    "erase_self",
    "erase_tenant",
    "export_self",
    "export_tenant",
    "hash_secret",
    "import_tenant",
    "looks_like_key",
    "new_key",
    "parse_key",
    "plan_named",
    "read_manifest",
    "remaining",
    "verify_secret",
]
