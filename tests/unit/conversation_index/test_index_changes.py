"""The stream indexer's pure parts: stream records → run changes (adapters/stream_runs), and the use case's order and
failure rules (services/conversation_index/index_changes) over a recording index and in-memory runs. The adapters and
the whole path on the real table stream and OpenSearch node:
tests/integration/conversation/test_conversation_index_*."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from offprompt.adapters.dynamodb_runs import _run_item
from offprompt.adapters.layout import runid_sk, thread_pk
from offprompt.adapters.stream_runs import StreamRunDecoder, run_change, scanned_run
from offprompt.errors import DependencyUnavailable
from offprompt.ports import ConversationDoc, RunChange, StoredRun
from offprompt.services.conversation_index.context import Indexing
from offprompt.services.conversation_index.index_changes import index_changes, index_stream_records


def stored(seq: int, text: str, *, kind: str = "runs", blob: bool = False) -> StoredRun:
    run = {"id": f"r{seq}", "meta": {"lang": "en"}, "input": {"type": "TextArtifact", "value": f"Q {text}"},
           "output": {"type": "TextArtifact", "value": text}}  # fmt: skip
    if kind == "items":
        run = {"role": "user", "content": text}
    body = json.dumps(run)
    return StoredRun(
        seq=seq, run_id=f"r{seq}", content_hash="h", created_at="2026-01-02T03:04:05.000Z",
        run_json=None if blob else body, blob_key=f"blob-{seq}" if blob else None, thread_kind=kind,
    )  # fmt: skip


def record(name: str, tenant: str, thread: str, run: StoredRun, event_id: str) -> dict[str, Any]:
    item = _run_item(thread_pk(tenant, thread), run, tenant, thread, metered_bytes=0)
    keys = {"pk": item["pk"], "sk": item["sk"]}
    change: dict[str, Any] = {"Keys": keys, "SequenceNumber": event_id.removeprefix("e")}
    if name != "REMOVE":
        change["NewImage"] = item
    if name != "INSERT":
        change["OldImage"] = item
    return {"eventID": event_id, "eventName": name, "dynamodb": change}


def test_stream_records_of_run_items_are_run_changes_and_nothing_else_is() -> None:
    added = run_change(record("INSERT", "a#1", "t", stored(3, "hi"), "e1"))
    assert added is not None and (added.tenant, added.thread_id, added.seq, added.kind, added.removed) == (
        "a#1", "t", 3, "run", False,
    )  # fmt: skip
    assert added.run is not None and added.run.run_id == "r3"
    removed = run_change(record("REMOVE", "a#1", "t", stored(3, "hi", kind="items"), "e2"))
    assert removed is not None and (removed.kind, removed.removed, removed.run) == ("item", True, None)
    rewritten = record("MODIFY", "a", "t", stored(1, "x"), "e3")
    rewritten["dynamodb"]["OldImage"] = record("INSERT", "a", "t", stored(1, "before"), "e0")["dynamodb"]["NewImage"]
    assert run_change(rewritten).removed is False  # type: ignore[union-attr]
    # the indexer keeping its documents' ids on the item (Serverless): the run did not change
    kept = record("MODIFY", "a", "t", stored(1, "x"), "e3")
    kept["dynamodb"]["NewImage"] = {**kept["dynamodb"]["NewImage"], "search_doc_ids": {"SS": ["d2", "d1"]}}
    assert run_change(kept) is None
    gone = record("REMOVE", "a", "t", stored(1, "x"), "e6")
    gone["dynamodb"]["OldImage"] = kept["dynamodb"]["NewImage"]
    assert run_change(gone).doc_ids == ("d1", "d2")  # type: ignore[union-attr]
    runid = record("INSERT", "a", "t", stored(1, "x"), "e4")
    runid["dynamodb"]["Keys"]["sk"] = {"S": runid_sk("r1")}
    assert run_change(runid) is None
    assert (
        run_change(
            {
                "eventID": "e5",
                "eventName": "INSERT",
                "dynamodb": {"Keys": {"pk": {"S": "APIKEY#k"}, "sk": {"S": "#APIKEY"}}},
            }
        )
        is None
    )
    assert run_change({"eventName": "INSERT"}) is None
    item = record("INSERT", "a", "t", stored(2, "x"), "e6")["dynamodb"]["NewImage"]
    scanned = scanned_run(item)
    assert scanned is not None and (scanned.seq, scanned.removed) == (2, False)


class Runs:
    def __init__(self, runs: dict[tuple[str, str, int], StoredRun]) -> None:
        self.runs = runs
        self.reads = 0

    def get_run(self, tenant: str, thread_id: str, seq: int, ancestry: Any = ()) -> StoredRun | None:
        self.reads += 1
        return self.runs.get((tenant, thread_id, seq))


class Bodies:
    def __init__(self, blobs: dict[str, str], fail: bool = False) -> None:
        self.blobs, self.fail = blobs, fail

    def run_json(self, run: StoredRun) -> str:
        if run.run_json is not None:
            return run.run_json
        if self.fail or run.blob_key not in self.blobs:
            raise DependencyUnavailable("S3 get failed")
        return self.blobs[run.blob_key]


class Index:
    def __init__(self, fail_on: int | None = None) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.fail_on = fail_on

    def _call(self, what: str, arg: Any) -> None:
        if self.fail_on is not None and len(self.calls) == self.fail_on:
            raise DependencyUnavailable("OpenSearch is down")
        self.calls.append((what, arg))

    def index(self, docs: Sequence[ConversationDoc]) -> list[str | None]:
        self._call("index", [(d.thread_id, d.seq, d.input_text, d.context_text) for d in docs])
        return [None] * len(docs)

    def delete_ids(self, ids: Sequence[str]) -> None:
        self._call("delete_ids", list(ids))

    def delete(self, tenant: str, thread_id: str, kind: str, seqs: Sequence[int]) -> None:
        self._call("delete", (thread_id, kind, list(seqs)))


def change(seq: int, text: str = "", *, removed: bool = False, event: str = "", **run: Any) -> RunChange:
    return RunChange(event or f"e{seq}", "a", "t", seq, "run", removed, None if removed else stored(seq, text, **run))


def test_changes_apply_in_order_with_the_previous_runs_text_as_context() -> None:
    runs = Runs({("a", "t", 1): stored(1, "first"), ("a", "t", 2): stored(2, "again")})
    index = Index()
    ctx = Indexing(runs, Bodies({}), index, StreamRunDecoder())  # type: ignore[arg-type]
    out = index_changes(ctx, [change(2, "second"), change(3, "third")])
    assert index.calls == [("index", [("t", 2, "Q second", "Q first\nfirst"), ("t", 3, "Q third", "Q second\nsecond")])]
    assert (out.indexed, out.deleted, out.failed) == (2, 0, [])

    index.calls.clear()
    changes = [
        change(2, "second"),
        change(3, "third"),
        change(2, removed=True, event="x"),
        change(2, "again", event="y"),
    ]
    out = index_changes(ctx, changes)
    # seq 2 changes again later in the batch: only its last change counts (its context read from the table)
    assert index.calls == [
        ("index", [("t", 3, "Q third", "Q again\nagain")]),
        ("delete", ("t", "run", [2])),
        ("index", [("t", 2, "Q again", "Q first\nfirst")]),
    ]
    assert (out.indexed, out.deleted, out.skipped, out.failed) == (2, 1, 1, [])


def test_a_failed_stretch_and_everything_after_it_are_reported_failed() -> None:
    index = Index(fail_on=1)
    ctx = Indexing(Runs({}), Bodies({}), index, StreamRunDecoder())  # type: ignore[arg-type]
    out = index_changes(ctx, [change(1, "a"), change(3, removed=True, event="x"), change(2, "b")])
    assert out.failed == ["x", "e2"] and index.calls == [("index", [("t", 1, "Q a", "")])]


def test_a_big_run_whose_body_is_gone_with_it_is_skipped_and_a_body_unreadable_otherwise_fails() -> None:
    gone = Indexing(Runs({}), Bodies({}), Index(), StreamRunDecoder())  # type: ignore[arg-type]
    out = index_changes(gone, [change(1, "big", blob=True)])
    assert (out.indexed, out.skipped, out.failed) == (0, 1, [])
    there = Indexing(
        Runs({("a", "t", 1): stored(1, "big", blob=True)}), Bodies({}, fail=True), Index(), StreamRunDecoder()
    )  # type: ignore[arg-type]
    assert index_changes(there, [change(1, "big", blob=True)]).failed == ["e1"]


def test_stream_records_go_through_the_decoder() -> None:
    index = Index()
    ctx = Indexing(Runs({}), Bodies({}), index, StreamRunDecoder())  # type: ignore[arg-type]
    records = [record("INSERT", "a", "t", stored(1, "x", kind="items"), "e1"), {"eventID": "junk"}]
    assert index_stream_records(ctx, records).indexed == 1
    assert index.calls == [("index", [("t", 1, "x", "")])]


def test_the_handler_reports_what_was_not_applied_as_batch_item_failures(monkeypatch: Any) -> None:
    from conversation_index import handler

    from offprompt.composition import conversation_index as composition
    from offprompt.config import get_settings

    monkeypatch.setenv("OFFPROMPT_TABLE", "t")
    get_settings.cache_clear()
    index = Index(fail_on=0)  # the delete (the first insert is superseded by it)
    composition.set_conversation_index_override(index)  # type: ignore[arg-type]
    try:
        records = [
            {**record("INSERT", "a", "t", stored(1, "x"), "e1"), "eventSource": "aws:dynamodb"},
            {**record("REMOVE", "a", "t", stored(1, "x"), "e2"), "eventSource": "aws:dynamodb"},
            {**record("INSERT", "a", "t", stored(1, "y"), "e3"), "eventSource": "aws:dynamodb"},
        ]
        response = handler.lambda_handler({"Records": records}, None)
    finally:
        composition.set_conversation_index_override(None)
        get_settings.cache_clear()
    assert response == {"batchItemFailures": [{"itemIdentifier": "2"}, {"itemIdentifier": "3"}]}
    assert handler.lambda_handler({"Records": []}, None) == {"batchItemFailures": []}


class NamingIndex(Index):
    """An index that names its documents' ids, as OpenSearch Serverless does."""

    named = 0

    def index(self, docs: Sequence[ConversationDoc]) -> list[str | None]:
        super().index(docs)
        self.named += 1
        return [f"id-{d.seq}-{self.named}" for d in docs]


class Kept:
    """The runs' items keeping document ids: `gone` seqs are removed (or replaced) since they were read."""

    def __init__(self, gone: set[int]) -> None:
        self.ids: dict[int, tuple[str, ...]] = {}
        self.gone = gone

    def remember(
        self, tenant: str, thread_id: str, seq: int, run_id: str, ids: Sequence[str]
    ) -> tuple[str, ...] | None:
        if seq in self.gone:
            return None
        before, self.ids[seq] = self.ids.get(seq, ()), tuple(ids)
        return before


def test_serverless_ids_are_kept_on_the_items_and_what_nothing_keeps_is_deleted() -> None:
    index, kept = NamingIndex(), Kept(gone={2})
    ctx = Indexing(Runs({}), Bodies({}), index, StreamRunDecoder(), kept)  # type: ignore[arg-type]
    index_changes(ctx, [change(1, "a"), change(2, "b")])
    # run 2 was removed before its id could be kept: its new document goes at once (its REMOVE found none by search)
    assert kept.ids == {1: ("id-1-1",)} and index.calls[-1] == ("delete_ids", ["id-2-1"])
    index.calls.clear()
    index_changes(ctx, [change(1, "a again", event="m1")])  # written again: the old text's document goes
    assert index.calls[-1] == ("delete_ids", ["id-1-1"]) and kept.ids[1] == ("id-1-2",)
    index.calls.clear()
    index_changes(ctx, [RunChange("r1", "a", "t", 1, "run", True, doc_ids=kept.ids[1])])  # removed: by its ids
    assert index.calls == [("delete_ids", list(kept.ids[1])), ("delete", ("t", "run", [1]))]
