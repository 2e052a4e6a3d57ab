"""A LangGraph store over offprompt's long-term records (extra `langgraph`; docs/adr/0034-records.md).

    from langgraph.graph import StateGraph
    from offprompt_client.langgraph import OffpromptStore

    store = OffpromptStore(base_url="http://127.0.0.1:3000", ttl={"default_ttl": 60 * 24 * 30})
    graph = builder.compile(store=store)   # nodes get it as `store` (or langgraph.config.get_store())
    store.put(("users", "ada"), "prefs", {"food": "lentils"})
    store.search(("users",), query="food", filter={"kind": "pref"})

`OffpromptStore` is a `langgraph.store.base.BaseStore`: it implements `batch` and `abatch`, and LangGraph builds
everything else on them (get, put, delete, search, list_namespaces and their async forms). A LangGraph item is an
offprompt record: a namespace (1-8 labels, none holding ".", as LangGraph requires), a key, a JSON object. What the
records add: every replace keeps the old version (`OffpromptClient.record_history`, `get_record(as_of=...)`),
values past DynamoDB's item limit go to S3, TTL deletes from every store, tenants are isolated, export and erase
cover records.

- `put(..., index=False | [paths])`: the value's strings (or those at the paths) are indexed for `query`, BM25
  (k-NN/hybrid when the deployment has an embedder); a record is searchable within the index's refresh interval,
  but a search never returns a replaced, deleted or expired version. `search` without `query` reads DynamoDB only,
  newest first (InMemoryStore answers in insertion order; both apply `offset`/`limit` to their own order).
- TTL: `supports_ttl = True`; `ttl` of a put is in minutes, `ttl=TTLConfig(default_ttl=..., refresh_on_read=...)`
  as LangGraph defines them. Expired records are never returned, even before DynamoDB's sweep (`omit_expired`
  always holds; no `sweep_interval_minutes`: the server sweeps).
- A filter's NaN or infinite operands (LangGraph's stores take them; JSON has neither and the API refuses them) are
  sent as the finite filter that means the same for stored values (`$lt: inf` is "any number"), or the search
  answers [] without a request when no value can meet it (`$eq: nan`): `finite_filter`.
- A batch runs its reads in order first, then its writes (the last write of a key wins), as LangGraph's own
  InMemoryStore and PostgresStore do: a read in a batch sees the store as it was before the batch's writes.
  Each operation is one request (a batch is not a transaction).
- `abatch` runs `batch` in a worker thread (`asyncio.to_thread`): the client is the standard library's urllib.

Requests that fail with a connection error, 429, 503 or 409 `record_conflict` are retried (every record request
is safe to repeat; a put repeated after a lost answer stores one more identical version). Other errors raise
`OffpromptClientError`. Connection settings as the other doors: `base_url` (default `OFFPROMPT_API_URL`, else the
local stack), `api_key` (default `OFFPROMPT_API_KEY`, sent as `Authorization: Bearer`), `tenant` (the local stack's
header), or `client`.
"""

from __future__ import annotations

import asyncio
import functools
import math
import sys
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)

from offprompt_client.client import OffpromptClient, OffpromptClientError
from offprompt_client.retries import busy, with_retries

__all__ = ["OffpromptStore"]

WILDCARD = "*"
#: The most items one search request asks for, and namespaces one listing request: larger `limit`s are paged.
SEARCH_PAGE = 100
NAMESPACES_PAGE = 1000


class OffpromptStore(BaseStore):
    """LangGraph's `BaseStore` on offprompt records (see the module docstring)."""

    supports_ttl: bool = True

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        tenant: str | None = None,
        timeout: float = 30.0,
        client: OffpromptClient | None = None,
        ttl: TTLConfig | None = None,
    ) -> None:
        if client is None:
            client = OffpromptClient.connect(base_url, api_key, tenant, timeout)
        self.client = client
        self.ttl_config = ttl

    def __repr__(self) -> str:
        return f"OffpromptStore({self.client!r}, ttl={self.ttl_config!r})"

    # ---- BaseStore --------------------------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Each operation's result, in order: reads first (in order), then the writes (last write of a key wins).
        Every operation is checked before anything is sent."""
        ops = list(ops)
        for op in ops:
            check_op(op)
        results: list[Result] = [None] * len(ops)
        writes: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for i, op in enumerate(ops):
            if isinstance(op, GetOp):
                results[i] = self._get(op)
            elif isinstance(op, SearchOp):
                results[i] = self._search(op)
            elif isinstance(op, ListNamespacesOp):
                results[i] = self._list_namespaces(op)
            elif isinstance(op, PutOp):
                writes.pop((tuple(op.namespace), op.key), None)
                writes[tuple(op.namespace), op.key] = op
        for op in writes.values():
            self._write(op)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """`batch` in a worker thread (asyncio.to_thread): the HTTP client is blocking urllib."""
        return await asyncio.to_thread(self.batch, list(ops))

    # ---- operations -------------------------------------------------------------------------------------------
    def _get(self, op: GetOp) -> Item | None:
        if not op.namespace:
            return None  # nothing is ever stored under an empty namespace (BaseStore.put refuses it)
        try:
            record = self._retry(lambda: self.client.get_record(op.namespace, op.key, refresh_ttl=op.refresh_ttl))
        except OffpromptClientError as error:
            if error.status == 404 and error.code == "record_not_found":
                return None
            raise
        return item_from(record)

    def _write(self, op: PutOp) -> None:
        if op.value is None:
            if op.namespace:  # an empty namespace holds nothing to delete
                self._retry(lambda: self.client.delete_record(op.namespace, op.key))
            return
        value = op.value
        self._retry(lambda: self.client.put_record(op.namespace, op.key, value, **put_fields(op)))

    def _search(self, op: SearchOp) -> list[SearchItem]:
        found: list[SearchItem] = []
        fields = search_fields(op)
        if fields.get("filter", {}) is None:
            return found  # a filter no stored value can meet (see finite_filter)
        while len(found) < op.limit:
            size = min(SEARCH_PAGE, op.limit - len(found))
            offset = op.offset + len(found)
            page = self._retry(functools.partial(self.client.search_records, **fields, limit=size, offset=offset))
            items = page["items"]
            found.extend(search_item_from(record) for record in items)
            if len(items) < size:
                break
        return found

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions = list_fields(op)
        if conditions is None:
            return []  # two conditions no namespace can meet
        found: list[tuple[str, ...]] = []
        while len(found) < op.limit:
            size = min(NAMESPACES_PAGE, op.limit - len(found))
            offset = op.offset + len(found)
            call = functools.partial(
                self.client.list_record_namespaces, **conditions, max_depth=op.max_depth, limit=size, offset=offset
            )
            page = self._retry(call)
            namespaces = page["namespaces"]
            found.extend(tuple(ns) for ns in namespaces)
            if len(namespaces) < size:
                break
        return found

    def _retry(self, call: Callable[[], Any]) -> Any:
        return with_retries(call, retryable=_retryable)


def _retryable(error: OffpromptClientError) -> bool:
    """429, 503, and 409 `record_conflict` (other writers kept replacing the record): nothing was stored."""
    return busy(error) or (error.status == 409 and error.code == "record_conflict")


# ---- op -> request (pure) -------------------------------------------------------------------------------------
def check_labels(labels: Sequence[Any], what: str = "namespace") -> None:
    """LangGraph's rules for labels (a string, non-empty, no "." and no NUL), and offprompt's "/" (a label travels
    in one URL path segment, and API Gateway decodes %2F before routing), raised as LangGraph's
    InvalidNamespaceError before anything is sent. The server answers 400 `invalid_input` for its other rules (at
    most 8 labels, no control characters)."""
    if isinstance(labels, str) or not isinstance(labels, Sequence):
        raise InvalidNamespaceError(f"a {what} is a tuple of labels, not {labels!r}")
    for label in labels:
        if not isinstance(label, str):
            raise InvalidNamespaceError(f"{what} label {label!r} in {labels!r} is not a string")
        if not label or "." in label or "\x00" in label:
            raise InvalidNamespaceError(f'{what} label {label!r} in {labels!r} is empty or holds "." or NUL')
        if "/" in label:
            raise InvalidNamespaceError(f'{what} label {label!r} in {labels!r} holds "/" (offprompt: ADR 0014)')


def check_key(key: Any) -> None:
    """A key that cannot travel in one URL path segment ("/": API Gateway decodes %2F before routing) is refused
    before anything is sent (ValueError); the server answers 400 `invalid_input` for its other rules."""
    if isinstance(key, str) and "/" in key:
        raise ValueError(f'key {key!r} holds "/": an offprompt key is one URL path segment (ADR 0014)')


def check_op(op: Any) -> None:
    if isinstance(op, GetOp):
        check_labels(op.namespace)
        check_key(op.key)
    elif isinstance(op, PutOp):
        check_labels(op.namespace)
        check_key(op.key)
        if op.value is not None:
            if not op.namespace:
                raise InvalidNamespaceError("Namespace cannot be empty.")
            if op.namespace[0] == "langgraph":
                raise InvalidNamespaceError(f'Root label for namespace cannot be "langgraph". Got: {op.namespace}')
    elif isinstance(op, SearchOp):
        check_labels(op.namespace_prefix, "namespace prefix")
    elif isinstance(op, ListNamespacesOp):
        for condition in op.match_conditions or ():
            if condition.match_type not in ("prefix", "suffix"):
                raise ValueError(f"Unsupported match type: {condition.match_type}")
            check_labels(condition.path, f"{condition.match_type} condition")
    else:
        raise ValueError(f"Unknown operation type: {type(op)}")


def put_fields(op: PutOp) -> dict[str, Any]:
    """The keyword arguments of `OffpromptClient.put_record` for a put (value not None)."""
    fields: dict[str, Any] = {}
    if op.index is not None:
        fields["index"] = False if op.index is False else list(op.index)
    if op.ttl is not None:
        fields["ttl_minutes"] = op.ttl
    return fields


def search_fields(op: SearchOp) -> dict[str, Any]:
    """The keyword arguments of `OffpromptClient.search_records` for a search, but limit and offset."""
    fields: dict[str, Any] = {"namespace_prefix": tuple(op.namespace_prefix), "refresh_ttl": op.refresh_ttl}
    if op.query and op.query.strip():  # "" is no query in LangGraph's stores; a blank one has no terms either
        fields["query"] = op.query
    if op.filter:
        fields["filter"] = finite_filter(dict(op.filter))
    return fields


#: The largest double: a number a stored value holds is within ±FLOAT_MAX (JSON has no infinities).
FLOAT_MAX = sys.float_info.max
#: A condition every value meets (it is left out).
_ANY = ("", 0.0)
#: An infinite operand of a comparison, as a finite one meaning the same for finite numbers (absent: no finite
#: number meets it, as `$gt: inf`), or _ANY when every value does (`$ne: inf`).
_INFINITE: dict[tuple[str, bool], tuple[str, float]] = {
    ("$lt", True): ("$gte", -FLOAT_MAX),  # below +inf: any number
    ("$lte", True): ("$gte", -FLOAT_MAX),
    ("$gt", False): ("$lte", FLOAT_MAX),  # above -inf: any number
    ("$gte", False): ("$lte", FLOAT_MAX),
    ("$ne", True): _ANY,
    ("$ne", False): _ANY,
}


def _non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_non_finite(v) for v in value.values())
    if isinstance(value, list):
        return any(_non_finite(v) for v in value)
    return False


def finite_filter(spec: dict[str, Any]) -> dict[str, Any] | None:
    """`spec` without NaN or an infinity (JSON has neither, and the API refuses them: 422), meaning what it means for
    every value a record can hold (whose numbers are finite); None when no value meets it. LangGraph's stores take
    such operands (`{"price": {"$lt": float("inf")}}` in its SqliteStore's own tests): equality with one, or a
    comparison no finite number passes, meets nothing; `$ne` one meets everything; `$lt: inf` is "any number"."""
    finite: dict[str, Any] = {}
    for field, condition in spec.items():
        operators = isinstance(condition, dict) and any(isinstance(k, str) and k.startswith("$") for k in condition)
        if not operators:
            if _non_finite(condition):
                return None  # equal to a number no value holds
            finite[field] = condition
            continue
        kept = {op: operand for op, operand in condition.items() if not _non_finite(operand)}
        given = set(kept)  # the finite operands as written (kept also gains the bounds that stand for infinite ones)
        for op, operand in condition.items():
            if op in given:
                continue
            meaning = _INFINITE.get((op, operand > 0)) if isinstance(operand, float) and math.isinf(operand) else None
            if meaning is None and op == "$ne":
                meaning = _ANY  # NaN, or an object or list holding one: equal to no value
            if meaning is None:
                return None
            if meaning == _ANY:
                continue
            bound_op, bound = meaning
            if bound_op not in kept:
                kept[bound_op] = bound
            elif not isinstance(kept[bound_op], int | float) or isinstance(kept[bound_op], bool):
                return None  # also compared with a string (or another type): no value is both
        if kept:
            finite[field] = kept
    return finite


def list_fields(op: ListNamespacesOp) -> dict[str, list[str]] | None:
    """`prefix`/`suffix` of `OffpromptClient.list_record_namespaces` for a listing's match conditions: the route
    takes one of each, so several of one kind are merged label by label (a namespace meets prefixes ("a",) and
    ("*", "b") exactly when it starts with ("a", "b")); None when no namespace can meet them all."""
    fields: dict[str, list[str]] = {}
    for kind in ("prefix", "suffix"):
        paths = [tuple(c.path) for c in op.match_conditions or () if c.match_type == kind and c.path]
        if not paths:
            continue
        if kind == "suffix":
            paths = [path[::-1] for path in paths]
        merged = _merge(paths)
        if merged is None:
            return None
        fields[kind] = merged[::-1] if kind == "suffix" else merged
    return fields


def _merge(paths: list[tuple[str, ...]]) -> list[str] | None:
    merged: list[str] = []
    for position in range(max(len(path) for path in paths)):
        fixed = {path[position] for path in paths if position < len(path) and path[position] != WILDCARD}
        if len(fixed) > 1:
            return None
        merged.append(fixed.pop() if fixed else WILDCARD)
    return merged


# ---- response -> Item (pure) ----------------------------------------------------------------------------------
def parse_time(value: str) -> datetime:
    """An API time (ISO 8601, UTC, `Z` or an offset) as an aware datetime."""
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def item_from(record: dict[str, Any]) -> Item:
    return Item(
        value=record["value"],
        key=record["key"],
        namespace=tuple(record["namespace"]),
        created_at=parse_time(record["created_at"]),
        updated_at=parse_time(record["updated_at"]),
    )


def search_item_from(record: dict[str, Any]) -> SearchItem:
    score = record.get("score")
    return SearchItem(
        namespace=tuple(record["namespace"]),
        key=record["key"],
        value=record["value"],
        created_at=parse_time(record["created_at"]),
        updated_at=parse_time(record["updated_at"]),
        score=float(score) if score is not None else None,
    )


# The checkpointer lives in its own module (LangGraph's checkpoint API, not its store API); both are this extra's.
from offprompt_client.langgraph_checkpoint import CheckpointTooLarge, OffpromptSaver  # noqa: E402

__all__ += ["CheckpointTooLarge", "OffpromptSaver"]
