"""AccountStore on DynamoDB (the one table; docs/adr/0022-api-keys.md, 0023-usage-metering-and-quotas.md).

- `APIKEY#{key_id}` / `#APIKEY`      the key: tenant, SHA-256 of the secret, name, created_at and a copy of the
                                     tenant's plan, so the authorizer resolves a key with one GetItem;
- `TENANT#{tenant}` / `#TENANT`      the tenant: plan, `key_count`, `stored_bytes` (the current stored bytes gauge:
                                     added by the transactions that store, taken off by those that delete, by the
                                     `metered_bytes` each stored item carries);
- `TENANT#{tenant}` / `KEY#{key_id}` the tenant's key listing (`GET /keys` is one Query, no secret in it);
- `U#{tenant}#S{n}` / `D#{day}`      usage counters of a day, `n` in 0..USAGE_SHARDS-1 picked at random per request
                                     (no single hot item), added with UpdateItem ADD;
- `U#{tenant}#Q` / `D#{day}`         the day's run counters, written inside add-run's own transaction (exact,
                                     and the runs-per-day quota's condition);
- `RATE#{tenant}#{shard}` / `W#{second}`  a rate window: conditional ADD, expires (TTL) two minutes later (one
  partition per shard: the same writes per key and second as one per second, but an erase finds them by Query).
- `TENANT#{tenant}` / `#INDEXED`  every partition of the tenant is in the tenant index (ADR 0024).
"""

from __future__ import annotations

import random
import time
from typing import Any

from offprompt.limits import DEFAULT_SCANS_PER_DAY, USAGE_SHARDS
from offprompt.metering import Charge
from offprompt.ports import KeyLimitReached, KeyRecord, StoredBytesLimit, TenantExists, TenantRecord

from .aws_errors import CONDITION_FAILED, aws_call, aws_call_allowing
from .dynamodb_table import DynamoDbTable
from .dynamodb_transaction import Cancelled, TaggedItem, Transaction
from .layout import (
    KEY_SK,
    RUNS_SHARD,
    TENANT_INDEX_ATTRIBUTE,
    TENANT_SK,
    day_sk,
    expired_sk,
    key_listing_sk,
    key_pk,
    rate_pk,
    rate_sk,
    tenant_index_value,
    tenant_pk,
    usage_pk,
    usage_shards,
)

RATE_TTL_S = 120
PLAN_FIELDS = ("plan", "rate_per_second", "runs_per_day", "stored_bytes_limit", "max_keys", "scans_per_day")


def _k(pk: str, sk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def _plan_attributes(plan: dict[str, object]) -> dict[str, Any]:
    """A plan as item attributes (`stored_bytes` the limit is `stored_bytes_limit`: the gauge owns the name)."""
    return {
        "plan": {"S": str(plan.get("plan") or "custom")},
        "rate_per_second": {"N": str(int(str(plan.get("rate_per_second") or 0)))},
        "runs_per_day": {"N": str(int(str(plan.get("runs_per_day") or 0)))},
        "stored_bytes_limit": {"N": str(int(str(plan.get("stored_bytes") or 0)))},
        "max_keys": {"N": str(int(str(plan.get("max_keys") or 0)))},
        "scans_per_day": {"N": str(int(str(plan.get("scans_per_day") or 0)))},
        "extraction_tokens_per_day": {"N": str(int(str(plan.get("extraction_tokens_per_day") or 0)))},
    }


def _plan_of(item: dict[str, Any]) -> dict[str, object]:
    def n(name: str) -> int:
        return int(item[name]["N"]) if name in item else 0

    return {
        "plan": item.get("plan", {}).get("S", "custom"),
        "rate_per_second": n("rate_per_second"),
        "runs_per_day": n("runs_per_day"),
        "stored_bytes": n("stored_bytes_limit"),
        "max_keys": n("max_keys"),
        # keys and tenants stored before the field: the default, never "unlimited"
        "scans_per_day": n("scans_per_day") if "scans_per_day" in item else DEFAULT_SCANS_PER_DAY,
        "extraction_tokens_per_day": n("extraction_tokens_per_day"),  # before the field: unlimited, as it was
    }


def _key_record(item: dict[str, Any]) -> KeyRecord:
    erasing = item.get("erasing_since", {}).get("N")
    return KeyRecord(
        key_id=item["key_id"]["S"],
        tenant=item["tenant"]["S"],
        name=item.get("name", {}).get("S", ""),
        created_at=item.get("created_at", {}).get("S", ""),
        secret_hash=item.get("secret_hash", {}).get("S", ""),
        plan=_plan_of(item),
        erasing_since=float(erasing) if erasing is not None else None,
        scope=item.get("scope", {}).get("S"),
        expires_at=item.get("expires_at", {}).get("S"),
    )


def _scope_attributes(record: KeyRecord) -> dict[str, Any]:
    """A key's scope and expiry, on its item and its listing entry (absent for an unscoped key that never expires)."""
    out: dict[str, Any] = {}
    if record.scope is not None:
        out["scope"] = {"S": record.scope}
    if record.expires_at is not None:
        out["expires_at"] = {"S": record.expires_at}
    return out


#: What `get_key` parses for an unknown key id: a record of a key's shape (never returned).
_DECOY_KEY_ITEM: dict[str, Any] = {
    "key_id": {"S": "0" * 16},
    "tenant": {"S": "-"},
    "name": {"S": ""},
    "created_at": {"S": ""},
    "secret_hash": {"S": "0" * 64},
    **_plan_attributes({"plan": "free"}),
}


#: Tags of a charge's items in the transaction of the write it pays for (`dynamodb_transaction.Transaction`).
CHARGE_DAY = "charge.day"
CHARGE_GAUGE = "charge.gauge"


def charge_items(table: str, charge: Charge) -> list[TaggedItem]:
    """The transaction items that commit `charge` with the write it pays for (offprompt.metering.Charge):

    - `charge.day`: the day's exact counters (`U#{tenant}#Q`), conditioned on the plan's runs per day when they
      count runs;
    - `charge.gauge`: the tenant's stored-bytes gauge, conditioned on the plan's stored bytes.
    A failed condition cancels the whole transaction: nothing is written (`refuse_charge`).
    """
    items: list[TaggedItem] = []
    counters = dict(charge.day_counters)
    if counters:
        names = {f"#c{i}": name for i, name in enumerate(sorted(counters))}
        values = {f":c{i}": {"N": str(counters[name])} for i, name in enumerate(sorted(counters))}
        day_update: dict[str, Any] = {
            "TableName": table,
            "Key": _k(usage_pk(charge.tenant, RUNS_SHARD), day_sk(charge.day)),
            "UpdateExpression": "ADD " + ", ".join(f"{n} {v}" for n, v in zip(names, values, strict=True)),
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }
        runs_per_day = charge.plan.runs_per_day
        if runs_per_day and counters.get("runs_added"):
            names["#runs"] = "runs_added"
            values[":runs_max"] = {"N": str(runs_per_day - counters["runs_added"])}
            day_update["ConditionExpression"] = "attribute_not_exists(#runs) OR #runs <= :runs_max"
        items.append(TaggedItem(CHARGE_DAY, {"Update": day_update}))
    if charge.stored_bytes:
        gauge: dict[str, Any] = {
            "TableName": table,
            "Key": _k(tenant_pk(charge.tenant), TENANT_SK),
            "UpdateExpression": "ADD #stored :stored",
            "ExpressionAttributeNames": {"#stored": "stored_bytes"},
            "ExpressionAttributeValues": {":stored": {"N": str(charge.stored_bytes)}},
        }
        limit = charge.plan.stored_bytes
        if limit and charge.stored_bytes > 0:  # a write that gives bytes back (new < old) is never refused
            gauge["ConditionExpression"] = "attribute_not_exists(#stored) OR #stored <= :stored_max"
            gauge["ExpressionAttributeValues"][":stored_max"] = {"N": str(limit - charge.stored_bytes)}
        items.append(TaggedItem(CHARGE_GAUGE, {"Update": gauge}))
    return items


def refuse_charge(cancelled: Cancelled, charge: Charge) -> None:
    """Raise the plan's 429 when the cancellation came from the charge's own conditions."""
    if cancelled.failed(CHARGE_DAY):
        raise charge.refusal("runs_per_day") from None
    if cancelled.failed(CHARGE_GAUGE):
        raise charge.refusal("stored_bytes") from None


#: How long an `EXPIRED#` marker is kept: longer than a stream record lives (24 h), so a retried record finds it.
EXPIRED_MARKER_TTL_S = 2 * 86_400


def expired_release(table: str, pk: str, tenant: str, event_id: str, metered_bytes: int) -> Transaction:
    """The transaction that takes an item TTL deleted off its tenant's gauge once per stream record: the marker
    `EXPIRED#{event_id}` in the item's partition (`pk`), conditioned on its absence, and the gauge's release. Either
    condition failing (a redelivered record, an erased tenant) cancels it: nothing to do."""
    marker = {
        **_k(pk, expired_sk(event_id)),
        "tenant": {"S": tenant},
        "expires_at": {"N": str(int(time.time()) + EXPIRED_MARKER_TTL_S)},
    }
    tx = Transaction()
    tx.put("marker", {"TableName": table, "Item": marker, "ConditionExpression": "attribute_not_exists(pk)"})
    tx.add("gauge", stored_bytes_release(table, tenant, metered_bytes))
    return tx


def stored_bytes_release(table: str, tenant: str, amount: int) -> dict[str, Any]:
    """The transaction item that takes `amount` bytes a delete removed off the tenant's stored-bytes gauge, in
    the delete's own transaction (so a retried delete, which finds the data gone, takes nothing off twice).

    Conditioned on the gauge existing: an erased tenant's gauge is never re-created, negative. A delete whose
    transaction fails only on this item is retried without it (`GAUGE_ITEM_FAILED`).
    """
    return {
        "Update": {
            "TableName": table,
            "Key": _k(tenant_pk(tenant), TENANT_SK),
            "UpdateExpression": "ADD #stored :released",
            "ConditionExpression": "attribute_exists(#stored)",
            "ExpressionAttributeNames": {"#stored": "stored_bytes"},
            "ExpressionAttributeValues": {":released": {"N": str(-amount)}},
        }
    }


class DynamoDbAccountStore(DynamoDbTable):
    # ---- tenants ----------------------------------------------------------------------------------------
    def get_tenant(self, tenant: str) -> TenantRecord | None:
        out = self._call(
            "get_item", TableName=self.table_name, Key=_k(tenant_pk(tenant), TENANT_SK), ConsistentRead=True
        )
        item = out.get("Item")
        if item is None:
            return None
        return TenantRecord(
            tenant=tenant,
            plan=_plan_of(item),
            key_count=int(item.get("key_count", {}).get("N", "0")),
            stored_bytes=int(item.get("stored_bytes", {}).get("N", "0")),
            created_at=item.get("created_at", {}).get("S"),
        )

    def put_tenant(self, tenant: str, plan: dict[str, object], now: str, *, only_new: bool = False) -> TenantRecord:
        attrs = _plan_attributes(plan)
        names = {f"#p{i}": name for i, name in enumerate(attrs)}
        values = {f":p{i}": value for i, value in enumerate(attrs.values())}
        sets = ", ".join(f"{n} = {v}" for n, v in zip(names, values, strict=True))
        # only_new: one conditional write, so of two racing creations exactly one creates and the other changes nothing
        condition = {"ConditionExpression": "attribute_not_exists(#created)"} if only_new else {}
        written = self._call(
            "update_item",
            allow_condition_failure=only_new,
            TableName=self.table_name,
            Key=_k(tenant_pk(tenant), TENANT_SK),
            UpdateExpression=f"SET {sets}, #t = :t, #created = if_not_exists(#created, :now)",
            ExpressionAttributeNames={**names, "#t": "tenant", "#created": "created_at"},
            ExpressionAttributeValues={**values, ":t": {"S": tenant}, ":now": {"S": now}},
            ReturnValues="UPDATED_OLD",
            **condition,
        )
        if written is None:  # the condition failed: the tenant exists
            existing = self.get_tenant(tenant)
            assert existing is not None
            raise TenantExists(existing)
        for record in self.list_keys(tenant):  # the authorizer reads the plan from the key (one GetItem)
            self._call(
                "update_item",
                TableName=self.table_name,
                Key=_k(key_pk(record.key_id), KEY_SK),
                UpdateExpression=f"SET {sets}",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames=names,
                ExpressionAttributeValues=values,
                allow_condition_failure=True,
            )
        found = self.get_tenant(tenant)
        assert found is not None
        return found

    # ---- keys -------------------------------------------------------------------------------------------
    def add_key(self, record: KeyRecord, max_keys: int) -> None:
        plan = _plan_attributes(record.plan)
        key_item = {
            **_k(key_pk(record.key_id), KEY_SK),
            "key_id": {"S": record.key_id},
            "tenant": {"S": record.tenant},
            "name": {"S": record.name},
            "created_at": {"S": record.created_at},
            "secret_hash": {"S": record.secret_hash},
            TENANT_INDEX_ATTRIBUTE: {"S": tenant_index_value(record.tenant, key_pk(record.key_id))},
            **plan,
            **_scope_attributes(record),
        }
        listing = {
            **_k(tenant_pk(record.tenant), key_listing_sk(record.key_id)),
            "key_id": {"S": record.key_id},
            "tenant": {"S": record.tenant},
            "name": {"S": record.name},
            "created_at": {"S": record.created_at},
            **_scope_attributes(record),
        }
        count: dict[str, Any] = {
            "TableName": self.table_name,
            "Key": _k(tenant_pk(record.tenant), TENANT_SK),
            "UpdateExpression": "ADD #n :one SET #t = :t, #created = if_not_exists(#created, :now)",
            "ExpressionAttributeNames": {"#n": "key_count", "#t": "tenant", "#created": "created_at"},
            "ExpressionAttributeValues": {
                ":one": {"N": "1"},
                ":t": {"S": record.tenant},
                ":now": {"S": record.created_at},
            },
        }
        if max_keys:
            count["ConditionExpression"] = "attribute_not_exists(#n) OR #n < :max"
            count["ExpressionAttributeValues"][":max"] = {"N": str(max_keys)}
        tx = Transaction()
        tx.update("key_count", count)
        tx.put(
            "key", {"TableName": self.table_name, "Item": key_item, "ConditionExpression": "attribute_not_exists(pk)"}
        )
        tx.put("listing", {"TableName": self.table_name, "Item": listing})
        try:
            with aws_call("DynamoDB transact_write_items"), tx.cancellation():
                self.client.transact_write_items(TransactItems=tx.request())
        except Cancelled as cancelled:
            if cancelled.failed("key_count"):
                raise KeyLimitReached() from None
            raise cancelled.unavailable() from None

    def get_key(self, key_id: str) -> KeyRecord | None:
        # Strongly consistent (1 read unit instead of 0.5): a key works the moment it is created, a revoke or a fence
        # is seen by the next request. An unknown key id is parsed as a decoy record of the same shape, so it costs
        # what a known one costs (no timing tells which key ids exist).
        out = self._call("get_item", TableName=self.table_name, Key=_k(key_pk(key_id), KEY_SK), ConsistentRead=True)
        item = out.get("Item")
        record = _key_record(item if item else _DECOY_KEY_ITEM)
        return record if item else None

    def list_keys(self, tenant: str) -> list[KeyRecord]:
        items: list[dict[str, Any]] = []
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": tenant_pk(tenant)}, ":prefix": {"S": "KEY#"}},
            "ConsistentRead": True,
        }
        while True:
            out = self._call("query", **params)
            items.extend(out.get("Items", []))
            if not out.get("LastEvaluatedKey"):
                break
            params["ExclusiveStartKey"] = out["LastEvaluatedKey"]
        return [_key_record(item) for item in items]

    def delete_key(self, tenant: str, key_id: str) -> bool:
        tx = Transaction()
        tx.delete(
            "key",
            {
                "TableName": self.table_name,
                "Key": _k(key_pk(key_id), KEY_SK),
                "ConditionExpression": "#t = :t",
                "ExpressionAttributeNames": {"#t": "tenant"},
                "ExpressionAttributeValues": {":t": {"S": tenant}},
            },
        )
        tx.delete("listing", {"TableName": self.table_name, "Key": _k(tenant_pk(tenant), key_listing_sk(key_id))})
        tx.update(
            "key_count",
            {
                "TableName": self.table_name,
                "Key": _k(tenant_pk(tenant), TENANT_SK),
                "UpdateExpression": "ADD #n :minus",
                "ExpressionAttributeNames": {"#n": "key_count"},
                "ExpressionAttributeValues": {":minus": {"N": "-1"}},
            },
        )
        try:
            with aws_call("DynamoDB transact_write_items"), tx.cancellation():
                self.client.transact_write_items(TransactItems=tx.request())
        except Cancelled as cancelled:
            if cancelled.failed("key"):
                return False  # no such key, or another tenant's: nothing changes
            raise cancelled.unavailable() from None
        return True

    # ---- the erase's fence -------------------------------------------------------------------------------
    def fence(self, tenant: str, now: float) -> float | None:
        """Mark the tenant record and each of its API keys `erasing_since` (kept once set); the fence's time, or
        None when the tenant has no record or no key (nothing of ours lets it in)."""
        keys = self.list_keys(tenant)
        if not keys:
            return None
        stamp = {":now": {"N": repr(float(now))}}
        out = self._call(
            "update_item",
            TableName=self.table_name,
            Key=_k(tenant_pk(tenant), TENANT_SK),
            UpdateExpression="SET #e = if_not_exists(#e, :now)",
            ConditionExpression="attribute_exists(pk)",
            ExpressionAttributeNames={"#e": "erasing_since"},
            ExpressionAttributeValues=stamp,
            ReturnValues="ALL_NEW",
            allow_condition_failure=True,
        )
        if out is None:
            return None
        since = {":since": out["Attributes"]["erasing_since"]}
        for record in keys:  # the requests of every key are refused from here on (admission reads the key item)
            self._call(
                "update_item",
                TableName=self.table_name,
                Key=_k(key_pk(record.key_id), KEY_SK),
                UpdateExpression="SET #e = :since",
                ConditionExpression="attribute_exists(pk)",
                ExpressionAttributeNames={"#e": "erasing_since"},
                ExpressionAttributeValues=since,
                allow_condition_failure=True,
            )
        return float(out["Attributes"]["erasing_since"]["N"])

    # ---- rate windows and usage ---------------------------------------------------------------------------
    def take_rate_token(self, tenant: str, second: int, shard: int, limit: int) -> bool:
        out = self._call(
            "update_item",
            TableName=self.table_name,
            Key=_k(rate_pk(tenant, shard), rate_sk(second)),
            UpdateExpression="ADD #n :one SET #exp = if_not_exists(#exp, :exp)",
            ConditionExpression="attribute_not_exists(#n) OR #n < :limit",
            ExpressionAttributeNames={"#n": "n", "#exp": "expires_at"},
            ExpressionAttributeValues={
                ":one": {"N": "1"},
                ":limit": {"N": str(limit)},
                ":exp": {"N": str(second + RATE_TTL_S)},
            },
            allow_condition_failure=True,
        )
        return out is not None

    def take_scan(self, tenant: str, day: str, limit: int) -> bool:
        """Count one self-service export/erase on the day's runs item (`table_scans`), under `limit` (0: none);
        False when the day's scans are used up."""
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "Key": _k(usage_pk(tenant, RUNS_SHARD), day_sk(day)),
            "UpdateExpression": "ADD #n :one",
            "ExpressionAttributeNames": {"#n": "table_scans"},
            "ExpressionAttributeValues": {":one": {"N": "1"}},
        }
        if limit:
            params["ConditionExpression"] = "attribute_not_exists(#n) OR #n < :limit"
            params["ExpressionAttributeValues"][":limit"] = {"N": str(limit)}
        return self._call("update_item", allow_condition_failure=True, **params) is not None

    def runs_added(self, tenant: str, day: str) -> int:
        out = self._call(
            "get_item",
            TableName=self.table_name,
            Key=_k(usage_pk(tenant, RUNS_SHARD), day_sk(day)),
            ConsistentRead=True,
            ProjectionExpression="runs_added",
        )
        return int(out.get("Item", {}).get("runs_added", {}).get("N", "0"))

    def add_usage(self, tenant: str, day: str, counters: dict[str, int]) -> None:
        """A request's counters onto one of the tenant's usage shards for `day`, picked at random (one write)."""
        if not counters:
            return
        names = {f"#c{i}": name for i, name in enumerate(sorted(counters))}
        values = {f":c{i}": {"N": str(counters[name])} for i, name in enumerate(sorted(counters))}
        self._call(
            "update_item",
            TableName=self.table_name,
            Key=_k(usage_pk(tenant, f"S{random.randrange(USAGE_SHARDS)}"), day_sk(day)),
            UpdateExpression="ADD " + ", ".join(f"{n} {v}" for n, v in zip(names, values, strict=True)),
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )

    def usage_items(self, tenant: str, first_day: str, last_day: str) -> list[tuple[str, dict[str, int]]]:
        found: list[tuple[str, dict[str, int]]] = []
        for shard in usage_shards():
            params: dict[str, Any] = {
                "TableName": self.table_name,
                "KeyConditionExpression": "pk = :pk AND sk BETWEEN :lo AND :hi",
                "ExpressionAttributeValues": {
                    ":pk": {"S": usage_pk(tenant, shard)},
                    ":lo": {"S": day_sk(first_day)},
                    ":hi": {"S": day_sk(last_day)},
                },
            }
            while True:
                out = self._call("query", **params)
                for item in out.get("Items", []):
                    day = item["sk"]["S"].split("#", 1)[1]
                    counters = {k: int(v["N"]) for k, v in item.items() if "N" in v}
                    found.append((day, counters))
                if not out.get("LastEvaluatedKey"):
                    break
                params["ExclusiveStartKey"] = out["LastEvaluatedKey"]
        return found

    # ---- plumbing ---------------------------------------------------------------------------------------
    def _call(self, operation: str, *, allow_condition_failure: bool = False, **params: Any) -> Any:
        allowed = (CONDITION_FAILED,) if allow_condition_failure else ()
        with aws_call_allowing(f"DynamoDB {operation}", *allowed):
            return getattr(self.client, operation)(**params)
        return None  # the condition failed


__all__ = [
    "DynamoDbAccountStore",
    "KeyLimitReached",
    "StoredBytesLimit",
    "TenantExists",
    "charge_items",
    "refuse_charge",
    "stored_bytes_release",
]
