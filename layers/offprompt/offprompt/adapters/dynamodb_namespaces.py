"""NamespaceStore on the single DynamoDB table (pk/sk strings).

Items of one task memory share a partition, `pk = TASKMEM#{tenant}#{memory}`:
- `NS#{namespace}`: the namespace record. `next_position` (the position counter, `ADD`-ed atomically) and
  `generation` (minted by the first reservation of an incarnation) live on the same item; the record counts as
  committed only once `kind` is set, which happens in the commit transaction, so a reservation alone is
  invisible to readers. A delete marks it `deleting` (dropping everything but the counter) first and clears
  the mark last, so a store racing a delete either committed before the mark (and is deleted) or cannot
  commit at all; positions are never reused, so a straggler's documents cannot collide with a later store's.
- `BATCH#{namespace}#{start:012d}`: one committed store (count, kind, per-artifact entries or a manifest key).
- `META#{time_ns:020d}#{uuid}`: one meta-memory entry (`ActionSubtaskMetaEntry.to_dict()`), in time order.
- `UPLOADED#{upload_id}`: an upload (`value_from`) a store consumed, put by that store's commit only if absent, so
  one upload fills one store; it expires (TTL) after the upload's presigned URL could still have been used.

Hosted mode (a `Charge` passed to `commit`): the commit transaction also adds the charge to the tenant's gauge,
under the plan's limit, and the batch's bytes to the record's `metered_bytes`; a delete takes exactly the record's
`metered_bytes` off the gauge in the transaction that marks it (docs/adr/0021-stored-bytes-and-run-counts.md).
"""

from __future__ import annotations

import base64
import binascii
import json
import time
import uuid
from datetime import UTC, datetime
from typing import Any, NoReturn

from botocore.exceptions import BotoCoreError, ClientError

from offprompt.errors import DependencyUnavailable, InvalidInput
from offprompt.metering import Charge
from offprompt.ports import (
    NamespaceCommit,
    NamespaceDeleting,
    NamespaceRecord,
    Reservation,
    StorageKindTaken,
    StoredBatch,
    UploadTaken,
)

from .aws_errors import CONDITION_FAILED, aws_call, aws_call_allowing, error_code, failure_reason
from .dynamodb_account import charge_items, refuse_charge, stored_bytes_release
from .dynamodb_table import DynamoDbTable
from .dynamodb_transaction import Cancelled, Transaction
from .layout import (
    META_PREFIX,
    NS_PREFIX,
    TENANT_INDEX_ATTRIBUTE,
    batch_prefix,
    batch_sk,
    memory_pk,
    meta_sk,
    namespace_sk,
    tenant_index_value,
    uploaded_sk,
)

NS = NS_PREFIX
#: How long a consumed upload's marker is kept: longer than its presigned PUT and its object live (a day).
UPLOADED_MARKER_TTL_S = 2 * 86_400


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _reason(exc: Exception) -> str:
    return failure_reason(exc, default_code="ClientError")


class DynamoDbNamespaceStore(DynamoDbTable):
    # ---- keys ----------------------------------------------------------------------------------------
    @staticmethod
    def pk(tenant: str, memory: str) -> str:
        return memory_pk(tenant, memory)

    @staticmethod
    def record_sk(namespace: str) -> str:
        return namespace_sk(namespace)

    @staticmethod
    def batch_prefix(namespace: str) -> str:
        return batch_prefix(namespace)

    # ---- writes --------------------------------------------------------------------------------------
    def allocate(self, tenant: str, memory: str, namespace: str, count: int) -> Reservation:
        with aws_call_allowing("DynamoDB update", CONDITION_FAILED) as call:
            out = self.client.update_item(
                TableName=self.table_name,
                Key={"pk": {"S": self.pk(tenant, memory)}, "sk": {"S": self.record_sk(namespace)}},
                UpdateExpression="ADD next_position :n SET #gen = if_not_exists(#gen, :gen), #tdir = :tdir",
                ConditionExpression="attribute_not_exists(#deleting)",
                ExpressionAttributeNames={
                    "#gen": "generation",
                    "#deleting": "deleting",
                    "#tdir": TENANT_INDEX_ATTRIBUTE,
                },
                ExpressionAttributeValues={
                    ":n": {"N": str(count)},
                    ":gen": {"S": uuid.uuid4().hex},
                    ":tdir": {"S": tenant_index_value(tenant, self.pk(tenant, memory))},
                },
                ReturnValues="ALL_NEW",
            )
        if call.refused:
            raise NamespaceDeleting(namespace) from None
        attrs = out["Attributes"]
        end = int(attrs["next_position"]["N"])
        return Reservation(start=end - count, kind=attrs.get("kind", {}).get("S"), generation=attrs["generation"]["S"])

    def commit(
        self,
        tenant: str,
        memory: str,
        namespace: str,
        batch: StoredBatch,
        update: NamespaceCommit,
        meta_entry: dict[str, object] | None,
        generation: str,
        charge: Charge | None = None,
    ) -> None:
        pk = self.pk(tenant, memory)
        now = _now()
        record_update: dict[str, Any] = {
            "TableName": self.table_name,
            "Key": {"pk": {"S": pk}, "sk": {"S": self.record_sk(namespace)}},
            "UpdateExpression": (
                "SET #kind = :kind, memory_name = :memory, #ns = :ns, tool = :tool, activity = :activity, "
                "namespace_metadata = :md, updated_at = :now, created_at = if_not_exists(created_at, :now) "
                "ADD artifact_count :count, total_bytes :bytes"
            ),
            # The incarnation that reserved the positions must still be there, not being deleted.
            "ConditionExpression": (
                "#gen = :gen AND attribute_not_exists(#deleting) AND (attribute_not_exists(#kind) OR #kind = :kind)"
            ),
            "ExpressionAttributeNames": {
                "#kind": "kind",
                "#ns": "namespace",
                "#gen": "generation",
                "#deleting": "deleting",
            },
            "ExpressionAttributeValues": {
                ":gen": {"S": generation},
                ":kind": {"S": batch.kind},
                ":memory": {"S": memory},
                ":ns": {"S": namespace},
                ":tool": {"S": update.tool},
                ":activity": {"S": update.activity},
                ":md": {"S": update.namespace_metadata},
                ":now": {"S": now},
                ":count": {"N": str(batch.count)},
                ":bytes": {"N": str(update.total_bytes)},
            },
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
        if charge is not None and update.total_bytes > 0:  # what deleting the namespace takes off the gauge
            record_update["UpdateExpression"] += ", metered_bytes :bytes"
        tx = Transaction()
        tx.put("batch", self._batch_put(pk, namespace, batch, now))
        tx.update("record", record_update)
        self._add_tail(tx, pk, namespace, update, meta_entry, charge, now)
        try:
            with aws_call("DynamoDB commit"), tx.cancellation():
                self.client.transact_write_items(TransactItems=tx.request())
        except Cancelled as cancelled:
            if cancelled.failed("record"):
                old = cancelled.old_item("record") or {}
                if old.get("generation", {}).get("S") != generation or "deleting" in old:
                    raise NamespaceDeleting(namespace) from None
                raise StorageKindTaken(old.get("kind", {}).get("S")) from None
            self._refused(cancelled, charge)

    def commit_first(
        self,
        tenant: str,
        memory: str,
        namespace: str,
        batch: StoredBatch,
        update: NamespaceCommit,
        meta_entry: dict[str, object] | None,
        charge: Charge | None = None,
    ) -> bool:
        """The reservation folded into the commit: one transaction creates the namespace record (positions
        `0..count-1` taken, a fresh generation) with its first batch, on condition that no record exists (no
        store, reservation or delete mark ever touched the name). False when one does: nothing was written, and
        the caller reserves with `allocate` and commits as usual."""
        if batch.start != 0 or batch.entries is None:
            raise ValueError("commit_first takes an inline batch at position 0")
        pk = self.pk(tenant, memory)
        now = _now()
        record: dict[str, Any] = {
            "pk": {"S": pk},
            "sk": {"S": self.record_sk(namespace)},
            "next_position": {"N": str(batch.count)},
            "generation": {"S": uuid.uuid4().hex},
            TENANT_INDEX_ATTRIBUTE: {"S": tenant_index_value(tenant, pk)},
            "kind": {"S": batch.kind},
            "memory_name": {"S": memory},
            "namespace": {"S": namespace},
            "tool": {"S": update.tool},
            "activity": {"S": update.activity},
            "namespace_metadata": {"S": update.namespace_metadata},
            "created_at": {"S": now},
            "updated_at": {"S": now},
            "artifact_count": {"N": str(batch.count)},
            "total_bytes": {"N": str(update.total_bytes)},
        }
        if charge is not None and update.total_bytes > 0:  # what deleting the namespace takes off the gauge
            record["metered_bytes"] = {"N": str(update.total_bytes)}
        tx = Transaction()
        tx.put("batch", self._batch_put(pk, namespace, batch, now))
        tx.put(
            "record", {"TableName": self.table_name, "Item": record, "ConditionExpression": "attribute_not_exists(pk)"}
        )
        self._add_tail(tx, pk, namespace, update, meta_entry, charge, now)
        try:
            with aws_call("DynamoDB commit"), tx.cancellation():
                self.client.transact_write_items(TransactItems=tx.request())
        except Cancelled as cancelled:
            if cancelled.failed("record") or cancelled.failed("batch") or cancelled.conflicted:
                return False  # the name is in use (or being used right now): reserve, then commit
            self._refused(cancelled, charge)
        return True

    def _batch_put(self, pk: str, namespace: str, batch: StoredBatch, now: str) -> dict[str, Any]:
        item: dict[str, Any] = {
            "pk": {"S": pk},
            "sk": {"S": batch_sk(namespace, batch.start)},
            "start": {"N": str(batch.start)},
            "count": {"N": str(batch.count)},
            "kind": {"S": batch.kind},
            "created_at": {"S": now},
        }
        if batch.manifest_key is not None:
            item["manifest_key"] = {"S": batch.manifest_key}
        else:
            item["entries"] = {"S": json.dumps(batch.entries, separators=(",", ":"))}
        return {"TableName": self.table_name, "Item": item, "ConditionExpression": "attribute_not_exists(pk)"}

    def _add_tail(
        self,
        tx: Transaction,
        pk: str,
        namespace: str,
        update: NamespaceCommit,
        meta_entry: dict[str, object] | None,
        charge: Charge | None,
        now: str,
    ) -> None:
        """The commit's items after the batch and the record: the meta entry, the upload marker, the charge."""
        if meta_entry is not None:
            meta: dict[str, Any] = {
                "pk": {"S": pk},
                "sk": {"S": meta_sk(time.time_ns(), uuid.uuid4().hex)},
                "entry": {"S": json.dumps(meta_entry)},
                "created_at": {"S": now},
            }
            meta_bytes = charge.stored_bytes - update.total_bytes if charge is not None else 0
            if meta_bytes > 0:  # the entry's share of the charge: what it added to the gauge (ADR 0042)
                meta["metered_bytes"] = {"N": str(meta_bytes)}
            tx.put(
                "meta", {"TableName": self.table_name, "Item": meta, "ConditionExpression": "attribute_not_exists(sk)"}
            )
        if update.upload_id is not None:  # an upload is consumed once: the first commit that names it
            tx.put(
                "upload",
                {
                    "TableName": self.table_name,
                    "Item": {
                        "pk": {"S": pk},
                        "sk": {"S": uploaded_sk(update.upload_id)},
                        "namespace": {"S": namespace},
                        "expires_at": {"N": str(int(time.time()) + UPLOADED_MARKER_TTL_S)},
                    },
                    "ConditionExpression": "attribute_not_exists(pk)",
                },
            )
        if charge is not None:  # counted with the data it counts: a commit that fails charges nothing
            tx.extend(charge_items(self.table_name, charge))

    @staticmethod
    def _refused(cancelled: Cancelled, charge: Charge | None) -> NoReturn:
        """A cancelled commit that the record's condition did not refuse: the upload, the plan, or DynamoDB."""
        if cancelled.failed("upload"):
            raise UploadTaken() from None
        if charge is not None:
            refuse_charge(cancelled, charge)
        raise DependencyUnavailable(f"DynamoDB commit failed: {cancelled}") from None

    # ---- reads ---------------------------------------------------------------------------------------
    def _query(self, **kwargs: Any) -> Any:
        with aws_call("DynamoDB query"):
            return self.client.query(TableName=self.table_name, **kwargs)

    def batches(self, tenant: str, memory: str, namespace: str) -> list[StoredBatch]:
        out: list[StoredBatch] = []
        start_key: dict[str, Any] | None = None
        while True:
            kwargs: dict[str, Any] = {
                "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
                "ExpressionAttributeValues": {
                    ":pk": {"S": self.pk(tenant, memory)},
                    ":prefix": {"S": self.batch_prefix(namespace)},
                },
                "ConsistentRead": True,
            }
            if start_key:
                kwargs["ExclusiveStartKey"] = start_key
            page = self._query(**kwargs)
            for item in page.get("Items", []):
                out.append(
                    StoredBatch(
                        start=int(item["start"]["N"]),
                        count=int(item["count"]["N"]),
                        kind=item["kind"]["S"],
                        entries=json.loads(item["entries"]["S"]) if "entries" in item else None,
                        manifest_key=item.get("manifest_key", {}).get("S"),
                    )
                )
            start_key = page.get("LastEvaluatedKey")
            if not start_key:
                return out

    def get(self, tenant: str, memory: str, namespace: str) -> NamespaceRecord | None:
        with aws_call("DynamoDB get"):
            item = self.client.get_item(
                TableName=self.table_name,
                Key={"pk": {"S": self.pk(tenant, memory)}, "sk": {"S": self.record_sk(namespace)}},
                ConsistentRead=True,
            ).get("Item")
        return _record(item) if item and "kind" in item else None

    def list_records(
        self, tenant: str, memory: str, limit: int, cursor: str | None
    ) -> tuple[list[NamespaceRecord], str | None]:
        records: list[NamespaceRecord] = []
        start_key = _decode_cursor(cursor, self.pk(tenant, memory), NS + "#")
        while len(records) < limit:
            kwargs: dict[str, Any] = {
                "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
                "ExpressionAttributeValues": {":pk": {"S": self.pk(tenant, memory)}, ":prefix": {"S": NS + "#"}},
                "Limit": limit - len(records),
            }
            if start_key:
                kwargs["ExclusiveStartKey"] = start_key
            page = self._query(**kwargs)
            records.extend(_record(item) for item in page.get("Items", []) if "kind" in item)
            start_key = page.get("LastEvaluatedKey")
            if not start_key:
                break
        return records, _encode_cursor(start_key)

    def delete(self, tenant: str, memory: str, namespace: str) -> bool:
        pk = self.pk(tenant, memory)
        record_key = {"pk": {"S": pk}, "sk": {"S": self.record_sk(namespace)}}
        # 1. Mark the record: from here no store can commit into this incarnation or reserve a new one, and
        #    readers see an unknown namespace (a record without `kind`). The bytes it added to the tenant's
        #    gauge go off the gauge in the same write (a retried delete finds none left to take off).
        existed = self._mark_deleting(tenant, record_key)
        # 2. Every batch.
        keys: list[str] = []
        start_key: dict[str, Any] | None = None
        while True:
            kwargs: dict[str, Any] = {
                "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
                "ExpressionAttributeValues": {":pk": {"S": pk}, ":prefix": {"S": self.batch_prefix(namespace)}},
                "ProjectionExpression": "sk",
                "ConsistentRead": True,
            }
            if start_key:
                kwargs["ExclusiveStartKey"] = start_key
            page = self._query(**kwargs)
            keys.extend(item["sk"]["S"] for item in page.get("Items", []))
            start_key = page.get("LastEvaluatedKey")
            if not start_key:
                break
        self._delete_keys(pk, keys)
        return existed

    def _mark_deleting(self, tenant: str, record_key: dict[str, Any]) -> bool:
        """Mark the record deleting; returns whether it held a committed namespace.

        One UpdateItem when the record added nothing to the gauge (most records, and every one outside hosted
        mode); otherwise a transaction with the gauge, conditioned on the `metered_bytes` read, retried when a
        concurrent commit moved them."""
        names = {"#deleting": "deleting", "#kind": "kind", "#ns": "namespace", "#mb": "metered_bytes"}
        # Everything but the position counter goes: positions are never reused across incarnations,
        # so data a straggling store writes after the delete can never be mistaken for a later store's.
        mark = (
            "SET #deleting = :now REMOVE #kind, memory_name, #ns, tool, activity, namespace_metadata, "
            "created_at, updated_at, artifact_count, total_bytes, #mb"
        )
        for _attempt in range(10):
            try:
                out = self.client.update_item(
                    TableName=self.table_name,
                    Key=record_key,
                    UpdateExpression=mark,
                    ConditionExpression="attribute_exists(pk) AND (attribute_not_exists(#mb) OR #mb = :zero)",
                    ExpressionAttributeNames=names,
                    ExpressionAttributeValues={":now": {"S": _now()}, ":zero": {"N": "0"}},
                    ReturnValues="ALL_OLD",
                    ReturnValuesOnConditionCheckFailure="ALL_OLD",
                )
                return "kind" in (out.get("Attributes") or {})
            except ClientError as exc:
                if error_code(exc) != "ConditionalCheckFailedException":
                    raise DependencyUnavailable(f"DynamoDB update failed: {_reason(exc)}") from exc
                old = exc.response.get("Item") or {}
            except BotoCoreError as exc:
                raise DependencyUnavailable(f"DynamoDB update failed: {_reason(exc)}") from exc
            if not old:
                return False  # no record: nothing reserved, nothing committed (batches are swept anyway)
            metered = int(old["metered_bytes"]["N"])
            if self._mark_releasing(tenant, record_key, mark, names, metered):
                return "kind" in old
        raise DependencyUnavailable("DynamoDB delete kept racing stores into the namespace; retry the delete")

    def _mark_releasing(
        self, tenant: str, record_key: dict[str, Any], mark: str, names: dict[str, str], metered: int
    ) -> bool:
        """The mark and the gauge release in one transaction; False when `metered_bytes` changed meanwhile."""
        with_gauge = True
        for _attempt in range(3):
            tx = Transaction()
            tx.update(
                "record",
                {
                    "TableName": self.table_name,
                    "Key": record_key,
                    "UpdateExpression": mark,
                    "ConditionExpression": "#mb = :metered",
                    "ExpressionAttributeNames": names,
                    "ExpressionAttributeValues": {":now": {"S": _now()}, ":metered": {"N": str(metered)}},
                },
            )
            if with_gauge:
                tx.add("gauge", stored_bytes_release(self.table_name, tenant, metered))
            try:
                with aws_call("DynamoDB delete"), tx.cancellation():
                    self.client.transact_write_items(TransactItems=tx.request())
                return True
            except Cancelled as cancelled:
                if cancelled.failed("record") or cancelled.reasons["record"].get("Code") == "TransactionConflict":
                    return False  # a store committed (or is committing) meanwhile: read the record again
                if cancelled.failed("gauge"):
                    with_gauge = False  # no gauge (an erased tenant): mark only
                    continue
                raise DependencyUnavailable(f"DynamoDB delete failed: {cancelled}") from None
        raise DependencyUnavailable("DynamoDB delete failed; retry it")

    def release(self, tenant: str, memory: str, namespace: str) -> None:
        try:  # the record stays as a bare position counter; the next reservation mints a new generation
            self.client.update_item(
                TableName=self.table_name,
                Key={"pk": {"S": self.pk(tenant, memory)}, "sk": {"S": self.record_sk(namespace)}},
                UpdateExpression="REMOVE #deleting, #gen",
                ConditionExpression="attribute_exists(#deleting)",
                ExpressionAttributeNames={"#deleting": "deleting", "#gen": "generation"},
            )
        except ClientError as exc:
            if error_code(exc) == "ConditionalCheckFailedException":
                return  # not marked: nothing of ours to release
            raise DependencyUnavailable(f"DynamoDB delete failed: {_reason(exc)}") from exc
        except BotoCoreError as exc:
            raise DependencyUnavailable(f"DynamoDB delete failed: {_reason(exc)}") from exc

    def _delete_keys(self, pk: str, keys: list[str]) -> None:
        with aws_call("DynamoDB delete"):
            for i in range(0, len(keys), 25):
                requests = [{"DeleteRequest": {"Key": {"pk": {"S": pk}, "sk": {"S": sk}}}} for sk in keys[i : i + 25]]
                pending: dict[str, Any] = {self.table_name: requests}
                for _ in range(8):
                    pending = self.client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
                    if not pending:
                        break
                    time.sleep(0.05)
                if pending:
                    raise DependencyUnavailable("DynamoDB delete left unprocessed items; retry the delete")

    def meta_entries(
        self, tenant: str, memory: str, limit: int, cursor: str | None
    ) -> tuple[list[dict[str, object]], str | None]:
        pk = self.pk(tenant, memory)
        kwargs: dict[str, Any] = {
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": pk}, ":prefix": {"S": META_PREFIX + "#"}},
            "Limit": limit,
        }
        start_key = _decode_cursor(cursor, pk, META_PREFIX + "#")
        if start_key:
            kwargs["ExclusiveStartKey"] = start_key
        page = self._query(**kwargs)
        entries = [json.loads(item["entry"]["S"]) for item in page.get("Items", [])]
        return entries, _encode_cursor(page.get("LastEvaluatedKey"))


def _record(item: dict[str, Any]) -> NamespaceRecord:
    return NamespaceRecord(
        memory=item["memory_name"]["S"],
        namespace=item["namespace"]["S"],
        kind=item["kind"]["S"],
        tool=item["tool"]["S"],
        activity=item["activity"]["S"],
        namespace_metadata=item["namespace_metadata"]["S"],
        artifact_count=int(item["artifact_count"]["N"]),
        total_bytes=int(item["total_bytes"]["N"]),
        created_at=item["created_at"]["S"],
        updated_at=item["updated_at"]["S"],
    )


def _encode_cursor(last_key: dict[str, Any] | None) -> str | None:
    if not last_key:
        return None
    return base64.urlsafe_b64encode(last_key["sk"]["S"].encode("utf-8")).decode("ascii")


def _decode_cursor(cursor: str | None, pk: str, prefix: str) -> dict[str, Any] | None:
    """An opaque cursor is the last sort key seen; it only ever addresses the caller's own partition."""
    if cursor is None:
        return None
    try:
        sk = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("utf-8")
    except (binascii.Error, UnicodeError, ValueError):
        raise InvalidInput("cursor is not valid") from None
    if not sk.startswith(prefix) or len(sk) > 2048:
        raise InvalidInput("cursor is not valid")
    return {"pk": {"S": pk}, "sk": {"S": sk}}
