"""RunStore on DynamoDB: one item per run in the thread's partition, plus a run-id item for idempotency.

Why ~660 lines (docs/adr/0058): the thread record, the listing and the run log share the reads `_call`/`_get`, and
the call-depth rule wants each SDK call in the module of the method a use case calls (handler → use case →
adapter); forks and deletes are in dynamodb_run_deletes, aliases in dynamodb_run_aliases, the items' codecs in
dynamodb_run_items.

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
from typing import Any, Literal

from offprompt import deadline
from offprompt.errors import DependencyUnavailable
from offprompt.limits import IDENTIFIER_MAX_UTF8_BYTES
from offprompt.metering import Charge
from offprompt.ports import (
    RunIdTaken,
    StoredRun,
    ThreadDeleting,
    ThreadState,
    WrongThreadKind,
)

from .aws_errors import CONDITION_FAILED, aws_call, aws_call_allowing
from .dynamodb_account import charge_items, expired_release, refuse_charge
from .dynamodb_run_aliases import Aliases
from .dynamodb_run_deletes import ForksAndDeletes
from .dynamodb_run_items import (
    _BATCH_GET_KEYS,
    _CONFIG_FIELDS,
    _THREAD_TEXT_FIELDS,
    _TOP,
    POPPED,
    Ancestry,
    _ancestry,
    _count_added_runs,
    _id_item,
    _key,
    _kind,
    _listed,
    _owner,
    _run_item,
    _segments,
    _stored_run,
    _thread_state,
)
from .dynamodb_transaction import Cancelled, Transaction
from .layout import (
    ACTIVITY_ATTRIBUTE,
    ACTIVITY_INDEX,
    TENANT_INDEX,
    TENANT_INDEX_ATTRIBUTE,
    THREAD_SK,
    activity_value,
    fork_link_prefix,
    fork_pk,
    run_sk,
    runid_sk,
    tenant_index_value,
    tenant_index_values,
    thread_pk,
    thread_prefix_pk,
)


class DynamoDbRunStore(ForksAndDeletes, Aliases):
    """The RunStore on DynamoDB: threads, tenant listing, settings, summaries and the run log here; forks and
    deletes in dynamodb_run_deletes, aliases in dynamodb_run_aliases; the items' codecs in dynamodb_run_items."""

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
        whole: bool = False,
    ) -> tuple[list[ThreadState], str | None]:
        if order == "activity":
            return self._threads_by_activity(tenant, limit=limit, after=after, prefix=prefix, whole=whole)
        return self._threads_by_id(tenant, limit=limit, after=after, prefix=prefix, whole=whole)

    @staticmethod
    def _page_request(page: list[dict[str, Any]], whole: bool) -> dict[str, Any]:
        """The BatchGetItem of a listing's page: the listed attributes, or (`whole`) every attribute, strongly
        consistent, as `get_threads` reads them."""
        return {"Keys": page, "ConsistentRead": True} if whole else _listed(page)

    def _threads_by_activity(
        self, tenant: str, *, limit: int, after: str | None, prefix: str | None, whole: bool = False
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
        items = {str(i["pk"]["S"]): i for i in (self._batch_get(self._page_request(page, whole)) if page else [])}
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
        self, tenant: str, *, limit: int, after: str | None, prefix: str | None, whole: bool = False
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
        items = {str(i["pk"]["S"]): i for i in (self._batch_get(self._page_request(page, whole)) if page else [])}
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

    def forks_under(self, tenant: str, prefix: str) -> dict[str, tuple[tuple[str, int], ...]]:
        """The fork registry's entries whose ids start with `prefix` (docs/adr/0064): one key Query (`begins_with`
        on the sort key, strongly consistent), paged; each fork's ancestry as it was made (it never changes)."""
        if len(prefix.encode("utf-8", "surrogatepass")) > IDENTIFIER_MAX_UTF8_BYTES:
            return {}  # no thread id starts with it
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :sk)",
            "ExpressionAttributeValues": {":pk": {"S": fork_pk(tenant)}, ":sk": {"S": fork_link_prefix(prefix)}},
            "ProjectionExpression": "thread_id, ancestry",
            "ConsistentRead": True,
        }
        out: dict[str, tuple[tuple[str, int], ...]] = {}
        while True:
            page = self._call("query", **params)
            for item in page.get("Items", []):
                thread_id = str(item["thread_id"]["S"])
                if thread_id.startswith(prefix):
                    out[thread_id] = _ancestry(item)
            if not page.get("LastEvaluatedKey"):
                return out
            params["ExclusiveStartKey"] = page["LastEvaluatedKey"]

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

    # ---- helpers --------------------------------------------------------------------------------------
    def _get(self, pk: str, sk: str) -> dict[str, Any] | None:
        out = self._call("get_item", TableName=self.table_name, Key=_key(pk, sk), ConsistentRead=True)
        item: dict[str, Any] | None = out.get("Item")
        return item

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
