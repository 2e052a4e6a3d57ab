"""TaskMemoryService on moto DynamoDB/S3 with the in-memory TextStore fake: storage rules, ordering, conflicts,
atomic commits, uploads, paging and fault injection."""

from __future__ import annotations

import base64
import dataclasses
import json
from typing import Any

import boto3
import pytest
import requests
from fakes.text_store import InMemoryTextStore
from tm_unit_helpers import BUCKET, TABLE, all_items, all_objects, count_calls

from offprompt.adapters.dynamodb_namespaces import DynamoDbNamespaceStore
from offprompt.adapters.s3 import S3BlobStore
from offprompt.artifacts import (
    AudioArtifact,
    BaseArtifact,
    BlobArtifact,
    ImageArtifact,
    InfoArtifact,
    JsonArtifact,
    ListArtifact,
    Reference,
    TextArtifact,
    ToolAction,
)
from offprompt.composition.task_memory import task_memory_service
from offprompt.errors import DependencyUnavailable, InvalidInput, NotFound, PayloadTooLarge
from offprompt.memory.task import MixedListError
from offprompt.ports import Reservation, StorageKindTaken
from offprompt.services.task_memory import (
    StorageKindConflict,
    TaskMemoryService,
    UploadError,
    list_artifact_json,
)

LINE = 'Output of "WebTool.fetch" was stored in memory with memory_name "TaskMemory" and artifact_namespace "{ns}"'


def store(svc: TaskMemoryService, artifact: BaseArtifact | dict[str, Any], tenant: str = "t1", **kw: Any) -> Any:
    return svc.process_output(tenant, "TaskMemory", tool="WebTool", activity="fetch", artifact=artifact, **kw)


def loaded(svc: TaskMemoryService, ns: str, tenant: str = "t1") -> list[dict[str, Any]]:
    result = svc.load_artifacts(tenant, "TaskMemory", ns)
    assert result.body is not None
    data = json.loads(result.body)
    assert data["type"] == "ListArtifact"
    return data["value"]


def test_text_store_answer_and_byte_exact_load(svc: TaskMemoryService) -> None:
    art = TextArtifact("hello " * 100, name="ns1", meta={"k": [1, 2.5]}, reference=Reference(title="T"))
    result = store(svc, art, actions=[ToolAction(tag="c", name="WebTool", path="fetch", input={"u": 1})], thought="go")
    assert result.stored and result.artifact.to_dict()["value"] == LINE.format(ns="ns1")
    assert isinstance(result.artifact, InfoArtifact) and result.artifact.name == "ns1"
    body = svc.load_artifacts("t1", "TaskMemory", "ns1").body
    assert body is not None and json.loads(body)["value"] == [art.to_dict()]
    assert art.to_json() in body  # the item's JSON, byte for byte
    record = svc.get_namespace("t1", "TaskMemory", "ns1")
    assert (record.kind, record.artifact_count, record.total_bytes) == ("text", 1, 600)
    assert json.loads(record.namespace_metadata) == [
        {"tag": "c", "name": "WebTool", "path": "fetch", "input": {"u": 1}}
    ]
    entries, cursor = svc.meta_entries("t1", "TaskMemory")
    assert entries == [{"thought": "go", "actions": record.namespace_metadata, "answer": LINE.format(ns="ns1")}]
    assert cursor is None


def test_list_artifact_json_is_griptape_shape() -> None:
    body = list_artifact_json(['{"a": 1}', '{"b": 2}'])
    data = json.loads(body)
    assert list(data) == [
        "type",
        "id",
        "reference",
        "meta",
        "name",
        "value",
        "item_separator",
        "validate_uniform_types",
    ]
    assert data["value"] == [{"a": 1}, {"b": 2}] and body.count('"value": [{"a": 1}, {"b": 2}]') == 1


def test_lists_of_blobs_keep_order_envelopes_and_bytes_and_append(svc: TaskMemoryService) -> None:
    first = [
        BlobArtifact(bytes(range(256)), name="x1"),
        ImageArtifact(b"\x89PNG\r\n", format="png", width=2, height=3, meta={"m": "é"}),
        AudioArtifact(b"RIFF", format="wav", name="clip"),
    ]
    store(svc, ListArtifact(first, name="blobs"))
    second = [BlobArtifact(b"\x00" * 10, name="x2")]
    store(svc, ListArtifact(second, name="blobs"))
    items = loaded(svc, "blobs")
    assert [json.dumps(i) for i in items] == [a.to_json() for a in first + second]
    assert svc.get_namespace("t1", "TaskMemory", "blobs").artifact_count == 4


def test_lists_of_texts_keep_order(svc: TaskMemoryService, texts: InMemoryTextStore) -> None:
    arts = [TextArtifact(f"item {i} " + "x" * (i * 37)) for i in range(12)]
    store(svc, ListArtifact(arts, name="texts"))
    assert [json.dumps(i) for i in loaded(svc, "texts")] == [a.to_json() for a in arts]
    assert texts.count() > 12  # several chunks


def test_unknown_namespace_loads_empty_list(svc: TaskMemoryService) -> None:
    assert loaded(svc, "nope") == []
    with pytest.raises(NotFound):
        svc.get_namespace("t1", "TaskMemory", "nope")


def test_pass_through_and_empty_store_nothing(svc: TaskMemoryService) -> None:
    info = InfoArtifact("info!")
    assert store(svc, info).artifact is info
    as_json = JsonArtifact({"a": [1, 2.5]})
    assert store(svc, as_json.to_dict()).artifact.to_json() == as_json.to_json()
    assert store(svc, TextArtifact("  \n ")).artifact.value == "tool output is empty"
    assert store(svc, ListArtifact()).artifact.value == "tool output is empty"
    assert all_items() == [] and all_objects() == []


def test_conflicting_kind_is_409_with_griptape_error_and_nothing_added(svc: TaskMemoryService) -> None:
    store(svc, TextArtifact("text", name="ns"))
    before_objects = all_objects()
    with pytest.raises(StorageKindConflict) as err:
        store(svc, BlobArtifact(b"blob", name="ns"))
    assert err.value.to_dict()["artifact"]["type"] == "ErrorArtifact"
    assert err.value.to_dict()["artifact"]["value"] == "error storing tool output in memory"
    assert all_objects() == before_objects
    assert svc.get_namespace("t1", "TaskMemory", "ns").artifact_count == 1


def test_mixed_list_refused_and_nothing_stored(svc: TaskMemoryService, texts: InMemoryTextStore) -> None:
    with pytest.raises(MixedListError):
        store(svc, ListArtifact([TextArtifact("a"), BlobArtifact(b"b")], name="mixed"))
    assert all_items() == [] and all_objects() == [] and texts.count() == 0


def test_namespace_identifier_checked(svc: TaskMemoryService) -> None:
    with pytest.raises(InvalidInput):
        store(svc, TextArtifact("x", id="a" * 10_000))
    with pytest.raises(InvalidInput, match='"/"'):
        store(svc, TextArtifact("x", name="../../etc/passwd"))
    result = store(svc, TextArtifact("x", name="..\\..\\etc passwd ünï 🎉"))
    assert result.stored
    assert all(k.startswith("taskmem/") or k.startswith("uploads/") for k in all_objects())
    assert loaded(svc, "..\\..\\etc passwd ünï 🎉")[0]["value"] == "x"


def test_tenants_are_isolated(svc: TaskMemoryService) -> None:
    store(svc, TextArtifact("secret", name="ns"), tenant="a")
    store(svc, BlobArtifact(b"other", name="ns"), tenant="b")  # no conflict across tenants
    assert loaded(svc, "ns", tenant="c") == []
    with pytest.raises(NotFound):
        svc.get_namespace("c", "TaskMemory", "ns")
    assert svc.delete_namespace("c", "TaskMemory", "ns") is False  # idempotent, and another tenant's is unknown
    assert loaded(svc, "ns", tenant="a")[0]["value"] == "secret"
    assert svc.list_namespaces("c", "TaskMemory") == ([], None)


def test_delete_removes_everything(svc: TaskMemoryService, texts: InMemoryTextStore) -> None:
    store(svc, ListArtifact([BlobArtifact(b"1"), BlobArtifact(b"2")], name="b"))
    store(svc, TextArtifact("t" * 500, name="t"))
    svc.delete_namespace("t1", "TaskMemory", "b")
    svc.delete_namespace("t1", "TaskMemory", "t")
    assert texts.count() == 0 and all_objects() == []
    left = [i for i in all_items() if not i["sk"]["S"].startswith("META#")]
    # Only each namespace's bare position counter stays (positions are never reused after a delete).
    assert sorted(i["sk"]["S"] for i in left) == ["NS#b", "NS#t"]
    # a bare position counter, still rooting the partition in the tenant index (ADR 0024)
    assert all(set(i) == {"pk", "sk", "next_position", "tenant_dir"} for i in left), left
    assert loaded(svc, "b") == [] and loaded(svc, "t") == []
    assert svc.delete_namespace("t1", "TaskMemory", "b") is False  # a second delete is not an error


def test_paging_namespaces_and_meta(svc: TaskMemoryService) -> None:
    for i in range(7):
        store(svc, TextArtifact(f"v{i}", name=f"ns{i}"))
    seen, cursor = [], None
    while True:
        page, cursor = svc.list_namespaces("t1", "TaskMemory", limit=3, cursor=cursor)
        seen += [r.namespace for r in page]
        if cursor is None:
            break
    assert sorted(seen) == [f"ns{i}" for i in range(7)]
    entries, cursor = svc.meta_entries("t1", "TaskMemory", limit=4)
    rest, end = svc.meta_entries("t1", "TaskMemory", limit=4, cursor=cursor)
    answers = [e["answer"] for e in entries + rest]
    assert answers == [LINE.format(ns=f"ns{i}") for i in range(7)] and end is None
    with pytest.raises(InvalidInput):
        svc.meta_entries("t1", "TaskMemory", cursor="TlMjeA==")  # "NS#x": another item kind
    with pytest.raises(InvalidInput):
        svc.list_namespaces("t1", "TaskMemory", limit=0)


def test_large_batches_go_to_a_manifest(svc: TaskMemoryService) -> None:
    arts = [BlobArtifact(b"%d" % i, meta={"pad": "p" * 2000}) for i in range(200)]
    store(svc, ListArtifact(arts, name="many"))
    assert any("/manifest/" in k for k in all_objects())
    assert [json.dumps(i) for i in loaded(svc, "many")] == [a.to_json() for a in arts]


def test_too_large_text_response_becomes_a_presigned_download(svc: TaskMemoryService) -> None:
    svc.max_inline_response_bytes = 1000
    art = TextArtifact("z " * 2500, name="big")
    store(svc, art)
    result = svc.load_artifacts("t1", "TaskMemory", "big")
    assert result.body is None and result.download_url and result.expires_in and result.blobs is None
    fetched = requests.get(result.download_url, timeout=30).json()
    assert fetched["value"] == [art.to_dict()]


def test_too_large_blobs_are_answered_with_their_stored_objects(svc: TaskMemoryService) -> None:
    svc.max_inline_response_bytes = 1000
    arts = [BlobArtifact(b"z" * 5000, name="big", meta={"i": 0}), BlobArtifact(bytes(range(256)) * 3, name="b2")]
    store(svc, ListArtifact(arts, name="big"))
    before = set(all_objects())
    result = svc.load_artifacts("t1", "TaskMemory", "big")
    assert result.body is None and result.download_url is None and result.blobs is not None
    assert set(all_objects()) == before  # nothing rebuilt or uploaded
    listing = result.blob_listing()
    assert listing["type"] == "BlobDownloads" and listing["size"] == 5000 + 768 and listing["expires_in"] > 0
    rebuilt = []
    for art, entry in zip(arts, listing["artifacts"], strict=True):
        assert "value" not in entry["artifact"] and entry["size"] == len(art.value)
        data = requests.get(entry["download_url"], timeout=30).content
        assert data == art.value
        rebuilt.append(entry["artifact"] | {"value": base64.b64encode(data).decode()})
    assert [BaseArtifact.from_dict(d).to_dict() for d in rebuilt] == [a.to_dict() for a in arts]
    # Under the limit the same namespace is Griptape's ListArtifact JSON, inline.
    svc.max_inline_response_bytes = 5 * 1024 * 1024
    inline = svc.load_artifacts("t1", "TaskMemory", "big")
    assert inline.blobs is None and json.loads(inline.body or "")["value"] == [a.to_dict() for a in arts]


# ---- uploads -----------------------------------------------------------------------------------------------


def test_upload_then_store_by_reference(svc: TaskMemoryService) -> None:
    upload = svc.create_upload("t1", "TaskMemory")
    text = "ünïcødé " * 1000
    response = requests.put(upload.url, data=text.encode(), headers=upload.headers, timeout=30)
    assert response.status_code == 200
    envelope = {"type": "TextArtifact", "id": "u1", "name": "up", "meta": {"src": "s3"}, "reference": None}
    result = store(svc, envelope, value_from={"upload_id": upload.upload_id})
    assert result.stored
    assert loaded(svc, "up") == [TextArtifact(text, id="u1", name="up", meta={"src": "s3"}).to_dict()]
    assert not any(k.startswith("uploads/") for k in all_objects())  # consumed


def test_upload_by_s3_uri_and_blob(svc: TaskMemoryService) -> None:
    upload = svc.create_upload("t1", "TaskMemory")
    data = bytes(range(256)) * 10
    requests.put(upload.url, data=data, headers=upload.headers, timeout=30)
    envelope = {"type": "ImageArtifact", "id": "i1", "name": "img", "format": "png", "width": 1, "height": 2}
    store(svc, envelope, value_from={"s3_uri": upload.s3_uri})
    assert loaded(svc, "img")[0]["value"] == ImageArtifact(data, format="png", width=1, height=2).to_dict()["value"]


@pytest.mark.parametrize(
    "value_from",
    [
        {"upload_id": "../x"},
        {"upload_id": "0" * 32},
        {"s3_uri": f"s3://other-bucket/uploads/x/{'0' * 32}"},
        {"s3_uri": f"s3://{BUCKET}/taskmem/x/{'0' * 32}"},
        {"s3_uri": "https://example.com/x"},
        {"upload_id": "a", "s3_uri": "b"},
    ],
)
def test_bad_value_from_refused(svc: TaskMemoryService, value_from: dict[str, str]) -> None:
    with pytest.raises(UploadError):
        store(svc, {"type": "TextArtifact", "name": "n"}, value_from=value_from)
    assert all_items() == []


def test_upload_of_another_tenant_or_memory_refused(svc: TaskMemoryService) -> None:
    upload = svc.create_upload("t1", "TaskMemory")
    requests.put(upload.url, data=b"x", headers=upload.headers, timeout=30)
    with pytest.raises(UploadError):
        store(svc, {"type": "TextArtifact", "name": "n"}, tenant="t2", value_from={"s3_uri": upload.s3_uri})
    with pytest.raises(UploadError):  # same id, other tenant: not found under t2's prefix
        store(svc, {"type": "TextArtifact", "name": "n"}, tenant="t2", value_from={"upload_id": upload.upload_id})


def test_upload_not_utf8_and_too_large(svc: TaskMemoryService) -> None:
    upload = svc.create_upload("t1", "TaskMemory")
    requests.put(upload.url, data=b"\xff\xfe bad", headers=upload.headers, timeout=30)
    with pytest.raises(UploadError, match="UTF-8"):
        store(svc, {"type": "TextArtifact", "name": "n"}, value_from={"upload_id": upload.upload_id})
    svc.max_upload_bytes = 3
    with pytest.raises(PayloadTooLarge):
        store(svc, {"type": "BlobArtifact", "name": "n"}, value_from={"upload_id": upload.upload_id})
    with pytest.raises(UploadError, match="not both"):
        store(svc, {"type": "BlobArtifact", "name": "n", "value": ""}, value_from={"upload_id": upload.upload_id})
    with pytest.raises(UploadError, match="one by one"):
        store(svc, {"type": "ListArtifact", "name": "n"}, value_from={"upload_id": upload.upload_id})
    assert [i for i in all_items()] == []


# ---- consistency and faults ------------------------------------------------------------------------------


class FlakyBlobs(S3BlobStore):
    def __init__(self, fail_after: int) -> None:
        super().__init__(BUCKET)
        self.fail_after = fail_after
        self.puts = 0

    def put(self, key: str, data: bytes, *, content_type: str = "application/octet-stream", **kw: Any) -> None:
        self.puts += 1
        if self.puts > self.fail_after:
            raise DependencyUnavailable("S3 put failed: injected")
        super().put(key, data, content_type=content_type, **kw)


class FlakyTexts(InMemoryTextStore):
    def __init__(self) -> None:
        super().__init__(chunk_chars=10)
        self.fail = True

    def store(self, scope: Any, start_position: int, artifacts: Any, **options: Any) -> list[int]:
        if self.fail:
            super().store(scope, start_position, artifacts[:1])  # half written
            raise DependencyUnavailable("OpenSearch bulk failed: injected")
        return super().store(scope, start_position, artifacts, **options)


def test_s3_failing_mid_store_leaves_no_record_and_retry_succeeds(svc: TaskMemoryService) -> None:
    flaky = FlakyBlobs(fail_after=2)
    broken = task_memory_service(svc.namespaces, flaky, svc.texts, bucket=BUCKET)
    arts = ListArtifact([BlobArtifact(b"%d" % i) for i in range(4)], name="f")
    with pytest.raises(DependencyUnavailable):
        store(broken, arts)
    assert loaded(svc, "f") == [] and all_objects() == []  # the two written objects were removed
    with pytest.raises(NotFound):
        svc.get_namespace("t1", "TaskMemory", "f")
    store(svc, arts)
    assert [json.dumps(i) for i in loaded(svc, "f")] == [a.to_json() for a in arts.value]


def test_text_store_failing_mid_store_leaves_no_record_and_retry_succeeds(svc: TaskMemoryService) -> None:
    flaky = FlakyTexts()
    service = task_memory_service(svc.namespaces, svc.blobs, flaky, bucket=BUCKET)
    arts = ListArtifact([TextArtifact("alpha beta " * 5), TextArtifact("gamma alpha")], name="f")
    with pytest.raises(DependencyUnavailable):
        store(service, arts)
    assert loaded(service, "f") == []
    assert service.search("t1", "TaskMemory", "f", "alpha") == []  # the half-written text is not found
    flaky.fail = False
    store(service, arts)
    assert [json.dumps(i) for i in loaded(service, "f")] == [a.to_json() for a in arts.value]
    hits = service.search("t1", "TaskMemory", "f", "alpha", top_k=50)
    assert hits and {h.position for h in hits} <= {1, 2}  # the uncommitted documents at position 0 are hidden


@pytest.mark.parametrize("first", [True, False], ids=["new name (commit_first)", "name in use (commit)"])
def test_dynamodb_commit_failure_is_503_and_nothing_visible(
    svc: TaskMemoryService, monkeypatch: Any, first: bool
) -> None:
    def boom(*a: Any, **k: Any) -> None:
        raise DependencyUnavailable("DynamoDB commit failed: injected")

    if not first:
        store(svc, BlobArtifact(b"before", name="c"))
    with monkeypatch.context() as patched, pytest.raises(DependencyUnavailable):
        patched.setattr(svc.namespaces, "commit_first" if first else "commit", boom)
        store(svc, BlobArtifact(b"data", name="c"))
    assert [base64.b64decode(a["value"]) for a in loaded(svc, "c")] == ([] if first else [b"before"])


class StaleAllocations(DynamoDbNamespaceStore):
    """Reports no committed kind at allocation time, as if a concurrent writer committed in between."""

    def allocate(self, tenant: str, memory: str, namespace: str, count: int) -> Reservation:
        return dataclasses.replace(super().allocate(tenant, memory, namespace, count), kind=None)


def test_losing_the_kind_race_at_commit_cleans_up_and_is_409(svc: TaskMemoryService, texts: InMemoryTextStore) -> None:
    racer = task_memory_service(StaleAllocations(TABLE), svc.blobs, texts, bucket=BUCKET)
    store(svc, TextArtifact("text wins", name="race"))
    with pytest.raises(StorageKindConflict):
        store(racer, ListArtifact([BlobArtifact(b"a"), BlobArtifact(b"b")], name="race"))
    assert all_objects() == []
    store(svc, BlobArtifact(b"blob wins", name="race2"))
    with pytest.raises(StorageKindConflict):
        store(racer, TextArtifact("late text", name="race2"))
    assert texts.count() == 1  # only "text wins"; the loser's documents were deleted
    assert loaded(svc, "race")[0]["value"] == "text wins"


def test_commit_raises_storage_kind_taken_from_the_adapter(aws: None) -> None:
    from offprompt.ports import NamespaceCommit, StoredBatch

    store_ = DynamoDbNamespaceStore(TABLE)
    commit = NamespaceCommit(tool="t", activity="a", namespace_metadata="[]", total_bytes=1)
    first, second = store_.allocate("t", "m", "n", 1), store_.allocate("t", "m", "n", 1)
    assert (first.start, second.start, first.generation) == (0, 1, second.generation)
    text = StoredBatch(start=0, count=1, kind="text", entries=[{"chunks": 1}])
    store_.commit("t", "m", "n", text, commit, None, first.generation)
    with pytest.raises(StorageKindTaken) as err:
        blob = StoredBatch(start=1, count=1, kind="blob", entries=[])
        store_.commit("t", "m", "n", blob, commit, None, second.generation)
    assert err.value.kind == "text"
    assert len(store_.batches("t", "m", "n")) == 1  # the losing batch was rolled back with the transaction


def test_deleted_bucket_is_503(svc: TaskMemoryService) -> None:
    s3 = boto3.client("s3")
    s3.delete_bucket(Bucket=BUCKET)
    with pytest.raises(DependencyUnavailable):
        store(svc, BlobArtifact(b"x", name="gone"))
    assert loaded(svc, "gone") == []


class DeleteDuringStore(InMemoryTextStore):
    """Runs `during` (a delete of the namespace, perhaps a store after it) inside the store's text write:
    after the positions were reserved, before the commit — the window a racing delete can hit."""

    def __init__(self, inner: InMemoryTextStore) -> None:
        self.__dict__ = inner.__dict__  # the same documents
        self.during: Any = None

    def store(self, scope: Any, start: int, artifacts: Any, **options: Any) -> list[int]:
        counts = super().store(scope, start, artifacts, **options)
        if self.during is not None:
            during, self.during = self.during, None
            during()
        return counts


def test_a_delete_racing_a_store_wins_entirely(svc: TaskMemoryService, texts: InMemoryTextStore) -> None:
    from offprompt.services.task_memory.errors import NamespaceDeleted

    racing = DeleteDuringStore(texts)
    racer = task_memory_service(svc.namespaces, svc.blobs, racing, bucket=BUCKET)
    store(svc, TextArtifact("first, committed", name="ns"))
    racing.during = lambda: svc.delete_namespace("t1", "TaskMemory", "ns")
    with pytest.raises(NamespaceDeleted):
        store(racer, TextArtifact("second, racing the delete", name="ns"))
    # The delete won: nothing of either store is readable, and the namespace is not broken.
    assert loaded(svc, "ns") == [] and svc.search("t1", "TaskMemory", "ns", "second") == []
    with pytest.raises(NotFound):
        svc.get_namespace("t1", "TaskMemory", "ns")
    store(svc, TextArtifact("third, after the delete", name="ns"))
    assert [i["value"] for i in loaded(svc, "ns")] == ["third, after the delete"]
    assert [h.text for h in svc.search("t1", "TaskMemory", "ns", "third")] == ["third, after the delete"]


def test_a_straggling_store_cannot_commit_into_the_next_incarnation(
    svc: TaskMemoryService, texts: InMemoryTextStore
) -> None:
    from offprompt.services.task_memory.errors import NamespaceDeleted

    racing = DeleteDuringStore(texts)
    racer = task_memory_service(svc.namespaces, svc.blobs, racing, bucket=BUCKET)

    def delete_then_store_anew() -> None:
        svc.delete_namespace("t1", "TaskMemory", "ns")
        store(svc, TextArtifact("new incarnation", name="ns"))

    racing.during = delete_then_store_anew
    with pytest.raises(NamespaceDeleted):
        store(racer, TextArtifact("straggler", name="ns"))
    assert [i["value"] for i in loaded(svc, "ns")] == ["new incarnation"]
    assert [h.text for h in svc.search("t1", "TaskMemory", "ns", "straggler incarnation")] == ["new incarnation"]
    assert svc.get_namespace("t1", "TaskMemory", "ns").artifact_count == 1


def test_a_store_while_a_delete_is_unfinished_is_refused_and_a_retried_delete_frees_the_name(
    svc: TaskMemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    from offprompt.services.task_memory.errors import NamespaceDeleted

    store(svc, BlobArtifact(b"blob", name="ns"))

    def broken(*args: Any) -> None:
        raise DependencyUnavailable("S3 delete failed: injected")

    with monkeypatch.context() as patch:
        patch.setattr(svc.blobs, "delete_prefix", broken)
        with pytest.raises(DependencyUnavailable):
            svc.delete_namespace("t1", "TaskMemory", "ns")
    assert loaded(svc, "ns") == []
    with pytest.raises(NamespaceDeleted):
        store(svc, BlobArtifact(b"too early", name="ns"))
    assert svc.delete_namespace("t1", "TaskMemory", "ns") is False  # finishes the first delete
    assert all_objects() == []
    store(svc, TextArtifact("text now", name="ns"))  # a fresh incarnation may even change the kind
    assert [i["value"] for i in loaded(svc, "ns")] == ["text now"]


def test_a_blob_store_into_a_new_name_is_one_put_and_one_transaction(svc: TaskMemoryService) -> None:
    calls = count_calls(svc)
    result = store(svc, BlobArtifact(b"first", name="fresh"))
    assert calls == ["PutObject", "TransactWriteItems"]  # no reservation before or after the PUT (ADR 0035)
    assert result.positions == (0, 1)
    calls.clear()
    again = store(svc, ListArtifact([BlobArtifact(b"second"), BlobArtifact(b"third")], name="fresh"))
    # the name is in use: the folded commit is refused (nothing written), then reserve, the first store's reference
    # superseded (its batch read, its object's metadata replaced: ADR 0053), and commit
    assert calls == [
        "PutObject", "PutObject", "TransactWriteItems", "UpdateItem", "Query", "CopyObject", "TransactWriteItems"
    ]  # fmt: skip
    assert again.positions == (1, 2)
    assert [base64.b64decode(a["value"]) for a in loaded(svc, "fresh")] == [b"first", b"second", b"third"]
    assert svc.namespaces.get("t1", "TaskMemory", "fresh").artifact_count == 3  # type: ignore[union-attr]


def test_a_blob_store_into_a_deleted_name_reserves_past_the_old_positions(svc: TaskMemoryService) -> None:
    store(svc, ListArtifact([BlobArtifact(b"a"), BlobArtifact(b"b")], name="again"))
    svc.delete_namespace("t1", "TaskMemory", "again")
    assert all_objects() == []
    result = store(svc, BlobArtifact(b"c", name="again"))  # the counter record is left: positions never reused
    assert result.positions == (2, 1)
    assert [base64.b64decode(a["value"]) for a in loaded(svc, "again")] == [b"c"]


def test_a_blob_store_into_a_text_name_leaves_no_object(svc: TaskMemoryService) -> None:
    store(svc, TextArtifact("text here", name="taken"))
    with pytest.raises(StorageKindConflict):
        store(svc, BlobArtifact(b"late blob", name="taken"))
    assert all_objects() == []  # written before the reservation refused it, then removed
    assert loaded(svc, "taken")[0]["value"] == "text here"
