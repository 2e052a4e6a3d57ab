"""The records use cases over the REAL record index (docs/adr/0034): DynamoDB and S3 on moto, the OpenSearch record
index on the local node, as a managed domain (`provisioned`: searches follow a refresh) and through the
Serverless-faithful proxy (`serverless`: server-assigned ids, no refresh; searches follow one refresh interval),
and the contract-tested in-memory index (`fake`) beside them, so what the use cases' other tests show on the fake
holds on the real index.

What only a real index can get wrong: a replaced version's document answering current searches, a deleted or expired
record surfacing, another tenant's documents, a losing concurrent put's text overwriting the winner's document
(ids are unique per put attempt), and the tenant erase on Serverless, where a version indexed within the last
refresh interval is found only by the id its item holds.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fakes.record_index import InMemoryRecordIndex
from records_support import BUCKET, TABLE, Clock

from offprompt.adapters.dynamodb_account import DynamoDbAccountStore
from offprompt.adapters.dynamodb_records import DynamoDbRecordStore
from offprompt.adapters.opensearch_client import build_opensearch_client
from offprompt.adapters.opensearch_records import OpenSearchRecordIndex
from offprompt.adapters.opensearch_text import S3TextRecords
from offprompt.adapters.s3 import S3RecordBodies
from offprompt.adapters.tenant_documents import OpenSearchTenantDocuments
from offprompt.adapters.tenant_items import DynamoDbTenantItems
from offprompt.adapters.tenant_objects import S3TenantObjects
from offprompt.errors import NotFound
from offprompt.ports import StoredRecord
from offprompt.services.records.context import Records
from offprompt.services.records.delete import delete_record
from offprompt.services.records.get import get_record
from offprompt.services.records.put import put_record
from offprompt.services.records.requests import RecordPut, RecordRead, RecordSearch
from offprompt.services.records.search import search_records
from offprompt.services.tenant_data.erase import erase_tenant
from offprompt.services.tenant_data.ports import TenantStores
from offprompt_local.pytest_plugin import serverless_refresh

pytestmark = pytest.mark.opensearch
NS = ("users", "u1")


class Subject:
    """Records over one kind of index, how to let search catch up with writes, and the index on the node."""

    def __init__(
        self, rec: Records, settle: Callable[[], None], kind: str, node: Any = None, name: str = "", client: Any = None
    ) -> None:
        self.rec = rec
        self.client = client  # how the adapter reaches the index (the node, or the Serverless proxy)
        self.settle = settle
        self.kind = kind
        self.node = node
        self.name = name

    def documents(self, tenant: str) -> int:
        """How many documents of the tenant the node holds, refreshed: what search will see sooner or later."""
        self.node.indices.refresh(index=self.name)
        body = {"query": {"bool": {"filter": [{"term": {"tenant": tenant}}]}}}
        return int(self.node.count(index=self.name, body=body)["count"])


def _subject(request: pytest.FixtureRequest, kind: str, clock: Clock) -> Iterator[Subject]:
    def records(index: Any) -> Records:
        return Records(DynamoDbRecordStore(TABLE), S3RecordBodies(BUCKET), index, clock=clock)

    if kind == "fake":
        yield Subject(records(InMemoryRecordIndex()), lambda: None, kind)
        return
    node: Any = request.getfixturevalue("opensearch_client")
    name = f"offprompt-records-uc-{uuid.uuid4().hex}"
    if kind == "provisioned":
        yield Subject(
            records(OpenSearchRecordIndex(node, name, None)),
            lambda: node.indices.refresh(index=name),
            kind,
            node,
            name,
            node,
        )
        node.indices.delete(index=name, ignore_unavailable=True)
        return
    proxy: Any = request.getfixturevalue("aoss_proxy")
    refused = len(proxy.refusals)
    client = build_opensearch_client(proxy.url)
    yield Subject(
        records(OpenSearchRecordIndex(client, name, None, mode="serverless")),
        serverless_refresh(node, name),
        kind,
        node,
        name,
        client,
    )
    client.close()
    node.indices.delete(index=name, ignore_unavailable=True)
    assert proxy.refusals[refused:] == [], "the serverless record index sent what OpenSearch Serverless refuses"


@pytest.fixture(params=["fake", "provisioned", "serverless"])
def subject(request: pytest.FixtureRequest, aws: dict[str, Any], clock: Clock) -> Iterator[Subject]:
    yield from _subject(request, request.param, clock)


@pytest.fixture(params=["provisioned", "serverless"])
def real(request: pytest.FixtureRequest, aws: dict[str, Any], clock: Clock) -> Iterator[Subject]:
    yield from _subject(request, request.param, clock)


def put(s: Subject, key: str, value: dict[str, Any], *, tenant: str = "alice", **options: Any) -> dict[str, Any]:
    return put_record(s.rec, tenant, NS, key, RecordPut(value=value, **options))


def found(s: Subject, query: str, *, tenant: str = "alice", **options: Any) -> list[tuple[str, int, Any]]:
    out = search_records(s.rec, tenant, RecordSearch(namespace_prefix=["users"], query=query, **options))
    return [(r["key"], r["version"], r["value"]) for r in out["items"]]


def test_a_put_is_found_and_a_replaced_version_only_as_of_its_window(subject: Subject, clock: Clock) -> None:
    put(subject, "drink", {"text": "likes green tea"})
    before = clock.now
    clock.tick(10)
    put(subject, "drink", {"text": "now prefers coffee"})
    subject.settle()
    assert found(subject, "coffee") == [("drink", 2, {"text": "now prefers coffee"})]
    assert found(subject, "tea") == []  # the replaced version's document no longer answers current searches
    assert found(subject, "tea", as_of=before + 1) == [("drink", 1, {"text": "likes green tea"})]
    assert found(subject, "coffee", as_of=before + 1) == []


def test_a_deleted_record_is_not_returned(subject: Subject, clock: Clock) -> None:
    put(subject, "pet", {"text": "owns a parrot"})
    put(subject, "car", {"text": "drives a parrot green van"})
    clock.tick(10)
    assert delete_record(subject.rec, "alice", NS, "pet") is True
    subject.settle()
    assert [key for key, _, _ in found(subject, "parrot")] == ["car"]
    assert sorted(key for key, _, _ in found(subject, "parrot", as_of=clock.now - 5)) == ["car", "pet"]


def test_a_filter_applies_to_what_the_index_proposes(subject: Subject) -> None:
    for n, kind in enumerate(["fruit", "company", "fruit"]):
        put(subject, f"k{n}", {"text": "apple " * (n + 1), "kind": kind})
    subject.settle()
    assert sorted(key for key, _, _ in found(subject, "apple", filter={"kind": "fruit"})) == ["k0", "k2"]
    assert [key for key, _, _ in found(subject, "apple", filter={"kind": {"$ne": "fruit"}})] == ["k1"]


def test_an_expired_record_is_never_returned(subject: Subject, clock: Clock) -> None:
    put(subject, "short", {"text": "ephemeral walrus"}, ttl_minutes=1)
    put(subject, "long", {"text": "lasting walrus"})
    subject.settle()
    assert sorted(key for key, _, _ in found(subject, "walrus")) == ["long", "short"]
    clock.tick(61)  # past the TTL, before DynamoDB's sweep: the document is still in the index
    assert [key for key, _, _ in found(subject, "walrus")] == ["long"]
    assert [key for key, _, _ in found(subject, "ephemeral")] == []
    with pytest.raises(NotFound):
        get_record(subject.rec, "alice", NS, "short", RecordRead())


def test_another_tenants_records_are_never_returned(subject: Subject) -> None:
    put(subject, "secret", {"text": "alice keeps a zebra"})
    put(subject, "own", {"text": "bob keeps a zebra too"}, tenant="bob")
    subject.settle()
    assert [key for key, _, _ in found(subject, "zebra", tenant="bob")] == ["own"]
    assert found(subject, "alice", tenant="bob") == []
    assert found(subject, "zebra", tenant="carol") == []


def test_a_losing_concurrent_put_never_overwrites_the_winners_document(subject: Subject, clock: Clock) -> None:
    """The loser indexes version 1 first; the winner commits version 1 before the loser's commit, which fails; the
    loser reads again and commits version 2. Version 1's document must hold the winner's text: with one id per
    version (the old deterministic id) the winner's index was a no-op on the loser's document."""
    winner = Records(DynamoDbRecordStore(TABLE), S3RecordBodies(BUCKET), subject.rec.index, clock=clock)
    fired: list[bool] = []

    class Interloper(DynamoDbRecordStore):
        def write(self, tenant: str, new: StoredRecord, previous: StoredRecord | None, now: float, **kw: Any) -> None:
            if not fired:
                fired.append(True)
                put_record(winner, tenant, NS, "city", RecordPut(value={"text": "lives in oslo"}))
                clock.tick(5)  # the loser's retry comes later: version 1 is valid for 5 s
            super().write(tenant, new, previous, now, **kw)

    loser = Records(Interloper(TABLE), S3RecordBodies(BUCKET), subject.rec.index, clock=clock)
    out = put_record(loser, "alice", NS, "city", RecordPut(value={"text": "lives in lima"}))
    assert out["version"] == 2 and fired
    at = clock.now - 1  # inside version 1's window
    clock.tick(10)
    subject.settle()
    assert found(subject, "lima") == [("city", 2, {"text": "lives in lima"})]
    assert found(subject, "oslo") == []
    assert found(subject, "oslo", as_of=at) == [("city", 1, {"text": "lives in oslo"})]
    assert found(subject, "lima", as_of=at) == []
    if subject.node is not None:  # the loser's first document was deleted: one document per committed version
        assert subject.documents("alice") == 2


def _stores(s: Subject) -> TenantStores:
    serverless = s.kind == "serverless"
    return TenantStores(
        items=DynamoDbTenantItems(TABLE),
        objects=S3TenantObjects(BUCKET),
        documents=OpenSearchTenantDocuments(
            s.client, s.name, serverless=serverless, records=S3TextRecords(BUCKET) if serverless else None
        ),
        fence=DynamoDbAccountStore(TABLE),
    )


def test_the_erase_deletes_every_record_document_even_unrefreshed_ones(real: Subject, clock: Clock) -> None:
    put(real, "seen", {"text": "indexed and refreshed"})
    put(real, "other", {"text": "not erased"}, tenant="bob")
    real.settle()
    # from here on nothing new becomes searchable: the versions below are only findable by the ids their items hold
    real.node.indices.put_settings(index=real.name, body={"index": {"refresh_interval": "-1"}})
    clock.tick()
    put(real, "seen", {"text": "replaced, not refreshed"})
    put(real, "fresh", {"text": "never refreshed"})
    put(real, "big", {"text": "x" * 400_000})
    report = erase_tenant("alice", _stores(real), fence=False)
    assert report.verified, report
    assert real.documents("alice") == 0  # every document, the unrefreshed ones too (the node refreshed to count)
    assert real.documents("bob") == 1
