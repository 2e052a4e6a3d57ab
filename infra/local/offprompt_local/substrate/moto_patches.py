"""Changes to moto 5.2.5's DynamoDB models that the local substrate switches on per table and per request.

Everything here is installed once (`install()`), checked against the internals of the pinned moto version, and
is inert for anything the substrate does not manage: plain `mock_aws()` tests and plain `ThreadedMotoServer`
instances in the same process keep moto's own behaviour. A table is *managed* when it is created while a request
runs through `SubstrateApp` (see `server.py`), which sets the thread-local `context`:

- its partitions are `SortedPartition` dicts that keep their range keys sorted (`bisect`), so a key-condition
  Query reads only the items it returns (moto sorts the whole table on every Query);
- a Query on one of its secondary indexes reads only the items whose index hash attribute has the queried value
  (`_IndexMaps`: value -> table keys, kept up to date from the keys each write marks changed); moto walks every
  item of the table to find them. Sorting, paging, projections and filters stay moto's own code;
- its stream shard is a `BoundedStreamShard`: records older than 24 h, or beyond `STREAM_MAX_RECORDS`, are
  trimmed (moto keeps every record forever);
- `transact_write_items` saves only the touched items' prior state to roll back (moto deep-copies every
  table named in the transaction, stream records included);
- items and stream records created during its requests are not added to moto's `instances_tracked` lists,
  which otherwise keep every deep copy (each Query result, each UpdateItem's old image) alive forever;
- the responses of its requests are serialized by moto's own serializer, but the attribute names a member of a
  plain dict may be found under are computed once per (member shape, key) instead of once per value
  (`_picked_value`): moto recomputes them, with six alias providers, for every member of every AttributeValue,
  ~80 % of the time of a Query or GetRecords answering items (a Query of 50 items: ~75 ms of ~90).

The substrate also needs to know which items a request changed (for the journal): `context.touched` collects
(table, hash key, range key) from PutItem/DeleteItem/UpdateItem at the model level, transactions and batches
included.
"""

from __future__ import annotations

import bisect
import copy
import inspect
import threading
import weakref
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

#: The moto version whose internals this module was written against.
PINNED_MOTO = "5.2.5"
#: DynamoDB Streams keeps records for 24 hours.
STREAM_RETENTION = timedelta(hours=24)
#: And we keep at most this many per shard (a local stack does not need more; AWS has no count limit).
STREAM_MAX_RECORDS = 10_000
_MANAGED = "_offprompt_managed"


class MotoInternalsChanged(RuntimeError):
    """moto is not the version (or shape) the substrate was written for; it refuses to guess."""


# ------------------------------------------------------------------------------------------- request context


@dataclass
class RequestState:
    touched: dict[tuple[int, Any, Any], tuple[Any, Any, Any]] = field(default_factory=dict)

    def touch(self, table: Any, hash_key: Any, range_key: Any) -> None:
        self.touched[(id(table), hash_key, range_key)] = (table, hash_key, range_key)


class _Context(threading.local):
    state: RequestState | None = None


context = _Context()


def active() -> RequestState | None:
    """The substrate's state for the request running on this thread, or None outside the substrate."""
    return context.state


#: Counters for tests and benchmarks (items a fast-path Query looked at; items a transaction saved).
@dataclass
class Stats:
    query_fast: int = 0
    query_items_read: int = 0
    index_query_fast: int = 0
    index_query_items_read: int = 0
    transaction_items_saved: int = 0


stats = Stats()


# ---------------------------------------------------------------------------------------- sorted partitions


def _cast(key: Any) -> Any:
    return key.cast_value


class SortedPartition(dict[Any, Any]):
    """One partition of a managed table: range key (DynamoType) -> Item, plus the range keys in sorted order.

    moto writes partitions only with `[]=` and `pop`; the other mutators are kept consistent too.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.order: list[Any] = sorted(super().keys(), key=_cast)

    def __setitem__(self, key: Any, value: Any) -> None:
        if key not in self:
            bisect.insort(self.order, key, key=_cast)
        super().__setitem__(key, value)

    def __delitem__(self, key: Any) -> None:
        super().__delitem__(key)
        self._forget(key)

    def pop(self, key: Any, *default: Any) -> Any:
        if key in self:
            value = super().pop(key)
            self._forget(key)
            return value
        if default:
            return default[0]
        raise KeyError(key)

    def _forget(self, key: Any) -> None:
        index = bisect.bisect_left(self.order, _cast(key), key=_cast)
        while index < len(self.order) and self.order[index] != key:
            index += 1  # equal cast values of another type cannot exist in one partition; be safe anyway
        del self.order[index]

    def popitem(self) -> tuple[Any, Any]:
        key, value = super().popitem()
        self._forget(key)
        return key, value

    def clear(self) -> None:
        super().clear()
        self.order.clear()

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def __reduce__(self) -> Any:  # pickle/deepcopy: rebuild through __init__ so `order` is consistent
        return (SortedPartition, (dict(self),))


def _sorted_partitions() -> defaultdict[Any, SortedPartition]:
    return defaultdict(SortedPartition)


# ------------------------------------------------------------------------------------ bounded stream shard


def _stream_shard_class() -> type:
    from moto.dynamodb.models.table import StreamShard

    class BoundedStreamShard(StreamShard):
        """DynamoDB Streams keeps 24 hours of records; this keeps ≤ 24 h and ≤ STREAM_MAX_RECORDS.

        moto numbers records by list position (`starting_sequence_number + index`); trimming the front moves
        `starting_sequence_number` forward by as many records, so numbers stay stable and increasing.
        Trimming is deferred while a transaction runs (its rollback truncates by length).
        """

        hold_trim = False

        def add(self, old: Any, new: Any) -> None:
            super().add(old, new)
            if not self.hold_trim:
                self.trim()

        def __getstate__(self) -> dict[str, Any]:
            # Stream records are not persisted: a restored table's stream starts empty (numbers keep growing).
            state = dict(self.__dict__)
            state["starting_sequence_number"] = self.starting_sequence_number + len(self.items)
            state["items"] = []
            state.pop("hold_trim", None)
            return state

        def get(self, start: int, quantity: int) -> list[dict[str, Any]]:
            # An iterator older than the trim horizon reads from the oldest record kept (moto asserts; AWS
            # answers TrimmedDataAccessException).
            records: list[dict[str, Any]] = super().get(max(start, self.starting_sequence_number), quantity)
            return records

        def trim(self, now: datetime | None = None) -> int:
            excess = len(self.items) - STREAM_MAX_RECORDS
            drop = excess + STREAM_MAX_RECORDS // 10 if excess > 0 else 0  # trim in batches: amortised O(1)
            drop = min(drop, len(self.items))
            if self.items:
                oldest = self.items[drop] if drop < len(self.items) else None
                cutoff = (now or _utcnow()) - STREAM_RETENTION
                while oldest is not None and _record_time(oldest) < cutoff:
                    drop += 1
                    oldest = self.items[drop] if drop < len(self.items) else None
            if drop:
                del self.items[:drop]
                self.starting_sequence_number += drop
            return drop

    BoundedStreamShard.__module__ = __name__
    BoundedStreamShard.__qualname__ = "BoundedStreamShard"
    return BoundedStreamShard


def _utcnow() -> datetime:
    from moto.core.utils import utcnow

    now: datetime = utcnow()
    return now


def _record_time(record: Any) -> datetime:
    created: datetime = record.record["dynamodb"]["ApproximateCreationDateTime"]
    return created


BoundedStreamShard: type | None = None  # set by install(); a module attribute so pickle finds the class


def _manage_stream(table: Any) -> None:
    shard = getattr(table, "stream_shard", None)
    if shard is not None and BoundedStreamShard is not None and type(shard) is not BoundedStreamShard:
        shard.__class__ = BoundedStreamShard


# ------------------------------------------------------------------------------------------- fast Query


_RANGE_OPS = {"=", "EQ", "<", "LT", "<=", "LE", ">", "GT", ">=", "GE", "BETWEEN", "BEGINS_WITH"}


def _bounds(order: list[Any], comparison: str | None, values: list[Any]) -> tuple[int, int] | None:
    """[lo, hi) of the sorted range keys that satisfy the key condition; None when not accelerated."""
    n = len(order)
    if comparison is None:
        return 0, n
    op = comparison.upper()
    if op not in _RANGE_OPS:
        return None
    casts = [v.cast_value for v in values]

    def left(x: Any) -> int:
        return bisect.bisect_left(order, x, key=_cast)

    def right(x: Any) -> int:
        return bisect.bisect_right(order, x, key=_cast)

    if op in ("=", "EQ"):
        return left(casts[0]), right(casts[0])
    if op in ("<", "LT"):
        return 0, left(casts[0])
    if op in ("<=", "LE"):
        return 0, right(casts[0])
    if op in (">", "GT"):
        return right(casts[0]), n
    if op in (">=", "GE"):
        return left(casts[0]), n
    if op == "BETWEEN":
        lo, hi = left(casts[0]), right(casts[1])
        return lo, max(lo, hi)
    prefix = casts[0]  # BEGINS_WITH: the matching keys are contiguous from bisect_left(prefix)
    if not isinstance(prefix, (str, bytes)):
        return None
    lo = left(prefix)
    first, last = lo, n
    while first < last:
        mid = (first + last) // 2
        if order[mid].cast_value.startswith(prefix):
            first = mid + 1
        else:
            last = mid
    return lo, first


def _fast_query(
    table: Any,
    hash_key: Any,
    range_comparison: str | None,
    range_objs: list[Any],
    limit: int | None,
    exclusive_start_key: dict[str, Any] | None,
    scan_index_forward: bool,
    projection_expressions: Any,
    filter_expression: Any,
    range_key_conditions: list[tuple[str, str, list[Any]]] | None,
) -> tuple[list[Any], int, dict[str, Any] | None] | None:
    """moto's Table.query for a table's own key condition, reading only the items it returns (None: not handled)."""
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.table import RESULT_SIZE_LIMIT

    if not isinstance(scan_index_forward, bool):
        return None  # moto treats anything but False as forward in one place and compares with == in another
    if range_key_conditions and (len(range_key_conditions) > 1 or range_key_conditions[-1][0] != table.range_key_attr):
        return None
    partition = table.items.get(hash_key)
    if partition is None:
        partition = SortedPartition()
    if not isinstance(partition, SortedPartition):
        return None
    order = partition.order
    bounds = _bounds(order, range_comparison, range_objs)
    if bounds is None:
        return None
    lo, hi = bounds
    if exclusive_start_key is not None:
        start_hash = exclusive_start_key.get(table.hash_key_attr)
        start_range = exclusive_start_key.get(table.range_key_attr)
        if start_hash is None or start_range is None or DynamoType(start_hash) != hash_key:
            return None
        start = DynamoType(start_range).cast_value
        if scan_index_forward:
            lo = max(lo, bisect.bisect_right(order, start, key=_cast))
        else:
            hi = min(hi, bisect.bisect_left(order, start, key=_cast))
    indices: Iterable[int] = range(lo, hi) if scan_index_forward else range(hi - 1, lo - 1, -1)
    stats.query_fast += 1
    results: list[Any] = []
    result_size = 0
    scanned = 0
    last_key: dict[str, Any] | None = None
    stopped = False
    for index in indices:
        item = partition[order[index]]
        stats.query_items_read += 1
        if len(results) == limit or result_size + item.size() > RESULT_SIZE_LIMIT:
            last_key = table._get_last_evaluated_key(results[-1], None)
            stopped = True
            break
        if range_comparison and not item.range_key.compare(range_comparison, range_objs):
            continue  # cannot happen for the monotone conditions above; kept as moto's own check
        results.append(item)
        result_size += item.size()
        scanned += 1
    if not stopped and results:
        # moto keeps walking the partition past the matching keys and sets LastEvaluatedKey when the next
        # item (matching or not) would exceed the limit; reproduce that with the one next item.
        beyond = hi if scan_index_forward else lo - 1
        if 0 <= beyond < len(order) and (beyond >= hi or beyond < lo):
            following = partition[order[beyond]]
            stats.query_items_read += 1
            if len(results) == limit or result_size + following.size() > RESULT_SIZE_LIMIT:
                last_key = table._get_last_evaluated_key(results[-1], None)
    if projection_expressions and filter_expression is None:
        return [_projected(item, projection_expressions) for item in results], scanned, last_key  # new items
    results = copy.deepcopy(results)
    if filter_expression is not None:
        results = [item for item in results if filter_expression.expr(item)]
    if projection_expressions:
        results = [_projected(item, projection_expressions) for item in results]
    return results, scanned, last_key


def _projected(item: Any, projection_expressions: list[list[str]]) -> Any:
    """moto's `Item.project`, which converts the whole item to plain JSON once per expression: for distinct
    top-level names (what the adapters project) only the projected attributes, once each, to the same new Item
    (moto's `Item.to_regular_json` converts attribute by attribute, so the kept ones convert alike; a run's body
    that is not projected is no longer copied)."""
    names = [expression[0] for expression in projection_expressions if len(expression) == 1]
    if len(names) != len(projection_expressions) or len(set(names)) != len(names) or any("[" in n for n in names):
        return item.project(projection_expressions)
    from moto.dynamodb.models.dynamo_type import Item, deserializer, serializer

    attrs = item.attrs
    kept = {name: deserializer.deserialize(attrs[name].to_regular_json()) for name in names if name in attrs}
    return Item(hash_key=item.hash_key, range_key=item.range_key, attrs=serializer.serialize(kept)["M"])


# ----------------------------------------------------------------------------------- secondary-index Query


_UNHASHABLE = object()  # the bucket of values that cannot be dict keys (moto compares them itself)


class _IndexMaps:
    """For one managed table: per attribute name used as an index hash key, value -> the keys of the items that
    carry it, plus the keys written since the maps were last brought up to date (`changed`).

    Built on first use (a restored table included) by one walk of the table, rebuilt when `table.items` is
    replaced (moto's restore-from-backup), and otherwise maintained from `changed`: every path that writes
    `table.items` or an item's attributes (PutItem, DeleteItem, UpdateItem — moto updates items in place —,
    transaction rollback, journal replay) calls `mark_changed` *after* its write.
    """

    def __init__(self, items: Any) -> None:
        self.items = items
        self.by_value: dict[str, dict[Any, set[tuple[Any, Any]]]] = {}
        self.value_of: dict[str, dict[tuple[Any, Any], Any]] = {}
        self.changed: set[tuple[Any, Any]] = set()

    def _add(self, attr: str, key: tuple[Any, Any], item: Any) -> None:
        value = item.attrs.get(attr) if item is not None else None
        if value is None:
            return
        try:
            hash(value)
        except TypeError:
            value = _UNHASHABLE
        self.by_value[attr].setdefault(value, set()).add(key)
        self.value_of[attr][key] = value

    def _index(self, attr: str) -> None:
        self.by_value[attr] = {}
        self.value_of[attr] = {}
        for key, item in _all_keyed_items(self.items):
            self._add(attr, key, item)

    def _refresh(self) -> None:
        for key in self.changed:
            item = _item_at(self.items, key)
            for attr, values in self.by_value.items():
                old = self.value_of[attr].pop(key, None)
                if old is not None:
                    keys = values[old]
                    keys.discard(key)
                    if not keys:
                        del values[old]
                self._add(attr, key, item)
        self.changed.clear()

    def candidates(self, attr: str, value: Any) -> list[Any]:
        """The items whose `attr` equals `value` (and those whose `attr` is unhashable), in moto's all_items order."""
        self._refresh()
        if attr not in self.by_value:
            self._index(attr)
        values = self.by_value[attr]
        keys = set(values.get(value, ()))
        keys.update(values.get(_UNHASHABLE, ()))
        found = [item for item in (_item_at(self.items, key) for key in keys) if item is not None]
        return sorted(found, key=lambda x: (x.hash_key, x.range_key) if x.range_key else x.hash_key)


def _all_keyed_items(items: Any) -> Iterable[tuple[tuple[Any, Any], Any]]:
    for hash_key, value in list(items.items()):
        if isinstance(value, dict):
            for range_key, item in list(value.items()):
                yield (hash_key, range_key), item
        else:
            yield (hash_key, None), value


def _item_at(items: Any, key: tuple[Any, Any]) -> Any:
    hash_key, range_key = key
    value = items.get(hash_key)  # .get: `items` is a defaultdict; a lookup must not create partitions
    if range_key is None:
        return None if isinstance(value, dict) else value
    return value.get(range_key) if isinstance(value, dict) else None


_index_maps: weakref.WeakKeyDictionary[Any, _IndexMaps] = weakref.WeakKeyDictionary()
_index_lock = threading.Lock()


class _Scope(threading.local):
    """The items a patched `Table.all_items` returns for the one Query running on this thread (None: all)."""

    table: Any = None
    items: list[Any] | None = None


_scope = _Scope()


def mark_changed(table: Any, hash_key: Any, range_key: Any) -> None:
    """Call after writing the item at (hash_key, range_key) of `table`, or its attributes (cheap; any table)."""
    if not getattr(table, _MANAGED, False):
        return
    with _index_lock:
        maps = _index_maps.get(table)
        if maps is not None:
            maps.changed.add((hash_key, range_key))


def _index_candidates(table: Any, index_name: Any, hash_key_conditions: Any) -> list[Any] | None:
    """The items an index Query can return (a superset moto then filters), or None when not accelerated."""
    if not index_name or not hash_key_conditions:
        return None
    index = next((i for i in table.all_indexes() if i.name == index_name), None)
    if index is None:
        return None  # moto raises its own validation error
    hash_attrs = [key["AttributeName"] for key in index.schema if key["KeyType"] == "HASH"]
    conditions = dict(hash_key_conditions)
    if not hash_attrs or hash_attrs[0] not in conditions:
        return None
    with _index_lock:
        maps = _index_maps.get(table)
        if maps is None or maps.items is not table.items:
            maps = _index_maps[table] = _IndexMaps(table.items)
        items = maps.candidates(hash_attrs[0], conditions[hash_attrs[0]])
    stats.index_query_fast += 1
    stats.index_query_items_read += len(items)
    return items


# --------------------------------------------------------------------------------------------- install


_installed = False
_install_lock = threading.Lock()


#: An AttributeValue's members and how moto's JSON serializer writes each (`_serialize_type_string`, `_blob`, `_list`,
#: `_map`, `_boolean`): the fast path below writes the same JSON without walking the botocore shape per value.
_STRING_MEMBERS = ("S", "N")
_STRING_SET_MEMBERS = ("SS", "NS")
_BOOLEAN_MEMBERS = ("NULL", "BOOL")


def _string(value: Any) -> Any:
    """moto's `_serialize_type_string` of a plain value."""
    return str(value) if value not in [None, {}, []] else value


def _attribute_value(serializer: Any, value: Any) -> dict[str, Any] | None:
    """An AttributeValue (`{"S": ...}`, `{"M": {...}}`, ...) as moto's JSON serializer writes it, or None for anything
    the fast path does not know (the caller then takes moto's own path)."""
    if not isinstance(value, dict):
        return None
    out: dict[str, Any] = {}
    for member, inner in value.items():
        if inner is None:
            continue
        if member in _STRING_MEMBERS:
            out[member] = _string(inner)
        elif member in _BOOLEAN_MEMBERS:
            out[member] = inner
        elif member == "B":
            out[member] = serializer._base64(inner)
        elif member in _STRING_SET_MEMBERS and isinstance(inner, list):
            out[member] = [_string(v) for v in inner]
        elif member == "BS" and isinstance(inner, list):
            out[member] = [serializer._base64(v) for v in inner]
        elif member == "M" and isinstance(inner, dict):
            if "" in inner:
                return None  # moto folds an empty name's value into the map itself: its own path says how
            mapped = {k: _attribute_value(serializer, v) for k, v in inner.items()}
            if any(v is None for v in mapped.values()):
                return None
            out[member] = mapped
        elif member == "L" and isinstance(inner, list):
            listed = [_attribute_value(serializer, v) for v in inner]
            if any(v is None for v in listed):
                return None
            out[member] = listed
        else:
            return None
    return out


def _require(owner: Any, name: str, parameters: Iterable[str] = ()) -> Callable[..., Any]:
    function = getattr(owner, name, None)
    if not callable(function):
        raise MotoInternalsChanged(
            f"moto's {owner.__name__}.{name} is missing; offprompt_local.substrate was written for moto "
            f"{PINNED_MOTO}. Pin moto=={PINNED_MOTO} or update offprompt_local/substrate/moto_patches.py."
        )
    present = set(inspect.signature(function).parameters)
    missing = [p for p in parameters if p not in present]
    if missing:
        raise MotoInternalsChanged(
            f"moto's {owner.__name__}.{name} no longer takes {missing}; offprompt_local.substrate was written "
            f"for moto {PINNED_MOTO}. Pin moto=={PINNED_MOTO} or update offprompt_local/substrate/moto_patches.py."
        )
    return function


def install() -> None:
    """Patch moto's DynamoDB models (idempotent). Raises MotoInternalsChanged on an unexpected moto."""
    global _installed, BoundedStreamShard
    with _install_lock:
        if _installed:
            return
        import moto
        from moto.dynamodb.models import DynamoDBBackend
        from moto.dynamodb.models import table as table_module
        from moto.dynamodb.models.dynamo_type import DynamoType, Item

        if moto.__version__ != PINNED_MOTO:
            raise MotoInternalsChanged(
                f"moto {moto.__version__} is installed; offprompt_local.substrate patches moto {PINNED_MOTO}'s "
                "internals (transactions, Query, streams). Install moto=={PINNED_MOTO} (pyproject.toml pins it)."
            )
        Table = table_module.Table
        for name in ("RESULT_SIZE_LIMIT", "StreamShard"):
            if not hasattr(table_module, name):
                raise MotoInternalsChanged(f"moto.dynamodb.models.table.{name} is missing (moto {PINNED_MOTO}?)")
        original_init = _require(Table, "__init__", ("table_name", "account_id", "region", "schema", "streams"))
        original_set_stream = _require(Table, "set_stream_specification", ("streams",))
        original_put = _require(Table, "put_item", ("item_attrs", "condition_expression"))
        original_delete = _require(Table, "delete_item", ("hash_key", "range_key"))
        original_query = _require(
            Table,
            "query",
            (
                "hash_key",
                "range_comparison",
                "range_objs",
                "limit",
                "exclusive_start_key",
                "scan_index_forward",
                "projection_expressions",
                "index_name",
                "filter_expression",
                "range_key_conditions",
            ),
        )
        _require(Table, "_get_last_evaluated_key", ("last_result", "index_name"))
        original_all_items = _require(Table, "all_items")
        _require(Table, "all_indexes")
        _require(Table, "get_item", ("hash_key", "range_key"))
        original_update = _require(DynamoDBBackend, "update_item", ("table_name", "key"))
        original_transact = _require(DynamoDBBackend, "transact_write_items", ("transact_items",))
        for name in ("get_item", "put_item", "delete_item", "get_table"):
            _require(DynamoDBBackend, name)
        for name in ("cast_value", "compare", "to_json"):
            if not hasattr(DynamoType, name):
                raise MotoInternalsChanged(f"moto's DynamoType.{name} is missing (moto {PINNED_MOTO}?)")
        if not hasattr(Item, "size"):
            raise MotoInternalsChanged(f"moto's Item.size is missing (moto {PINNED_MOTO}?)")
        BoundedStreamShard = _stream_shard_class()
        _stop_tracking_instances(Item, table_module.StreamRecord)
        _pick_values_once_per_shape()
        _list_moto_modules_once()
        from moto.core.serialize import BaseJSONSerializer

        original_structure = _require(
            BaseJSONSerializer, "_serialize_type_structure", ("serialized", "value", "shape", "key")
        )
        for name in ("_base64", "_default_serialize"):
            _require(BaseJSONSerializer, name)

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            original_init(self, *args, **kwargs)
            if active() is not None:
                setattr(self, _MANAGED, True)
                self.items = _sorted_partitions()
                _manage_stream(self)

        def set_stream_specification(self: Any, streams: Any) -> None:
            original_set_stream(self, streams)
            if getattr(self, _MANAGED, False):
                _manage_stream(self)

        def put_item(self: Any, item_attrs: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
            try:
                item = original_put(self, item_attrs, *args, **kwargs)
            except Exception:
                _mark_attrs(self, item_attrs)  # moto stores before it appends the stream record
                raise
            mark_changed(self, item.hash_key, item.range_key)
            state = active()
            if state is not None:
                state.touch(self, item.hash_key, item.range_key)
            return item

        def delete_item(self: Any, hash_key: Any, range_key: Any) -> Any:
            state = active()
            if state is not None:
                state.touch(self, hash_key, range_key)
            try:
                return original_delete(self, hash_key, range_key)
            finally:
                mark_changed(self, hash_key, range_key)

        def query(self: Any, hash_key: Any, range_comparison: Any, range_objs: Any, *args: Any, **kwargs: Any) -> Any:
            if getattr(self, _MANAGED, False) and self.range_key_attr is not None and hash_key is not None:
                bound = inspect.signature(original_query).bind(
                    self, hash_key, range_comparison, range_objs, *args, **kwargs
                )
                bound.apply_defaults()
                a = bound.arguments
                if not a["index_name"] and not a["filter_kwargs"]:
                    fast = _fast_query(
                        self,
                        hash_key,
                        range_comparison,
                        range_objs,
                        a["limit"],
                        a["exclusive_start_key"],
                        a["scan_index_forward"],
                        a["projection_expressions"],
                        a["filter_expression"],
                        a["range_key_conditions"],
                    )
                    if fast is not None:
                        return fast
            if getattr(self, _MANAGED, False):
                bound = inspect.signature(original_query).bind(
                    self, hash_key, range_comparison, range_objs, *args, **kwargs
                )
                candidates = _index_candidates(
                    self, bound.arguments.get("index_name"), bound.arguments.get("hash_key_conditions")
                )
                if candidates is not None:
                    _scope.table, _scope.items = self, candidates
                    try:
                        return original_query(self, hash_key, range_comparison, range_objs, *args, **kwargs)
                    finally:
                        _scope.table, _scope.items = None, None
            return original_query(self, hash_key, range_comparison, range_objs, *args, **kwargs)

        def all_items(self: Any) -> Any:
            if _scope.items is not None and _scope.table is self:
                return list(_scope.items)
            return original_all_items(self)

        def update_item(self: Any, table_name: str, key: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
            state = active()
            if state is not None:
                table = self.get_table(table_name)
                hash_key, range_key = _key_of(table, key)
                state.touch(table, hash_key, range_key)
            try:
                return original_update(self, table_name, key, *args, **kwargs)
            finally:  # moto changes the stored item in place, and may have changed part of it before failing
                table = next((t for t in list(self.tables.values()) if table_name in (t.name, t.table_arn)), None)
                if table is not None:
                    mark_changed(table, *_key_of(table, key))

        def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
            if active() is None:
                original_transact(self, transact_items)
                return
            _transact_write_items(self, transact_items)

        def _serialize_type_structure(self: Any, serialized: Any, value: Any, shape: Any, key: str) -> None:
            # moto writes every attribute value of a response by walking its botocore shape (ten members, each
            # looked up through an attribute picker): ~1.5 ms per item of a dozen attributes, most of a
            # BatchGetItem's time. The same JSON, written directly (checked against moto's own in test_cost.py).
            if key and shape.name == "AttributeValue" and active() is not None:
                fast = _attribute_value(self, value)
                if fast is not None:
                    self._default_serialize(serialized, fast, shape, key)
                    return
            original_structure(self, serialized, value, shape, key)

        BaseJSONSerializer._serialize_type_structure = _serialize_type_structure  # type: ignore[method-assign]
        Table.__init__ = __init__  # type: ignore[method-assign]
        Table.set_stream_specification = set_stream_specification  # type: ignore[method-assign]
        Table.put_item = put_item  # type: ignore[method-assign]
        Table.delete_item = delete_item  # type: ignore[method-assign]
        Table.query = query  # type: ignore[method-assign]
        Table.all_items = all_items  # type: ignore[method-assign]
        DynamoDBBackend.update_item = update_item  # type: ignore[method-assign]
        DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
        _installed = True


def _stop_tracking_instances(*classes: type) -> None:
    """moto's `BaseModel.__new__` appends every instance to `cls.instances_tracked` (for its dashboard) and
    never lets go: every deep copy a Query or an UpdateItem makes, every stream record, stays alive for as long
    as the server runs. Inside the substrate's requests these two classes are created untracked."""
    from moto.core.common_models import BaseModel

    tracked_new = BaseModel.__dict__.get("__new__")
    if tracked_new is None:
        raise MotoInternalsChanged(f"moto's BaseModel.__new__ is missing (moto {PINNED_MOTO}?)")
    tracked_new = tracked_new.__func__ if isinstance(tracked_new, staticmethod) else tracked_new
    for cls in classes:
        if not hasattr(cls, "instances_tracked") or "__new__" in cls.__dict__:
            raise MotoInternalsChanged(f"moto's {cls.__name__} is not a plain tracked BaseModel (moto {PINNED_MOTO}?)")

    def __new__(cls: type, *args: Any, **kwargs: Any) -> Any:
        if active() is None:
            return tracked_new(cls, *args, **kwargs)
        return object.__new__(cls)

    for cls in classes:
        cls.__new__ = __new__  # type: ignore[assignment]


#: Cached attribute names per (picker class, alias providers, key, member shape, its parent): shapes belong to
#: moto's cached service models, so this stays as small as the models' members; cleared past this size anyway.
_PICKED_KEYS_LIMIT = 100_000


def _list_moto_modules_once() -> None:
    """moto's server finds a request's service by asking `backends.list_of_moto_modules()`, which lists moto's
    package directory (~150 `isdir` calls) on every request; the directory does not change while the process runs,
    so it is listed once. The same names in the same order (`tests/integration/local_substrate/test_serializer.py`)."""
    from moto import backends

    original = _require(backends, "list_of_moto_modules", ())
    listed: list[tuple[str, ...]] = []

    def list_of_moto_modules() -> tuple[str, ...]:
        if not listed:
            listed.append(tuple(original()))
        return listed[0]

    list_of_moto_modules.original = original  # type: ignore[attr-defined]
    backends.list_of_moto_modules = list_of_moto_modules


def _pick_values_once_per_shape() -> None:
    """moto's `ResponseSerializer.get_value`, for a plain dict during a substrate request, with the names to try
    computed once per member shape: the value is the first of them the dict holds, as moto's picker finds it
    (`tests/integration/local_substrate/test_serializer.py` compares both on generated items)."""
    from moto.core import serialize
    from moto.core.utils import MISSING

    serializer = serialize.ResponseSerializer
    original = _require(serializer, "get_value", ("value", "key", "shape"))
    for name in ("AttributePicker", "XFormedAttributePicker", "AttributePickerContext"):
        if not hasattr(serialize, name):
            raise MotoInternalsChanged(f"moto.core.serialize.{name} is missing (moto {PINNED_MOTO}?)")
    _require(serialize.AttributePicker, "get_possible_keys", ("context",))
    pickers = (serialize.AttributePicker, serialize.XFormedAttributePicker)
    names: dict[tuple[Any, ...], tuple[Any, Any, Any, tuple[str, ...] | None]] = {}

    def get_value(self: Any, value: Any, key: str, shape: Any) -> Any:
        picker = self._value_picker
        if type(value) is not dict or type(picker) not in pickers or picker.response_transformers or not active():
            return original(self, value, key, shape)
        parent = getattr(shape, "parent", None)
        providers = picker.alias_providers
        name_key = (type(picker), id(providers), key, id(shape), id(parent))
        cached = names.get(name_key)
        if cached is None or cached[0] is not shape or cached[1] is not parent or cached[2] is not providers:
            context = serialize.AttributePickerContext(
                obj=value,
                key=key,
                shape=shape,
                operation_model=self.operation_model,
                service_model=self.operation_model.service_model,
                key_path=".".join(self.path),
            )
            found = tuple(picker.get_possible_keys(context))
            # A dotted name is a path to moto's get_value: left to moto.
            cached = (shape, parent, providers, None if any("." in n for n in found) else found)
            if len(names) >= _PICKED_KEYS_LIMIT:
                names.clear()
            names[name_key] = cached
        found_names = cached[3]
        if found_names is None:
            return original(self, value, key, shape)
        for name in found_names:
            picked = value.get(name, MISSING)
            if picked is not MISSING:
                return picked
        return None

    serializer.get_value = get_value  # type: ignore[method-assign]


def _mark_attrs(table: Any, item_attrs: Any) -> None:
    """mark_changed for the key in a PutItem's attributes, when they hold one."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    try:
        hash_key = DynamoType(item_attrs[table.hash_key_attr])
        range_key = DynamoType(item_attrs[table.range_key_attr]) if table.range_key_attr is not None else None
    except (KeyError, TypeError, AttributeError, IndexError):
        return
    mark_changed(table, hash_key, range_key)


def _key_of(table: Any, key: Any) -> tuple[Any, Any]:
    """moto's own (hash, range) derivation in DynamoDBBackend.update_item."""
    from moto.dynamodb.models.dynamo_type import DynamoType

    if table.hash_key_attr in key and table.range_key_attr in key:
        return DynamoType(key[table.hash_key_attr]), DynamoType(key[table.range_key_attr])
    if table.hash_key_attr in key:
        return DynamoType(key[table.hash_key_attr]), None
    return DynamoType(key), None


# ------------------------------------------------------------------------------------------ transactions


def _transact_write_items(backend: Any, transact_items: list[dict[str, Any]]) -> None:
    """moto 5.2.5's DynamoDBBackend.transact_write_items with an O(items touched) rollback.

    Same checks, order and errors as moto's; instead of deep-copying every table named in the transaction it
    saves, before each operation, the prior state of that one item and the length of the table's stream, and
    restores exactly those on failure.
    """
    from moto.dynamodb.comparisons import get_filter_expression
    from moto.dynamodb.exceptions import (
        ConditionalCheckFailed,
        MockValidationException,
        MultipleTransactionsException,
        TooManyTransactionsException,
        TransactionCanceledException,
        TransactWriteSingleOpException,
    )

    if len(transact_items) > 100:
        raise TooManyTransactionsException()
    saved: list[tuple[Any, Any, Any, Any]] = []  # (table, hash, range, prior item or None)
    streams: dict[int, tuple[Any, int]] = {}
    target_items: set[tuple[str, str]] = set()

    def check_unicity(table_name: str, key: dict[str, Any]) -> None:
        item = (str(table_name), str(dict(sorted(key.items()))))
        if item in target_items:
            raise MultipleTransactionsException()
        target_items.add(item)

    def save(table_name: str, key: dict[str, Any], current: Any) -> None:
        table = backend.get_table(table_name)
        hash_key, range_key = _key_of(table, key)
        saved.append((table, hash_key, range_key, copy.deepcopy(current)))
        stats.transaction_items_saved += 1
        shard = table.stream_shard
        if shard is not None and id(shard) not in streams:
            streams[id(shard)] = (shard, len(shard.items))
            shard.hold_trim = True

    def rollback() -> None:
        for table, hash_key, range_key, prior in reversed(saved):
            if range_key is not None:
                if prior is None:
                    table.items[hash_key].pop(range_key, None)
                else:
                    table.items[hash_key][range_key] = prior
            elif prior is None:
                table.items.pop(hash_key, None)
            else:
                table.items[hash_key] = prior
            mark_changed(table, hash_key, range_key)
        for shard, length in streams.values():
            del shard.items[length:]

    errors: list[tuple[str, str, dict[str, Any]] | tuple[None, None, None]] = []
    try:
        for item in transact_items:
            original_item: dict[str, Any] | None = None
            if len(list(item.keys())) > 1:
                rollback()  # moto leaves the earlier operations applied here; AWS rejects the whole request
                raise TransactWriteSingleOpException
            try:
                op_type, op = next(iter(item.items()))
                if op_type not in {"ConditionCheck", "Put", "Delete", "Update"}:
                    raise ValueError("Unsupported transaction operation")
                table_name = op["TableName"]
                condition_expression = op.get("ConditionExpression")
                expression_attribute_names = op.get("ExpressionAttributeNames")
                expression_attribute_values = op.get("ExpressionAttributeValues")
                return_values_on_condition_check_failure = op.get("ReturnValuesOnConditionCheckFailure")
                if op_type == "Put":
                    attrs = op["Item"]
                    table = backend.get_table(table_name)
                    key = {table.hash_key_attr: attrs[table.hash_key_attr]}
                    if table.range_key_attr is not None:
                        key[table.range_key_attr] = attrs[table.range_key_attr]
                else:
                    key = op["Key"]
                check_unicity(table_name, key)
                current = backend.get_item(table_name, key)
                if condition_expression is not None:
                    condition_op = get_filter_expression(
                        condition_expression, expression_attribute_names, expression_attribute_values
                    )
                    if not condition_op.expr(current):
                        if return_values_on_condition_check_failure == "ALL_OLD" and current:
                            original_item = current.to_json()["Attributes"]
                        raise ConditionalCheckFailed(item=original_item)
                if op_type != "ConditionCheck":
                    save(table_name, key, current)
                if op_type == "Put":
                    backend.put_item(
                        table_name,
                        op["Item"],
                        condition_expression=condition_expression,
                        expression_attribute_names=expression_attribute_names,
                        expression_attribute_values=expression_attribute_values,
                    )
                elif op_type == "Delete":
                    backend.delete_item(
                        table_name,
                        key,
                        condition_expression=condition_expression,
                        expression_attribute_names=expression_attribute_names,
                        expression_attribute_values=expression_attribute_values,
                    )
                elif op_type == "Update":
                    backend.update_item(
                        table_name,
                        key,
                        update_expression=op["UpdateExpression"],
                        condition_expression=condition_expression,
                        expression_attribute_names=expression_attribute_names,
                        expression_attribute_values=expression_attribute_values,
                    )
                errors.append((None, None, None))
            except (MultipleTransactionsException, MockValidationException):
                rollback()
                raise
            except ConditionalCheckFailed as e:
                errors.append(("ConditionalCheckFailed", str(e.message), original_item))  # type: ignore[arg-type]
            except Exception as e:  # moto's own catch-all, kept
                errors.append((type(e).__name__, str(e), original_item))  # type: ignore[arg-type]
        if any(code is not None for code, _, _ in errors):
            rollback()
            raise TransactionCanceledException(errors)
    finally:
        for shard, _ in streams.values():
            shard.hold_trim = False
            trim = getattr(shard, "trim", None)
            if trim is not None:
                trim()
