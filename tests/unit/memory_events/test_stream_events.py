"""The memory events (docs/adr/0036-memory-events.md): the items the real stores write, read back from moto's
DynamoDB stream, each mean the event the ADR lists (and nothing else means one); the layout's key parser is the
inverse of its builders."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from sam_support import load_template

from offprompt import events
from offprompt.adapters import layout
from offprompt.adapters.dynamodb_account import DynamoDbAccountStore
from offprompt.adapters.dynamodb_namespaces import DynamoDbNamespaceStore
from offprompt.adapters.dynamodb_records import DynamoDbRecordStore
from offprompt.adapters.dynamodb_runs import DynamoDbRunStore
from offprompt.adapters.stream_events import TTL_IDENTITY, memory_event
from offprompt.metering import Charge, Plan
from offprompt.ports import KeyRecord, NamespaceCommit, StoredBatch, StoredRecord, StoredRun
from offprompt_local.resources import create_table

TABLE = "memory"
NOW = "2026-12-02T16:00:00.000Z"
#: Strings only a value holds: no event may carry them.
SECRET = "the-value-nobody-may-see"


class Stream:
    """moto's DynamoDB stream of the table, read from where the last `read()` stopped."""

    def __init__(self) -> None:
        # botocore now addresses streams as {account}.streams-ddb.{region}: moto answers only the classic host
        self.client = boto3.client(
            "dynamodbstreams", region_name="us-east-1", endpoint_url="https://streams.dynamodb.us-east-1.amazonaws.com"
        )
        arn = boto3.client("dynamodb", region_name="us-east-1").describe_table(TableName=TABLE)["Table"][
            "LatestStreamArn"
        ]
        shard = self.client.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
        self.iterator = self.client.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")[
            "ShardIterator"
        ]

    def read(self) -> list[dict[str, Any]]:
        out = self.client.get_records(ShardIterator=self.iterator)
        self.iterator = out["NextShardIterator"]
        return list(out["Records"])

    def events(self) -> list[Any]:
        found = []
        for record in self.read():
            event = memory_event(record)
            if event is not None:
                assert passes_filter(record), record  # the template's filter lets every event's record through
                found.append(event)
        return found


def events_filters() -> list[dict[str, Any]]:
    events_ = load_template()["Resources"]["EventsFunction"]["Properties"]["Events"]
    (stream,) = [e for e in events_.values() if e["Type"] == "DynamoDB"]
    return [json.loads(f["Pattern"]) for f in stream["Properties"]["FilterCriteria"]["Filters"]]


def _matches(pattern: Any, value: Any) -> bool:
    """Lambda's event filtering, as far as the patterns use it: nested keys, exact values, `prefix`, `exists`."""
    if isinstance(pattern, dict):
        return isinstance(value, dict) and all(k in value and _matches(p, value[k]) for k, p in pattern.items())
    return any(
        (isinstance(alt, dict) and isinstance(value, str) and value.startswith(alt.get("prefix", "\0")))
        or (isinstance(alt, dict) and alt.get("exists") is True)
        or alt == value
        for alt in pattern
    )


def passes_filter(record: dict[str, Any]) -> bool:
    return any(_matches(pattern, record) for pattern in events_filters())


@pytest.fixture
def stream(moto_aws: None) -> Iterator[Stream]:
    create_table(boto3.client("dynamodb", region_name="us-east-1"), TABLE)
    yield Stream()


def run(seq: int, run_id: str, *, kind: str = "runs", expires_at: int | None = None) -> StoredRun:
    body = json.dumps({"id": run_id, "input": {"type": "TextArtifact", "value": SECRET}})
    return StoredRun(
        seq=seq,
        run_id=run_id,
        content_hash="h" * 64,
        input_tokens=7,
        output_tokens=3,
        size=len(body),
        created_at=NOW,
        run_json=body,
        expires_at=expires_at,
        thread_kind=kind,
    )


def add(store: DynamoDbRunStore, tenant: str, thread: str, run_id: str, *, kind: str = "runs") -> StoredRun:
    state = store.allocate_seq(tenant, thread, NOW, kind=kind)
    stored = run(state.next_seq, run_id, kind=kind)
    store.put_run(tenant, thread, stored, state.generation or "")
    return stored


def no_values(event: Any) -> None:
    text = json.dumps(event.to_dict())
    assert SECRET not in text and "h" * 64 not in text


# ---- one test per event type, from the items the stores write ------------------------------------------------
def test_a_run_added_to_a_runs_thread_is_run_added(stream: Stream) -> None:
    store = DynamoDbRunStore(TABLE)
    stored = add(store, "acme#1", "chat/1", "r-1")
    found = stream.events()
    assert [(e.type, e.tenant) for e in found] == [(events.RUN_ADDED, "acme#1")]
    detail = found[0].detail
    assert detail == {
        "thread_id": "chat/1",
        "run_id": "r-1",
        "seq": 1,
        "bytes": stored.size,
        "input_tokens": 7,
        "output_tokens": 3,
    }
    assert found[0].id and found[0].time.endswith("Z")
    no_values(found[0])


def test_an_item_appended_to_an_items_thread_is_items_appended(stream: Stream) -> None:
    add(DynamoDbRunStore(TABLE), "acme", "session", "req.0", kind="items")
    found = stream.events()
    assert [(e.type, e.detail["item_id"], e.detail["seq"]) for e in found] == [(events.ITEMS_APPENDED, "req.0", 1)]
    no_values(found[0])


def test_a_deleted_thread_is_one_thread_deleted_not_one_event_per_run(stream: Stream) -> None:
    store = DynamoDbRunStore(TABLE)
    for n in range(3):
        add(store, "acme", "doomed", f"r{n}")
    stream.read()
    store.delete_thread("acme", "doomed")
    store.release_thread("acme", "doomed")
    found = stream.events()
    assert [(e.type, e.tenant, e.detail) for e in found] == [(events.THREAD_DELETED, "acme", {"thread_id": "doomed"})]


def test_a_committed_store_is_output_stored_and_a_reservation_alone_is_nothing(stream: Stream) -> None:
    store = DynamoDbNamespaceStore(TABLE)
    reservation = store.allocate("acme", "mem", "web page", 2)
    assert stream.events() == []  # positions reserved, nothing stored yet
    batch = StoredBatch(start=reservation.start, count=2, kind="text", entries=[{"chunks": 1}, {"chunks": 1}])
    store.commit(
        "acme", "mem", "web page", batch, NamespaceCommit("web", "fetch", "{}", 120), None, reservation.generation
    )
    found = stream.events()
    assert [(e.type, e.tenant) for e in found] == [(events.OUTPUT_STORED, "acme")]
    assert found[0].detail == {"memory": "mem", "namespace": "web page", "start": 0, "count": 2, "storage": "text"}


def test_a_deleted_namespace_is_namespace_deleted(stream: Stream) -> None:
    store = DynamoDbNamespaceStore(TABLE)
    reservation = store.allocate("acme", "mem", "ns", 1)
    batch = StoredBatch(start=0, count=1, kind="blob", entries=[{"key": "k", "envelope": {}, "size": 3}])
    store.commit("acme", "mem", "ns", batch, NamespaceCommit("t", "a", "{}", 3), None, reservation.generation)
    stream.read()
    store.delete("acme", "mem", "ns")
    store.release("acme", "mem", "ns")
    found = stream.events()
    assert [(e.type, e.detail) for e in found] == [(events.NAMESPACE_DELETED, {"memory": "mem", "namespace": "ns"})]


def record_image(tenant: str, namespace: tuple[str, ...], key: str, version: int, **extra: Any) -> dict[str, Any]:
    """A current item as DynamoDbRecordStore writes it (for the TTL REMOVE records moto cannot produce)."""
    return {
        "pk": {"S": layout.record_pk(tenant)},
        "sk": {"S": layout.record_sk(namespace, key)},
        "tenant": {"S": tenant},
        "ns": {"S": ".".join(namespace)},
        "key": {"S": key},
        "version": {"N": str(version)},
        "value": {"S": json.dumps({"fact": SECRET})},
        "size": {"N": "40"},
        **extra,
    }


def stored(ns: tuple[str, ...], key: str, version: int, *, deleted: bool = False, **more: Any) -> StoredRecord:
    value = None if deleted else json.dumps({"fact": SECRET, "v": version})
    return StoredRecord(
        ns, key, version, 1.0, float(version), float(version), value_json=value, size=len(value or ""),
        deleted=deleted, **more,
    )  # fmt: skip


def test_record_put_replace_delete_and_a_ttl_refresh(stream: Stream) -> None:
    store = DynamoDbRecordStore(TABLE)
    ns = ("users", "u#1", "facts")
    history = [stored(ns, "name", 1), stored(ns, "name", 2), stored(ns, "name", 3, deleted=True)]
    history += [stored(ns, "name", 4, deleted=True), stored(ns, "name", 5, expires_at=2_000_000_000, ttl_minutes=5)]
    previous = None
    for version in history:
        store.write("acme", version, previous, now=float(version.version))
        previous = version
    store.refresh_ttl("acme", history[-1], 2_100_000_000)  # the same version again: no put
    found = stream.events()
    base = {"namespace": list(ns), "namespace_path": "users.u#1.facts", "key": "name"}
    assert [(e.type, e.detail) for e in found] == [
        (events.RECORD_PUT, {**base, "version": 1, "created": True, "bytes": history[0].size}),
        (events.RECORD_PUT, {**base, "version": 2, "created": False, "bytes": history[1].size}),
        (events.RECORD_DELETED, {**base, "version": 3}),
        (events.RECORD_PUT, {**base, "version": 5, "created": True, "bytes": history[4].size}),
    ]  # deleting the deleted (version 4) is no event
    assert all(e.tenant == "acme" for e in found)
    for event in found:
        no_values(event)


def test_long_labels_and_keys_digested_in_the_key_are_read_from_the_items_attributes(stream: Stream) -> None:
    ns, key = ("l" * 100, "short"), "k" * 400  # past MAX_LABEL_PART_BYTES and MAX_RECORD_KEY_PART_BYTES
    assert layout.DIGEST_MARK in layout.record_sk(ns, key)
    DynamoDbRecordStore(TABLE).write("acme", stored(ns, key, 1), None, now=1.0)
    (event,) = stream.events()
    assert event.detail["namespace"] == list(ns) and event.detail["key"] == key


def test_past_versions_and_namespace_settings_are_no_events(stream: Stream) -> None:
    store = DynamoDbRecordStore(TABLE)
    store.configure_namespace("acme", ("a",), 60)
    store.write("acme", stored(("a",), "k", 1), None, now=1.0)
    stream.read()
    store.write("acme", stored(("a",), "k", 2), stored(("a",), "k", 1), now=2.0)  # writes VER#…1 and CUR#
    assert [e.type for e in stream.events()] == [events.RECORD_PUT]
    store.configure_namespace("acme", ("a",), None)
    assert stream.events() == []


# ---- expirations: DynamoDB's TTL sweep (moto has none: the REMOVE record is built as AWS delivers it) ----------
def removed(item: dict[str, Any], *, by_ttl: bool) -> dict[str, Any]:
    record: dict[str, Any] = {
        "eventID": "e-remove",
        "eventName": "REMOVE",
        "dynamodb": {
            "ApproximateCreationDateTime": 1_796_000_000,
            "Keys": {"pk": item["pk"], "sk": item["sk"]},
            "OldImage": item,
        },
    }
    if by_ttl:
        record["userIdentity"] = dict(TTL_IDENTITY)
    return record


def test_a_run_expired_by_ttl_is_run_expired_and_a_run_deleted_otherwise_is_nothing(stream: Stream) -> None:
    store = DynamoDbRunStore(TABLE)
    add(store, "acme", "t", "r-1", kind="items")
    item = next(r["dynamodb"]["NewImage"] for r in stream.read() if r["dynamodb"]["Keys"]["sk"]["S"].startswith("RUN#"))
    event = memory_event(removed(item, by_ttl=True))
    assert event is not None and event.type == events.RUN_EXPIRED and event.tenant == "acme"
    assert passes_filter(removed(item, by_ttl=True)) and not passes_filter(removed(item, by_ttl=False))
    assert event.detail == {"thread_id": "t", "run_id": "r-1", "seq": 1, "thread_kind": "items"}
    assert event.time == "2026-11-30T00:53:20Z"
    assert memory_event(removed(item, by_ttl=False)) is None


def test_a_record_expired_by_ttl_is_record_expired_unless_it_was_a_tombstone() -> None:
    live = record_image("acme", ("a", "b"), "k", 4)
    event = memory_event(removed(live, by_ttl=True))
    assert event is not None and event.type == events.RECORD_EXPIRED
    assert passes_filter(removed(live, by_ttl=True))
    assert event.detail == {"namespace": ["a", "b"], "namespace_path": "a.b", "key": "k", "version": 4}
    assert memory_event(removed(record_image("acme", ("a",), "k", 5, deleted={"BOOL": True}), by_ttl=True)) is None
    assert memory_event(removed(live, by_ttl=False)) is None  # an erase: no event per record


# ---- adversarial ---------------------------------------------------------------------------------------------
def test_api_keys_usage_and_charges_are_no_events(stream: Stream) -> None:
    account = DynamoDbAccountStore(TABLE)
    account.put_tenant("acme", {"name": "free"}, NOW)
    account.add_key(KeyRecord("0123456789abcdef", "acme", "ci", NOW, "s" * 64, {"name": "free"}), max_keys=5)
    account.add_usage("acme", "2026-12-02", {"searches": 3})
    store = DynamoDbRunStore(TABLE)
    state = store.allocate_seq("acme", "t", NOW)
    charge = Charge("acme", Plan("free"), 1_796_000_000.0, stored_bytes=10, day_counters={"runs": 1})
    store.put_run("acme", "t", run(state.next_seq, "r-1"), state.generation or "", charge)
    records = stream.read()
    assert len(records) > 4
    found = [e for e in (memory_event(r) for r in records) if e is not None]
    assert [e.type for e in found] == [events.RUN_ADDED]  # the charge's counters, the key, the tenant: nothing
    assert [r["dynamodb"]["Keys"]["sk"]["S"][:4] for r in records if passes_filter(r)] == ["RUN#"]
    assert all("s" * 64 not in json.dumps(e.to_dict()) for e in found)


@pytest.mark.parametrize(
    "keys",
    [
        {"pk": {"S": "SOMETHING#else"}, "sk": {"S": "RUN#000000000001"}},
        {"pk": {"S": layout.thread_pk("a", "t")}, "sk": {"S": "NEWKIND#1"}},
        {"pk": {"S": layout.thread_pk("a", "t")}, "sk": {"S": "RUN#notanumber"}},
        {"pk": {"S": "REC#a"}, "sk": {"S": "CUR#nokey"}},
        {"pk": {"S": "REC#a"}, "sk": {"S": "CUR###k"}},
        {"pk": {"S": "REC#a#b"}, "sk": {"S": "CUR#x##k"}},
        {"pk": {"S": layout.DEPLOYMENT_PK}, "sk": {"S": layout.INDEXED_SK}},
        {"pk": {"S": layout.key_pk("abc")}, "sk": {"S": layout.KEY_SK}},
        {"pk": {"N": "1"}, "sk": {"S": "RUN#000000000001"}},
        {},
    ],
)
def test_unknown_or_malformed_items_are_no_events(keys: dict[str, Any]) -> None:
    image = {**keys, "run_id": {"S": "r"}, "tenant": {"S": "a"}, "thread_id": {"S": "t"}}
    record = {"eventID": "e", "eventName": "INSERT", "dynamodb": {"Keys": keys, "NewImage": image}}
    assert memory_event(record) is None


@pytest.mark.parametrize("record", [{}, {"eventID": "e"}, {"eventID": "", "dynamodb": {}}, {"dynamodb": "x"}])
def test_records_without_an_id_or_a_change_are_no_events(record: dict[str, Any]) -> None:
    assert memory_event(record) is None


def test_the_tenant_is_the_keys_not_an_attribute_that_disagrees() -> None:
    item = {
        "pk": {"S": layout.thread_pk("acme", "t")},
        "sk": {"S": layout.run_sk(1)},
        "tenant": {"S": "someone-else"},
        "run_id": {"S": "r"},
        "size": {"N": "1"},
        "input_tokens": {"N": "1"},
        "output_tokens": {"N": "1"},
    }
    record = {"eventID": "e", "eventName": "INSERT", "dynamodb": {"Keys": item, "NewImage": item}}
    event = memory_event(record)
    assert event is not None and event.tenant == "acme"


def test_a_digested_tenant_is_recovered_only_by_an_attribute_that_digests_to_it() -> None:
    long_tenant = "#" * 200  # escaped: 600 bytes, past MAX_PART_BYTES → a digest in the key
    item = {
        "pk": {"S": layout.thread_pk(long_tenant, "t")},
        "sk": {"S": layout.run_sk(1)},
        "run_id": {"S": "r"},
        "size": {"N": "1"},
        "input_tokens": {"N": "1"},
        "output_tokens": {"N": "1"},
    }
    record = {"eventID": "e", "eventName": "INSERT", "dynamodb": {"Keys": item, "NewImage": item}}
    assert memory_event(record) is None  # no attribute: the tenant cannot be read back
    record["dynamodb"]["NewImage"] = {**item, "tenant": {"S": "other"}}
    assert memory_event(record) is None
    record["dynamodb"]["NewImage"] = {**item, "tenant": {"S": long_tenant}}
    event = memory_event(record)
    assert event is not None and event.tenant == long_tenant


# ---- the key parser is the builders' inverse -----------------------------------------------------------------
IDENTIFIERS = ["plain", "a#b", "100%", "%23", "ünï cødé", "x" * 256]


@pytest.mark.parametrize("ident", IDENTIFIERS)
def test_parse_key_inverts_the_builders(ident: str) -> None:
    tenant = f"t-{ident}"
    cases = {
        (layout.thread_pk(tenant, ident), layout.THREAD_SK): ("thread", "thread", {"thread_id": ident}),
        (layout.thread_pk(tenant, ident), layout.run_sk(42)): ("thread", "run", {"thread_id": ident, "seq": 42}),
        (layout.thread_pk(tenant, ident), layout.runid_sk(ident)): ("thread", "run_id", {"thread_id": ident}),
        (layout.alias_pk(tenant, ident), layout.ALIAS_SK): ("alias", "alias", {"alias": ident}),
        (layout.memory_pk(tenant, ident), layout.namespace_sk(ident)): (
            "memory",
            "namespace",
            {"memory": ident, "namespace": ident},
        ),
        (layout.memory_pk(tenant, ident), layout.batch_sk(ident, 7)): (
            "memory",
            "batch",
            {"memory": ident, "namespace": ident, "start": 7},
        ),
        (layout.memory_pk(tenant, ident), layout.meta_sk(1, "abc")): ("memory", "meta", {"memory": ident}),
        (layout.usage_pk(tenant, "Q"), layout.day_sk("2026-12-02")): ("usage", "usage", {}),
        (layout.rate_pk(tenant, 0), layout.rate_sk(5)): ("rate", "rate_window", {}),
        (layout.tenant_pk(tenant), layout.TENANT_SK): ("tenant", "tenant", {}),
        (layout.record_pk(tenant), layout.record_sk((ident[:60], "b"), ident)): (
            "record",
            "record",
            {"namespace": (ident[:60], "b"), "key": ident},
        ),
        (layout.record_pk(tenant), layout.record_version_sk((ident[:60],), ident, 9)): (
            "record",
            "record_version",
            {"namespace": (ident[:60],), "key": ident, "version": 9},
        ),
        (layout.record_pk(tenant), layout.record_namespace_sk(("a", ident[:60]))): (
            "record",
            "record_namespace",
            {"namespace": ("a", ident[:60])},
        ),
    }
    for (pk, sk), (family, kind, ids) in cases.items():
        parsed = layout.parse_key(pk, sk)
        assert parsed is not None, (pk, sk)
        assert (parsed.family, parsed.kind, parsed.tenant, parsed.ids) == (family, kind, tenant, ids), (pk, sk)


def test_parse_key_knows_no_tenant_for_api_keys_and_the_deployment() -> None:
    assert layout.parse_key(layout.key_pk("abc"), layout.KEY_SK) is None
    assert layout.parse_key(layout.DEPLOYMENT_PK, layout.INDEXED_SK) is None


def test_one_sample_eventbridge_event_per_type() -> None:
    """events/memory_events/: one sample per type, as EventBridge delivers it to a rule's target (ADR 0036)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[3] / "events" / "memory_events"
    samples = {p.name: json.loads(p.read_text()) for p in root.glob("*.json")}
    assert sorted(s["detail-type"] for s in samples.values()) == sorted(events.EVENT_TYPES)
    for name, sample in samples.items():
        assert sample["source"] == events.SOURCE and sample["detail"]["type"] == sample["detail-type"], name
        assert set(sample["detail"]) == {"id", "type", "time", "tenant", "detail"}, name
        assert not {"value", "run", "secret_hash", "hash", "entries"} & set(sample["detail"]["detail"]), name
