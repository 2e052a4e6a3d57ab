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
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from offprompt.errors import DependencyUnavailable
from offprompt.identifiers import TENANT_INDEX_ATTRIBUTE, key, tenant_index_value
from offprompt.limits import DEFAULT_SCANS_PER_DAY, USAGE_SHARDS
from offprompt.ports import KeyLimitReached, KeyRecord, StoredBytesLimit, TenantRecord

from .aws_errors import error_code, failure_reason
from .clients import aws_client

KEY_SK = "#APIKEY"
TENANT_SK = "#TENANT"
#: In the tenant's record partition: the tenant's partitions are all in the tenant index (ADR 0024).
INDEXED_SK = "#INDEXED"
RATE_TTL_S = 120
PLAN_FIELDS = ("plan", "rate_per_second", "runs_per_day", "stored_bytes_limit", "max_keys", "scans_per_day")
#: The usage shard that add-run's transaction writes (runs added and their bytes and tokens).
RUNS_SHARD = "Q"


def key_pk(key_id: str) -> str:
    return key("APIKEY", key_id)


def tenant_pk(tenant: str) -> str:
    return key("TENANT", tenant)


def usage_pk(tenant: str, shard: str) -> str:
    return key("U", tenant, shard)


def rate_pk(tenant: str, shard: int) -> str:
    """A rate-window shard: its seconds are items of one partition, so an erase finds them by Query."""
    return key("RATE", tenant, shard)


def rate_sk(second: int) -> str:
    return key("W", second)


def day_sk(day: str) -> str:
    return key("D", day)


def usage_shards() -> tuple[str, ...]:
    return (*(f"S{n}" for n in range(USAGE_SHARDS)), RUNS_SHARD)


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
    }


def _key_record(item: dict[str, Any]) -> KeyRecord:
    return KeyRecord(
        key_id=item["key_id"]["S"],
        tenant=item["tenant"]["S"],
        name=item.get("name", {}).get("S", ""),
        created_at=item.get("created_at", {}).get("S", ""),
        secret_hash=item.get("secret_hash", {}).get("S", ""),
        plan=_plan_of(item),
    )


def runs_usage_updates(
    table: str, tenant: str, day: str, counters: dict[str, int], *, runs_per_day: int, stored_bytes_limit: int
) -> list[dict[str, Any]]:
    """The transaction items that count an add-run's usage exactly once, inside the add-run's own transaction:

    1. the day's run counters (`U#{tenant}#Q`), conditioned on the plan's runs per day;
    2. the tenant's stored-bytes gauge, conditioned on the plan's stored bytes.
    A failed condition cancels the whole transaction: the run is not written (QuotaExceeded).
    """
    names = {f"#c{i}": name for i, name in enumerate(sorted(counters))}
    values = {f":c{i}": {"N": str(counters[name])} for i, name in enumerate(sorted(counters))}
    day_update: dict[str, Any] = {
        "TableName": table,
        "Key": _k(usage_pk(tenant, RUNS_SHARD), day_sk(day)),
        "UpdateExpression": "ADD " + ", ".join(f"{n} {v}" for n, v in zip(names, values, strict=True)),
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
    }
    if runs_per_day and "runs_added" in counters:
        names["#runs"] = "runs_added"
        values[":runs_max"] = {"N": str(runs_per_day - counters["runs_added"])}
        day_update["ConditionExpression"] = "attribute_not_exists(#runs) OR #runs <= :runs_max"
    stored = sum(v for k, v in counters.items() if k.startswith("bytes_stored_"))
    gauge: dict[str, Any] = {
        "TableName": table,
        "Key": _k(tenant_pk(tenant), TENANT_SK),
        "UpdateExpression": "ADD #stored :stored",
        "ExpressionAttributeNames": {"#stored": "stored_bytes"},
        "ExpressionAttributeValues": {":stored": {"N": str(stored)}},
    }
    if stored_bytes_limit:
        gauge["ConditionExpression"] = "attribute_not_exists(#stored) OR #stored <= :stored_max"
        gauge["ExpressionAttributeValues"][":stored_max"] = {"N": str(stored_bytes_limit - stored)}
    return [{"Update": day_update}, {"Update": gauge}]


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


def stored_bytes_add(table: str, tenant: str, amount: int) -> dict[str, Any]:
    """The transaction item that adds `amount` stored bytes to the tenant's gauge (a store's own commit)."""
    return {
        "Update": {
            "TableName": table,
            "Key": _k(tenant_pk(tenant), TENANT_SK),
            "UpdateExpression": "ADD #stored :stored",
            "ExpressionAttributeNames": {"#stored": "stored_bytes"},
            "ExpressionAttributeValues": {":stored": {"N": str(amount)}},
        }
    }


class DynamoDbAccountStore:
    def __init__(self, table_name: str, client: Any | None = None) -> None:
        self.table_name = table_name
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = aws_client("dynamodb")
        return self._client

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

    def put_tenant(self, tenant: str, plan: dict[str, object], now: str) -> TenantRecord:
        attrs = _plan_attributes(plan)
        names = {f"#p{i}": name for i, name in enumerate(attrs)}
        values = {f":p{i}": value for i, value in enumerate(attrs.values())}
        sets = ", ".join(f"{n} = {v}" for n, v in zip(names, values, strict=True))
        old = self._call(
            "update_item",
            TableName=self.table_name,
            Key=_k(tenant_pk(tenant), TENANT_SK),
            UpdateExpression=f"SET {sets}, #t = :t, #created = if_not_exists(#created, :now)",
            ExpressionAttributeNames={**names, "#t": "tenant", "#created": "created_at"},
            ExpressionAttributeValues={**values, ":t": {"S": tenant}, ":now": {"S": now}},
            ReturnValues="UPDATED_OLD",
        )
        if "created_at" not in (old.get("Attributes") or {}):
            # A new tenant: all its data is written with the tenant index attribute (ADR 0024).
            self.mark_indexed(tenant, now)
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

    def mark_indexed(self, tenant: str, now: str) -> None:
        """Record that every partition of the tenant is in the tenant index (`TENANT#{t}` / `#INDEXED`)."""
        self._call(
            "put_item",
            TableName=self.table_name,
            Item={**_k(tenant_pk(tenant), INDEXED_SK), "tenant": {"S": tenant}, "indexed_since": {"S": now}},
        )

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
        }
        listing = {
            **_k(tenant_pk(record.tenant), key("KEY", record.key_id)),
            "key_id": {"S": record.key_id},
            "tenant": {"S": record.tenant},
            "name": {"S": record.name},
            "created_at": {"S": record.created_at},
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
        try:
            self.client.transact_write_items(
                TransactItems=[
                    {"Update": count},
                    {
                        "Put": {
                            "TableName": self.table_name,
                            "Item": key_item,
                            "ConditionExpression": "attribute_not_exists(pk)",
                        }
                    },
                    {"Put": {"TableName": self.table_name, "Item": listing}},
                ]
            )
        except ClientError as exc:
            reasons = exc.response.get("CancellationReasons") or []
            if reasons and reasons[0].get("Code") == "ConditionalCheckFailed":
                raise KeyLimitReached() from None
            raise DependencyUnavailable(f"DynamoDB transact_write_items failed: {error_code(exc)}") from exc
        except BotoCoreError as exc:
            raise DependencyUnavailable(f"DynamoDB transact_write_items failed: {type(exc).__name__}") from exc

    def get_key(self, key_id: str) -> KeyRecord | None:
        # Strongly consistent (1 read unit instead of 0.5): a key works the moment it is created, a revoke is seen
        # by the next authorizer call.
        out = self._call("get_item", TableName=self.table_name, Key=_k(key_pk(key_id), KEY_SK), ConsistentRead=True)
        item = out.get("Item")
        return _key_record(item) if item else None

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
        try:
            self.client.transact_write_items(
                TransactItems=[
                    {
                        "Delete": {
                            "TableName": self.table_name,
                            "Key": _k(key_pk(key_id), KEY_SK),
                            "ConditionExpression": "#t = :t",
                            "ExpressionAttributeNames": {"#t": "tenant"},
                            "ExpressionAttributeValues": {":t": {"S": tenant}},
                        }
                    },
                    {"Delete": {"TableName": self.table_name, "Key": _k(tenant_pk(tenant), key("KEY", key_id))}},
                    {
                        "Update": {
                            "TableName": self.table_name,
                            "Key": _k(tenant_pk(tenant), TENANT_SK),
                            "UpdateExpression": "ADD #n :minus",
                            "ExpressionAttributeNames": {"#n": "key_count"},
                            "ExpressionAttributeValues": {":minus": {"N": "-1"}},
                        }
                    },
                ]
            )
        except ClientError as exc:
            reasons = exc.response.get("CancellationReasons") or []
            if reasons and reasons[0].get("Code") == "ConditionalCheckFailed":
                return False  # no such key, or another tenant's: nothing changes
            raise DependencyUnavailable(f"DynamoDB transact_write_items failed: {error_code(exc)}") from exc
        except BotoCoreError as exc:
            raise DependencyUnavailable(f"DynamoDB transact_write_items failed: {type(exc).__name__}") from exc
        return True

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

    def take_scan(self, tenant: str, day: str, limit: int) -> str:
        """Count one self-service export/erase on the day's runs item (`table_scans`), under `limit`, in one
        transaction with a check that the tenant record still exists. "ok", "limit" (the day's scans are used up)
        or "erased" (no tenant record: an erased tenant whose key a deployed authorizer's cache still admits —
        its counters went with the erase, so without this check it could scan again and again)."""
        update: dict[str, Any] = {
            "TableName": self.table_name,
            "Key": _k(usage_pk(tenant, RUNS_SHARD), day_sk(day)),
            "UpdateExpression": "ADD #n :one",
            "ExpressionAttributeNames": {"#n": "table_scans"},
            "ExpressionAttributeValues": {":one": {"N": "1"}},
        }
        if limit:
            update["ConditionExpression"] = "attribute_not_exists(#n) OR #n < :limit"
            update["ExpressionAttributeValues"][":limit"] = {"N": str(limit)}
        # The tenant record must exist; it also keeps the day of its last scan (an Update, not a ConditionCheck:
        # every function already may UpdateItem the table, for usage).
        check = {
            "TableName": self.table_name,
            "Key": _k(tenant_pk(tenant), TENANT_SK),
            "UpdateExpression": "SET #last = :day",
            "ConditionExpression": "attribute_exists(pk)",
            "ExpressionAttributeNames": {"#last": "last_scan_day"},
            "ExpressionAttributeValues": {":day": {"S": day}},
        }
        try:
            self.client.transact_write_items(TransactItems=[{"Update": check}, {"Update": update}])
        except ClientError as exc:
            codes = [r.get("Code") for r in exc.response.get("CancellationReasons") or []]
            if codes and codes[0] == "ConditionalCheckFailed":
                return "erased"
            if len(codes) > 1 and codes[1] == "ConditionalCheckFailed":
                return "limit"
            raise DependencyUnavailable(f"DynamoDB transact_write_items failed: {error_code(exc)}") from exc
        except BotoCoreError as exc:
            raise DependencyUnavailable(f"DynamoDB transact_write_items failed: {type(exc).__name__}") from exc
        return "ok"

    def runs_added(self, tenant: str, day: str) -> int:
        out = self._call(
            "get_item",
            TableName=self.table_name,
            Key=_k(usage_pk(tenant, RUNS_SHARD), day_sk(day)),
            ConsistentRead=True,
            ProjectionExpression="runs_added",
        )
        return int(out.get("Item", {}).get("runs_added", {}).get("N", "0"))

    def add_usage(self, tenant: str, day: str, counters: dict[str, int], stored_delta: int) -> None:
        if not counters:
            return
        names = {f"#c{i}": name for i, name in enumerate(sorted(counters))}
        values = {f":c{i}": {"N": str(counters[name])} for i, name in enumerate(sorted(counters))}
        update: dict[str, Any] = {
            "TableName": self.table_name,
            "Key": _k(usage_pk(tenant, f"S{random.randrange(USAGE_SHARDS)}"), day_sk(day)),
            "UpdateExpression": "ADD " + ", ".join(f"{n} {v}" for n, v in zip(names, values, strict=True)),
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }
        if not stored_delta:
            self._call("update_item", **update)
            return
        gauge = {
            "TableName": self.table_name,
            "Key": _k(tenant_pk(tenant), TENANT_SK),
            "UpdateExpression": "ADD #stored :stored",
            "ExpressionAttributeNames": {"#stored": "stored_bytes"},
            "ExpressionAttributeValues": {":stored": {"N": str(stored_delta)}},
        }
        try:  # one call: the day's counters and the stored-bytes gauge move together
            self.client.transact_write_items(TransactItems=[{"Update": update}, {"Update": gauge}])
        except (BotoCoreError, ClientError) as exc:
            raise DependencyUnavailable(f"DynamoDB transact_write_items failed: {failure_reason(exc)}") from exc

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
        try:
            return getattr(self.client, operation)(**params)
        except ClientError as exc:
            if allow_condition_failure and error_code(exc) == "ConditionalCheckFailedException":
                return None
            raise DependencyUnavailable(f"DynamoDB {operation} failed: {error_code(exc)}") from exc
        except BotoCoreError as exc:
            raise DependencyUnavailable(f"DynamoDB {operation} failed: {type(exc).__name__}") from exc


__all__ = [
    "DynamoDbAccountStore",
    "KeyLimitReached",
    "StoredBytesLimit",
    "runs_usage_updates",
    "stored_bytes_add",
    "stored_bytes_release",
]
