"""`offprompt_client.langgraph.OffpromptStore` on the real local stack (records over moto and the real OpenSearch
node), compared with LangGraph's own `InMemoryStore` on the same random operation sequences (hypothesis), answer by
answer; then TTL, which InMemoryStore does not have, on its own.

What is compared, and why not more (docs/adr/0034-records.md):
- get: exactly (namespace, key, value). Times are not: InMemoryStore stamps a replace as a new creation, records
  keep `created_at` across versions.
- list_namespaces: exactly, against InMemoryStore without its empty namespaces. Its `_data` is a defaultdict: a get
  or a delete in a namespace that holds nothing creates an empty entry, which it then lists; a store of rows lists
  the namespaces that hold something (LangGraph's PostgresStore lists from its rows, as records do).
- search without query: as sets of (namespace, key, value) when the answer fits in the limit. Orders differ by
  design: InMemoryStore answers in insertion order (a replaced key keeps its place), records newest `updated_at`
  first; so a page past `offset`, or cut by `limit`, holds different members in each. Such pages are checked for
  size (min(limit, matches - offset)) and membership, and ours for its own order (updated_at never increasing).
- search with query: InMemoryStore without an embedder ignores the query (every filter match), records rank by
  BM25 and return only records whose indexed text holds a query term. So: every hit is a current match of the
  prefix and filter (never a replaced, deleted or unindexed version, whatever the index's refresh state), its value
  exact, its indexed text (by its put's `index`) holds the word; and, when the expected hits fit in the limit, all
  of them are found within the index's refresh interval (polled for a few seconds, as a put does not wait for it).
Every example writes under a fresh root label, so examples do not see each other.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    SearchOp,
)
from langgraph.store.memory import InMemoryStore
from test_local_stack import ROOT, RunningStack, stack  # noqa: F401  (stack: the module's local stack fixture)

from offprompt_client import OffpromptClient, OffpromptClientError
from offprompt_client.langgraph import OffpromptStore

pytestmark = pytest.mark.slow

TENANT = "langgraph-differential"
WORDS = ("red", "blue", "cat", "fox", "sun")  # no stopword, none another's stem
LABELS = ("a", "b")
KEYS = ("k1", "k2", "k3")
#: How long a query search is polled for records put before it (the index refreshes every second locally).
INDEX_WAIT_S = 5.0


class Reference(InMemoryStore):
    """InMemoryStore, listing only namespaces that hold items (see the module docstring)."""

    def _handle_list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        for namespace in [ns for ns, items in self._data.items() if not items]:
            del self._data[namespace]
        return super()._handle_list_namespaces(op)


# ---- operations (namespaces without their root; the root is prepended when an example runs) -------------------
@dataclass(frozen=True)
class Put:
    ns: tuple[str, ...]
    key: str
    value: dict[str, Any]
    index: Any  # None | False | list[str]


@dataclass(frozen=True)
class Delete:
    ns: tuple[str, ...]
    key: str


@dataclass(frozen=True)
class Get:
    ns: tuple[str, ...]
    key: str


@dataclass(frozen=True)
class Search:
    prefix: tuple[str, ...]
    filter: dict[str, Any] | None
    limit: int
    offset: int
    query: str | None


@dataclass(frozen=True)
class ListNs:
    prefix: tuple[str, ...]
    suffix: tuple[str, ...] | None
    max_depth: int | None
    limit: int
    offset: int


@dataclass(frozen=True)
class Batch:
    ops: tuple[Any, ...]


labels = st.lists(st.sampled_from(LABELS), max_size=2).map(tuple)
values = st.fixed_dictionaries(
    {
        "n": st.integers(0, 5),
        "s": st.sampled_from(["x", "y"]),
        "text": st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join),
    },
    optional={"tag": st.sampled_from(["t1", "t2"]), "nested": st.fixed_dictionaries({"m": st.integers(0, 2)})},
)
conditions = st.one_of(
    st.tuples(st.just("n"), st.integers(0, 5)),
    st.tuples(
        st.just("n"),
        st.dictionaries(st.sampled_from(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]), st.integers(0, 5), min_size=1),
    ),
    st.tuples(st.just("s"), st.sampled_from(["x", "y", {"$ne": "x"}, {"$eq": "y"}])),
    st.tuples(st.just("tag"), st.sampled_from(["t1", {"$ne": "t1"}, {"$eq": "t2"}])),  # tag may be missing
    st.tuples(st.just("nested"), st.sampled_from([{"m": 1}, {"m": {"$gte": 1}}])),
)
filters = st.none() | st.lists(conditions, min_size=1, max_size=2).map(dict)
puts = st.builds(Put, labels, st.sampled_from(KEYS), values, st.sampled_from([None, None, False, ["text"], ["s"]]))
deletes = st.builds(Delete, labels, st.sampled_from(KEYS))
gets = st.builds(Get, labels, st.sampled_from(KEYS))
searches = st.builds(Search, labels, filters, st.integers(1, 6), st.sampled_from([0, 0, 0, 1, 2]), st.none())
# by text: mostly over the whole example and without a filter, so that hits are expected
queries = st.builds(
    Search,
    st.sampled_from([(), (), ("a",)]),
    st.none() | st.none() | filters,
    st.integers(1, 6),
    st.sampled_from([0, 0, 0, 1]),
    st.sampled_from(WORDS),
)
wild = st.lists(st.sampled_from([*LABELS, "*"]), max_size=2).map(tuple)
listings = st.builds(
    ListNs,
    wild,
    st.none() | st.lists(st.sampled_from([*LABELS, "*"]), min_size=1, max_size=2).map(tuple),
    st.none() | st.integers(1, 3),
    st.integers(1, 10),
    st.sampled_from([0, 0, 1, 3]),
)
single = st.one_of(puts, puts, deletes, gets, searches, queries, listings)


@st.composite
def batches(draw: st.DrawFn) -> Batch:
    """2-4 operations, most on one namespace and key, so a batch's reads and writes of the same record meet."""
    ns, key = draw(labels), draw(st.sampled_from(KEYS))
    here = st.one_of(
        st.builds(Put, st.just(ns), st.just(key), values, st.sampled_from([None, False])),
        st.builds(Delete, st.just(ns), st.just(key)),
        st.builds(Get, st.just(ns), st.just(key)),
    )
    ops = draw(st.lists(st.one_of(here, here, here, puts, searches, queries, listings), min_size=2, max_size=4))
    return Batch(tuple(ops))


programs = st.lists(st.one_of(single, single, single, batches()), min_size=1, max_size=14)


# ---- running an example -----------------------------------------------------------------------------------------
def as_op(op: Any, root: str) -> Op:
    if isinstance(op, Put):
        return PutOp((root, *op.ns), op.key, op.value, index=op.index)
    if isinstance(op, Delete):
        return PutOp((root, *op.ns), op.key, None)
    if isinstance(op, Get):
        return GetOp((root, *op.ns), op.key)
    if isinstance(op, Search):
        return SearchOp((root, *op.prefix), op.filter, op.limit, op.offset, op.query)
    conditions = [MatchCondition("prefix", (root, *op.prefix))]
    if op.suffix:
        conditions.append(MatchCondition("suffix", op.suffix))
    return ListNamespacesOp(tuple(conditions), op.max_depth, op.limit, op.offset)


def call(store: Any, op: Any, root: str) -> Any:
    """One operation through the public methods (a batch through `batch`)."""
    if isinstance(op, Batch):
        return store.batch([as_op(o, root) for o in op.ops])
    if isinstance(op, Put):
        return store.put((root, *op.ns), op.key, op.value, index=op.index)
    if isinstance(op, Delete):
        return store.delete((root, *op.ns), op.key)
    if isinstance(op, Get):
        return store.get((root, *op.ns), op.key)
    if isinstance(op, Search):
        ns = (root, *op.prefix)
        return store.search(ns, query=op.query, filter=op.filter, limit=op.limit, offset=op.offset)
    suffix = op.suffix or None
    prefix = (root, *op.prefix)
    return store.list_namespaces(prefix=prefix, suffix=suffix, max_depth=op.max_depth, limit=op.limit, offset=op.offset)


def triple(item: Item) -> tuple[tuple[str, ...], str, str]:
    return item.namespace, item.key, json.dumps(item.value, sort_keys=True)


def indexed_words(value: dict[str, Any], index: Any) -> set[str]:
    if index is False:
        return set()
    fields = list(value) if index is None else index
    strings: list[str] = []
    for field in fields:
        strings.extend(_strings(value.get(field)))
    return {w for s in strings for w in re.findall(r"\w+", s.lower())}


def _strings(v: Any) -> Iterator[str]:
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from _strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from _strings(x)


class Example:
    def __init__(self, store: OffpromptStore) -> None:
        self.root = f"lg{uuid.uuid4().hex[:10]}"
        self.ours = store
        self.ref = Reference()
        self.index: dict[tuple[tuple[str, ...], str], Any] = {}  # the `index` of each live record's last put

    def run(self, op: Any) -> None:
        ops = op.ops if isinstance(op, Batch) else (op,)
        # reads in a batch see the store before its writes (both stores): check them against the state before
        before = dict(self.index)
        full = {n: self.matches(one) for n, one in enumerate(ops) if isinstance(one, Search)}
        expected = call(self.ref, op, self.root)
        got = call(self.ours, op, self.root)
        answers = zip(ops, expected, got, strict=True) if isinstance(op, Batch) else [(op, expected, got)]
        # a search is searched again while the index catches up only when nothing was written since
        again = not any(isinstance(one, Put | Delete) for one in ops)
        for n, (one, want, have) in enumerate(answers):
            self.compare(one, want, have, before, full.get(n, []), again)
        for one in ops:
            if isinstance(one, Put):
                self.index[(self.root, *one.ns), one.key] = one.index
            elif isinstance(one, Delete):
                self.index.pop(((self.root, *one.ns), one.key), None)

    def compare(self, op: Any, want: Any, have: Any, index: dict[Any, Any], matches: list[Item], again: bool) -> None:
        if isinstance(op, Put | Delete):
            assert want is None and have is None
        elif isinstance(op, Get):
            assert (triple(have) if have else None) == (triple(want) if want else None), op
            if have:
                assert have.created_at.tzinfo is not None and have.updated_at >= have.created_at
        elif isinstance(op, ListNs):
            assert have == want, op
        elif op.query is None:
            self.compare_listing(op, have, matches)
        else:
            self.compare_query(op, have, index, matches, again)

    def matches(self, op: Search) -> list[Item]:
        """Every current record under the prefix passing the filter (InMemoryStore, no limit)."""
        found: list[Any] = self.ref.search((self.root, *op.prefix), filter=op.filter, limit=10_000)
        return found

    def compare_listing(self, op: Search, have: list[Any], matches: list[Item]) -> None:
        everything = {triple(i) for i in matches}
        got = [triple(i) for i in have]
        assert len(got) == len(set(got)), op
        assert set(got) <= everything, op
        assert len(got) == min(op.limit, max(0, len(everything) - op.offset)), op
        if op.offset == 0 and len(everything) <= op.limit:
            assert set(got) == everything, op
        event(f"listing search, {'all' if op.offset == 0 and len(everything) <= op.limit else 'some'} matches")
        stamps = [i.updated_at for i in have]
        assert stamps == sorted(stamps, reverse=True), op  # newest first
        assert all(i.score is None for i in have)

    def compare_query(
        self, op: Search, have: list[Any], index: dict[Any, Any], matches: list[Item], again: bool
    ) -> None:
        assert op.query is not None
        candidates = {triple(i): i for i in matches}
        expected = {
            t for t, i in candidates.items() if op.query in indexed_words(i.value, index.get((i.namespace, i.key)))
        }
        complete = op.offset == 0 and len(expected) <= op.limit
        event(f"query search, {'all' if again and complete else 'some'} of {min(len(expected), 2)}+ expected hits")
        deadline = time.monotonic() + INDEX_WAIT_S
        while True:
            got = [triple(i) for i in have]
            assert len(got) == len(set(got)) <= op.limit, op
            assert set(got) <= expected, (op, set(got) - expected)  # current, matching, indexed, holding the word
            assert all(i.score is not None and i.score > 0 for i in have), op
            scores = [i.score for i in have]
            assert scores == sorted(scores, reverse=True), op  # the index's order
            if not (again and complete) or set(got) == expected or time.monotonic() > deadline:
                break
            time.sleep(0.25)  # not yet refreshed: the same search again
            have = self.ours.search((self.root, *op.prefix), query=op.query, filter=op.filter, limit=op.limit)
        if again and complete:
            assert set(got) == expected, (op, "not found within the refresh interval", expected - set(got))


@pytest.fixture(scope="module")
def ours(stack: RunningStack) -> OffpromptStore:  # noqa: F811
    return OffpromptStore(client=OffpromptClient(stack.url, tenant=TENANT, timeout=120))


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
    phases=(Phase.explicit, Phase.generate),  # no shrinking: every step is HTTP; a failure prints its whole program
)
@given(program=programs)
def test_the_store_answers_as_langgraphs_in_memory_store(ours: OffpromptStore, program: list[Any]) -> None:
    example = Example(ours)
    for op in program:
        example.run(op)


# ---- TTL (InMemoryStore has none) -------------------------------------------------------------------------------
def test_ttl_expires_records_and_a_read_refreshes_it(ours: OffpromptStore) -> None:
    root = f"lgttl{uuid.uuid4().hex[:8]}"
    store = OffpromptStore(client=ours.client, ttl={"default_ttl": 0.1, "refresh_on_read": False})  # 6 s
    # (index=False: TTL on reads by key and by filter, which read DynamoDB only; not the text index's concern)
    store.put((root,), "kept", {"text": "refreshed by reads"}, index=False)
    store.put((root,), "gone", {"text": "left alone"}, index=False)
    store.put((root,), "forever", {"text": "no ttl"}, index=False, ttl=None)
    kept = OffpromptClient(ours.client.base_url, tenant=TENANT).get_record([root], "kept", refresh_ttl=False)
    assert kept["expires_at"] is not None
    time.sleep(4)
    assert store.get((root,), "kept", refresh_ttl=True) is not None  # now + 6 s again
    assert store.get((root,), "gone") is not None  # refresh_on_read False: not moved
    time.sleep(3.5)
    assert store.get((root,), "gone") is None  # expired: never returned, swept or not
    assert store.get((root,), "kept") is not None
    assert {i.key for i in store.search((root,))} == {"kept", "forever"}
    assert store.list_namespaces(prefix=(root,)) == [(root,)]
    time.sleep(3.5)
    assert store.get((root,), "kept") is None
    assert [i.key for i in store.search((root,))] == ["forever"]


# ---- the README's sample --------------------------------------------------------------------------------------
def test_the_readme_sample_runs_as_written(stack: RunningStack, tmp_path: Path) -> None:  # noqa: F811
    readme = (ROOT / "docs" / "langgraph.md").read_text(encoding="utf-8")
    section = readme[readme.index("## LangGraph store") :]
    sample = section[section.index("```python\n") + len("```python\n") : section.index("\n```\n")]
    assert "OffpromptStore(" in sample and "compile(store=store)" in sample
    script = tmp_path / "sample.py"
    script.write_text(sample.replace("http://127.0.0.1:3000", stack.url), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OFFPROMPT_")}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == str({"text": "Ada likes lentils", "kind": "pref", "stars": 5})
    assert "key='prefs'" in lines[1] and lines[2] == "[('users', 'ada')]"
    assert lines[-1] == "['Ada likes lentils']"


# ---- what LangGraph allows and records do not ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("namespace", "key", "error"),
    [
        (("users", "a/b"), "k", InvalidNamespaceError),  # a label is one URL segment (ADR 0014): refused unsent
        (("users",), "x/y", ValueError),  # the same for a key
        (tuple("abcdefghi"), "k", OffpromptClientError),  # at most 8 labels: the server's 400
        (("users",), "..", OffpromptClientError),
        (("users", "tab\there"), "k", OffpromptClientError),  # no control characters
    ],
)
def test_names_langgraph_allows_but_records_refuse_raise_and_store_nothing(
    ours: OffpromptStore, namespace: tuple[str, ...], key: str, error: type[Exception]
) -> None:
    root = f"lgbad{uuid.uuid4().hex[:8]}"
    with pytest.raises(error) as refused:
        ours.put((root, *namespace), key, {"v": 1})
    if isinstance(refused.value, OffpromptClientError):
        assert (refused.value.status, refused.value.code) == (400, "invalid_input"), refused.value
    assert ours.list_namespaces(prefix=(root,)) == []
