"""The RunStore's items on DynamoDB: constants, the codecs of thread and run items, the transaction items
that keep a thread's counts, and the reads' requests. No SDK call is made
here: only requests are built and answers decoded (docs/adr/0058)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from offprompt.ports import (
    StoredRun,
    ThreadState,
)

from .dynamodb_transaction import at_version
from .layout import (
    THREAD_SK,
    run_sk,
    runid_sk,
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


def get_request(table: str, pk: str, sk: str) -> dict[str, Any]:
    """A consistent GetItem of one item (`client.get_item(**get_request(...))`)."""
    return {"TableName": table, "Key": _key(pk, sk), "ConsistentRead": True}


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
