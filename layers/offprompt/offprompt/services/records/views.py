"""A record as the API returns it (pure): `{"namespace", "key", "value", "version", "created_at", "updated_at",
"valid_from", "valid_to", "expires_at"}`, times ISO 8601 UTC (`valid_to`, `expires_at` null when open)."""

from __future__ import annotations

from typing import Any

from offprompt.memory.records import iso
from offprompt.ports import StoredRecord


def record_view(record: StoredRecord, value: dict[str, Any] | None, **extra: Any) -> dict[str, Any]:
    return {
        "namespace": list(record.namespace),
        "key": record.key,
        "value": value,
        "version": record.version,
        "created_at": iso(record.created_at),
        "updated_at": iso(record.updated_at),
        "valid_from": iso(record.valid_from),
        "valid_to": iso(record.valid_to),
        "expires_at": iso(record.expires_at),
        **extra,
    }
