"""The table's changes as memory events (docs/adr/0036-memory-events.md): a DynamoDB stream record
(NEW_AND_OLD_IMAGES, as Lambda delivers it) → zero or one `MemoryEvent`. Pure: no SDK, no I/O.

What each item write means is read from the storage layout (`layout.parse_key`); the tenant is the one the item's
key names, never an attribute on its own (an attribute only recovers a digested key part that it digests to):

- `RUN#` INSERT → `run.added` {thread_id, run_id, seq, bytes, input_tokens, output_tokens}; of an items thread
  (the item's `thread_kind` "items") → `items.appended` {thread_id, item_id, seq, bytes};
- `RUN#` REMOVE by DynamoDB's TTL → `run.expired` {thread_id, run_id, seq, thread_kind};
- `#THREAD` MODIFY that marks it `deleting` (a thread delete's first write) → `thread.deleted` {thread_id};
- `BATCH#` INSERT (one committed store: its commit transaction writes it) → `output.stored` {memory, namespace,
  start, count, storage};
- `NS#` MODIFY that marks a committed namespace `deleting` → `namespace.deleted` {memory, namespace};
- `CUR#` INSERT/MODIFY to a new live version → `record.put` {namespace, namespace_path, key, version, created, bytes};
- `CUR#` MODIFY to a tombstone → `record.deleted` {namespace, namespace_path, key, version};
- `CUR#` REMOVE of a live version by DynamoDB's TTL → `record.expired` {namespace, namespace_path, key, version}.

Everything else is no event: API keys, usage counters, rate windows, receipts, run ids, meta entries, upload
markers, past record versions, a namespace's reservation counter, a run removed by a thread delete, a pop or an
erase, a thread or namespace item removed (a delete's last step, or an erase: a delete is reported when it
starts, as readers stop seeing the data then), a record removed by an erase, and any item the layout does not know.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from offprompt import events
from offprompt.ports import MemoryEvent

from .layout import ParsedKey, parse_key

#: The `userIdentity` of a stream record for an item DynamoDB's Time to Live deleted.
TTL_IDENTITY = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
#: The attribute that marks a record's current item as a tombstone (a delete is a version, docs/adr/0034).
TOMBSTONE_ATTRIBUTES = ("deleted",)


class StreamEventDecoder:
    """`ChangeDecoder` over the table's stream records."""

    def event_of(self, record: Mapping[str, object]) -> MemoryEvent | None:
        return memory_event(record)


def memory_event(record: Mapping[str, Any]) -> MemoryEvent | None:
    """The memory event one stream record means, or None (most records mean none)."""
    change = record.get("dynamodb")
    event_id, name = record.get("eventID"), record.get("eventName")
    if not isinstance(change, Mapping) or not isinstance(event_id, str) or not event_id:
        return None
    keys = change.get("Keys") or {}
    pk, sk = _s(keys, "pk"), _s(keys, "sk")
    if pk is None or sk is None:
        return None
    new, old = change.get("NewImage") or {}, change.get("OldImage") or {}
    image = new or old
    hints = {name: _s(image, name) for name in ("tenant", "thread_id", "memory_name", "namespace", "ns", "key")}
    hints["memory"] = hints.pop("memory_name")
    parsed = parse_key(pk, sk, hints)
    if parsed is None or parsed.tenant is None:
        return None
    found = _meaning(parsed, str(name), new, old, _by_ttl(record))
    if found is None:
        return None
    kind, detail = found
    if any(value is None for value in detail.values()):
        return None  # an identifier the key digested and no attribute recovers: no event names it half
    return MemoryEvent(event_id, kind, _time(change), parsed.tenant, detail)


def _meaning(
    parsed: ParsedKey, name: str, new: Mapping[str, Any], old: Mapping[str, Any], by_ttl: bool
) -> tuple[str, dict[str, Any]] | None:
    ids = parsed.ids
    if parsed.kind == "run":
        if name == "INSERT":
            if _s(new, "thread_kind") == "items":
                return events.ITEMS_APPENDED, {
                    "thread_id": ids["thread_id"],
                    "item_id": _s(new, "run_id"),
                    "seq": ids["seq"],
                    "bytes": _n(new, "size"),
                }
            return events.RUN_ADDED, {
                "thread_id": ids["thread_id"],
                "run_id": _s(new, "run_id"),
                "seq": ids["seq"],
                "bytes": _n(new, "size"),
                "input_tokens": _n(new, "input_tokens"),
                "output_tokens": _n(new, "output_tokens"),
            }
        if name == "REMOVE" and by_ttl:
            return events.RUN_EXPIRED, {
                "thread_id": ids["thread_id"],
                "run_id": _s(old, "run_id"),
                "seq": ids["seq"],
                "thread_kind": _s(old, "thread_kind") or "runs",
            }
        return None
    if parsed.kind == "thread" and _marked_deleting(name, new, old):
        return events.THREAD_DELETED, {"thread_id": ids["thread_id"]}
    if parsed.kind == "batch" and name == "INSERT":
        return events.OUTPUT_STORED, {
            "memory": ids["memory"],
            "namespace": ids["namespace"],
            "start": ids["start"],
            "count": _n(new, "count"),
            "storage": _s(new, "kind"),
        }
    if parsed.kind == "namespace" and _marked_deleting(name, new, old) and "kind" in old:
        return events.NAMESPACE_DELETED, {"memory": ids["memory"], "namespace": ids["namespace"]}
    if parsed.kind == "record":
        return _record_meaning(ids, name, new, old, by_ttl)
    return None


def _record_meaning(
    ids: dict[str, Any], name: str, new: Mapping[str, Any], old: Mapping[str, Any], by_ttl: bool
) -> tuple[str, dict[str, Any]] | None:
    namespace = ids["namespace"]
    detail: dict[str, Any] = {
        "namespace": list(namespace) if namespace is not None else None,
        "namespace_path": ".".join(namespace) if namespace is not None else None,
        "key": ids["key"],
    }
    if name in ("INSERT", "MODIFY"):
        detail["version"] = _n(new, "version")
        if _tombstone(new):
            # a delete of a record that was already deleted (or a tombstone rewritten) changes nothing new
            return (events.RECORD_DELETED, detail) if name == "MODIFY" and old and not _tombstone(old) else None
        if name == "MODIFY" and _n(old, "version") == detail["version"]:
            return None  # the same version touched again (a TTL refresh): not a new put
        detail["created"] = not old or _tombstone(old)
        detail["bytes"] = _n(new, "size")
        return events.RECORD_PUT, detail
    if name == "REMOVE" and by_ttl and old and not _tombstone(old):
        detail["version"] = _n(old, "version")
        return events.RECORD_EXPIRED, detail
    return None


def _marked_deleting(name: str, new: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    """A delete's first write: from it on readers see no thread (namespace); its items go after it."""
    return name == "MODIFY" and "deleting" in new and "deleting" not in old


def _tombstone(image: Mapping[str, Any]) -> bool:
    return any(bool(image.get(name, {}).get("BOOL")) for name in TOMBSTONE_ATTRIBUTES)


def _by_ttl(record: Mapping[str, Any]) -> bool:
    identity = record.get("userIdentity")
    return isinstance(identity, Mapping) and all(identity.get(k) == v for k, v in TTL_IDENTITY.items())


def _time(change: Mapping[str, Any]) -> str:
    stamp = change.get("ApproximateCreationDateTime")
    if isinstance(stamp, datetime):  # boto3's get_records parses it
        moment = stamp.astimezone(UTC)
    elif isinstance(stamp, int | float):
        moment = datetime.fromtimestamp(float(stamp), UTC)
    else:
        moment = datetime.now(UTC)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def _s(image: Mapping[str, Any], name: str) -> str | None:
    value = image.get(name)
    return str(value["S"]) if isinstance(value, Mapping) and "S" in value else None


def _n(image: Mapping[str, Any], name: str) -> int | None:
    value = image.get(name)
    if isinstance(value, Mapping) and "N" in value:
        try:
            return int(value["N"])
        except ValueError:
            return None
    return None
