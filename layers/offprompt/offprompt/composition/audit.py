"""The audit log (docs/adr/0056) built from settings: the process's default one."""

from __future__ import annotations

from offprompt.config import Settings
from offprompt.services.audit import AuditLog


def audit_from_settings(settings: Settings) -> AuditLog:
    from offprompt.adapters.dynamodb_audit import DynamoDbAuditStore

    return AuditLog(DynamoDbAuditStore(settings.require("table_name")))


def default_audit() -> AuditLog:
    """The audit log of the process's settings, built per call (two small objects; the DynamoDB client is the
    process's cached one), so it always writes to the table the settings name now."""
    from offprompt.config import get_settings

    return audit_from_settings(get_settings())
