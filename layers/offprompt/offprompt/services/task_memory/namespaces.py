"""Use case: namespaces — a memory's namespace records and meta entries (Griptape's meta memory), and deleting a
namespace with its data. Handler: functions/memories."""

from __future__ import annotations

from typing import Any

from offprompt.errors import InvalidInput, NotFound
from offprompt.identifiers import check_identifier
from offprompt.limits import MAX_PAGE_LIMIT
from offprompt.ports import NamespaceRecord, TextScope
from offprompt.services.task_memory.context import TaskMemory


def get_namespace(tm: TaskMemory, tenant: str, memory: str, namespace: str) -> NamespaceRecord:
    check_identifier("memory_name", memory)
    check_identifier("namespace", namespace)
    record = tm.namespaces.get(tenant, memory, namespace)
    if record is None:
        raise NotFound(f'namespace "{namespace[:100]}" does not exist in memory "{memory[:100]}"')
    return record


def list_namespaces(
    tm: TaskMemory, tenant: str, memory: str, limit: int = 100, cursor: str | None = None
) -> tuple[list[NamespaceRecord], str | None]:
    check_identifier("memory_name", memory)
    return tm.namespaces.list_records(tenant, memory, page_limit(limit), cursor)


def delete_namespace(tm: TaskMemory, tenant: str, memory: str, namespace: str) -> bool:
    """Delete the records first (readers then see nothing), then every storage's data (S3 objects, OpenSearch
    documents).

    Idempotent: data is removed even when no record exists, so retrying a delete that failed half-way
    finishes it; returns whether a record existed (an unknown namespace is not an error, README).
    """
    check_identifier("memory_name", memory)
    check_identifier("namespace", namespace)
    existed = tm.namespaces.delete(tenant, memory, namespace)  # marked: stores in flight cannot commit
    scope = TextScope(tenant, memory, namespace)
    for storage in tm.storages.values():
        storage.delete(scope)
    tm.namespaces.release(tenant, memory, namespace)  # only now may the name be stored into again
    return existed


def meta_entries(
    tm: TaskMemory, tenant: str, memory: str, limit: int = 100, cursor: str | None = None
) -> tuple[list[dict[str, object]], str | None]:
    check_identifier("memory_name", memory)
    return tm.namespaces.meta_entries(tenant, memory, page_limit(limit), cursor)


def page_limit(limit: Any) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE_LIMIT:
        raise InvalidInput(f"limit must be an integer from 1 to {MAX_PAGE_LIMIT}")
    return limit
