"""The one place a store write moves the tenant's stored-bytes gauge, and its recount (docs/adr/0042).

The rule (every family: runs, session items, task-memory namespaces, records, checkpoints and their writes):
- an item that adds to the gauge carries `metered_bytes`, what it added;
- a metered write of an item is conditioned on the item's previous `metered_bytes` (`metered_condition`: absent for
  a new item, the value read for a replacement) and adds new - old to the gauge in the same transaction
  (`gauge_change`); a write whose condition fails changed nothing and is re-read and retried by its store;
- a delete takes off exactly what the item says it holds, conditioned on it still saying so (`metered_condition`
  again), in the delete's own transaction.
No metered item is written by an unconditional BatchWriteItem. A copy or fork shares items; it writes none of them
and charges nothing for them.

`recount` derives what the gauge should hold from the table (Σ `metered_bytes` of the tenant's items) and the
API-key count; the randomized metering test and `offprompt-admin usage reconcile` share it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from offprompt.metering import Charge

from .dynamodb_account import charge_items
from .dynamodb_transaction import TaggedItem
from .layout import KEY_LISTING_PREFIX, TENANT_SK, tenant_pk

METERED = "metered_bytes"


def metered_condition(previous: int | None) -> tuple[str, dict[str, Any]]:
    """The condition (expression, values) that the stored item still holds `previous` metered bytes: None means
    the item must not exist. `#mb` must name `metered_bytes` (`names`)."""
    if previous is None:
        return "attribute_not_exists(sk)", {}
    if previous == 0:
        return "attribute_exists(sk) AND (attribute_not_exists(#mb) OR #mb = :mb_old)", {":mb_old": {"N": "0"}}
    return "attribute_exists(sk) AND #mb = :mb_old", {":mb_old": {"N": str(previous)}}


def names() -> dict[str, str]:
    return {"#mb": METERED}


def conditioned(request: dict[str, Any], previous: int | None) -> dict[str, Any]:
    """A Put/Delete request (TableName, Item/Key) conditioned on the item's previous metered bytes."""
    expression, values = metered_condition(previous)
    out = {**request, "ConditionExpression": expression}
    if "#mb" in expression:
        out["ExpressionAttributeNames"] = {**request.get("ExpressionAttributeNames", {}), **names()}
    if values:
        out["ExpressionAttributeValues"] = {**request.get("ExpressionAttributeValues", {}), **values}
    return out


def gauge_change(table: str, charge: Charge | None, delta: int) -> list[TaggedItem]:
    """The charge's items with the gauge moved by `delta` (new - old metered bytes of the items written)."""
    if charge is None:
        return []
    return charge_items(table, dataclasses.replace(charge, stored_bytes=delta))


def metered_of(item: dict[str, Any] | None) -> int:
    return int(item.get(METERED, {}).get("N", "0")) if item else 0


@dataclass
class Recount:
    """What a tenant's gauges should hold, counted from its items."""

    stored_bytes: int = 0
    key_count: int = 0
    #: Σ metered_bytes per family (layout kind name), for the report.
    by_kind: dict[str, int] = field(default_factory=dict)


def recount(items: Iterable[dict[str, Any]], tenant: str, kind_of: Any) -> Recount:
    """The recount over a tenant's raw items (`DynamoDbTenantItems.items`), `kind_of(item, tenant)` its layout kind."""
    out = Recount()
    record = tenant_pk(tenant)
    for item in items:
        if item["pk"]["S"] == record and item["sk"]["S"].startswith(KEY_LISTING_PREFIX + "#"):
            out.key_count += 1
        metered = metered_of(item)
        if metered:
            out.stored_bytes += metered
            kind = kind_of(item, tenant) or "other"
            out.by_kind[kind] = out.by_kind.get(kind, 0) + metered
    return out


def recount_stored_bytes(table: str, tenant: str, *, client: Any | None = None) -> Recount:
    """The recount of a tenant in `table` (its items found as export and erase find them)."""
    from .tenant_items import DynamoDbTenantItems

    source = DynamoDbTenantItems(table, client=client)
    return recount(source.items(tenant), tenant, source.kind)


def gauges(table: str, tenant: str, client: Any) -> dict[str, int]:
    """The tenant item's gauges as stored (`stored_bytes`, `key_count`)."""
    out = client.get_item(
        TableName=table, Key={"pk": {"S": tenant_pk(tenant)}, "sk": {"S": TENANT_SK}}, ConsistentRead=True
    )
    item = out.get("Item") or {}
    return {name: int(item.get(name, {}).get("N", "0")) for name in ("stored_bytes", "key_count")}


def set_gauges(table: str, tenant: str, client: Any, expected: dict[str, int], wanted: dict[str, int]) -> bool:
    """Set the gauges to `wanted`, conditioned on them still holding `expected` (False: they moved meanwhile)."""
    sets, conditions = [], []
    values: dict[str, Any] = {}
    attr_names: dict[str, str] = {}
    for n, name in enumerate(sorted(wanted)):
        attr_names[f"#g{n}"] = name
        values[f":new{n}"] = {"N": str(wanted[name])}
        values[f":old{n}"] = {"N": str(expected.get(name, 0))}
        sets.append(f"#g{n} = :new{n}")
        old = "attribute_not_exists(#g{n}) OR #g{n} = :old{n}" if expected.get(name, 0) == 0 else "#g{n} = :old{n}"
        conditions.append("(" + old.format(n=n) + ")")
    try:
        client.update_item(
            TableName=table,
            Key={"pk": {"S": tenant_pk(tenant)}, "sk": {"S": TENANT_SK}},
            UpdateExpression="SET " + ", ".join(sets),
            ConditionExpression="attribute_exists(pk) AND " + " AND ".join(conditions),
            ExpressionAttributeNames=attr_names,
            ExpressionAttributeValues=values,
        )
    except client.exceptions.ConditionalCheckFailedException:
        return False
    return True
