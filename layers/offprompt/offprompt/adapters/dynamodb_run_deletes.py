"""The RunStore's forks and deletes (docs/adr/0037, 0021): a fork's hold on the thread it reads, a thread's
delete (marked, emptied, released), deleting runs with their counts and gauge, the atomic pop of an item.

A part of `DynamoDbRunStore` (dynamodb_runs.py); every SDK call is made here, in the method's own module, so a
use case still reaches DynamoDB through three modules (tests/infrastructure/test_call_depth.py)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from typing import Any

from offprompt.errors import DependencyUnavailable
from offprompt.ports import (
    ForkRaced,
    ForkSpec,
    StoredRun,
    ThreadChanged,
    ThreadDeleting,
    ThreadExists,
    ThreadHasForks,
    ThreadState,
)

from .aws_errors import CONDITION_FAILED, aws_call, aws_call_allowing
from .dynamodb_account import stored_bytes_release
from .dynamodb_run_items import (
    _TRANSACTION_ATTEMPTS,
    ITEMS_PER_TRANSACTION,
    RUNS_PER_TRANSACTION,
    _ancestry,
    _count_deleted_runs,
    _Delete,
    _key,
    _n,
    _popped_id_item,
    _thread_state,
    get_request,
)
from .dynamodb_table import DynamoDbTable
from .dynamodb_transaction import Cancelled, Transaction, at_version
from .layout import (
    ACTIVITY_ATTRIBUTE,
    TENANT_INDEX_ATTRIBUTE,
    THREAD_SK,
    activity_value,
    fork_link,
    fork_link_sk,
    fork_pk,
    run_sk,
    runid_sk,
    tenant_index_value,
    thread_pk,
)


class ForksAndDeletes(DynamoDbTable):
    """Forks and deletes of `DynamoDbRunStore` (a mixin: the table and client are `DynamoDbTable`'s)."""

    def fork_thread(self, tenant: str, spec: ForkSpec) -> ThreadState:
        """One transaction: the fork's thread item (only if the id is free) and, when it reads runs of another
        thread, its fork registry item (docs/adr/0064) and that thread's `fork_count`/`fork_hold` (only if unchanged
        since read)."""
        parent = spec.parent
        pk = thread_pk(tenant, spec.thread_id)
        item: dict[str, Any] = {
            **_key(pk, THREAD_SK),
            "tenant": {"S": tenant},
            TENANT_INDEX_ATTRIBUTE: {"S": tenant_index_value(tenant, pk)},
            ACTIVITY_ATTRIBUTE: {"S": activity_value(spec.now, pk)},
            "thread_id": {"S": spec.thread_id},
            "created_at": {"S": spec.now},
            "updated_at": {"S": spec.now},
            "next_seq": {"N": str(spec.through_seq)},
            "run_tokens": {"N": str(max(0, spec.run_tokens))},
            "run_count": {"N": "0"},  # its own runs: none yet, and the count is trusted from the start
            "runs_counted": {"BOOL": True},
            "summary_version": {"N": "0"},
            "summary_through_seq": {"N": str(spec.summary_through_seq)},
            "generation": {"S": uuid.uuid4().hex},
            "memory_type": {"S": parent.memory_type},
            "offset": {"N": str(parent.offset)},
            "fork_of": {"S": parent.thread_id},
            "ancestry": {"L": [{"M": {"thread": {"S": t}, "through": {"N": str(n)}}} for t, n in spec.ancestry]},
        }
        for name, number in (("max_runs", parent.max_runs), ("retention_days", parent.retention_days)):
            if number is not None:
                item[name] = {"N": str(number)}
        if spec.summary is not None:
            item["summary"] = {"S": spec.summary}
            item["summary_updated_at"] = {"S": spec.now}
        if spec.request_id is not None:
            item["fork_request"] = {"S": spec.request_id}
        if parent.kind != "runs" or parent.next_seq > 0:  # a thread that never held an entry leaves its kind open
            item["kind"] = {"S": parent.kind}
        tx = Transaction()
        tx.put("fork", {"TableName": self.table_name, "Item": item, "ConditionExpression": "attribute_not_exists(pk)"})
        link = fork_link(item, tenant)
        if link is not None:  # a fork that reads runs: in the fork registry a prefix search reads (docs/adr/0064)
            tx.put("link", {"TableName": self.table_name, "Item": link})
        if spec.ancestry:
            tx.update("held", self._hold(tenant, spec.ancestry[0][0], parent, spec.through_seq))
            if spec.ancestry[0][0] != parent.thread_id:  # the parent, which holds that ancestor, is still there
                tx.add(
                    "parent",
                    {
                        "ConditionCheck": {
                            "TableName": self.table_name,
                            "Key": _key(thread_pk(tenant, parent.thread_id), THREAD_SK),
                            "ConditionExpression": "#gen = :gen AND attribute_not_exists(#deleting)",
                            "ExpressionAttributeNames": {"#gen": "generation", "#deleting": "deleting"},
                            "ExpressionAttributeValues": {":gen": {"S": parent.generation or ""}},
                        }
                    },
                )
        try:
            with aws_call("DynamoDB transact_write_items"), tx.cancellation():
                self.client.transact_write_items(TransactItems=tx.request())
        except Cancelled as cancelled:
            if cancelled.failed("fork"):
                raise ThreadExists() from None
            if cancelled.failed("held") or cancelled.failed("parent") or cancelled.conflicted:
                raise ForkRaced() from None
            raise cancelled.unavailable() from None
        return _thread_state(tenant, spec.thread_id, item)

    def _hold(self, tenant: str, held: str, parent: ThreadState, through: int) -> dict[str, Any]:
        """The held thread's update: one more live fork, `fork_hold` raised to `through`, on condition it is the
        incarnation read (the parent itself, or the ancestor the fork reads first) and not being deleted."""
        names = {"#deleting": "deleting", "#fc": "fork_count", "#fh": "fork_hold"}
        values: dict[str, Any] = {":one": {"N": "1"}}
        names["#ver"] = "version"  # every hold bumps it: a prune or pop planned before it plans again
        if held == parent.thread_id:  # forks and the hold as read: a racing fork or fork delete makes this retry
            hold = max(parent.fork_hold, through) if parent.fork_count > 0 else through
            # ... and the version read: a prune or pop since the read (the fork point may be gone) reads again
            check, at = at_version(parent.version)
            condition = f"#gen = :gen AND attribute_not_exists(#deleting) AND {check} AND "
            names["#gen"] = "generation"
            values[":gen"] = {"S": parent.generation or ""}
            values.update(at)
            if parent.fork_count > 0:
                condition += "#fc = :fc AND #fh = :fh"
                values[":fc"] = {"N": str(parent.fork_count)}
                values[":fh"] = {"N": str(parent.fork_hold)}
            else:
                condition += "(attribute_not_exists(#fc) OR #fc = :zero)"
                values[":zero"] = {"N": "0"}
            values[":hold"] = {"N": str(hold)}
            values[":next"] = {"N": str(parent.version + 1)}
            update = "ADD #fc :one SET #fh = :hold, #ver = :next"
        else:  # an ancestor read through the parent, which holds it (and a hold at least this high) already
            condition = "attribute_exists(pk) AND attribute_not_exists(#deleting) AND #fh >= :through"
            values[":through"] = {"N": str(through)}
            values[":none"] = {"N": "0"}
            update = "ADD #fc :one SET #ver = if_not_exists(#ver, :none) + :one"
        return {
            "TableName": self.table_name,
            "Key": _key(thread_pk(tenant, held), THREAD_SK),
            "UpdateExpression": update,
            "ConditionExpression": condition,
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }

    def delete_thread(self, tenant: str, thread_id: str) -> int:
        """Mark the thread item (refused while live forks hold it; a fork's mark releases its own hold in the same
        transaction), then delete every other item of the partition (runs, run ids)."""
        pk = thread_pk(tenant, thread_id)
        self._mark_deleting(tenant, pk)
        keys: list[dict[str, Any]] = []
        counted: list[_Delete] = []  # items that added to the tenant's gauge: deleted by transactions
        start: dict[str, Any] | None = None
        while True:
            params: dict[str, Any] = {
                "TableName": self.table_name,
                "KeyConditionExpression": "pk = :pk",
                "ExpressionAttributeValues": {":pk": {"S": pk}},
                "ProjectionExpression": "pk, sk, #mb",
                "ExpressionAttributeNames": {"#mb": "metered_bytes"},
                "ConsistentRead": True,
            }
            if start:
                params["ExclusiveStartKey"] = start
            with aws_call("DynamoDB query"):
                out = self.client.query(**params)
            for i in out.get("Items", []):
                if i["sk"]["S"] == THREAD_SK:
                    continue
                metered = int(i["metered_bytes"]["N"]) if "metered_bytes" in i else 0
                if metered > 0:
                    counted.append(_Delete({"pk": i["pk"], "sk": i["sk"]}, metered, run=False, expiring=None))
                else:
                    keys.append({"pk": i["pk"], "sk": i["sk"]})
            start = out.get("LastEvaluatedKey")
            if not start:
                break
        self._batch_delete(keys)
        for i in range(0, len(counted), ITEMS_PER_TRANSACTION):
            self._transact_deletes(tenant, pk, counted[i : i + ITEMS_PER_TRANSACTION], count_on_thread=False)
        return len(keys) + len(counted)

    def _mark_deleting(self, tenant: str, pk: str) -> None:
        """Set the thread's delete mark, unless forks hold it (`ThreadHasForks`); a fork's first mark also releases
        its hold on the thread it reads (a retried delete finds the mark set and releases nothing again)."""
        for attempt in range(_TRANSACTION_ATTEMPTS):
            item = self._thread_item(pk)
            if item is None:
                return  # no thread item: sweep what is there
            ancestry = _ancestry(item)
            held = ancestry[0][0] if ancestry and "deleting" not in item else None
            # once marked, no fork can be made of it (fork_thread checks the mark): a retried delete goes on
            condition = (
                "attribute_exists(pk) AND (attribute_exists(#deleting) OR attribute_not_exists(#fc) OR #fc <= :zero)"
            )
            if held is not None:  # only the first mark releases the hold: the item must still be unmarked
                condition += " AND attribute_not_exists(#deleting)"
            tx = Transaction()
            tx.update(
                "mark",
                {
                    "TableName": self.table_name,
                    "Key": _key(pk, THREAD_SK),
                    "UpdateExpression": "SET #deleting = :yes",
                    "ConditionExpression": condition,
                    "ExpressionAttributeNames": {"#deleting": "deleting", "#fc": "fork_count"},
                    "ExpressionAttributeValues": {":yes": {"BOOL": True}, ":zero": {"N": "0"}},
                },
            )
            if held is not None:
                tx.delete("link", self._link_key(tenant, item))  # out of the fork registry with its mark
                tx.update(
                    "release",
                    {
                        "TableName": self.table_name,
                        "Key": _key(thread_pk(tenant, held), THREAD_SK),
                        "UpdateExpression": "ADD #fc :minus SET #ver = if_not_exists(#ver, :zero) + :one",
                        "ConditionExpression": "attribute_exists(pk)",
                        "ExpressionAttributeNames": {"#fc": "fork_count", "#ver": "version"},
                        "ExpressionAttributeValues": {":minus": {"N": "-1"}, ":zero": {"N": "0"}, ":one": {"N": "1"}},
                    },
                )
            try:
                with aws_call("DynamoDB transact_write_items"), tx.cancellation():
                    self.client.transact_write_items(TransactItems=tx.request())
                return
            except Cancelled as cancelled:
                if cancelled.failed("mark"):
                    current = self._thread_item(pk)
                    if current is None:
                        return
                    if "deleting" not in current and (_n(current, "fork_count", 0) or 0) > 0:
                        raise ThreadHasForks() from None
                    continue  # marked or released meanwhile: read again
                if cancelled.failed("release"):  # the held thread is gone (an erase): nothing to release
                    with aws_call_allowing("DynamoDB update_item", CONDITION_FAILED):
                        self.client.update_item(
                            TableName=self.table_name,
                            Key=_key(pk, THREAD_SK),
                            UpdateExpression="SET #deleting = :yes",
                            ConditionExpression="attribute_exists(pk)",
                            ExpressionAttributeNames={"#deleting": "deleting"},
                            ExpressionAttributeValues={":yes": {"BOOL": True}},
                        )
                    with aws_call("DynamoDB delete_item"):
                        self.client.delete_item(**self._link_key(tenant, item))
                    return
                if not cancelled.conflicted:
                    raise cancelled.unavailable() from None
                time.sleep(0.02 * (attempt + 1))
        raise DependencyUnavailable("DynamoDB thread delete kept conflicting with other writes; retry it")

    def _link_key(self, tenant: str, item: dict[str, Any]) -> dict[str, Any]:
        """The Delete of a fork's registry item (docs/adr/0064): a fork's thread item always names its id."""
        return {"TableName": self.table_name, "Key": _key(fork_pk(tenant), fork_link_sk(item["thread_id"]["S"]))}

    def _thread_item(self, pk: str) -> dict[str, Any] | None:
        """The thread item as it is now (a consistent read): what a delete's mark and a pop's retry decide on."""
        with aws_call("DynamoDB get_item"):
            item: dict[str, Any] | None = self.client.get_item(**get_request(self.table_name, pk, THREAD_SK)).get(
                "Item"
            )
        return item

    def release_thread(self, tenant: str, thread_id: str) -> None:
        with aws_call_allowing("DynamoDB delete_item", CONDITION_FAILED):
            self.client.delete_item(
                TableName=self.table_name,
                Key=_key(thread_pk(tenant, thread_id), THREAD_SK),
                ConditionExpression="attribute_not_exists(pk) OR attribute_exists(#deleting)",
                ExpressionAttributeNames={"#deleting": "deleting"},
            )

    def delete_runs(
        self, tenant: str, thread_id: str, runs: Sequence[StoredRun], *, version: int | None = None
    ) -> None:
        """One transaction per RUNS_PER_TRANSACTION runs: each run deleted only if it is there, its id, the
        thread's `run_count`/`expiring_runs` and the tenant's gauge down by what was deleted; with `version`, the
        thread still at the version the sweep planned with, bumped (docs/concurrency.md)."""
        pk = thread_pk(tenant, thread_id)
        for i in range(0, len(runs), RUNS_PER_TRANSACTION):
            deletes: list[_Delete] = []
            for r in runs[i : i + RUNS_PER_TRANSACTION]:
                deletes.append(_Delete(_key(pk, run_sk(r.seq)), r.metered_bytes, run=True, expiring=r.expires_at))
                deletes.append(_Delete(_key(pk, runid_sk(r.run_id)), 0, run=False, expiring=None))
            if self._transact_deletes(tenant, pk, deletes, count_on_thread=True, version=version):
                version = None if version is None else version + 1

    def _transact_deletes(
        self, tenant: str, pk: str, deletes: list[_Delete], *, count_on_thread: bool, version: int | None = None
    ) -> bool:
        """Delete the items in one transaction: each one that added to the gauge (`metered_bytes`) or counts as a
        run only if it is still there, the gauge (and, with `count_on_thread`, the thread's run counts) down by
        exactly those. An item found gone (a concurrent prune, delete or TTL expiry took it — and its bytes) is
        dropped and the rest retried; a thread being deleted or a gauge that is gone (an erased tenant) is left
        alone. With `version`, the thread's update checks and bumps it (ThreadChanged when it moved). Whether the
        thread's update was committed."""
        with_gauge = True
        for _attempt in range(_TRANSACTION_ATTEMPTS):
            if not deletes:
                return False
            tx = Transaction()
            for i, d in enumerate(deletes):
                delete: dict[str, Any] = {"TableName": self.table_name, "Key": d.key}
                if d.conditional:
                    delete["ConditionExpression"] = "attribute_exists(pk)"
                tx.delete(f"item.{i}", delete)
            runs = sum(1 for d in deletes if d.run)
            expiring = sum(1 for d in deletes if d.run and d.expiring is not None)
            released = sum(d.metered_bytes for d in deletes)
            if count_on_thread and runs:
                tx.update("thread", _count_deleted_runs(self.table_name, pk, runs, expiring, version=version))
            if with_gauge and released:
                tx.add("gauge", stored_bytes_release(self.table_name, tenant, released))
            try:
                with aws_call("DynamoDB transact_write_items"), tx.cancellation():
                    self.client.transact_write_items(TransactItems=tx.request())
                return count_on_thread and runs > 0
            except Cancelled as cancelled:
                failed = cancelled.failed_tags()
                if not failed and not cancelled.conflicted:
                    raise cancelled.unavailable() from None
                if "thread" in failed and version is not None:
                    raise ThreadChanged() from None  # a fork or another sweep since the plan: nothing deleted
                deletes = [d for i, d in enumerate(deletes) if f"item.{i}" not in failed]
                if "thread" in failed:  # being deleted (or gone): its counts no longer matter
                    count_on_thread = False
                if "gauge" in failed:
                    with_gauge = False
                if not failed:
                    time.sleep(0.02 * (_attempt + 1))  # a concurrent transaction on the same items
        raise DependencyUnavailable("DynamoDB delete kept conflicting with other writes; retry it")

    def _batch_delete(self, keys: Sequence[dict[str, Any]]) -> None:
        for i in range(0, len(keys), 25):
            requests = [{"DeleteRequest": {"Key": k}} for k in keys[i : i + 25]]
            for _attempt in range(8):
                with aws_call("DynamoDB batch_write_item"):
                    out = self.client.batch_write_item(RequestItems={self.table_name: requests})
                requests = (out.get("UnprocessedItems") or {}).get(self.table_name) or []
                if not requests:
                    break
            else:
                raise DependencyUnavailable("DynamoDB batch_write_item left items unprocessed")

    def pop_run(self, tenant: str, thread_id: str, run: StoredRun, *, version: int) -> bool:
        """One transaction: the run deleted only if it is still there (so two concurrent pops of the same run
        cannot both succeed), its run id kept as popped (a retried append of it replays, never stores it again),
        the thread's counts and the gauge down by its metered bytes."""
        pk = thread_pk(tenant, thread_id)
        with_gauge = run.metered_bytes > 0
        for attempt in range(_TRANSACTION_ATTEMPTS):
            tx = Transaction()
            run_key = _key(pk, run_sk(run.seq))
            tx.delete(
                "run", {"TableName": self.table_name, "Key": run_key, "ConditionExpression": "attribute_exists(pk)"}
            )
            tx.put("run_id", {"TableName": self.table_name, "Item": _popped_id_item(pk, run)})
            expiring = 1 if run.expires_at is not None else 0
            tx.update("thread", _count_deleted_runs(self.table_name, pk, 1, expiring, version=version))
            if with_gauge:
                tx.add("gauge", stored_bytes_release(self.table_name, tenant, run.metered_bytes))
            try:
                with aws_call("DynamoDB transact_write_items"), tx.cancellation():
                    self.client.transact_write_items(TransactItems=tx.request())
                return True
            except Cancelled as cancelled:
                if cancelled.failed("run"):
                    return False  # another pop (or a thread delete, or TTL) took it first
                if cancelled.failed("thread"):
                    current = self._thread_item(pk)
                    if current is None or "deleting" in current:
                        raise ThreadDeleting() from None
                    raise ThreadChanged() from None  # a fork took a hold, or a sweep went first: read again
                if cancelled.failed("gauge"):
                    with_gauge = False  # an erased tenant's gauge is never re-created
                    continue
                if not cancelled.conflicted:
                    raise cancelled.unavailable() from None
                time.sleep(0.02 * (attempt + 1))  # a concurrent transaction on the same items: try again
        raise DependencyUnavailable("DynamoDB pop kept conflicting with other writes; retry it")
