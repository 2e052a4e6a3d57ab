"""RecordStore on DynamoDB: a tenant's records in one partition (docs/adr/0034-records.md).

Partition `REC#{tenant}` (adapters/layout.py):
- `CUR#{labels}##{key}`             the current version (or a delete's tombstone, `deleted`);
- `VER#{labels}##{key}#{version}`   a past version, with `valid_to` (when a replace or a delete closed it);
- `RNS#{labels}`                    a namespace's settings (`default_ttl_minutes`);
- `EXPIRED#{event}`                 a TTL-swept version whose bytes left the gauge (`release_expired`).
Every item of a record carries `ns` (the namespace's path form: labels may be digested in the key), `key`,
`version`, `valid_from`, `created_at`, `updated_at`, the value inline (`value`, JSON) or in S3 (`body_key`), `size`,
and, when it expires, `expires_at` (the table's TTL attribute) and `ttl_minutes`; `doc_id` names its document in the
record index, `metered_bytes` what it added to the tenant's gauge.

A replace or a delete is one transaction: the previous current item copied to its version item with `valid_to`, the
new current item conditioned on the version it replaces, and the charge (hosted mode). Reads filter `expires_at >
now`: an expired record is never returned, before DynamoDB's sweep too.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from offprompt.errors import DependencyUnavailable
from offprompt.metering import Charge
from offprompt.ports import RecordConflict, StoredRecord

from .aws_errors import CONDITION_FAILED, aws_call, aws_call_allowing
from .dynamodb_account import charge_items, expired_release, refuse_charge
from .dynamodb_table import DynamoDbTable
from .dynamodb_transaction import Cancelled, Transaction
from .layout import (
    record_namespace_sk,
    record_pk,
    record_prefix,
    record_sk,
    record_version_prefix,
    record_version_sk,
)

_LIVE = "(attribute_not_exists(expires_at) OR expires_at > :now)"
#: BatchGetItem takes at most 100 keys.
_BATCH = 100


class DynamoDbRecordStore(DynamoDbTable):
    # ---- reads ----------------------------------------------------------------------------------------------
    def current(self, tenant: str, namespace: tuple[str, ...], key: str) -> StoredRecord | None:
        out = self._call(
            "get_item",
            TableName=self.table_name,
            Key=_k(record_pk(tenant), record_sk(namespace, key)),
            ConsistentRead=True,
        )
        item = out.get("Item")
        return _record(item) if item else None

    def last_version(self, tenant: str, namespace: tuple[str, ...], key: str) -> int:
        out = self._call(
            "query",
            TableName=self.table_name,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :p)",
            ExpressionAttributeValues={
                ":pk": {"S": record_pk(tenant)},
                ":p": {"S": record_version_prefix(namespace, key)},
            },
            ScanIndexForward=False,
            Limit=1,
            ConsistentRead=True,
            ProjectionExpression="version",
        )
        items = out.get("Items") or []
        return int(items[0]["version"]["N"]) if items else 0

    def versions(self, tenant: str, namespace: tuple[str, ...], key: str, *, limit: int) -> list[StoredRecord]:
        found: list[StoredRecord] = []
        current = self.current(tenant, namespace, key)
        if current is not None:
            found.append(current)
        for item in self._query(record_version_prefix(namespace, key), tenant, forward=False):
            if len(found) >= limit:
                break
            found.append(_record(item))
        return found[:limit]

    def version_at(self, tenant: str, namespace: tuple[str, ...], key: str, at: float) -> StoredRecord | None:
        current = self.current(tenant, namespace, key)
        if current is not None and current.valid_from <= at:
            return current
        for item in self._query(record_version_prefix(namespace, key), tenant, forward=False):
            version = _record(item)
            if version.valid_from <= at:
                return version if version.valid_to is None or at < version.valid_to else None
        return None

    def query_current(self, tenant: str, prefix: tuple[str, ...], now: float) -> Iterator[StoredRecord]:
        filter_ = f"{_LIVE} AND attribute_not_exists(deleted)"
        for item in self._query(record_prefix(prefix), tenant, filter_=filter_, values={":now": _n(now)}):
            yield _record(item)

    def namespaces(self, tenant: str, prefix: tuple[str, ...], now: float) -> set[tuple[str, ...]]:
        filter_ = f"{_LIVE} AND attribute_not_exists(deleted)"
        items = self._query(record_prefix(prefix), tenant, filter_=filter_, values={":now": _n(now)}, projection="ns")
        return {tuple(item["ns"]["S"].split(".")) for item in items}

    def query_at(self, tenant: str, prefix: tuple[str, ...], at: float, now: float) -> Iterator[StoredRecord]:
        filter_ = (
            f"{_LIVE} AND attribute_not_exists(deleted) AND valid_from <= :at "
            "AND (attribute_not_exists(valid_to) OR valid_to > :at)"
        )
        values = {":now": _n(now), ":at": _n(at)}
        for head in (record_prefix(prefix), record_version_prefix(prefix)):
            for item in self._query(head, tenant, filter_=filter_, values=values):
                yield _record(item)

    def get_many(
        self, tenant: str, wanted: Sequence[tuple[tuple[str, ...], str, int | None]]
    ) -> dict[tuple[tuple[str, ...], str, int], StoredRecord]:
        pk = record_pk(tenant)
        keys: dict[str, dict[str, Any]] = {}
        for namespace, key, version in wanted:
            keys.setdefault(record_sk(namespace, key), _k(pk, record_sk(namespace, key)))
            if version is not None:
                sk = record_version_sk(namespace, key, version)
                keys.setdefault(sk, _k(pk, sk))
        found: dict[tuple[tuple[str, ...], str, int], StoredRecord] = {}
        pending = list(keys.values())
        for start in range(0, len(pending), _BATCH):
            request: dict[str, Any] = {
                self.table_name: {"Keys": pending[start : start + _BATCH], "ConsistentRead": True}
            }
            for _attempt in range(8):
                out = self._call("batch_get_item", RequestItems=request)
                for item in out.get("Responses", {}).get(self.table_name, []):
                    record = _record(item)
                    found[(record.namespace, record.key, record.version)] = record
                request = out.get("UnprocessedKeys") or {}
                if not request:
                    break
            else:
                raise DependencyUnavailable("DynamoDB batch_get_item left keys unprocessed")
        return found

    def default_ttl(self, tenant: str, namespace: tuple[str, ...]) -> float | None:
        out = self._call(
            "get_item",
            TableName=self.table_name,
            Key=_k(record_pk(tenant), record_namespace_sk(namespace)),
            ConsistentRead=True,
        )
        item = out.get("Item") or {}
        return float(item["default_ttl_minutes"]["N"]) if "default_ttl_minutes" in item else None

    # ---- writes ---------------------------------------------------------------------------------------------
    def write(
        self,
        tenant: str,
        new: StoredRecord,
        previous: StoredRecord | None,
        now: float,
        *,
        charge: Charge | None = None,
    ) -> None:
        pk = record_pk(tenant)
        tx = Transaction()
        current: dict[str, Any] = {"TableName": self.table_name, "Item": _item(pk, tenant, new, current=True)}
        if previous is None:
            current["ConditionExpression"] = "attribute_not_exists(sk)"
        else:
            closed = _item(pk, tenant, previous, current=False)
            closed["valid_to"] = _n(now)
            tx.put(
                "version",
                {"TableName": self.table_name, "Item": closed, "ConditionExpression": "attribute_not_exists(sk)"},
            )
            current["ConditionExpression"] = "#v = :previous"
            current["ExpressionAttributeNames"] = {"#v": "version"}
            current["ExpressionAttributeValues"] = {":previous": _n(previous.version)}
        tx.put("current", current)
        if charge is not None:
            tx.extend(charge_items(self.table_name, charge))
        try:
            with aws_call("DynamoDB transact_write_items"), tx.cancellation():
                self.client.transact_write_items(TransactItems=tx.request())
        except Cancelled as cancelled:
            if charge is not None:
                refuse_charge(cancelled, charge)
            if cancelled.failed("current") or cancelled.failed("version") or cancelled.conflicted:
                raise RecordConflict() from None
            raise cancelled.unavailable() from None

    def configure_namespace(self, tenant: str, namespace: tuple[str, ...], default_ttl_minutes: float | None) -> None:
        key = _k(record_pk(tenant), record_namespace_sk(namespace))
        if default_ttl_minutes is None:
            self._call("delete_item", TableName=self.table_name, Key=key)
            return
        item = {**key, "ns": {"S": ".".join(namespace)}, "default_ttl_minutes": _n(default_ttl_minutes)}
        self._call("put_item", TableName=self.table_name, Item=item)

    def refresh_ttl(self, tenant: str, record: StoredRecord, expires_at: int) -> None:
        with aws_call_allowing("DynamoDB update_item", CONDITION_FAILED) as call:
            self.client.update_item(
                TableName=self.table_name,
                Key=_k(record_pk(tenant), record_sk(record.namespace, record.key)),
                UpdateExpression="SET expires_at = :e",
                ConditionExpression="#v = :v AND attribute_not_exists(deleted) AND attribute_exists(expires_at)",
                ExpressionAttributeNames={"#v": "version"},
                ExpressionAttributeValues={":e": _n(expires_at), ":v": _n(record.version)},
            )
        if call.refused:
            return  # replaced or deleted meanwhile: the newer version keeps its own TTL

    def release_expired(self, tenant: str, event_id: str, metered_bytes: int) -> bool:
        """One transaction: the marker `EXPIRED#{event_id}` in the tenant's records partition (conditioned on its
        absence) and the gauge's release (conditioned on the gauge existing: an erased tenant's is never re-created).
        Either condition failing means nothing to do: False."""
        if metered_bytes <= 0:
            return False
        tx = expired_release(self.table_name, record_pk(tenant), tenant, event_id, metered_bytes)
        try:
            with aws_call("DynamoDB transact_write_items"), tx.cancellation():
                self.client.transact_write_items(TransactItems=tx.request())
        except Cancelled as cancelled:
            if cancelled.failed_tags():
                return False  # already taken off (a redelivered record), or the tenant was erased
            raise cancelled.unavailable() from None
        return True

    # ---- helpers --------------------------------------------------------------------------------------------
    def _query(
        self,
        head: str,
        tenant: str,
        *,
        forward: bool = True,
        filter_: str | None = None,
        values: dict[str, Any] | None = None,
        projection: str | None = None,
    ) -> Iterator[dict[str, Any]]:
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :head)",
            "ExpressionAttributeValues": {":pk": {"S": record_pk(tenant)}, ":head": {"S": head}, **(values or {})},
            "ScanIndexForward": forward,
            "ConsistentRead": True,
        }
        if filter_:
            params["FilterExpression"] = filter_
        if projection:
            params["ProjectionExpression"] = projection
        start: dict[str, Any] | None = None
        while True:
            out = self._call("query", **params, **({"ExclusiveStartKey": start} if start else {}))
            yield from out.get("Items", [])
            start = out.get("LastEvaluatedKey")
            if not start:
                return

    def _call(self, operation: str, **params: Any) -> Any:
        with aws_call(f"DynamoDB {operation}"):
            return getattr(self.client, operation)(**params)


def _k(pk: str, sk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def _n(value: float) -> dict[str, str]:
    return {"N": str(int(value)) if float(value).is_integer() else repr(float(value))}


def _item(pk: str, tenant: str, record: StoredRecord, *, current: bool) -> dict[str, Any]:
    sk = (
        record_sk(record.namespace, record.key)
        if current
        else record_version_sk(record.namespace, record.key, record.version)
    )
    item: dict[str, Any] = {
        **_k(pk, sk),
        "tenant": {"S": tenant},
        "ns": {"S": ".".join(record.namespace)},
        "key": {"S": record.key},
        "version": _n(record.version),
        "created_at": _n(record.created_at),
        "updated_at": _n(record.updated_at),
        "valid_from": _n(record.valid_from),
        "size": _n(record.size),
    }
    optional: dict[str, Any] = {
        "valid_to": None if record.valid_to is None else _n(record.valid_to),
        "value": None if record.value_json is None else {"S": record.value_json},
        "body_key": None if record.body_key is None else {"S": record.body_key},
        "expires_at": None if record.expires_at is None else _n(record.expires_at),
        "ttl_minutes": None if record.ttl_minutes is None else _n(record.ttl_minutes),
        "deleted": {"BOOL": True} if record.deleted else None,
        "doc_id": None if record.doc_id is None else {"S": record.doc_id},
        "metered_bytes": _n(record.metered_bytes) if record.metered_bytes else None,
    }
    item.update({name: value for name, value in optional.items() if value is not None})
    return item


def _record(item: dict[str, Any]) -> StoredRecord:
    def num(name: str) -> float | None:
        return float(item[name]["N"]) if name in item else None

    def text(name: str) -> str | None:
        return str(item[name]["S"]) if name in item else None

    expires = num("expires_at")
    return StoredRecord(
        namespace=tuple(item["ns"]["S"].split(".")),
        key=item["key"]["S"],
        version=int(item["version"]["N"]),
        created_at=num("created_at") or 0.0,
        updated_at=num("updated_at") or 0.0,
        valid_from=num("valid_from") or 0.0,
        valid_to=num("valid_to"),
        value_json=text("value"),
        body_key=text("body_key"),
        size=int(num("size") or 0),
        expires_at=None if expires is None else int(expires),
        ttl_minutes=num("ttl_minutes"),
        deleted=bool(item.get("deleted", {}).get("BOOL", False)),
        doc_id=text("doc_id"),
        metered_bytes=int(num("metered_bytes") or 0),
    )
