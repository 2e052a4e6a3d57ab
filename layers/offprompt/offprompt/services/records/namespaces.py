"""Use cases: list record namespaces (LangGraph's `list_namespaces`) and configure a namespace's default TTL
(docs/adr/0034). Handler: functions/records (`POST /records/namespaces`, `PUT /record-namespaces/{namespace}`;
direct `list_record_namespaces`, `configure_record_namespace`).

Listing reads the live current items under the prefix condition's literal labels (those before its first "*"),
namespaces only: O(records) under that prefix.
"""

from __future__ import annotations

from typing import Any

from offprompt.memory.records import (
    WILDCARD,
    MatchCondition,
    check_condition_path,
    check_namespace,
    check_ttl_minutes,
    millis,
    select_namespaces,
)
from offprompt.services.records.context import Records
from offprompt.services.records.requests import NamespaceSettings, NamespacesQuery


def list_namespaces(rec: Records, tenant: str, query: NamespacesQuery) -> dict[str, Any]:
    conditions: list[MatchCondition] = []
    literal: tuple[str, ...] = ()
    if query.prefix is not None:
        path = check_condition_path(query.prefix, "prefix")
        conditions.append(MatchCondition("prefix", path))
        for label in path:
            if label == WILDCARD:
                break
            literal += (label,)
    if query.suffix is not None:
        conditions.append(MatchCondition("suffix", check_condition_path(query.suffix, "suffix")))
    now = millis(rec.clock())
    found = rec.store.namespaces(tenant, literal, now)
    selected = select_namespaces(found, conditions, max_depth=query.max_depth, limit=query.limit, offset=query.offset)
    return {"namespaces": [list(ns) for ns in selected]}


def configure_namespace(
    rec: Records, tenant: str, namespace: tuple[str, ...] | list[str], request: NamespaceSettings
) -> dict[str, Any]:
    """Set (or, with null, remove) the TTL in minutes of the namespace's puts that give none. Exactly this
    namespace: a put under a deeper namespace reads its own settings."""
    ns = check_namespace(namespace)
    ttl = check_ttl_minutes(request.default_ttl_minutes, "default_ttl_minutes")
    rec.store.configure_namespace(tenant, ns, ttl)
    return {"namespace": list(ns), "default_ttl_minutes": ttl}
