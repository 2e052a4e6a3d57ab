"""Task memory's stored records and search hits as API response objects."""

from __future__ import annotations

from typing import Any

from offprompt.ports import NamespaceRecord, SearchHit


def record_to_dict(record: NamespaceRecord) -> dict[str, Any]:
    return {
        "memory_name": record.memory,
        "namespace": record.namespace,
        "storage": record.kind,
        "tool": record.tool,
        "activity": record.activity,
        "namespace_metadata": record.namespace_metadata,
        "artifact_count": record.artifact_count,
        "total_bytes": record.total_bytes,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
    }


def hit_to_dict(hit: SearchHit) -> dict[str, Any]:
    return {
        "artifact_id": hit.artifact_id,
        "position": hit.position,
        "chunk": hit.chunk,
        "text": hit.text,
        "score": hit.score,
    }
