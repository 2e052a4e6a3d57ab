"""RunStore on DynamoDB: one item per run in the thread's partition, plus a run-id item for idempotency.

Partition `T#{tenant}#TH#{thread}` (escaped by `identifiers.key`):
- `#THREAD`          config, `next_seq` counter, `run_tokens` (sum of allocated runs' counts), summary state,
                     timestamps, `generation` (minted when the thread is created; every run's commit checks it)
                     and, while a delete runs, `deleting` (readers then see no thread, adds are refused; the
                     item goes last, so a retried delete finishes); `run_count` and `expiring_runs`, moved by
                     the transactions that add and delete runs, trusted once `runs_counted` is set (by the
                     thread's first run, or by a reader that counted an older thread's runs);
- `RUN#{seq:012d}`   one run: Griptape JSON (`run`) or an S3 pointer (`blob_key`), token counts, size, hash and,
                     when it was metered (hosted mode), `metered_bytes` (what it added to the tenant's gauge);
- `RUNID#{run_id}`   seq + content hash of that run (the conditional put that makes retries idempotent); a
                     popped item's stays, marked `popped` (a retried append of it replays: never stored twice);
- `EXPIRED#{event}`  a TTL-expired run's stream record already taken off the gauge (`release_expired`).

A fork (docs/adr/0037) is a thread item with `ancestry` (a list of `{thread, through}`, nearest first), `fork_of`
and `next_seq` starting at its fork point; the thread it reads (`ancestry[0]`) counts it in `fork_count` and keeps
`fork_hold` (the highest seq a live fork reads). No run is copied.

Deleting runs that carry `metered_bytes` is one transaction per ≤ 48 runs: each run's delete conditioned on the
run being there, the thread's counts and the tenant's gauge going down by what was really deleted
(docs/adr/0021-stored-bytes-and-run-counts.md).

Partition `T#{tenant}#ALIAS#{alias}`, item `#ALIAS`: the thread id a Griptape Cloud-style alias names (unique per
tenant by a conditional put).
"""

from __future__ import annotations

import functools
import time
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

from offprompt import deadline
from offprompt.errors import DependencyUnavailable
from offprompt.metering import Charge
from offprompt.ports import (
    ForkRaced,
    ForkSpec,
    RunIdTaken,
    StoredRun,
    ThreadChanged,
    ThreadDeleting,
    ThreadExists,
    ThreadHasForks,
    ThreadState,
    WrongThreadKind,
)

from .aws_errors import CONDITION_FAILED, aws_call, aws_call_allowing
from .clients import aws_client
from .dynamodb_account import charge_items, expired_release, refuse_charge, stored_bytes_release
from .dynamodb_transaction import Cancelled, Transaction, at_version
from .layout import (
    ACTIVITY_ATTRIBUTE,
    ACTIVITY_INDEX,
    ALIAS_SK,
    TENANT_INDEX,
    TENANT_INDEX_ATTRIBUTE,
    THREAD_SK,
    activity_value,
    alias_pk,
    run_sk,
    runid_sk,
    tenant_index_value,
    tenant_index_values,
    thread_pk,
    thread_prefix_pk,
)

_THREAD_TEXT_FIELDS = ("name", "alias", "metadata_json")
_CONFIG_FIELDS = ("max_runs", "memory_type", "offset", "retention_days", "actor_id")
#: The thread item's attributes a tenant-wide listing reads (never the summary text or metadata).
_LISTED_ATTRIBUTES = (
    "pk",
    "thread_id",
    "created_at",
    "updated_at",
    "next_seq",
    "memory_type",
    "max_runs",
    "retention_days",
    "actor_id",
    "run_count",
    "runs_counted",
    "expiring_runs",
    "ancestry",  # a fork's chain: conversation search reads a fork's shared history (docs/adr/0049)
    "alias",
    "deleting",
    "#kind",
    "#name",
)
#: Keys per BatchGetItem (DynamoDB's limit).
_BATCH_GET_KEYS = 100
#: Runs per delete transaction: two deletes each (run, run id) + the thread's counts + the gauge ≤ 100 items.
RUNS_PER_TRANSACTION = 48
#: Items per delete transaction of a thread delete (each conditional) + the gauge.
ITEMS_PER_TRANSACTION = 99
_TRANSACTION_ATTEMPTS = 10


class DynamoDbRunStore:
    def __init__(self, table_name: str, client: Any | None = None) -> None:
        self.table_name = table_name
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = aws_client("dynamodb")
        return self._client

    # ---- thread ---------------------------------------------------------------------------------------
    def allocate_seq(
        self, tenant: str, thread_id: str, now: str, tokens: int = 0, count: int = 1, kind: str = "runs"
    ) -> ThreadState:
        # The thread's kind is set by its first allocation and checked by every later one (docs/adr/0033): a
        # thread with no kind and no seq handed out (made by PUT /threads/{id}) takes either; one with no kind and
        # seqs (older than the field) holds runs.
        kind_check = (
            "(#kind = :kind OR (attribute_not_exists(#kind) AND (attribute_not_exists(next_seq) OR next_seq = :zero)"
            # an undecided thread configured with what only runs honour (max_runs, summary memory) holds runs
            " AND attribute_not_exists(max_runs) AND attribute_not_exists(#offset)"
            " AND (attribute_not_exists(memory_type) OR memory_type = :buffer)))"
            if kind != "runs"
            else "(attribute_not_exists(#kind) OR #kind = :kind)"
        )
        extra_names = {"#offset": "offset"} if kind != "runs" else {}
        extra_values = {":buffer": {"S": "buffer"}} if kind != "runs" else {}
        params: dict[str, Any] = dict(
            TableName=self.table_name,
            Key=_key(thread_pk(tenant, thread_id), THREAD_SK),
            UpdateExpression=(
                "ADD next_seq :one, run_tokens :tokens SET created_at = if_not_exists(created_at, :now), "
                "updated_at = :now, #act = :activity, tenant = :tenant, tenant_dir = :tdir, "
                "thread_id = :thread, summary_version = if_not_exists(summary_version, :zero), "
                "summary_through_seq = if_not_exists(summary_through_seq, :zero), "
                "#gen = if_not_exists(#gen, :gen), #kind = if_not_exists(#kind, :kind)"
            ),
            ConditionExpression="attribute_not_exists(#deleting) AND " + kind_check,
            ExpressionAttributeNames={
                "#gen": "generation",
                "#deleting": "deleting",
                "#kind": "kind",
                "#act": ACTIVITY_ATTRIBUTE,
                **extra_names,
            },
            ExpressionAttributeValues={
                **extra_values,
                ":one": {"N": str(count)},
                ":tokens": {"N": str(max(0, tokens))},
                ":zero": {"N": "0"},
                ":now": {"S": now},
                ":tenant": {"S": tenant},
                ":tdir": {"S": tenant_index_value(tenant, thread_pk(tenant, thread_id))},
                ":activity": {"S": activity_value(now, thread_pk(tenant, thread_id))},
                ":thread": {"S": thread_id},
                ":gen": {"S": uuid.uuid4().hex},
                ":kind": {"S": kind},
            },
            ReturnValues="ALL_NEW",
        )
        with aws_call_allowing("DynamoDB update_item", CONDITION_FAILED) as call:
            out = self.client.update_item(**params)
        if call.refused:
            # Why it was refused: the thread as it is now (a delete's mark, or the other kind).
            item = self._get(thread_pk(tenant, thread_id), THREAD_SK)
            if item is not None and "deleting" not in item:
                held = _kind(item)
                if held != kind:
                    raise WrongThreadKind(held) from None
            raise ThreadDeleting() from None
        return _thread_state(tenant, thread_id, out["Attributes"])

    def get_thread(self, tenant: str, thread_id: str) -> ThreadState | None:
        out = self._call(
            "get_item",
            TableName=self.table_name,
            Key=_key(thread_pk(tenant, thread_id), THREAD_SK),
            ConsistentRead=True,
        )
        item = out.get("Item")
        # A thread marked deleting is gone for readers, as it will be once the delete finishes.
        return _thread_state(tenant, thread_id, item) if item and "deleting" not in item else None

    def list_threads(
        self,
        tenant: str,
        *,
        limit: int,
        after: str | None = None,
        prefix: str | None = None,
        order: Literal["activity", "id"] = "activity",
    ) -> tuple[list[ThreadState], str | None]:
        if order == "activity":
            return self._threads_by_activity(tenant, limit=limit, after=after, prefix=prefix)
        return self._threads_by_id(tenant, limit=limit, after=after, prefix=prefix)

    def _threads_by_activity(
        self, tenant: str, *, limit: int, after: str | None, prefix: str | None
    ) -> tuple[list[ThreadState], str | None]:
        """A page of the tenant's threads, the most recently written first (docs/adr/0054): the `TenantActivity`
        index's 8 shards Queried newest first (those older than the position `after`, an `activity` value; a
        `prefix` filters server-side), merged, the page's `limit` thread items read in one BatchGetItem. Threads
        written before the index have no `activity` until `offprompt-admin backfill-index` gives them one."""
        with ThreadPoolExecutor(max_workers=8, thread_name_prefix="offprompt-threads") as pool:
            under = thread_pk(tenant, prefix) if prefix else None
            shard = deadline.bind(functools.partial(self._activity_shard, after, under, limit + 1))
            found = [key for keys in pool.map(shard, tenant_index_values(tenant)) for key in keys]
        found.sort(key=lambda k: str(k[ACTIVITY_ATTRIBUTE]["S"]), reverse=True)
        page, rest = found[:limit], found[limit:]
        position = str(page[-1][ACTIVITY_ATTRIBUTE]["S"]) if rest else None
        page = [{"pk": k["pk"], "sk": k["sk"]} for k in page]  # a table key only (DynamoDB refuses other attributes)
        items = {str(i["pk"]["S"]): i for i in (self._batch_get(_listed(page)) if page else [])}
        threads = [
            _thread_state(tenant, str(item["thread_id"]["S"]), item)
            for item in (items.get(str(k["pk"]["S"])) for k in page)
            if item is not None and "deleting" not in item and "thread_id" in item
        ]
        return threads, position

    def _activity_shard(
        self, after: str | None, prefix: str | None, want: int, index_value: str
    ) -> list[dict[str, Any]]:
        """The newest `want` thread keys (with their activity) of one shard, older than `after`, under `prefix`."""
        condition = "#d = :d" + (" AND #act < :after" if after is not None else "")
        values: dict[str, Any] = {":d": {"S": index_value}}
        if after is not None:
            values[":after"] = {"S": after}
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "IndexName": ACTIVITY_INDEX,
            "KeyConditionExpression": condition,
            "ExpressionAttributeNames": {
                "#d": TENANT_INDEX_ATTRIBUTE,
                **({"#act": ACTIVITY_ATTRIBUTE} if after is not None else {}),
            },
            "ExpressionAttributeValues": values,
            "ScanIndexForward": False,
            "Limit": want,
        }
        if prefix is not None:
            params["FilterExpression"] = "begins_with(pk, :p)"
            values[":p"] = {"S": prefix}
        keys: list[dict[str, Any]] = []
        while len(keys) < want:
            out = self._call("query", **params)
            keys.extend(
                {"pk": i["pk"], "sk": i["sk"], ACTIVITY_ATTRIBUTE: i[ACTIVITY_ATTRIBUTE]}
                for i in out.get("Items", [])
                if i["sk"]["S"] == THREAD_SK
            )
            if not out.get("LastEvaluatedKey"):
                break
            params["ExclusiveStartKey"] = out["LastEvaluatedKey"]
        return keys[:want]

    def _threads_by_id(
        self, tenant: str, *, limit: int, after: str | None, prefix: str | None
    ) -> tuple[list[ThreadState], str | None]:
        """A page of the tenant's threads in the order of their partition keys (the escaped thread id), those after
        the key `after`, only ids starting with `prefix` (docs/adr/0038): the `TenantRoots` index gives the keys of
        the tenant's thread roots (keys only, its 8 shards Queried at once), and only the page's `limit` thread
        items are read (one BatchGetItem). Returns the page and the key to continue after (None: nothing is left);
        a thread being deleted is left out, so a page may hold fewer. Eventually consistent: a thread created a
        moment ago may be missing."""
        start = thread_pk(tenant, prefix) if prefix else thread_prefix_pk(tenant)
        with ThreadPoolExecutor(max_workers=8, thread_name_prefix="offprompt-threads") as pool:
            roots = deadline.bind(functools.partial(self._thread_roots, start))
            keys = sorted(
                (key for shard in pool.map(roots, tenant_index_values(tenant)) for key in shard),
                key=lambda k: str(k["pk"]["S"]),
            )
        if after is not None:
            keys = [k for k in keys if k["pk"]["S"] > after]
        page, rest = keys[:limit], keys[limit:]
        items = {str(i["pk"]["S"]): i for i in (self._batch_get(_listed(page)) if page else [])}
        threads = [
            _thread_state(tenant, str(item["thread_id"]["S"]), item)
            for item in (items.get(str(k["pk"]["S"])) for k in page)
            if item is not None and "deleting" not in item and "thread_id" in item
        ]
        return threads, (str(page[-1]["pk"]["S"]) if rest else None)

    def _thread_roots(self, prefix: str, index_value: str) -> list[dict[str, Any]]:
        """The keys of the thread roots (partition keys starting with `prefix`) in one shard of the tenant index."""
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "IndexName": TENANT_INDEX,
            "KeyConditionExpression": "#d = :d",
            "FilterExpression": "begins_with(pk, :p) AND sk = :sk",
            "ExpressionAttributeNames": {"#d": TENANT_INDEX_ATTRIBUTE},
            "ExpressionAttributeValues": {
                ":d": {"S": index_value},
                ":p": {"S": prefix},
                ":sk": {"S": THREAD_SK},
            },
        }
        keys: list[dict[str, Any]] = []
        while True:
            out = self._call("query", **params)
            keys.extend({"pk": i["pk"], "sk": i["sk"]} for i in out.get("Items", []))
            if not out.get("LastEvaluatedKey"):
                return keys
            params["ExclusiveStartKey"] = out["LastEvaluatedKey"]

    def get_threads(self, tenant: str, thread_ids: Sequence[str]) -> dict[str, ThreadState]:
        """The threads that exist (not being deleted) among `thread_ids`: strongly consistent BatchGetItems of
        ≤ 100 thread items each."""
        ids = list(dict.fromkeys(thread_ids))
        keys = [_key(thread_pk(tenant, t), THREAD_SK) for t in ids]
        found: dict[str, dict[str, Any]] = {}
        for start in range(0, len(keys), _BATCH_GET_KEYS):
            request = {"Keys": keys[start : start + _BATCH_GET_KEYS], "ConsistentRead": True}
            found.update((str(i["pk"]["S"]), i) for i in self._batch_get(request))
        out: dict[str, ThreadState] = {}
        for thread_id, key in zip(ids, keys, strict=True):
            item = found.get(str(key["pk"]["S"]))
            if item is not None and "deleting" not in item:
                out[thread_id] = _thread_state(tenant, thread_id, item)
        return out

    def get_runs(self, tenant: str, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], StoredRun]:
        """The stored runs (or items) at these (owning thread, seq) keys, missing ones left out: strongly
        consistent BatchGetItems of ≤ 100 run items each (expired runs TTL has not deleted yet are included)."""
        wanted = list(dict.fromkeys(keys))
        by_pk = {(thread_pk(tenant, t), run_sk(seq)): (t, seq) for t, seq in wanted}
        out: dict[tuple[str, int], StoredRun] = {}
        dynamo_keys = [_key(pk, sk) for pk, sk in by_pk]
        for start in range(0, len(dynamo_keys), _BATCH_GET_KEYS):
            request = {"Keys": dynamo_keys[start : start + _BATCH_GET_KEYS], "ConsistentRead": True}
            for item in self._batch_get(request):
                where = by_pk.get((str(item["pk"]["S"]), str(item["sk"]["S"])))
                if where is not None:
                    out[where] = _stored_run(item)
        return out

    def _batch_get(self, request: dict[str, Any]) -> list[dict[str, Any]]:
        """One BatchGetItem request (≤ 100 keys), what DynamoDB leaves unprocessed asked again."""
        items: list[dict[str, Any]] = []
        for _attempt in range(8):
            out = self._call("batch_get_item", RequestItems={self.table_name: request})
            items.extend(out.get("Responses", {}).get(self.table_name, []))
            unprocessed = (out.get("UnprocessedKeys") or {}).get(self.table_name)
            if not unprocessed:
                return items
            request = unprocessed
            time.sleep(0.02 * (_attempt + 1))
        raise DependencyUnavailable("DynamoDB batch_get_item left keys unprocessed")

    def configure(
        self, tenant: str, thread_id: str, changes: dict[str, object], now: str, *, runs_only: bool = False
    ) -> ThreadState:
        fields = {k: changes[k] for k in _CONFIG_FIELDS if k in changes}
        if not runs_only:
            return self._upsert_thread(tenant, thread_id, now, fields)
        try:  # a setting only runs honour: never on an items thread (issue 33, friction 8)
            return self._upsert_thread(tenant, thread_id, now, fields, runs_only=True)
        except ThreadDeleting:
            item = self._get(thread_pk(tenant, thread_id), THREAD_SK)
            if item is not None and "deleting" not in item and _kind(item) == "items":
                raise WrongThreadKind("items") from None
            raise

    def _upsert_thread(
        self, tenant: str, thread_id: str, now: str, fields: dict[str, object], *, runs_only: bool = False
    ) -> ThreadState:
        """Create or update the thread item (never one a delete has marked): its bookkeeping attributes are
        initialised once, a new generation only on creation; each field is SET (string or number) or, when
        None, REMOVEd."""
        sets = [
            "created_at = if_not_exists(created_at, :now)",
            "updated_at = :now",
            "#act = :activity",
            "tenant = :tenant",
            "tenant_dir = :tdir",
            "thread_id = :thread",
            "next_seq = if_not_exists(next_seq, :zero)",
            "summary_version = if_not_exists(summary_version, :zero)",
            "summary_through_seq = if_not_exists(summary_through_seq, :zero)",
            "#gen = if_not_exists(#gen, :gen)",
        ]
        removes: list[str] = []
        names: dict[str, str] = {"#gen": "generation", "#deleting": "deleting", "#act": ACTIVITY_ATTRIBUTE}
        values: dict[str, Any] = {
            ":now": {"S": now},
            ":zero": {"N": "0"},
            ":tenant": {"S": tenant},
            ":tdir": {"S": tenant_index_value(tenant, thread_pk(tenant, thread_id))},
            ":activity": {"S": activity_value(now, thread_pk(tenant, thread_id))},
            ":thread": {"S": thread_id},
            ":gen": {"S": uuid.uuid4().hex},
        }
        for name, value in fields.items():
            names[f"#{name}"] = name
            if value is None:
                removes.append(f"#{name}")
            else:
                sets.append(f"#{name} = :{name}")
                values[f":{name}"] = {"S": value} if isinstance(value, str) else {"N": str(value)}
        expression = "SET " + ", ".join(sets) + (" REMOVE " + ", ".join(removes) if removes else "")
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "Key": _key(thread_pk(tenant, thread_id), THREAD_SK),
            "UpdateExpression": expression,
            "ConditionExpression": "attribute_not_exists(#deleting)",
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
            "ReturnValues": "ALL_NEW",
        }
        if runs_only:
            params["ConditionExpression"] += " AND (attribute_not_exists(#kind) OR #kind = :runs_kind)"
            names["#kind"] = "kind"
            values[":runs_kind"] = {"S": "runs"}
        out = self._call("update_item", refuse_when_deleting=True, **params)
        return _thread_state(tenant, thread_id, out["Attributes"])

    def record_burned(self, tenant: str, thread_id: str, count: int = 1) -> None:
        # never re-creates a deleted thread's item (a straggling add's failure lands here)
        with aws_call_allowing("DynamoDB update_item", CONDITION_FAILED):
            self.client.update_item(
                TableName=self.table_name,
                Key=_key(thread_pk(tenant, thread_id), THREAD_SK),
                UpdateExpression="ADD burned_seqs :one",
                ConditionExpression="attribute_exists(pk) AND attribute_not_exists(#deleting)",
                ExpressionAttributeNames={"#deleting": "deleting"},
                ExpressionAttributeValues={":one": {"N": str(count)}},
            )

    def commit_summary(
        self, tenant: str, thread_id: str, *, summary: str, through_seq: int, expected_version: int, now: str
    ) -> bool:
        with aws_call_allowing("DynamoDB update_item", CONDITION_FAILED) as call:
            self.client.update_item(
                TableName=self.table_name,
                Key=_key(thread_pk(tenant, thread_id), THREAD_SK),
                UpdateExpression=(
                    "SET summary = :s, summary_through_seq = :t, summary_updated_at = :now ADD summary_version :one"
                ),
                ConditionExpression="summary_version = :v AND summary_through_seq < :t",
                ExpressionAttributeValues={
                    ":s": {"S": summary},
                    ":t": {"N": str(through_seq)},
                    ":v": {"N": str(expected_version)},
                    ":one": {"N": "1"},
                    ":now": {"S": now},
                },
            )
        return not call.refused

    # ---- runs -----------------------------------------------------------------------------------------
    def put_run(
        self, tenant: str, thread_id: str, run: StoredRun, generation: str, charge: Charge | None = None
    ) -> None:
        self.put_runs(tenant, thread_id, [run], generation, charge)

    def put_runs(
        self, tenant: str, thread_id: str, runs: Sequence[StoredRun], generation: str, charge: Charge | None = None
    ) -> None:
        pk = thread_pk(tenant, thread_id)
        tx = Transaction()
        for i, run in enumerate(runs):
            metered = run.size if charge is not None else 0
            item = _run_item(pk, run, tenant, thread_id, metered_bytes=metered)
            id_item = _id_item(pk, run)
            unique = "attribute_not_exists(pk)"
            tx.put(f"run.{i}", {"TableName": self.table_name, "Item": item, "ConditionExpression": unique})
            tx.put(f"run_id.{i}", {"TableName": self.table_name, "Item": id_item, "ConditionExpression": unique})
        # the incarnation that gave out the seqs is still there and not being deleted; it counts the runs
        tx.update("thread", _count_added_runs(self.table_name, pk, runs, generation))
        if charge is not None:  # hosted mode: the runs' usage, exactly once (a replay's transaction fails on run_id)
            tx.extend(charge_items(self.table_name, charge))
        try:
            with aws_call("DynamoDB transact_write_items"), tx.cancellation():
                self.client.transact_write_items(TransactItems=tx.request())
        except Cancelled as cancelled:
            if charge is not None:
                refuse_charge(cancelled, charge)
            if cancelled.failed("thread"):
                raise ThreadDeleting() from None
            for i, run in enumerate(runs):
                if cancelled.failed(f"run_id.{i}"):
                    existing = self._get(pk, runid_sk(run.run_id))
                    if existing is not None:
                        raise RunIdTaken(int(existing["seq"]["N"]), existing["hash"]["S"], run.run_id) from None
            raise cancelled.unavailable() from None

    def get_run(self, tenant: str, thread_id: str, seq: int, ancestry: Ancestry = ()) -> StoredRun | None:
        item = self._get(thread_pk(tenant, _owner(thread_id, ancestry, seq)), run_sk(seq))
        return _stored_run(item) if item else None

    def page_runs(
        self,
        tenant: str,
        thread_id: str,
        *,
        lo: int,
        hi: int | None,
        newest_first: bool,
        limit: int,
        now_epoch: int,
        keys_only: bool = False,
        ancestry: Ancestry = (),
    ) -> tuple[list[StoredRun], int | None]:
        """One page over the combined history of a fork (its own runs, then its ancestors' shared ones): the seq
        range cut at the segments' bounds, each piece read in its partition, in order, stopping as soon as `limit`
        runs are found (later segments are not read). Without ancestry: one Query of the thread's partition."""
        pieces = _segments(thread_id, ancestry)
        if not newest_first:
            pieces.reverse()
        top = _TOP if hi is None else hi
        found: list[StoredRun] = []
        for owner, seg_lo, seg_hi in pieces:
            a, b = max(lo, seg_lo + 1), min(top, seg_hi)
            if a > b:
                continue
            if len(found) >= limit:  # a later segment has runs in range: continue after the last one found
                return found, found[-1].seq
            page, after = self._page_partition(
                tenant, owner, lo=a, hi=b, newest_first=newest_first, limit=limit - len(found),
                now_epoch=now_epoch, keys_only=keys_only,
            )  # fmt: skip
            found.extend(page)
            if after is not None:
                return found, after
        return found, None

    def _page_partition(
        self,
        tenant: str,
        thread_id: str,
        *,
        lo: int,
        hi: int,
        newest_first: bool,
        limit: int,
        now_epoch: int,
        keys_only: bool,
    ) -> tuple[list[StoredRun], int | None]:
        pk = thread_pk(tenant, thread_id)
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :lo AND :hi",
            "FilterExpression": "attribute_not_exists(expires_at) OR expires_at > :now",
            "ExpressionAttributeValues": {
                ":pk": {"S": pk},
                ":lo": {"S": run_sk(max(lo, 0))},
                ":hi": {"S": run_sk(hi)},
                ":now": {"N": str(now_epoch)},
            },
            "ScanIndexForward": not newest_first,
            "Limit": limit,
            "ConsistentRead": True,
        }
        if keys_only:
            params["ProjectionExpression"] = "pk, sk, seq, run_id, blob_key, #h, expires_at, metered_bytes"
            params["ExpressionAttributeNames"] = {"#h": "hash"}
        out = self._call("query", **params)
        runs = [_stored_run(item) for item in out.get("Items", [])]
        last = out.get("LastEvaluatedKey")
        return runs, (int(last["sk"]["S"].rsplit("#", 1)[1]) if last else None)

    # Run paging: every run of a thread from `lo` on, one Query page after another (keys only, or with bodies).
    # Prompt-stack pages its own way (budget-sized pages, services/conversation/prompt_stack.newest_first).

    def iter_keys(
        self,
        tenant: str,
        thread_id: str,
        *,
        lo: int,
        newest_first: bool,
        now_epoch: int,
        hi: int | None = None,
        ancestry: Ancestry = (),
    ) -> Iterator[StoredRun]:
        while hi is None or lo <= hi:
            runs, last = self.page_runs(
                tenant,
                thread_id,
                lo=lo,
                hi=hi,
                newest_first=newest_first,
                limit=500,
                now_epoch=now_epoch,
                keys_only=True,
                ancestry=ancestry,
            )
            yield from runs
            if last is None:
                return
            if newest_first:
                hi = last - 1
            else:
                lo = last + 1

    def iter_full(
        self, tenant: str, thread_id: str, *, lo: int, now_epoch: int, ancestry: Ancestry = ()
    ) -> Iterator[StoredRun]:
        while True:
            runs, last = self.page_runs(
                tenant, thread_id, lo=lo, hi=None, newest_first=False, limit=100, now_epoch=now_epoch,
                ancestry=ancestry,
            )  # fmt: skip
            yield from runs
            if last is None:
                return
            lo = last + 1

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
                    current = self._get(pk, THREAD_SK)
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

    def record_run_count(self, state: ThreadState, count: int) -> None:
        names = {"#n": "run_count", "#ok": "runs_counted", "#exp": "expiring_runs", "#deleting": "deleting"}
        values: dict[str, Any] = {
            ":n": {"N": str(count)},
            ":zero": {"N": "0"},
            ":yes": {"BOOL": True},
            ":next": {"N": str(state.next_seq)},
        }
        # Unchanged since it was read: no seq handed out (next_seq), no run added or deleted (run_count).
        condition = "next_seq = :next AND attribute_not_exists(#deleting) AND "
        if state.run_count_read is None:
            condition += "attribute_not_exists(#n)"
        else:
            condition += "#n = :seen"
            values[":seen"] = {"N": str(state.run_count_read)}
        self._call(
            "update_item",
            TableName=self.table_name,
            Key=_key(thread_pk(state.tenant, state.thread_id), THREAD_SK),
            UpdateExpression="SET #n = :n, #ok = :yes, #exp = :zero",
            ConditionExpression=condition,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
            allow_condition_failure=True,
        )

    def release_expired(self, tenant: str, thread_id: str, event_id: str, metered_bytes: int) -> bool:
        """Take a TTL-expired run's bytes off the tenant's gauge, once per stream record (`event_id`): a marker
        item in the thread's partition, put in the same transaction, makes a redelivered record a no-op.
        Returns whether the gauge moved."""
        if metered_bytes <= 0:
            return False
        tx = expired_release(self.table_name, thread_pk(tenant, thread_id), tenant, event_id, metered_bytes)
        try:
            with aws_call("DynamoDB transact_write_items"), tx.cancellation():
                self.client.transact_write_items(TransactItems=tx.request())
        except Cancelled as cancelled:
            if cancelled.failed_tags():
                return False  # already taken off (a redelivered record), or the tenant was erased
            raise cancelled.unavailable() from None
        return True

    def fork_thread(self, tenant: str, spec: ForkSpec) -> ThreadState:
        """One transaction of at most two items: the fork's thread item (only if the id is free) and, when it reads
        runs of another thread, that thread's `fork_count`/`fork_hold` (only if unchanged since read)."""
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
            out = self._call("query", **params)
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
            item = self._get(pk, THREAD_SK)
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
                    current = self._get(pk, THREAD_SK)
                    if current is None:
                        return
                    if "deleting" not in current and (_n(current, "fork_count", 0) or 0) > 0:
                        raise ThreadHasForks() from None
                    continue  # marked or released meanwhile: read again
                if cancelled.failed("release"):  # the held thread is gone (an erase): nothing to release
                    self._call(
                        "update_item",
                        allow_condition_failure=True,
                        TableName=self.table_name,
                        Key=_key(pk, THREAD_SK),
                        UpdateExpression="SET #deleting = :yes",
                        ConditionExpression="attribute_exists(pk)",
                        ExpressionAttributeNames={"#deleting": "deleting"},
                        ExpressionAttributeValues={":yes": {"BOOL": True}},
                    )
                    return
                if not cancelled.conflicted:
                    raise cancelled.unavailable() from None
                time.sleep(0.02 * (attempt + 1))
        raise DependencyUnavailable("DynamoDB thread delete kept conflicting with other writes; retry it")

    def release_thread(self, tenant: str, thread_id: str) -> None:
        with aws_call_allowing("DynamoDB delete_item", CONDITION_FAILED):
            self.client.delete_item(
                TableName=self.table_name,
                Key=_key(thread_pk(tenant, thread_id), THREAD_SK),
                ConditionExpression="attribute_not_exists(pk) OR attribute_exists(#deleting)",
                ExpressionAttributeNames={"#deleting": "deleting"},
            )

    # ---- Griptape Cloud-style thread fields and aliases ----------------------------------------------------
    def run_seq(self, tenant: str, thread_id: str, run_id: str, ancestry: Ancestry = ()) -> int | None:
        for owner, lo, hi in _segments(thread_id, ancestry):  # nearest first: one read per segment at most
            item = self._get(thread_pk(tenant, owner), runid_sk(run_id))
            seq = int(item["seq"]["N"]) if item and POPPED not in item else None
            if seq is not None and lo < seq <= hi:  # an ancestor's run past the fork point is not this thread's
                return seq
        return None

    def set_thread_fields(self, tenant: str, thread_id: str, fields: dict[str, str], now: str) -> ThreadState:
        return self._upsert_thread(tenant, thread_id, now, {k: fields[k] for k in _THREAD_TEXT_FIELDS if k in fields})

    def claim_alias(self, tenant: str, alias: str, thread_id: str, *, replace: str | None = None) -> bool:
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "Item": {
                **_key(alias_pk(tenant, alias), ALIAS_SK),
                "thread_id": {"S": thread_id},
                TENANT_INDEX_ATTRIBUTE: {"S": tenant_index_value(tenant, alias_pk(tenant, alias))},
            },
        }
        if replace is None:
            params["ConditionExpression"] = "attribute_not_exists(pk)"
        else:
            params["ConditionExpression"] = "thread_id = :old"
            params["ExpressionAttributeValues"] = {":old": {"S": replace}}
        with aws_call_allowing("DynamoDB put_item", CONDITION_FAILED) as call:
            self.client.put_item(**params)
        return not call.refused

    def release_alias(self, tenant: str, alias: str, thread_id: str) -> None:
        with aws_call_allowing("DynamoDB delete_item", CONDITION_FAILED) as call:
            self.client.delete_item(
                TableName=self.table_name,
                Key=_key(alias_pk(tenant, alias), ALIAS_SK),
                ConditionExpression="thread_id = :t",
                ExpressionAttributeValues={":t": {"S": thread_id}},
            )
        if call.refused:
            return  # the alias names another thread now (or nothing): leave it

    def alias_target(self, tenant: str, alias: str) -> str | None:
        item = self._get(alias_pk(tenant, alias), ALIAS_SK)
        return _s(item, "thread_id") if item else None

    # ---- helpers --------------------------------------------------------------------------------------
    def _get(self, pk: str, sk: str) -> dict[str, Any] | None:
        out = self._call("get_item", TableName=self.table_name, Key=_key(pk, sk), ConsistentRead=True)
        item: dict[str, Any] | None = out.get("Item")
        return item

    def _batch_delete(self, keys: Sequence[dict[str, Any]]) -> None:
        for i in range(0, len(keys), 25):
            requests = [{"DeleteRequest": {"Key": k}} for k in keys[i : i + 25]]
            for _attempt in range(8):
                out = self._call("batch_write_item", RequestItems={self.table_name: requests})
                requests = (out.get("UnprocessedItems") or {}).get(self.table_name) or []
                if not requests:
                    break
            else:
                raise DependencyUnavailable("DynamoDB batch_write_item left items unprocessed")

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

    def _call(
        self,
        operation: str,
        *,
        refuse_when_deleting: bool = False,
        allow_condition_failure: bool = False,
        **params: Any,
    ) -> Any:
        allowed = (CONDITION_FAILED,) if refuse_when_deleting or allow_condition_failure else ()
        with aws_call_allowing(f"DynamoDB {operation}", *allowed):
            return getattr(self.client, operation)(**params)
        if refuse_when_deleting:  # the condition failed
            raise ThreadDeleting() from None
        return None


def _listed(keys: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A BatchGetItem request of a listing's page: the thread items' listed attributes only."""
    return {
        "Keys": list(keys),
        "ProjectionExpression": ", ".join(_LISTED_ATTRIBUTES),
        "ExpressionAttributeNames": {"#kind": "kind", "#name": "name"},
    }


def _key(pk: str, sk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


#: A fork's ancestry: (ancestor thread id, through_seq), nearest first, through_seq strictly decreasing.
Ancestry = Sequence[tuple[str, int]]
_TOP = 10**12 - 1  # the highest seq a run key holds (run_sk pads to 12 digits)


def _segments(thread_id: str, ancestry: Ancestry) -> list[tuple[str, int, int]]:
    """The combined history's segments, newest first: (partition's thread, lo, hi) holding seqs lo < seq <= hi.
    The thread's own runs are above ancestry[0]'s through_seq; ancestor i's between the next one's and its own."""
    out: list[tuple[str, int, int]] = []
    owner, top = thread_id, _TOP
    for ancestor, through in ancestry:
        out.append((owner, through, top))
        owner, top = ancestor, through
    out.append((owner, 0, top))
    return [seg for seg in out if seg[2] > seg[1]]


def _owner(thread_id: str, ancestry: Ancestry, seq: int) -> str:
    """The thread whose partition holds `seq` of the combined history."""
    return next((owner for owner, lo, hi in _segments(thread_id, ancestry) if lo < seq <= hi), thread_id)


@dataclass(frozen=True)
class _Delete:
    """One item of a delete transaction: the bytes it added to the gauge, whether it is a run (and expires)."""

    key: dict[str, Any]
    metered_bytes: int
    run: bool
    expiring: int | None

    @property
    def conditional(self) -> bool:
        # Deleted only if there (so counted once): runs (the thread's count) and anything the gauge counted.
        return self.run or self.metered_bytes > 0


def _count_added_runs(table: str, pk: str, runs: Sequence[StoredRun], generation: str) -> dict[str, Any]:
    """add-run's thread item update: the incarnation is the one that gave out the seqs and is not being deleted;
    the runs count. The thread's first run (seq 1: nothing was ever stored before it) makes the count trusted."""
    expiring = sum(1 for r in runs if r.expires_at is not None)
    adds = ["run_count :n"] + (["expiring_runs :expiring"] if expiring else [])
    values: dict[str, Any] = {":gen": {"S": generation}, ":n": {"N": str(len(runs))}}
    if expiring:
        values[":expiring"] = {"N": str(expiring)}
    update: dict[str, Any] = {
        "TableName": table,
        "Key": _key(pk, THREAD_SK),
        "UpdateExpression": "ADD " + ", ".join(adds),
        "ConditionExpression": "#gen = :gen AND attribute_not_exists(#deleting)",
        "ExpressionAttributeNames": {"#gen": "generation", "#deleting": "deleting"},
        "ExpressionAttributeValues": values,
    }
    if any(r.seq == 1 for r in runs):
        update["UpdateExpression"] += " SET #ok = :yes"
        update["ExpressionAttributeNames"]["#ok"] = "runs_counted"
        update["ExpressionAttributeValues"][":yes"] = {"BOOL": True}
    return update


def _count_deleted_runs(table: str, pk: str, runs: int, expiring: int, *, version: int | None = None) -> dict[str, Any]:
    values: dict[str, Any] = {":runs": {"N": str(-runs)}}
    names = {"#deleting": "deleting"}
    expression = "ADD run_count :runs"
    condition = "attribute_exists(pk) AND attribute_not_exists(#deleting)"
    if expiring:
        expression += ", expiring_runs :expiring"
        values[":expiring"] = {"N": str(-expiring)}
    if version is not None:  # a sweep's plan: the thread still at the version it was made with, bumped
        check, at = at_version(version)
        condition += f" AND {check}"
        expression += " SET #ver = :next"
        names["#ver"] = "version"
        values.update({**at, ":next": {"N": str(version + 1)}})
    return {
        "TableName": table,
        "Key": _key(pk, THREAD_SK),
        "UpdateExpression": expression,
        "ConditionExpression": condition,
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
    }


def _n(item: dict[str, Any], name: str, default: int | None = None) -> int | None:
    value = item.get(name)
    return int(value["N"]) if value is not None else default


def _s(item: dict[str, Any], name: str) -> str | None:
    value = item.get(name)
    return str(value["S"]) if value is not None else None


def _thread_state(tenant: str, thread_id: str, item: dict[str, Any]) -> ThreadState:
    memory_type = _s(item, "memory_type") or "buffer"
    run_count = _n(item, "run_count")
    trusted = "runs_counted" in item and not _n(item, "expiring_runs", 0)
    return ThreadState(
        tenant=tenant,
        thread_id=thread_id,
        exists=True,
        next_seq=_n(item, "next_seq", 0) or 0,
        memory_type="summary" if memory_type == "summary" else "buffer",
        max_runs=_n(item, "max_runs"),
        offset=_n(item, "offset", 1) or 1,
        retention_days=_n(item, "retention_days"),
        summary=_s(item, "summary"),
        summary_through_seq=_n(item, "summary_through_seq", 0) or 0,
        summary_version=_n(item, "summary_version", 0) or 0,
        burned_seqs=_n(item, "burned_seqs", 0) or 0,
        run_tokens=_n(item, "run_tokens", 0) or 0,
        created_at=_s(item, "created_at"),
        updated_at=_s(item, "updated_at"),
        summary_updated_at=_s(item, "summary_updated_at"),
        generation=_s(item, "generation"),
        name=_s(item, "name"),
        alias=_s(item, "alias"),
        metadata_json=_s(item, "metadata_json"),
        run_count=max(0, run_count or 0) if trusted else None,
        run_count_read=run_count,
        kind=_kind(item),
        ancestry=_ancestry(item),
        fork_of=_s(item, "fork_of"),
        fork_request=_s(item, "fork_request"),
        actor_id=_s(item, "actor_id"),
        fork_count=max(0, _n(item, "fork_count", 0) or 0),
        fork_hold=_n(item, "fork_hold", 0) or 0,
        version=_n(item, "version", 0) or 0,
    )


def _ancestry(item: dict[str, Any]) -> tuple[tuple[str, int], ...]:
    return tuple(
        (str(a["M"]["thread"]["S"]), int(a["M"]["through"]["N"])) for a in item.get("ancestry", {}).get("L", [])
    )


def _kind(item: dict[str, Any]) -> Literal["runs", "items"]:
    """A thread item's kind: "items" when its first allocation said so; no kind and seqs given out is "runs"
    (threads older than the field); no kind and no seq is undecided, read as "runs" (its first add decides)."""
    return "items" if _s(item, "kind") == "items" else "runs"


#: Marks the run-id item of a popped item: its id stays taken, `run_seq` no longer finds it.
POPPED = "popped"


def _id_item(pk: str, run: StoredRun) -> dict[str, Any]:
    """A run's id item: its seq and content hash (what a retry with the same id is compared with)."""
    item: dict[str, Any] = {
        **_key(pk, runid_sk(run.run_id)),
        "seq": {"N": str(run.seq)},
        "hash": {"S": run.content_hash},
    }
    if run.expires_at is not None:
        item["expires_at"] = {"N": str(run.expires_at)}
    return item


def _popped_id_item(pk: str, run: StoredRun) -> dict[str, Any]:
    return {**_id_item(pk, run), POPPED: {"BOOL": True}}


def _run_item(pk: str, run: StoredRun, tenant: str, thread_id: str, *, metered_bytes: int) -> dict[str, Any]:
    item: dict[str, Any] = {
        **_key(pk, run_sk(run.seq)),
        "tenant": {"S": tenant},
        "thread_id": {"S": thread_id},
        "seq": {"N": str(run.seq)},
        "run_id": {"S": run.run_id},
        "hash": {"S": run.content_hash},
        "size": {"N": str(run.size)},
        "created_at": {"S": run.created_at},
        "memory_type": {"S": run.memory_type},
    }
    if run.counted:  # an uncounted run has no counts at all (docs/adr/0040), not zeros
        item["input_tokens"] = {"N": str(run.input_tokens)}
        item["output_tokens"] = {"N": str(run.output_tokens)}
    if run.run_json is not None:
        item["run"] = {"S": run.run_json}
    if run.blob_key is not None:
        item["blob_key"] = {"S": run.blob_key}
    if run.expires_at is not None:
        item["expires_at"] = {"N": str(run.expires_at)}
    if metered_bytes > 0:
        item["metered_bytes"] = {"N": str(metered_bytes)}
    if run.thread_kind != "runs":
        item["thread_kind"] = {"S": run.thread_kind}
    return item


def _stored_run(item: dict[str, Any]) -> StoredRun:
    # Read on every prompt-stack for every run it returns: plain lookups, no helper per attribute.
    get = item.get
    seq, input_tokens, output_tokens, size = get("seq"), get("input_tokens"), get("output_tokens"), get("size")
    run_id, content_hash, created_at = get("run_id"), get("hash"), get("created_at")
    run, blob_key, expires_at, metered = get("run"), get("blob_key"), get("expires_at"), get("metered_bytes")
    thread_kind = get("thread_kind")
    return StoredRun(
        seq=int(seq["N"]) if seq is not None else 0,
        run_id=str(run_id["S"]) if run_id is not None else "",
        content_hash=str(content_hash["S"]) if content_hash is not None else "",
        input_tokens=int(input_tokens["N"]) if input_tokens is not None else 0,
        output_tokens=int(output_tokens["N"]) if output_tokens is not None else 0,
        counted=input_tokens is not None,
        size=int(size["N"]) if size is not None else 0,
        created_at=str(created_at["S"]) if created_at is not None else "",
        run_json=str(run["S"]) if run is not None else None,
        blob_key=str(blob_key["S"]) if blob_key is not None else None,
        expires_at=int(expires_at["N"]) if expires_at is not None else None,
        metered_bytes=int(metered["N"]) if metered is not None else 0,
        thread_kind=str(thread_kind["S"]) if thread_kind is not None else "runs",
    )


#: A run item as DynamoDB returns it (a GetItem's, a Query's, a stream record's image) → its StoredRun.
stored_run_of_item = _stored_run
