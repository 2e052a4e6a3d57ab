"""CheckpointStore on DynamoDB: a LangGraph checkpoint thread in one partition (docs/adr/0039).

Why ~820 lines (docs/adr/0058): one partition's reads, conditioned writes, copies and sweeps share the item codecs
and make their SDK calls in the module of the method a use case calls (the call-depth rule); the copy's merge
rules are the pure checkpoint_view.

Partition `CKP#{tenant}#{thread}` (adapters/layout.py):
- `#CKP`                                   the thread: created_at, ancestry, floors, holds, deleted (JSON / map);
- `C#{ns}#{checkpoint_id}`                 a checkpoint: parent_id, metadata (JSON), type, data (B) or blob_key;
- `C#{ns}#{checkpoint_id}#W#{task}#{idx}`  a pending write: task_id, task_path, idx, channel, type, data/blob_key;
- `C#{ns}#~`                               the head of a namespace of a copy or of a thread with hidden items: the
                                           thread's read state, so a newest-first Query meets it first.
Every item carries `ns` (its namespace, digested in the key when long) and `tenant`; `metered_bytes` what it added to
the tenant's gauge (taken off when the item is deleted, in the same transaction).

The latest checkpoint of a namespace is one Query of one item (`newest`): the checkpoint itself when it has no writes
(they sort above it), else a write of it, and a second Query reads exactly its other items (docs/adr/0053). The merged
view of a copy (`view_*`: its own items and each source's at ids up to its cut, written before the copy, hidden
below its floors) is read here, as the thread forks' ancestry is in the RunStore (docs/adr/0037), so a use case
reaches DynamoDB through three modules; its merge rules are the pure `checkpoint_view` (ADR 0058).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from offprompt.errors import DependencyUnavailable
from offprompt.metering import Charge
from offprompt.ports import (
    CheckpointGroup,
    CheckpointRace,
    CheckpointShared,
    CheckpointThreadChanged,
    CheckpointThreadState,
    IdBound,
    NewestRead,
    StoredCheckpoint,
    StoredCheckpointWrite,
    TypedBlob,
)

from . import checkpoint_view as view
from . import gauge
from .aws_errors import CONDITION_FAILED, aws_call, aws_call_allowing
from .dynamodb_account import refuse_charge, stored_bytes_release
from .dynamodb_table import DynamoDbTable
from .dynamodb_transaction import MAX_ITEMS, Cancelled, Transaction, at_version
from .layout import (
    CHECKPOINT_HEAD,
    CHECKPOINT_PREFIX,
    CHECKPOINT_THREAD_SK,
    TENANT_INDEX_ATTRIBUTE,
    checkpoint_head_sk,
    checkpoint_last_sk,
    checkpoint_ns_prefix,
    checkpoint_sk,
    checkpoint_thread_pk,
    checkpoint_write_sk,
    tenant_index_value,
)

_PAGE = 200
_BATCH_WRITE = 25
#: One transaction of pending writes: at most this many, and this many bytes inline (DynamoDB's 4 MB a transaction).
WRITES_PER_TRANSACTION = 25
_TRANSACTION_INLINE_BYTES = 3 * 1024 * 1024


class DynamoDbCheckpointStore(DynamoDbTable):
    # ---- reads ----------------------------------------------------------------------------------------------
    def thread(self, tenant: str, thread_id: str) -> CheckpointThreadState | None:
        out = self._call(
            "get_item",
            TableName=self.table_name,
            Key=_k(checkpoint_thread_pk(tenant, thread_id), CHECKPOINT_THREAD_SK),
            ConsistentRead=True,
        )
        item = out.get("Item")
        return _state(item) if item else None

    def thread_and_checkpoint(
        self, tenant: str, thread_id: str, namespace: str, checkpoint_id: str
    ) -> tuple[CheckpointThreadState | None, StoredCheckpoint | None]:
        pk = checkpoint_thread_pk(tenant, thread_id)
        keys = [_k(pk, CHECKPOINT_THREAD_SK), _k(pk, checkpoint_sk(namespace, checkpoint_id))]
        found = self._batch_get(keys)
        state = next((_state(i) for i in found if i["sk"]["S"] == CHECKPOINT_THREAD_SK), None)
        checkpoint = next((_checkpoint(i) for i in found if i["sk"]["S"] != CHECKPOINT_THREAD_SK), None)
        return state, checkpoint

    def newest(self, tenant: str, thread_id: str, namespace: str) -> NewestRead:
        """The namespace's newest item (one Query of one item): its head, or its newest checkpoint, or a write of
        it, whose remaining items are then read exactly (docs/adr/0053)."""
        first = self._newest_item(tenant, thread_id, namespace, None, None, below=None)
        if first is None:
            return NewestRead(None, None)
        if first.get("kind", {}).get("S") == "h":
            return NewestRead(_state(first), None)
        return NewestRead(None, view.current(self._group_of(tenant, thread_id, namespace, first)))

    def newest_groups(
        self, tenant: str, thread_id: str, namespace: str, *, lower: IdBound | None, upper: IdBound | None
    ) -> Iterator[CheckpointGroup]:
        """`groups`, newest first, each read exactly: a one-item Query names the next group's checkpoint, a second
        reads the rest of its items when it has writes. For readers that stop early (`view_latest`)."""
        below: str | None = None
        while True:
            first = self._newest_item(tenant, thread_id, namespace, lower, upper, below=below)
            if first is None:
                return
            if first.get("kind", {}).get("S") == "h":
                below = first["sk"]["S"]
                continue
            group = self._group_of(tenant, thread_id, namespace, first)
            if view.within(group.checkpoint_id, lower, upper):
                yield group
            below = checkpoint_sk(namespace, group.checkpoint_id)

    def _newest_item(
        self,
        tenant: str,
        thread_id: str,
        namespace: str,
        lower: IdBound | None,
        upper: IdBound | None,
        *,
        below: str | None,
    ) -> dict[str, Any] | None:
        """The newest item within the bounds, strictly below sort key `below` when given (a position, not
        necessarily an item's: DynamoDB resumes after it)."""
        pk = checkpoint_thread_pk(tenant, thread_id)
        params = self._range_params(pk, namespace, lower, upper)
        if below is not None:
            params["ExclusiveStartKey"] = _k(pk, below)
        items = self._call("query", **params, Limit=1).get("Items") or []
        return items[0] if items else None

    def _group_of(self, tenant: str, thread_id: str, namespace: str, first: dict[str, Any]) -> CheckpointGroup:
        """The group of `first` (its checkpoint's newest item): the checkpoint alone when `first` is it (its writes
        sort above it), else the rest of its items, newest first, after `first`."""
        items = [first]
        if first.get("kind", {}).get("S") == "w":
            pk = checkpoint_thread_pk(tenant, thread_id)
            ident = (first["checkpoint_id"]["S"], True)
            params = self._range_params(pk, namespace, ident, ident)
            items.extend(self._pages(params, _PAGE, start=_k(pk, first["sk"]["S"])))
        return next(_group(iter(items)))

    def groups(
        self, tenant: str, thread_id: str, namespace: str, *, lower: IdBound | None, upper: IdBound | None
    ) -> Iterator[CheckpointGroup]:
        items = self._query(tenant, thread_id, namespace, lower, upper)
        for group in _group(items):
            if view.within(group.checkpoint_id, lower, upper):
                yield group

    def namespaces(self, tenant: str, thread_id: str) -> list[str]:
        """Skip-scan: the first item of each namespace, then past that namespace's last possible key."""
        pk = checkpoint_thread_pk(tenant, thread_id)
        found: list[str] = []
        start = CHECKPOINT_PREFIX + "#"
        while True:
            out = self._call(
                "query",
                TableName=self.table_name,
                KeyConditionExpression="pk = :pk AND sk > :start",
                ExpressionAttributeValues={":pk": {"S": pk}, ":start": {"S": start}},
                ConsistentRead=True,
                Limit=1,
                ProjectionExpression="sk, ns",
            )
            items = out.get("Items") or []
            if not items or not items[0]["sk"]["S"].startswith(CHECKPOINT_PREFIX + "#"):
                return found
            ns = items[0]["ns"]["S"]
            found.append(ns)
            start = checkpoint_ns_prefix(ns) + CHECKPOINT_HEAD + "~"

    # ---- the merged view of a thread (a copy reads its sources' partitions too): the rules in checkpoint_view ---
    def view_namespaces(self, tenant: str, state: CheckpointThreadState) -> list[str]:
        return view.visible_namespaces(state, lambda thread: self.namespaces(tenant, thread))

    def view_groups(
        self,
        tenant: str,
        state: CheckpointThreadState,
        namespace: str,
        *,
        lower: IdBound | None = None,
        upper: IdBound | None = None,
    ) -> Iterator[CheckpointGroup]:
        yield from view.merged(view.streams(tenant, state, namespace, lower, upper, self.groups))

    def view_all_groups(
        self, tenant: str, state: CheckpointThreadState, *, upper: IdBound | None = None
    ) -> Iterator[CheckpointGroup]:
        namespaces = self.view_namespaces(tenant, state)
        return view.merged_namespaces([self.view_groups(tenant, state, ns, upper=upper) for ns in namespaces])

    def view_latest(self, tenant: str, state: CheckpointThreadState, namespace: str) -> CheckpointGroup | None:
        return view.latest(view.streams(tenant, state, namespace, None, None, self.newest_groups))

    def view_checkpoint(
        self, tenant: str, state: CheckpointThreadState, namespace: str, checkpoint_id: str
    ) -> CheckpointGroup | None:
        bound = (checkpoint_id, True)
        found = self.view_groups(tenant, state, namespace, lower=bound, upper=bound)
        return next((g for g in found if g.checkpoint is not None), None)

    def own_items(self, tenant: str, thread_id: str) -> list[StoredCheckpoint | StoredCheckpointWrite]:
        items: list[StoredCheckpoint | StoredCheckpointWrite] = []
        for ns in self.namespaces(tenant, thread_id):
            for group in self.groups(tenant, thread_id, ns, lower=None, upper=None):
                items.extend(group.writes)
                if group.checkpoint is not None:
                    items.append(group.checkpoint)
        return items

    # ---- writes ---------------------------------------------------------------------------------------------
    def put_checkpoint(
        self,
        tenant: str,
        thread_id: str,
        checkpoint: StoredCheckpoint,
        *,
        create: CheckpointThreadState | None,
        head: CheckpointThreadState | None,
        must_be_new: bool,
        replacing: int | None = None,
        charge: Charge | None = None,
    ) -> None:
        pk = checkpoint_thread_pk(tenant, thread_id)
        tx = Transaction()
        # Conditioned on what the put read (ADR 0042): no item (`replacing` None), or one holding `replacing`
        # metered bytes; the gauge moves by new - old in the same transaction.
        put = gauge.conditioned(
            {"TableName": self.table_name, "Item": _checkpoint_item(pk, tenant, thread_id, checkpoint)},
            None if must_be_new else replacing,
        )
        tx.put("checkpoint", put)
        if create is not None:
            tx.put(
                "thread",
                {
                    "TableName": self.table_name,
                    "Item": _root_item(pk, tenant, create),
                    "ConditionExpression": "attribute_not_exists(sk)",
                },
            )
        else:  # the thread the put read is still there and no delete has begun (docs/concurrency.md)
            tx.add("thread", self._live(pk))
        if head is not None:
            tx.put("head", {"TableName": self.table_name, "Item": _head_item(pk, tenant, head, checkpoint.namespace)})
        tx.extend(gauge.gauge_change(self.table_name, charge, checkpoint.metered_bytes - (replacing or 0)))
        shared = ("checkpoint",) if must_be_new else ()
        self._transact(tx, charge, shared=shared, raced=("thread", "checkpoint"))

    def _live(self, pk: str) -> dict[str, Any]:
        """The condition check that a thread item exists and is not fenced by a delete: a write into a thread
        whose delete began (or finished) meanwhile would leave items no thread item reaches, unreadable and
        still on the gauge (CheckpointRace: read the thread again)."""
        return {
            "ConditionCheck": {
                "TableName": self.table_name,
                "Key": _k(pk, CHECKPOINT_THREAD_SK),
                "ConditionExpression": "attribute_exists(sk) AND attribute_not_exists(#fence)",
                "ExpressionAttributeNames": dict(_FENCE_NAMES),
            }
        }

    def put_writes(
        self,
        tenant: str,
        thread_id: str,
        writes: Sequence[StoredCheckpointWrite],
        *,
        head: CheckpointThreadState | None,
        create: CheckpointThreadState | None = None,
        pricing: Callable[[Sequence[StoredCheckpointWrite]], Charge | None] | None = None,
    ) -> list[StoredCheckpointWrite]:
        """Transactions of ≤ WRITES_PER_TRANSACTION writes, each write conditioned on the stored item (ADR 0042): an
        idx ≥ 0 only where none is stored (the first wins: a lost race drops it), an idx < 0 on the metered bytes
        of the one it replaces (re-read and retried when it changed); `pricing(chunk)` the chunk's charge, its
        gauge moved by new - old. The writes stored."""
        pk = checkpoint_thread_pk(tenant, thread_id)
        if create is not None:  # writes ahead of the thread's first checkpoint: its root item first (never orphans)
            self._create_thread(pk, tenant, create)
        stored: list[StoredCheckpointWrite] = []
        for chunk in _write_chunks(writes):
            stored.extend(self._put_write_chunk(pk, tenant, thread_id, chunk, pricing))
        if head is not None and writes:
            self._batch_write([{"PutRequest": {"Item": _head_item(pk, tenant, head, writes[0].namespace)}}])
        return stored

    def _put_write_chunk(
        self,
        pk: str,
        tenant: str,
        thread_id: str,
        chunk: list[StoredCheckpointWrite],
        pricing: Callable[[Sequence[StoredCheckpointWrite]], Charge | None] | None,
    ) -> list[StoredCheckpointWrite]:
        previous = self._metered(pk, [_sk_of(w) for w in chunk if w.idx < 0])
        for _attempt in range(8):
            if not chunk:
                return []
            tx = Transaction()
            tx.add("thread", self._live(pk))
            delta = 0
            for n, w in enumerate(chunk):
                old = previous.get(_sk_of(w)) if w.idx < 0 else None
                item = {"TableName": self.table_name, "Item": _write_item(pk, tenant, thread_id, w)}
                tx.put(str(n), gauge.conditioned(item, old))
                delta += w.metered_bytes - (old or 0)
            charge = pricing(chunk) if pricing is not None else None
            tx.extend(gauge.gauge_change(self.table_name, charge, delta))
            try:
                with aws_call("DynamoDB transact_write_items"), tx.cancellation():
                    self.client.transact_write_items(TransactItems=tx.request())
                return chunk
            except Cancelled as cancelled:
                if charge is not None:
                    refuse_charge(cancelled, charge)
                if cancelled.failed("thread"):
                    raise CheckpointRace() from None
                failed = {int(t) for t in cancelled.failed_tags() if t.isdigit()}
                if not failed and not cancelled.conflicted:
                    raise cancelled.unavailable() from None
                chunk = [w for n, w in enumerate(chunk) if n not in failed or w.idx < 0]  # idx ≥ 0: the first won
                previous = self._metered(pk, [_sk_of(w) for w in chunk if w.idx < 0])
        raise DependencyUnavailable("pending writes kept changing while they were stored; retry")

    def _metered(self, pk: str, sks: Sequence[str]) -> dict[str, int]:
        """The metered bytes of the items stored at `sks` (absent: no item)."""
        keys = [_k(pk, sk) for sk in dict.fromkeys(sks)]
        found: dict[str, int] = {}
        for start in range(0, len(keys), 100):
            projection = {"ProjectionExpression": "sk, #mb", "ExpressionAttributeNames": gauge.names()}
            for item in self._batch_get(keys[start : start + 100], **projection):
                found[item["sk"]["S"]] = gauge.metered_of(item)
        return found

    def _batch_get(self, keys: list[dict[str, Any]], **options: Any) -> list[dict[str, Any]]:
        """The items at ≤ 100 `keys` (consistent reads), unprocessed keys asked again."""
        request: dict[str, Any] = {self.table_name: {"Keys": keys, "ConsistentRead": True, **options}}
        found: list[dict[str, Any]] = []
        for _attempt in range(8):
            out = self._call("batch_get_item", RequestItems=request)
            found.extend(out.get("Responses", {}).get(self.table_name, []))
            request = out.get("UnprocessedKeys") or {}
            if not request:
                return found
        raise DependencyUnavailable("DynamoDB batch_get_item left keys unprocessed")

    def _create_thread(self, pk: str, tenant: str, state: CheckpointThreadState) -> None:
        """The thread's root item (with its tenant-index attribute) unless one exists: another writer's is kept."""
        with aws_call_allowing("DynamoDB put_item", CONDITION_FAILED):
            self.client.put_item(
                TableName=self.table_name,
                Item=_root_item(pk, tenant, state),
                ConditionExpression="attribute_not_exists(sk)",
            )

    def copy(
        self,
        tenant: str,
        target: CheckpointThreadState,
        holds: Sequence[tuple[str, dict[str, str]]],
        *,
        source_version: int,
    ) -> bool:
        pk = checkpoint_thread_pk(tenant, target.thread_id)
        tx = Transaction()
        tx.put(
            "target",
            {
                "TableName": self.table_name,
                "Item": _root_item(pk, tenant, target),
                "ConditionExpression": "attribute_not_exists(pk)",
            },
        )
        for n, (ancestor, cuts) in enumerate(holds):
            # Every hold bumps its thread's version (a sweep planned before it re-plans); the source's is checked
            # too (a prune, delete or release since the copy read it: read again). A fenced thread takes no hold.
            condition = "attribute_exists(holds) AND attribute_not_exists(#fence)"
            values = {":cuts": {"S": json.dumps(cuts, sort_keys=True)}, ":one": {"N": "1"}, ":zero": {"N": "0"}}
            if n == 0:
                check, at = at_version(source_version)
                condition, values = f"{condition} AND {check}", {**values, **at}
            tx.update(
                f"hold.{n}",
                {
                    "TableName": self.table_name,
                    "Key": _k(checkpoint_thread_pk(tenant, ancestor), CHECKPOINT_THREAD_SK),
                    "UpdateExpression": "SET holds.#h = :cuts, #ver = if_not_exists(#ver, :zero) + :one",
                    "ConditionExpression": condition,
                    "ExpressionAttributeNames": {"#h": target.thread_id, **_VERSION_NAMES, **_FENCE_NAMES},
                    "ExpressionAttributeValues": values,
                },
            )
        try:
            with aws_call("DynamoDB transact_write_items"), tx.cancellation():
                self.client.transact_write_items(TransactItems=tx.request())
        except Cancelled as cancelled:
            if cancelled.failed_tags():
                return False
            raise cancelled.unavailable() from None
        return True

    def save_state(self, tenant: str, state: CheckpointThreadState, namespaces: Sequence[str]) -> int:
        pk = checkpoint_thread_pk(tenant, state.thread_id)
        values = {
            ":a": {"S": json.dumps([[t, c, at] for t, c, at in state.ancestry])},
            ":f": {"S": json.dumps({ns: list(b) for ns, b in (state.floors or {}).items()})},
            ":d": {"BOOL": state.deleted},
        }
        # never a partial thread item of a deleted thread (the version check fails on a missing item)
        self._bump(pk, state.version, "SET #a = :a, #f = :f, #d = :d", {"#a": "ancestry", "#f": "floors",
                   "#d": "deleted"}, values)  # fmt: skip
        if state.special:
            requests = [{"PutRequest": {"Item": _head_item(pk, tenant, state, ns)}} for ns in namespaces]
        else:
            requests = [{"DeleteRequest": {"Key": _k(pk, checkpoint_head_sk(ns))}} for ns in namespaces]
        self._batch_write(requests)
        return state.version + 1

    def fence(self, tenant: str, thread_id: str, version: int) -> int:
        pk = checkpoint_thread_pk(tenant, thread_id)
        self._bump(pk, version, "SET #fence = :true", _FENCE_NAMES, {":true": {"BOOL": True}})
        return version + 1

    def _bump(self, pk: str, version: int, update: str, names: dict[str, str], values: dict[str, Any]) -> None:
        """One update of the thread item, conditioned on `version` and moving it to version + 1."""
        check, at = at_version(version)
        with aws_call_allowing("DynamoDB update_item", CONDITION_FAILED) as call:
            self.client.update_item(
                TableName=self.table_name,
                Key=_k(pk, CHECKPOINT_THREAD_SK),
                UpdateExpression=f"{update}, #ver = :next",
                ConditionExpression=check,
                ExpressionAttributeNames={**names, **_VERSION_NAMES},
                ExpressionAttributeValues={**values, **at, ":next": {"N": str(version + 1)}},
            )
        if call.refused:
            raise CheckpointThreadChanged() from None

    def release_hold(self, tenant: str, ancestor: str, holder: str) -> None:
        with aws_call_allowing("DynamoDB update_item", CONDITION_FAILED) as call:
            self.client.update_item(
                TableName=self.table_name,
                Key=_k(checkpoint_thread_pk(tenant, ancestor), CHECKPOINT_THREAD_SK),
                UpdateExpression="REMOVE holds.#h SET #ver = if_not_exists(#ver, :zero) + :one",
                ConditionExpression="attribute_exists(holds)",
                ExpressionAttributeNames={"#h": holder, **_VERSION_NAMES},
                ExpressionAttributeValues={":zero": {"N": "0"}, ":one": {"N": "1"}},
            )
        if call.refused:
            return

    def delete_items(
        self,
        tenant: str,
        thread_id: str,
        items: Sequence[StoredCheckpoint | StoredCheckpointWrite],
        *,
        version: int | None,
    ) -> int | None:
        """Chunks of one transaction each: the deletes (each conditioned on the item being there), their bytes
        off the gauge, and the thread item's version checked (the one the sweep planned with) and bumped. A chunk
        cancelled because an item was gone already is retried without it, so no byte is taken off twice; one
        cancelled by the version (a copy, release, prune or delete committed since the plan) deletes nothing:
        CheckpointThreadChanged, read and plan again. `version` None: a fenced thread's sweep (no copy can hold
        it), not checked, so concurrent deletes of it do not send each other back."""
        pk = checkpoint_thread_pk(tenant, thread_id)
        pending = list(items)
        while pending:
            chunk, pending = pending[: MAX_ITEMS - 2], pending[MAX_ITEMS - 2 :]
            for _attempt in range(4):
                if not chunk:
                    break
                tx = Transaction()
                if version is not None:
                    check, at = at_version(version)
                    tx.update(
                        "thread",
                        {
                            "TableName": self.table_name,
                            "Key": _k(pk, CHECKPOINT_THREAD_SK),
                            "UpdateExpression": "SET #ver = :next",
                            "ConditionExpression": check,
                            "ExpressionAttributeNames": dict(_VERSION_NAMES),
                            "ExpressionAttributeValues": {**at, ":next": {"N": str(version + 1)}},
                        },
                    )
                for n, item in enumerate(chunk):  # conditioned on what it takes off the gauge (ADR 0042)
                    delete = {"TableName": self.table_name, "Key": _k(pk, _sk_of(item))}
                    tx.delete(str(n), gauge.conditioned(delete, item.metered_bytes))
                released = sum(i.metered_bytes for i in chunk)
                if released:
                    tx.add("release", stored_bytes_release(self.table_name, tenant, released))
                try:
                    with aws_call("DynamoDB transact_write_items"), tx.cancellation():
                        self.client.transact_write_items(TransactItems=tx.request())
                    version = None if version is None else version + 1
                    break
                except Cancelled as cancelled:
                    gone = {int(t) for t in cancelled.failed_tags() if t.isdigit()}
                    if cancelled.failed("thread"):
                        raise CheckpointThreadChanged() from None
                    if cancelled.failed("release"):
                        self._batch_write([{"DeleteRequest": {"Key": _k(pk, _sk_of(i))}} for i in chunk])
                        break  # an erased tenant's gauge: nothing to take bytes off
                    if not gone and not cancelled.conflicted:
                        raise cancelled.unavailable() from None
                    # an item replaced meanwhile is deleted for what it holds now; one gone is skipped
                    now = self._metered(pk, [_sk_of(i) for n, i in enumerate(chunk) if n in gone])
                    chunk = [
                        i if n not in gone else dataclasses.replace(i, metered_bytes=now[_sk_of(i)])
                        for n, i in enumerate(chunk)
                        if n not in gone or _sk_of(i) in now
                    ]
            else:
                raise DependencyUnavailable("checkpoint items kept changing while they were deleted")
        return version

    def delete_thread_item(self, tenant: str, thread_id: str, version: int | None) -> bool:
        pk = checkpoint_thread_pk(tenant, thread_id)
        heads = [
            item
            for item in self._all(pk)
            if item["sk"]["S"].startswith(CHECKPOINT_PREFIX + "#") and item["sk"]["S"].endswith("#" + CHECKPOINT_HEAD)
        ]
        self._batch_write([{"DeleteRequest": {"Key": _k(pk, h["sk"]["S"])}} for h in heads])
        # at the version planned with, or (None) still fenced: no hold can have appeared either way
        check, at = at_version(version) if version is not None else ("attribute_exists(#fence)", {})
        with aws_call_allowing("DynamoDB delete_item", CONDITION_FAILED) as call:
            self.client.delete_item(
                TableName=self.table_name,
                Key=_k(pk, CHECKPOINT_THREAD_SK),
                ConditionExpression=f"(attribute_not_exists(holds) OR size(holds) = :zero) AND {check}",
                ExpressionAttributeNames=dict(_VERSION_NAMES if version is not None else _FENCE_NAMES),
                ExpressionAttributeValues={":zero": {"N": "0"}, **at},
            )
        return not call.refused

    # ---- helpers --------------------------------------------------------------------------------------------
    def _transact(
        self, tx: Transaction, charge: Charge | None, *, shared: tuple[str, ...] = (), raced: tuple[str, ...] = ()
    ) -> None:
        try:
            with aws_call("DynamoDB transact_write_items"), tx.cancellation():
                self.client.transact_write_items(TransactItems=tx.request())
        except Cancelled as cancelled:
            if charge is not None:
                refuse_charge(cancelled, charge)
            if any(cancelled.failed(t) for t in shared):
                raise CheckpointShared() from None
            if any(cancelled.failed(t) for t in raced) or cancelled.conflicted:
                raise CheckpointRace() from None
            raise cancelled.unavailable() from None

    def _batch_write(self, requests: list[dict[str, Any]]) -> None:
        for start in range(0, len(requests), _BATCH_WRITE):
            pending: dict[str, Any] = {self.table_name: requests[start : start + _BATCH_WRITE]}
            for _attempt in range(8):
                out = self._call("batch_write_item", RequestItems=pending)
                pending = out.get("UnprocessedItems") or {}
                if not pending:
                    break
            else:
                raise DependencyUnavailable("DynamoDB batch_write_item left items unprocessed")

    def _query(
        self,
        tenant: str,
        thread_id: str,
        namespace: str,
        lower: IdBound | None,
        upper: IdBound | None,
    ) -> Iterator[dict[str, Any]]:
        params = self._range_params(checkpoint_thread_pk(tenant, thread_id), namespace, lower, upper)
        return self._pages(params, _PAGE)

    def _range_params(self, pk: str, namespace: str, lower: IdBound | None, upper: IdBound | None) -> dict[str, Any]:
        """A newest-first, consistent Query of a namespace's items between the bounds (its head included when
        `upper` is None)."""
        low = checkpoint_ns_prefix(namespace)
        high = checkpoint_head_sk(namespace)
        if lower is not None:
            low = checkpoint_sk(namespace, lower[0]) if lower[1] else checkpoint_last_sk(namespace, lower[0])
        if upper is not None:
            high = checkpoint_last_sk(namespace, upper[0]) if upper[1] else checkpoint_sk(namespace, upper[0])
        return {
            "TableName": self.table_name,
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :low AND :high",
            "ExpressionAttributeValues": {":pk": {"S": pk}, ":low": {"S": low}, ":high": {"S": high}},
            "ScanIndexForward": False,
            "ConsistentRead": True,
        }

    def _pages(
        self, params: dict[str, Any], limit: int, *, start: dict[str, Any] | None = None
    ) -> Iterator[dict[str, Any]]:
        while True:
            out = self._call("query", **params, Limit=limit, **({"ExclusiveStartKey": start} if start else {}))
            yield from out.get("Items", [])
            start = out.get("LastEvaluatedKey")
            if not start:
                return

    def _all(self, pk: str) -> Iterator[dict[str, Any]]:
        start: dict[str, Any] | None = None
        while True:
            out = self._call(
                "query",
                TableName=self.table_name,
                KeyConditionExpression="pk = :pk",
                ExpressionAttributeValues={":pk": {"S": pk}},
                ConsistentRead=True,
                ProjectionExpression="pk, sk",
                **({"ExclusiveStartKey": start} if start else {}),
            )
            yield from out.get("Items", [])
            start = out.get("LastEvaluatedKey")
            if not start:
                return

    def _call(self, operation: str, **params: Any) -> Any:
        with aws_call(f"DynamoDB {operation}"):
            return getattr(self.client, operation)(**params)


def _write_chunks(writes: Sequence[StoredCheckpointWrite]) -> Iterator[list[StoredCheckpointWrite]]:
    chunk: list[StoredCheckpointWrite] = []
    size = 0
    for w in writes:
        inline = len(w.blob.data or b"")
        if chunk and (len(chunk) >= WRITES_PER_TRANSACTION or size + inline > _TRANSACTION_INLINE_BYTES):
            yield chunk
            chunk, size = [], 0
        chunk.append(w)
        size += inline
    if chunk:
        yield chunk


#: The thread item's version and fence (docs/concurrency.md).
_VERSION_NAMES = {"#ver": "version"}
_FENCE_NAMES = {"#fence": "deleting"}


def _group(items: Iterator[dict[str, Any]]) -> Iterator[CheckpointGroup]:
    """Newest-first items (a checkpoint's writes, then the checkpoint) as groups; heads are skipped."""
    current: tuple[str, str] | None = None
    writes: list[StoredCheckpointWrite] = []
    for item in items:
        kind = item.get("kind", {}).get("S")
        if kind == "h":
            continue
        ident = (item["ns"]["S"], item["checkpoint_id"]["S"])
        if current is not None and ident != current:
            yield CheckpointGroup(current[0], current[1], None, tuple(reversed(writes)))
            writes = []
        current = ident
        if kind == "w":
            writes.append(_write(item))
            continue
        yield CheckpointGroup(ident[0], ident[1], _checkpoint(item), tuple(reversed(writes)))
        current, writes = None, []
    if current is not None:
        yield CheckpointGroup(current[0], current[1], None, tuple(reversed(writes)))


def _sk_of(item: StoredCheckpoint | StoredCheckpointWrite) -> str:
    if isinstance(item, StoredCheckpoint):
        return checkpoint_sk(item.namespace, item.checkpoint_id)
    return checkpoint_write_sk(item.namespace, item.checkpoint_id, item.task_id, item.idx, item.version)


def _k(pk: str, sk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def _blob_attributes(blob: TypedBlob) -> dict[str, Any]:
    out: dict[str, Any] = {"type": {"S": blob.type}, "size": {"N": str(blob.size)}}
    if blob.key is not None:
        out["blob_key"] = {"S": blob.key}
    else:
        out["data"] = {"B": blob.data or b""}
    return out


def _blob(item: dict[str, Any]) -> TypedBlob:
    return TypedBlob(
        type=item["type"]["S"],
        size=int(item["size"]["N"]),
        data=bytes(item["data"]["B"]) if "data" in item else None,
        key=item["blob_key"]["S"] if "blob_key" in item else None,
    )


def _checkpoint_item(pk: str, tenant: str, thread_id: str, c: StoredCheckpoint) -> dict[str, Any]:
    item = {
        **_k(pk, checkpoint_sk(c.namespace, c.checkpoint_id)),
        "kind": {"S": "c"},
        "tenant": {"S": tenant},
        "thread_id": {"S": thread_id},
        "ns": {"S": c.namespace},
        "checkpoint_id": {"S": c.checkpoint_id},
        "parent_id": {"S": c.parent_id or ""},
        "metadata": {"S": c.metadata_json},
        "written_at": {"N": repr(float(c.written_at))},
        **_blob_attributes(c.blob),
    }
    if c.metered_bytes:
        item["metered_bytes"] = {"N": str(c.metered_bytes)}
    return item


def _checkpoint(item: dict[str, Any]) -> StoredCheckpoint:
    return StoredCheckpoint(
        namespace=item["ns"]["S"],
        checkpoint_id=item["checkpoint_id"]["S"],
        parent_id=item["parent_id"]["S"] or None,
        metadata_json=item["metadata"]["S"],
        blob=_blob(item),
        metered_bytes=int(item.get("metered_bytes", {}).get("N", "0")),
        written_at=float(item.get("written_at", {}).get("N", "0")),
    )


def _write_item(pk: str, tenant: str, thread_id: str, w: StoredCheckpointWrite) -> dict[str, Any]:
    item = {
        **_k(pk, checkpoint_write_sk(w.namespace, w.checkpoint_id, w.task_id, w.idx, w.version)),
        "kind": {"S": "w"},
        "tenant": {"S": tenant},
        "thread_id": {"S": thread_id},
        "ns": {"S": w.namespace},
        "checkpoint_id": {"S": w.checkpoint_id},
        "task_id": {"S": w.task_id},
        "task_path": {"S": w.task_path},
        "idx": {"N": str(w.idx)},
        "channel": {"S": w.channel},
        "written_at": {"N": repr(float(w.written_at))},
        **_blob_attributes(w.blob),
    }
    if w.metered_bytes:
        item["metered_bytes"] = {"N": str(w.metered_bytes)}
    if w.version:
        item["version"] = {"N": str(w.version)}
    return item


def _write(item: dict[str, Any]) -> StoredCheckpointWrite:
    return StoredCheckpointWrite(
        namespace=item["ns"]["S"],
        checkpoint_id=item["checkpoint_id"]["S"],
        task_id=item["task_id"]["S"],
        task_path=item["task_path"]["S"],
        idx=int(item["idx"]["N"]),
        channel=item["channel"]["S"],
        blob=_blob(item),
        metered_bytes=int(item.get("metered_bytes", {}).get("N", "0")),
        written_at=float(item.get("written_at", {}).get("N", "0")),
        version=int(item.get("version", {}).get("N", "0")),
    )


def _state_attributes(state: CheckpointThreadState) -> dict[str, Any]:
    return {
        "thread_id": {"S": state.thread_id},
        "created_at": {"N": repr(float(state.created_at))},
        "ancestry": {"S": json.dumps([[t, c, at] for t, c, at in state.ancestry])},
        "floors": {"S": json.dumps({ns: list(b) for ns, b in (state.floors or {}).items()})},
        "deleted": {"BOOL": state.deleted},
    }


def _state_item(pk: str, tenant: str, state: CheckpointThreadState) -> dict[str, Any]:
    # `holds` starts as an empty map, so a copy's hold is one path update (`SET holds.#h`).
    return {**_k(pk, CHECKPOINT_THREAD_SK), "tenant": {"S": tenant}, "holds": {"M": {}}, **_state_attributes(state)}


def _root_item(pk: str, tenant: str, state: CheckpointThreadState) -> dict[str, Any]:
    """A new thread item: the family's root, so it carries the tenant-index attribute (export and erase find it)."""
    return {**_state_item(pk, tenant, state), TENANT_INDEX_ATTRIBUTE: {"S": tenant_index_value(tenant, pk)}}


def _head_item(pk: str, tenant: str, state: CheckpointThreadState, namespace: str) -> dict[str, Any]:
    return {
        **_k(pk, checkpoint_head_sk(namespace)),
        "kind": {"S": "h"},
        "tenant": {"S": tenant},
        "ns": {"S": namespace},
        **_state_attributes(state),
    }


def _state(item: dict[str, Any]) -> CheckpointThreadState:
    ancestry = json.loads(item.get("ancestry", {}).get("S", "[]"))
    floors = json.loads(item.get("floors", {}).get("S", "{}"))
    holds = {name: json.loads(value["S"]) for name, value in item.get("holds", {}).get("M", {}).items()}
    return CheckpointThreadState(
        thread_id=item["thread_id"]["S"],
        created_at=float(item.get("created_at", {}).get("N", "0")),
        ancestry=tuple((str(t), dict(c), float(at)) for t, c, at in ancestry),
        floors={ns: (str(b[0]), bool(b[1])) for ns, b in floors.items()} or None,
        holds=holds or None,
        deleted=bool(item.get("deleted", {}).get("BOOL", False)),
        version=int(item.get("version", {}).get("N", "0")),
        deleting=bool(item.get("deleting", {}).get("BOOL", False)),
    )
