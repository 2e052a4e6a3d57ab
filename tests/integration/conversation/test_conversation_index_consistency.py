"""The conversation index stays exact (issue 31 item 1, docs/adr/0048): every rule, end to end.

Real parts: the local substrate's moto server (DynamoDB with its stream, S3), the real OpenSearch node, the functions'
own handlers for the workload (add-run, threads: configure / fork / items / pop / delete), the tenant erase's use
case, and the REAL stream indexer (`conversation_index.handler`, built by its composition root from the settings) fed
the table's stream records in Lambda's shape, as the event source mapping (and the local stack's poller) hands them.

After each change's stream records are processed: a deleted, pruned (max_runs), expired (TTL), popped, thread-deleted
or erased run leaves no document; a retried batch makes no duplicate; a foreign tenant's candidates never include
another's; a fork's cut finds the history it shares; a big run (its body in S3) is indexed by its text; an export
carries no document and an import is indexed by the stream; `offprompt-admin reindex` builds what came before.
Each on a managed domain and on OpenSearch Serverless (the faithful proxy).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from hosted_support import Deployment

from offprompt.adapters.opensearch_conversations import OpenSearchConversationIndex
from offprompt.ports import ThreadCut
from offprompt_local.memory_events import lambda_record

pytestmark = pytest.mark.opensearch
ALICE, BOB = "alice#1", "alice"  # a `#` in the tenant: "alice" must never match "alice#1"
TTL = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


class Stream:
    """The table's stream through the real indexer function, as Lambda's event source mapping delivers it."""

    def __init__(self, table: str) -> None:
        self.dynamodb, self.streams = boto3.client("dynamodb"), boto3.client("dynamodbstreams")
        self.arn = self.dynamodb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
        self.iterators: dict[str, str] = {}
        self.delivered: list[dict[str, Any]] = []

    def records(self) -> list[dict[str, Any]]:
        """Every record not read yet, in order per shard."""
        out: list[dict[str, Any]] = []
        for shard in self.streams.describe_stream(StreamArn=self.arn)["StreamDescription"]["Shards"]:
            shard_id = shard["ShardId"]
            if shard_id not in self.iterators:
                self.iterators[shard_id] = self.streams.get_shard_iterator(
                    StreamArn=self.arn, ShardId=shard_id, ShardIteratorType="TRIM_HORIZON"
                )["ShardIterator"]
            while True:
                page = self.streams.get_records(ShardIterator=self.iterators[shard_id], Limit=100)
                self.iterators[shard_id] = page["NextShardIterator"]
                out.extend(lambda_record(r, self.arn) for r in page.get("Records", []))
                if not page.get("Records"):
                    break
        return out

    def pump(self, *, by_ttl: bool = False) -> list[dict[str, Any]]:
        """Hand every new record to the indexer (REMOVEs as DynamoDB's TTL made them, with `by_ttl`)."""
        records = self.records()
        if by_ttl:
            for r in records:
                if r["eventName"] == "REMOVE":
                    r["userIdentity"] = dict(TTL)
        self.deliver(records)
        return records

    def deliver(self, records: list[dict[str, Any]]) -> None:
        from conversation_index.handler import lambda_handler

        for first in range(0, len(records), 100):
            batch = records[first : first + 100]
            assert lambda_handler({"Records": json.loads(json.dumps(batch))}, None) == {"batchItemFailures": []}
        self.delivered.extend(records)


@pytest.fixture(params=["provisioned", "serverless"])
def d(
    request: pytest.FixtureRequest,
    moto_server: str,
    opensearch_url: str,
    opensearch_client: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Deployment]:
    """A deployment on a managed domain, or on OpenSearch Serverless (the functions reach the node through the
    Serverless-faithful proxy, which refuses what Serverless refuses; the test reads the node itself)."""
    if request.param == "provisioned":
        deployment = Deployment(monkeypatch, moto_server, opensearch_url, opensearch_client, "conv")
        yield deployment
        deployment.close()
        return
    proxy: Any = request.getfixturevalue("aoss_proxy")
    refused = len(proxy.refusals)
    monkeypatch.setenv("OFFPROMPT_OPENSEARCH_MODE", "serverless")
    deployment = Deployment(monkeypatch, moto_server, proxy.url, opensearch_client, "conv")
    yield deployment
    deployment.close()
    assert proxy.refusals[refused:] == [], "the indexer sent what OpenSearch Serverless refuses"


@pytest.fixture
def stream(d: Deployment) -> Stream:
    return Stream(d.table)


def found(d: Deployment, tenant: str, query: str, threads: list[ThreadCut] | None = None) -> list[tuple[str, int]]:
    d.os.indices.refresh(index=d.index)
    index = OpenSearchConversationIndex(d.os, d.index, None)
    hits = index.candidates(
        tenant, bm25_query=query, embed_query=query, threads=threads, thread_prefix=None, since=None, until=None,
        size=100, mode="bm25",
    )  # fmt: skip
    assert all(c.doc.tenant == tenant for c in hits)
    return sorted((c.doc.thread_id, c.doc.seq) for c in hits)


def until_verified(erase: Any) -> Any:
    """An erase run as an operator runs it: again while it says it left data behind. On Serverless a document
    indexed within the collection's refresh interval is not yet visible to the erase's search; the verify then
    sees it and refuses to say `verified` (503 / exit 1, "run it again"), and the next run removes it (ADR 0048).
    A verified erase must leave nothing: the callers check the index right after."""
    from offprompt.errors import DependencyUnavailable

    for _attempt in range(10):
        try:
            outcome = erase()
        except DependencyUnavailable as exc:
            assert "left data behind" in str(exc)
            time.sleep(0.5)  # the collection's next refresh
            continue
        if outcome in (None, 0) or getattr(outcome, "verified", False):
            return outcome
        time.sleep(0.5)
    raise AssertionError("the erase never verified")


def serverless() -> bool:
    import os

    return os.environ.get("OFFPROMPT_OPENSEARCH_MODE") == "serverless"


def gone_once_removed(d: Deployment, stream: Stream, tenant: str) -> None:
    """No document of the tenant is left once the erase (and its REMOVE records, after it) ran: on Serverless too,
    where a document indexed within the collection's refresh interval is visible to no search, the erase deletes it
    by the id its run's item keeps (ADR 0048)."""
    assert documents(d, tenant) == 0


def hold_the_refresh_window_open(d: Deployment, stream: Stream) -> None:
    """From now on a document is searchable only after an explicit refresh on the node (the tests' `found` and
    `documents` do one; code under test never can): the Serverless window held open, as the test's own pumping
    outlasts the proxy's 1 s interval. (The index exists first: another tenant's run, in a thread of its own.)"""
    d.add_run(BOB, "first", "f0", "the index exists")
    stream.pump()
    d.os.indices.put_settings(index=d.index, body={"index": {"refresh_interval": "-1"}})


def is_run(record: dict[str, Any]) -> bool:
    return str(record["dynamodb"]["Keys"]["sk"]["S"]).startswith("RUN#")


def documents(d: Deployment, tenant: str | None = None) -> int:
    d.os.indices.refresh(index=d.index)
    filters: list[dict[str, Any]] = [{"term": {"doc_kind": "conversation"}}]
    if tenant is not None:
        filters.append({"term": {"tenant": tenant}})
    return int(d.os.count(index=d.index, body={"query": {"bool": {"filter": filters}}})["count"])


def threads(event: dict[str, Any]) -> Any:
    from threads.handler import lambda_handler

    return lambda_handler(event, None)


def test_added_runs_are_found_only_by_their_tenant_and_a_retried_batch_makes_no_duplicate(
    d: Deployment, stream: Stream
) -> None:
    for i in range(3):
        d.add_run(ALICE, "t1", f"r{i}", f"penguin fact {i}")
    d.add_run(BOB, "t1", "b0", "penguin colony")
    d.add_run(ALICE, "big", "big", "albatross " + "x" * 400_000)  # past the inline size: its body is in S3
    stream.pump()
    assert found(d, ALICE, "penguin") == [("t1", 1), ("t1", 2), ("t1", 3)]
    assert found(d, BOB, "penguin") == [("t1", 1)]
    assert found(d, "carol", "penguin") == []
    assert found(d, ALICE, "albatross") == [("big", 1)]
    assert documents(d) == 5

    stream.deliver(list(stream.delivered))  # the whole stream again: a retried batch
    assert documents(d) == 5

    source = d.os.search(
        index=d.index, body={"query": {"bool": {"filter": [{"term": {"seq": 2}}, {"term": {"tenant": ALICE}}]}}}
    )
    doc = source["hits"]["hits"][0]["_source"]
    assert (doc["input_text"], doc["output_text"], doc["ref_id"]) == ("Q penguin fact 1", "penguin fact 1", "r1")
    assert doc["context_text"] == "Q penguin fact 0\npenguin fact 0"  # the run before it


def test_deleted_pruned_and_expired_runs_leave_no_document(d: Deployment, stream: Stream) -> None:
    from offprompt.adapters.dynamodb_runs import DynamoDbRunStore

    for i in range(4):
        d.add_run(ALICE, "t1", f"r{i}", f"walrus {i}")
    d.add_run(ALICE, "t2", "e0", "walrus expiring")
    stream.pump()
    assert len(found(d, ALICE, "walrus")) == 5

    runs = DynamoDbRunStore(d.table)
    runs.delete_runs(ALICE, "t1", [runs.get_run(ALICE, "t1", 1)])  # type: ignore[list-item]
    stream.pump()
    assert found(d, ALICE, "walrus") == [("t1", 2), ("t1", 3), ("t1", 4), ("t2", 1)]

    threads({"tenant": ALICE, "thread_id": "t1", "action": "configure", "max_runs": 2})
    for i in range(4, 14):  # each add prunes what max_runs (and its slack of 8) certainly hides: seqs 2-4 here
        d.add_run(ALICE, "t1", f"r{i}", f"walrus {i}")
    stream.pump()
    assert found(d, ALICE, "walrus") == [*(("t1", s) for s in range(5, 15)), ("t2", 1)]

    from offprompt.adapters.layout import run_sk, thread_pk

    # DynamoDB's TTL deletes an expired run's item (moto does not run TTL: the same REMOVE, as TTL's identity)
    boto3.client("dynamodb").delete_item(
        TableName=d.table, Key={"pk": {"S": thread_pk(ALICE, "t2")}, "sk": {"S": run_sk(1)}}
    )
    records = stream.pump(by_ttl=True)
    # (and, on Serverless, the MODIFYs of the indexer keeping the last runs' document ids: no change to index)
    assert [r["eventName"] for r in records if r["eventName"] != "MODIFY"] == ["REMOVE"]
    assert found(d, ALICE, "walrus") == [("t1", s) for s in range(5, 15)]
    assert documents(d, ALICE) == 10


def test_a_run_removed_before_its_document_is_searchable_leaves_none(d: Deployment, stream: Stream) -> None:
    """On Serverless a document is visible to search only after the collection's refresh interval, and its id is
    the collection's: a run removed within that window was found by no delete (the document outlived it). The id the
    indexer keeps on the run's item reaches the removal; the indexer's own write of it is no change to index."""
    from offprompt.adapters.dynamodb_runs import DynamoDbRunStore

    hold_the_refresh_window_open(d, stream)
    for i in range(3):
        d.add_run(ALICE, "t1", f"r{i}", f"gannet {i}")
    threads(
        {"tenant": ALICE, "thread_id": "s1", "action": "add_items", "items": [{"role": "user", "content": "gannet"}]}
    )
    d.add_run(ALICE, "gone", "g0", "gannet of a thread deleted at once")
    written = stream.pump()
    assert [r["eventName"] for r in written if is_run(r)].count("INSERT") == 5
    # at once, within the refresh interval: a delete, a pop, a whole thread
    runs = DynamoDbRunStore(d.table)
    runs.delete_runs(ALICE, "t1", [runs.get_run(ALICE, "t1", 2)])  # type: ignore[list-item]
    threads({"tenant": ALICE, "thread_id": "s1", "action": "pop_item"})
    threads({"tenant": ALICE, "thread_id": "gone", "action": "delete"})
    changes = stream.pump()
    assert found(d, ALICE, "gannet") == [("t1", 1), ("t1", 3)]
    assert documents(d, ALICE) == 2
    if serverless():  # the ids kept on the items: MODIFYs the indexer ignores (nothing indexed twice)
        assert [r["eventName"] for r in changes if is_run(r)].count("MODIFY") == 5
    assert stream.pump() == []  # the removals wrote nothing back: the stream is quiet


def test_popped_items_and_deleted_threads_leave_no_document(d: Deployment, stream: Stream) -> None:
    items = [
        {"role": "user", "content": "my parrot is called Kiwi"},
        {"role": "assistant", "content": "Hi Kiwi's parrot owner"},
    ]
    threads({"tenant": ALICE, "thread_id": "s1", "action": "add_items", "items": items})
    d.add_run(ALICE, "gone", "g0", "parrot of a thread to delete")
    stream.pump()
    assert found(d, ALICE, "kiwi") == [("s1", 1), ("s1", 2)]
    hit = d.os.search(index=d.index, body={"query": {"term": {"thread_id": "s1"}}, "sort": [{"seq": "asc"}]})
    assert [(h["_source"]["kind"], bool(h["_source"]["input_text"])) for h in hit["hits"]["hits"]] == [
        ("item", True),
        ("item", False),
    ]  # a user item is the user side; the assistant's the other

    assert threads({"tenant": ALICE, "thread_id": "s1", "action": "pop_item"})["seq"] == 2
    threads({"tenant": ALICE, "thread_id": "gone", "action": "delete"})
    stream.pump()
    assert found(d, ALICE, "kiwi") == [("s1", 1)]
    assert found(d, ALICE, "parrot") == [("s1", 1)]
    assert documents(d, ALICE) == 1


def test_a_forks_cut_finds_the_history_it_shares(d: Deployment, stream: Stream) -> None:
    for i in range(3):
        d.add_run(ALICE, "base", f"r{i}", f"otter {i}")
    fork = {"tenant": ALICE, "thread_id": "base", "action": "fork", "after_run_id": "r1", "new_thread_id": "fork"}
    ancestry = threads(fork)["ancestry"]
    assert ancestry == [{"thread_id": "base", "through_seq": 2}]
    d.add_run(ALICE, "fork", "f0", "otter in the fork")
    stream.pump()
    assert documents(d, ALICE) == 4  # nothing copied: the fork's own run only
    cuts = [ThreadCut("fork"), *(ThreadCut(a["thread_id"], a["through_seq"]) for a in ancestry)]
    assert found(d, ALICE, "otter", cuts) == [("base", 1), ("base", 2), ("fork", 3)]


def test_an_erased_tenant_leaves_no_document_and_the_other_keeps_its_own(d: Deployment, stream: Stream) -> None:
    from offprompt.composition.tenant_data import stores_from_settings
    from offprompt.config import get_settings
    from offprompt.services.tenant_data.erase import erase_tenant

    hold_the_refresh_window_open(d, stream)
    for i in range(3):
        d.add_run(ALICE, "t1", f"r{i}", f"heron {i}")
    d.add_run(BOB, "t1", "b0", "heron too")
    stream.pump()
    report = until_verified(lambda: erase_tenant(ALICE, stores_from_settings(get_settings()), fence=False))
    assert report.verified, report.to_dict()
    if not serverless():
        assert documents(d, ALICE) == 0
    stream.pump()  # the erase's removals reach the indexer after it: nothing comes back
    gone_once_removed(d, stream, ALICE)
    assert found(d, BOB, "heron") == [("t1", 1)]


def test_reindex_builds_the_index_for_runs_stored_before_it_idempotent_and_resumable(
    d: Deployment, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from offprompt.adapters import tenant_items
    from offprompt_admin.__main__ import main as admin

    for i in range(5):
        d.add_run(ALICE, f"old{i % 2}", f"r{i}", f"kingfisher {i}")  # stored before the index: no stream read
    d.add_run(BOB, "old", "b0", "kingfisher of bob")
    d.add_run(ALICE, "big", "big", "kingfisher " + "x" * 400_000)

    def cli(*args: str) -> tuple[int, Any]:
        capsys.readouterr()
        code = admin(list(args))
        return code, json.loads(capsys.readouterr().out)

    monkeypatch.setattr(tenant_items, "SCAN_PAGE_ITEMS", 4)  # several pages, to stop and resume between them
    code, first = cli("reindex", ALICE, "--pages", "1")
    assert code == 0 and first["complete"] is False and first["pages"] == 1
    code, rest = cli("reindex", ALICE, "--from", first["resume_from"])
    assert code == 0 and rest["complete"] is True
    assert first["indexed"] + rest["indexed"] == 6
    assert len(found(d, ALICE, "kingfisher")) == 6 and found(d, BOB, "kingfisher") == []

    code, again = cli("reindex", ALICE)  # idempotent: the same documents, replaced
    assert code == 0 and again["indexed"] == 6 and documents(d, ALICE) == 6
    code, everyone = cli("reindex", "--all")
    assert code == 0 and everyone["indexed"] == 7 and documents(d) == 7
    assert found(d, BOB, "kingfisher") == [("old", 1)]


def test_an_export_carries_no_document_and_an_import_is_indexed_by_the_stream(
    d: Deployment, stream: Stream, capsys: pytest.CaptureFixture[str], tmp_path: Any
) -> None:
    from offprompt_admin.__main__ import main as admin

    for i in range(2):
        d.add_run(ALICE, "t1", f"r{i}", f"puffin {i}")
    stream.pump()
    out = tmp_path / "alice"
    assert admin(["export", ALICE, "--out", str(out)]) == 0
    assert not [line for line in (out / "opensearch.jsonl").read_text().splitlines() if "puffin" in line]
    assert "search_doc_ids" not in (out / "dynamodb.jsonl").read_text()  # this deployment's ids stay here
    assert until_verified(lambda: admin(["erase", ALICE, "--yes"]) or None) is None  # 0: verified
    stream.pump()
    gone_once_removed(d, stream, ALICE)
    assert admin(["import", ALICE, str(out)]) == 0
    stream.pump()  # the import wrote the run items: the stream indexes them
    assert found(d, ALICE, "puffin") == [("t1", 1), ("t1", 2)]
    capsys.readouterr()
