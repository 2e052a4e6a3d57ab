"""Records on moto through the use cases (docs/adr/0034): put/get/replace/history/as_of/delete-as-version, TTL,
filters, namespaces, big values, refusals that write nothing, tenant isolation, concurrent replaces."""

from __future__ import annotations

import copy
import functools
import itertools
import threading
import time
from typing import Any

import pytest
from fakes.record_index import InMemoryRecordIndex
from records_support import Clock, bucket_keys, table_items

from offprompt.errors import InvalidInput, NotFound, PayloadTooLarge, QuotaExceeded
from offprompt.metering import Meter, Plan
from offprompt.services.records.context import Records
from offprompt.services.records.delete import delete_record
from offprompt.services.records.get import get_record, record_history
from offprompt.services.records.namespaces import configure_namespace, list_namespaces
from offprompt.services.records.put import put_record
from offprompt.services.records.requests import (
    HistoryQuery,
    NamespaceSettings,
    NamespacesQuery,
    RecordPut,
    RecordRead,
    RecordSearch,
)
from offprompt.services.records.search import search_records

NS = ("users", "u1", "facts")


def put(rec: Records, value: dict[str, Any], key: str = "k", ns: tuple[str, ...] = NS, **kw: Any) -> dict[str, Any]:
    return put_record(rec, "alice", ns, key, RecordPut(value=value, **kw))


def get(rec: Records, key: str = "k", ns: tuple[str, ...] = NS, tenant: str = "alice", **kw: Any) -> dict[str, Any]:
    return get_record(rec, tenant, ns, key, RecordRead(**kw))


def search(rec: Records, tenant: str = "alice", **kw: Any) -> list[dict[str, Any]]:
    return list(search_records(rec, tenant, RecordSearch(**kw))["items"])


def test_put_get_replace_history_and_as_of(rec: Records, clock: Clock) -> None:
    first = put(rec, {"food": "pizza"})
    assert first["version"] == 1 and first["value"] == {"food": "pizza"} and first["valid_to"] is None
    assert first["namespace"] == list(NS) and first["key"] == "k" and first["expires_at"] is None
    t1 = clock.tick()
    second = put(rec, {"food": "sushi"})
    assert second["version"] == 2 and second["created_at"] == first["created_at"]
    assert second["updated_at"] != first["updated_at"]
    assert get(rec)["value"] == {"food": "sushi"}
    # as_of: the ISO time a version shows reads it back exactly; before the first version nothing was valid
    assert get(rec, as_of=first["valid_from"])["value"] == {"food": "pizza"}
    assert get(rec, as_of=second["valid_from"])["value"] == {"food": "sushi"}
    assert get(rec, as_of=t1 - 0.001)["value"] == {"food": "pizza"}
    with pytest.raises(NotFound) as missing:
        get(rec, as_of=clock.now - 10)
    assert missing.value.code == "record_not_found"
    history = record_history(rec, "alice", NS, "k", HistoryQuery())["versions"]
    assert [v["version"] for v in history] == [2, 1]
    assert history[1]["valid_to"] == second["valid_from"] and history[0]["valid_to"] is None
    assert [v["value"] for v in history] == [{"food": "sushi"}, {"food": "pizza"}]


def test_delete_is_a_version_and_idempotent(rec: Records, clock: Clock) -> None:
    put(rec, {"a": 1})
    clock.tick()
    assert delete_record(rec, "alice", NS, "k") is True
    assert delete_record(rec, "alice", NS, "k") is False  # idempotent
    with pytest.raises(NotFound):
        get(rec)
    history = record_history(rec, "alice", NS, "k", HistoryQuery())["versions"]
    assert [(v["version"], v["deleted"], v["value"]) for v in history] == [(2, True, None), (1, False, {"a": 1})]
    assert get(rec, as_of=clock.now - 0.5)["value"] == {"a": 1}
    with pytest.raises(NotFound):
        get(rec, as_of=clock.now + 5)  # the tombstone answers 404
    clock.tick()
    again = put(rec, {"a": 2})
    assert again["version"] == 3 and again["created_at"] != history[1]["created_at"]  # a new life
    assert search(rec, namespace_prefix=["users"]) and delete_record(rec, "alice", NS, "missing") is False


def test_expired_records_are_never_returned_even_before_the_sweep(rec: Records, clock: Clock) -> None:
    put(rec, {"t": "short lived"}, ttl_minutes=1)
    put(rec, {"t": "forever"}, key="kept")
    assert get(rec, refresh_ttl=False)["expires_at"] is not None
    clock.tick(61)
    with pytest.raises(NotFound):
        get(rec)
    assert [r["key"] for r in search(rec, namespace_prefix=["users"])] == ["kept"]
    assert [r["key"] for r in search(rec, namespace_prefix=[], query="short lived forever")] == ["kept"]
    assert list_namespaces(rec, "alice", NamespacesQuery())["namespaces"] == [list(NS)]
    delete_record(rec, "alice", NS, "kept")
    assert list_namespaces(rec, "alice", NamespacesQuery())["namespaces"] == []
    # the expired record is gone for a put too: it starts a new life after the highest version
    assert put(rec, {"t": "new"})["version"] == 2


def test_refresh_ttl_moves_expiry_and_a_plain_read_does_not(rec: Records, clock: Clock) -> None:
    put(rec, {"t": "x"}, ttl_minutes=1)
    clock.tick(50)
    assert get(rec, refresh_ttl=False)["expires_at"] == get(rec, refresh_ttl=False)["expires_at"]
    refreshed = get(rec)  # refresh_ttl defaults to true, as LangGraph's refresh_on_read
    clock.tick(50)  # 100 s after the put: alive only thanks to the refresh at 50 s
    assert get(rec, refresh_ttl=False)["expires_at"] == refreshed["expires_at"]
    assert search(rec, namespace_prefix=list(NS))[0]["key"] == "k"  # search refreshes too
    clock.tick(59)
    assert get(rec, refresh_ttl=False)["value"] == {"t": "x"}
    clock.tick(2)
    with pytest.raises(NotFound):
        get(rec)


def test_namespace_default_ttl(rec: Records, clock: Clock) -> None:
    out = configure_namespace(rec, "alice", NS, NamespaceSettings(default_ttl_minutes=2))
    assert out == {"namespace": list(NS), "default_ttl_minutes": 2.0}
    put(rec, {"a": 1})
    put(rec, {"a": 2}, key="own", ttl_minutes=10)
    put(rec, {"a": 3}, ns=("users", "u1"))  # another namespace: no default
    clock.tick(121)
    with pytest.raises(NotFound):
        get(rec)
    assert get(rec, key="own")["value"] == {"a": 2} and get(rec, ns=("users", "u1"))["value"] == {"a": 3}
    configure_namespace(rec, "alice", NS, NamespaceSettings(default_ttl_minutes=None))
    assert put(rec, {"a": 4}, key="later")["expires_at"] is None
    with pytest.raises(InvalidInput):
        configure_namespace(rec, "alice", NS, NamespaceSettings(default_ttl_minutes=0))


def test_filters_and_ordering_without_a_query(rec: Records, clock: Clock) -> None:
    for i, (kind, score) in enumerate([("a", 1), ("b", 5), ("a", 9), ("c", None)]):
        put(rec, {"kind": kind, "score": score, "n": i}, key=f"k{i}")
        clock.tick()
    assert [r["key"] for r in search(rec, namespace_prefix=["users"])] == ["k3", "k2", "k1", "k0"]  # newest first
    assert [r["key"] for r in search(rec, namespace_prefix=["users"], filter={"kind": "a"})] == ["k2", "k0"]
    assert [r["key"] for r in search(rec, filter={"score": {"$gte": 5}})] == ["k2", "k1"]
    assert [r["key"] for r in search(rec, filter={"kind": {"$ne": "a"}, "score": {"$lt": 9}})] == ["k1"]
    assert [r["key"] for r in search(rec, filter={"kind": "a"}, offset=1, limit=5)] == ["k0"]
    assert [r["key"] for r in search(rec, limit=2, offset=1)] == ["k2", "k1"]
    assert search(rec, namespace_prefix=["users", "u"]) == []  # label-wise prefix
    assert all(r["score"] is None for r in search(rec))
    with pytest.raises(InvalidInput):
        search(rec, filter={"kind": {"$regex": "a"}})


def test_text_search_is_verified_against_dynamodb(rec: Records, clock: Clock, index: InMemoryRecordIndex) -> None:
    put(rec, {"text": "likes green tea"}, key="tea")
    put(rec, {"text": "likes black coffee", "private": "tea"}, key="coffee", index=["text"])
    put(rec, {"text": "tea tea tea"}, key="hidden", index=False)
    clock.tick()
    put(rec, {"text": "now prefers coffee"}, key="tea")  # replaced: the old "tea" version must not match
    hits = search(rec, namespace_prefix=["users"], query="tea")
    assert hits == []
    hits = search(rec, namespace_prefix=["users"], query="coffee")
    assert [h["key"] for h in hits] == ["coffee", "tea"] or [h["key"] for h in hits] == ["tea", "coffee"]
    assert all(isinstance(h["score"], float) for h in hits)
    assert [h["key"] for h in search(rec, query="coffee", filter={"text": "now prefers coffee"})] == ["tea"]
    # as_of: the old version's text matches at the old time only
    old = search(rec, query="tea", as_of=clock.now - 0.5)
    assert [(h["key"], h["value"]) for h in old] == [("tea", {"text": "likes green tea"})]
    # a document the index still holds for a deleted record is dropped by the DynamoDB check
    stale = copy.deepcopy(index.docs)  # the index as it was before the delete superseded the document
    delete_record(rec, "alice", NS, "coffee")
    index.docs.update(stale)
    assert [h["key"] for h in search(rec, query="coffee")] == ["tea"]


def test_list_namespaces(rec: Records) -> None:
    for ns in [("a", "b", "c"), ("a", "b"), ("a", "x", "c"), ("b", "c")]:
        put(rec, {"v": 1}, ns=ns)
    q = NamespacesQuery
    assert list_namespaces(rec, "alice", q())["namespaces"] == [
        ["a", "b"],
        ["a", "b", "c"],
        ["a", "x", "c"],
        ["b", "c"],
    ]
    assert list_namespaces(rec, "alice", q(prefix=["a", "*"], suffix=["c"]))["namespaces"] == [
        ["a", "b", "c"],
        ["a", "x", "c"],
    ]
    assert list_namespaces(rec, "alice", q(prefix=["a"], max_depth=2))["namespaces"] == [["a", "b"], ["a", "x"]]
    assert list_namespaces(rec, "alice", q(max_depth=1, limit=1, offset=1))["namespaces"] == [["b"]]
    assert list_namespaces(rec, "bob", q())["namespaces"] == []


def test_a_big_value_round_trips_byte_exact_through_s3(rec: Records, aws: dict[str, Any], clock: Clock) -> None:
    big = {"blob": "é🦊x" * 100_000, "nested": {"list": list(range(1000))}, "text": "needle"}
    out = put(rec, big, index=["text"])
    assert out["value"] == big
    keys = bucket_keys(aws["s3"])
    assert len(keys) == 1 and keys[0].startswith("records/")
    assert get(rec)["value"] == big
    assert search(rec, query="needle")[0]["value"] == big
    clock.tick()
    put(rec, {"small": True})
    assert record_history(rec, "alice", NS, "k", HistoryQuery())["versions"][1]["value"] == big


def test_refused_puts_write_nothing(rec: Records, aws: dict[str, Any], index: InMemoryRecordIndex) -> None:
    bad: list[tuple[tuple[str, ...], str, dict[str, Any]]] = [
        (("a.b",), "k", {"value": {}}),
        ((), "k", {"value": {}}),
        (NS, "a/b", {"value": {}}),
        (NS, "k", {"value": {}, "ttl_minutes": -1}),
        (NS, "k", {"value": {}, "index": ["a..b"]}),
        (NS, "k", {"value": {"deep": _nested(300)}}),
    ]
    for ns, key, body in bad:
        with pytest.raises(InvalidInput):
            put_record(rec, "alice", ns, key, RecordPut(**body))
    with pytest.raises(PayloadTooLarge):
        put(rec, {"x": "y" * (4 * 1024 * 1024)})
    assert table_items(aws["dynamodb"]) == [] and bucket_keys(aws["s3"]) == [] and index.docs == {}


def test_over_quota_puts_write_nothing_and_charges_count(rec: Records, aws: dict[str, Any]) -> None:
    plan = Plan("tiny", stored_bytes=1000)
    meter = Meter("alice", plan, now=1_780_000_000)
    put_record(rec, "alice", NS, "k", RecordPut(value={"x": "y" * 400}), meter=meter)
    before = table_items(aws["dynamodb"])
    gauge = [i for i in before if i["sk"]["S"] == "#TENANT"]
    assert gauge and int(gauge[0]["stored_bytes"]["N"]) == len('{"x":""}') + 400
    with pytest.raises(QuotaExceeded):
        put_record(rec, "alice", NS, "k2", RecordPut(value={"x": "y" * 700}), meter=Meter("alice", plan))
    with pytest.raises(QuotaExceeded):  # larger than the plan at all: refused before anything is written
        put_record(rec, "alice", NS, "k3", RecordPut(value={"x": "y" * 2000}), meter=Meter("alice", plan))
    assert sorted(map(str, table_items(aws["dynamodb"]))) == sorted(map(str, before))


def test_another_tenant_sees_nothing(rec: Records) -> None:
    put(rec, {"secret": "alice's"})
    with pytest.raises(NotFound):
        get(rec, tenant="bob")
    assert search(rec, tenant="bob") == [] and search(rec, tenant="bob", query="alice's") == []
    assert list_namespaces(rec, "bob", NamespacesQuery())["namespaces"] == []
    assert delete_record(rec, "bob", NS, "k") is False and get(rec)["value"] == {"secret": "alice's"}


def test_concurrent_replaces_keep_one_chain_and_lose_no_version(
    aws_over_http: dict[str, Any], clock: Clock, index: InMemoryRecordIndex
) -> None:
    """Over the local substrate's moto server, where each request is atomic as in DynamoDB. Both writers read
    version 1 before either writes; only that first read waits, so the loser's retry reads at once."""
    _race_two_replaces(clock, index)


def test_a_replace_racing_a_commit_in_flight_waits_for_it(
    aws_over_http: dict[str, Any], clock: Clock, index: InMemoryRecordIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window of the once-flaky run: the winner's TransactWriteItems has put one of its items and not yet the
    other when the loser's transaction arrives. In-process moto ran the loser's inside it (conflict, then a retry that
    read the old head and conflicted again: RecordConflicted); DynamoDB, and the substrate, run it after."""
    from moto.dynamodb.models.table import Table

    first_put = Table.put_item
    armed = threading.Event()
    second_write_sent = threading.Event()

    @functools.wraps(first_put)
    def put_item(self: Any, *args: Any, **kwargs: Any) -> Any:
        stored = first_put(self, *args, **kwargs)
        if armed.is_set():
            armed.clear()  # the winner's first put of its transaction: hold the rest of it
            second_write_sent.wait(timeout=10)
            time.sleep(0.3)  # the loser's request reaches moto meanwhile
        return stored

    monkeypatch.setattr(Table, "put_item", put_item)
    _race_two_replaces(clock, index, armed=armed, second_write_sent=second_write_sent)


def _race_two_replaces(
    clock: Clock, index: InMemoryRecordIndex, armed: Any = None, second_write_sent: Any = None
) -> None:
    """Two writers replace version 1 of one record at once: one writes version 2, the other reads again and writes
    version 3; the history is one chain."""
    from records_support import BUCKET, TABLE

    from offprompt.adapters.dynamodb_records import DynamoDbRecordStore
    from offprompt.adapters.s3 import S3RecordBodies

    rec = Records(DynamoDbRecordStore(TABLE), S3RecordBodies(BUCKET), index, clock=clock)
    put(rec, {"n": 0})
    if armed is not None:
        armed.set()  # the next put is the first writer's
    barrier = threading.Barrier(2, timeout=60)
    first_read = threading.local()
    writes: list[int] = []

    class RacingStore(DynamoDbRecordStore):
        def current(self, tenant: str, namespace: tuple[str, ...], key: str) -> Any:
            found = super().current(tenant, namespace, key)
            if not getattr(first_read, "done", False):
                first_read.done = True
                barrier.wait()  # both writers read the same current version before either writes
            return found

        def write(self, *args: Any, **kwargs: Any) -> None:
            writes.append(1)
            if len(writes) == 2 and second_write_sent is not None:
                second_write_sent.set()
            super().write(*args, **kwargs)

    racing = Records(RacingStore(TABLE), S3RecordBodies(BUCKET), index, clock=clock)
    results: list[Any] = []

    def writer(n: int) -> None:
        try:
            results.append(put_record(racing, "alice", NS, "k", RecordPut(value={"n": n}))["version"])
        except Exception as exc:  # pragma: no cover - shown by the assertion below
            results.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results, key=str) == [2, 3], results  # the loser read again and wrote the next version
    history = record_history(rec, "alice", NS, "k", HistoryQuery())["versions"]
    assert [v["version"] for v in history] == [3, 2, 1]
    assert sorted(v["value"]["n"] for v in history) == [0, 1, 2]
    for newer, older in itertools.pairwise(history):
        assert older["valid_to"] == newer["valid_from"]


def _nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value
