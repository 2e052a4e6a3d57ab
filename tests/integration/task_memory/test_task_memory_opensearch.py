"""Task memory end to end on moto (DynamoDB, S3) and the real local OpenSearch node, through the handlers."""

from __future__ import annotations

import base64
import json
import random
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tm_it_helpers import BUCKET, all_items, all_objects, call, doc_count, http_event, opensearch_text_store

from offprompt.artifacts import BlobArtifact, ImageArtifact, ListArtifact, Reference, TextArtifact
from offprompt.composition.task_memory import task_memory_service
from offprompt.errors import DependencyUnavailable
from offprompt.services.task_memory import TaskMemoryService

NS = "e59302f3225041b697b0efa5d1d93369"


def line(ns: str, tool: str = "WebTool", activity: str = "fetch", memory: str = "TaskMemory") -> str:
    return (
        f'Output of "{tool}.{activity}" was stored in memory with memory_name "{memory}" and artifact_namespace "{ns}"'
    )


def post(h: SimpleNamespace, artifact: Any, tenant: str = "tenant-a", **extra: Any) -> tuple[int, Any, dict[str, str]]:
    body = {"tool": "WebTool", "activity": "fetch", "artifact": artifact, **extra}
    return call(h.po, http_event("process_output_http.json", body=body, tenant=tenant))


def load(h: SimpleNamespace, ns: str, tenant: str = "tenant-a") -> tuple[int, Any]:
    event = http_event(
        "load_artifacts_http.json",
        path=f"/memories/TaskMemory/namespaces/{ns}/artifacts",
        params={"memory_name": "TaskMemory", "namespace": ns},
        tenant=tenant,
    )
    response = h.la.lambda_handler(event, None)
    return response["statusCode"], response["body"]


def ns_event(name: str, ns: str, tenant: str = "tenant-a", body: Any = ...) -> dict[str, Any]:
    suffix = {"memories_search_http.json": "/search"}.get(name, "")
    return http_event(
        name,
        path=f"/memories/TaskMemory/namespaces/{ns}{suffix}",
        params={"memory_name": "TaskMemory", "namespace": ns},
        tenant=tenant,
        body=body,
    )


def test_reference_text_and_byte_exact_reload(handlers: SimpleNamespace) -> None:
    art = TextArtifact(
        "Ünïcødé — text 🎉\n\nwith paragraphs " * 50,
        id=NS,
        name=NS,
        meta={"url": "https://example.com", "n": 1.5},
        reference=Reference(title="Page", authors=["a"], url="https://example.com"),
    )
    status, body, _ = post(handlers, art.to_dict(), actions=[{"tag": "call_9", "name": "WebTool", "path": "fetch"}])
    assert status == 200 and body["type"] == "InfoArtifact" and body["value"] == line(NS) and body["name"] == NS
    status, raw = load(handlers, NS)
    assert status == 200 and json.loads(raw)["value"] == [art.to_dict()]
    assert f'"value": [{art.to_json()}]' in raw  # the stored artifact's JSON, byte for byte


def test_empty_and_pass_through_touch_nothing(
    handlers: SimpleNamespace, opensearch_client: Any, opensearch_index: str
) -> None:
    # Griptape tests `if output_artifact:` and BaseArtifact.__bool__ is `bool(self.value)`, so BooleanArtifact(False)
    # is an *empty* output ("tool output is empty"), not a pass-through: TaskMemory(...).process_output answers so.
    for empty in (
        {"type": "TextArtifact", "value": " \n\t "},
        {"type": "ListArtifact", "value": []},
        {"type": "BooleanArtifact", "id": "f", "reference": None, "meta": {}, "name": "f", "value": False},
    ):
        status, body, _ = post(handlers, empty)
        assert status == 200 and body["value"] == "tool output is empty" and body["type"] == "InfoArtifact"
    for passing in (
        {"type": "InfoArtifact", "id": "i", "reference": None, "meta": {}, "name": "i", "value": "info!"},
        {"type": "JsonArtifact", "id": "j", "reference": None, "meta": {}, "name": "j", "value": {"a": [1, None]}},
        {"type": "BooleanArtifact", "id": "b", "reference": None, "meta": {}, "name": "b", "value": True},
    ):
        status, body, _ = post(handlers, passing)
        assert status == 200 and body == passing
    assert all_items() == [] and all_objects() == [] and doc_count(opensearch_client, opensearch_index) == 0


def test_storage_kind_conflict_both_ways(
    handlers: SimpleNamespace, opensearch_client: Any, opensearch_index: str
) -> None:
    assert post(handlers, {"type": "TextArtifact", "value": "words", "name": "t"})[0] == 200
    assert post(handlers, {"type": "BlobArtifact", "value": "AAE=", "name": "b"})[0] == 200
    docs, objects = doc_count(opensearch_client, opensearch_index), all_objects()
    for artifact in (
        {"type": "BlobArtifact", "value": "AAE=", "name": "t"},
        {"type": "TextArtifact", "value": "x", "name": "b"},
    ):
        status, body, _ = post(handlers, artifact)
        assert status == 409 and body["code"] == "storage_kind_conflict"
        assert (
            body["artifact"]["type"] == "ErrorArtifact"
            and body["artifact"]["value"] == "error storing tool output in memory"
        )
    assert doc_count(opensearch_client, opensearch_index) == docs and all_objects() == objects


def test_mixed_list_rejected_nothing_stored(
    handlers: SimpleNamespace, opensearch_client: Any, opensearch_index: str
) -> None:
    mixed = ListArtifact([TextArtifact("first text"), BlobArtifact(b"then a blob")], name="mixed").to_dict()
    status, body, _ = post(handlers, mixed)
    assert status == 400 and body["code"] == "mixed_list"
    assert all_items() == [] and all_objects() == [] and doc_count(opensearch_client, opensearch_index) == 0
    # An unknown namespace loads as a *fresh* ListArtifact (Griptape: `ListArtifact()`), whose id and name are a new
    # uuid on every call, so two loads are not byte-equal; what matters is that it is empty.
    status, raw = load(handlers, "mixed")
    assert status == 200 and json.loads(raw)["type"] == "ListArtifact" and json.loads(raw)["value"] == []


def test_lists_of_texts_and_blobs_keep_order_and_bytes(handlers: SimpleNamespace) -> None:
    texts = [TextArtifact(f"paragraph {i}: " + "lorem ipsum dolor " * (i * 40), meta={"i": i}) for i in range(8)]
    post(handlers, ListArtifact(texts[:5], name="texts").to_dict())
    post(handlers, ListArtifact(texts[5:], name="texts").to_dict())  # appends
    _, raw = load(handlers, "texts")
    assert [json.dumps(i) for i in json.loads(raw)["value"]] == [t.to_json() for t in texts]
    blobs = [BlobArtifact(bytes(range(256)) * (i + 1), name=f"b{i}") for i in range(3)]
    blobs.append(ImageArtifact(b"\x89PNG\r\n\x1a\n", format="png", width=3, height=4, meta={"alt": "é"}))
    post(handlers, ListArtifact(blobs, name="blobs").to_dict())
    _, raw = load(handlers, "blobs")
    assert [json.dumps(i) for i in json.loads(raw)["value"]] == [b.to_json() for b in blobs]
    status, record, _ = call(handlers.mh, ns_event("memories_get_namespace_http.json", "texts"))
    assert status == 200 and record["artifact_count"] == 8 and record["storage"] == "text"


_PIECES = st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=20)
# Sequences that stress chunk boundaries: CRLF, combining marks, ZWJ emoji, BOM, zero-width space, the tokenizer's
# special token, astral characters.
_TRICKY = [
    "\r\n",
    "e\u0301",
    "\U0001f469\u200d\U0001f469\u200d\U0001f467",
    "\ufeff",
    "\u200b",
    "<|endoftext|>",
    "\U00020000",
]
MULTI_MB = 4 * 1024 * 1024  # UTF-8 bytes per example


def _random_unicode(pieces: list[str], seed: int, min_bytes: int) -> str:
    """At least `min_bytes` of UTF-8: hypothesis' pieces mixed with random code points (no surrogates), drawn in
    blocks of 64k picks (`random.choices`) instead of one Python-level pick per character."""
    rng = random.Random(seed)
    singles = [chr(c) for c in (rng.randrange(0x20, 0x2FFFF) for _ in range(400)) if not 0xD800 <= c <= 0xDFFF]
    alphabet = pieces + singles + _TRICKY + [" ", "\n\n", "\n"]
    blocks: list[str] = []
    size = 0
    while size < min_bytes:
        block = "".join(rng.choices(alphabet, k=65_536))
        blocks.append(block)
        size += len(block.encode("utf-8"))
    return "".join(blocks)


# One example = several MB through the real store (~4 MB of UTF-8, ~10,000 chunk documents). The store is built
# WITHOUT the test embedder: 1,024 pure-Python floats per chunk (and ~20 KB of JSON + an HNSW insert per document)
# made each example take ~70 s while testing nothing about byte-exactness; embeddings are covered by the search
# tests above and by tests/integration/test_opensearch_text_store.py.
@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(pieces=_PIECES, seed=st.integers(0, 2**32 - 1))
def test_multi_megabyte_random_unicode_round_trips(
    svc: TaskMemoryService, opensearch_client: Any, opensearch_index: str, pieces: list[str], seed: int
) -> None:
    plain = task_memory_service(
        svc.namespaces, svc.blobs, opensearch_text_store(opensearch_client, opensearch_index), bucket=BUCKET
    )
    text = _random_unicode(pieces, seed, MULTI_MB)
    assert len(text.encode("utf-8")) >= MULTI_MB
    name = f"big-{seed}"
    art = TextArtifact(text, name=name, meta={"seed": seed})
    result = plain.process_output("tenant-h", "TaskMemory", tool="T", activity="a", artifact=art)
    assert result.stored
    items = plain.load_items_json("tenant-h", "TaskMemory", name)
    assert items == [art.to_json()]  # byte for byte
    batches = plain.namespaces.batches("tenant-h", "TaskMemory", name)
    assert batches[0].entries and int(batches[0].entries[0]["chunks"]) > 1  # really chunked
    plain.delete_namespace("tenant-h", "TaskMemory", name)


def test_search_ranking_through_the_handler(
    handlers: SimpleNamespace, opensearch_client: Any, opensearch_index: str
) -> None:
    docs = [
        "The weather today is sunny with a light breeze.",
        "A fox, a fox, a red fox ran across the field; the fox was quick.",
        "Recipes: bake the bread at 200 degrees for forty minutes.",
        "One fox was seen near the river.",
    ]
    post(handlers, ListArtifact([TextArtifact(d) for d in docs], name="docs").to_dict())
    opensearch_client.indices.refresh(index=opensearch_index)
    status, body, _ = call(
        handlers.mh, ns_event("memories_search_http.json", "docs", body={"query": "fox", "top_k": 3})
    )
    assert status == 200
    hits = body["hits"]
    assert [h["position"] for h in hits][:2] == [1, 3] and hits[0]["score"] >= hits[1]["score"]
    assert hits[0]["text"] == docs[1] and set(hits[0]) == {"artifact_id", "position", "chunk", "text", "score"}
    for mode in ("knn", "hybrid"):
        status, body, _ = call(
            handlers.mh,
            ns_event(
                "memories_search_http.json", "docs", body={"query": "bake bread recipes", "top_k": 2, "mode": mode}
            ),
        )
        assert status == 200 and body["hits"][0]["position"] == 2, (mode, body)


def test_cross_tenant_isolation(handlers: SimpleNamespace, opensearch_client: Any, opensearch_index: str) -> None:
    post(handlers, {"type": "TextArtifact", "value": "tenant a secret fox", "name": "shared"})
    post(handlers, {"type": "BlobArtifact", "value": "AAE=", "name": "shared"}, tenant="tenant-b")  # no conflict
    opensearch_client.indices.refresh(index=opensearch_index)
    assert json.loads(load(handlers, "shared", tenant="tenant-c")[1])["value"] == []
    # To tenant-c, "shared" is unknown: its record is a 404, its contents empty, deleting it a no-op 204.
    status, resp, _ = call(handlers.mh, ns_event("memories_get_namespace_http.json", "shared", tenant="tenant-c"))
    assert (status, resp["code"]) == (404, "not_found")
    search = ns_event("memories_search_http.json", "shared", tenant="tenant-c", body={"query": "fox"})
    assert call(handlers.mh, search)[:2] == (200, {"hits": []})
    delete = ns_event("memories_delete_namespace_http.json", "shared", tenant="tenant-c")
    assert call(handlers.mh, delete)[0] == 204
    assert json.loads(load(handlers, "shared")[1])["value"][0]["value"] == "tenant a secret fox"
    assert json.loads(load(handlers, "shared", tenant="tenant-b")[1])["value"][0]["value"] == "AAE="
    status, body, _ = call(handlers.mh, ns_event("memories_search_http.json", "shared", body={"query": "secret"}))
    assert status == 200 and len(body["hits"]) == 1


def test_delete_leaves_nothing_behind(handlers: SimpleNamespace, opensearch_client: Any, opensearch_index: str) -> None:
    post(handlers, ListArtifact([TextArtifact("x " * 3000), TextArtifact("y")], name="t").to_dict())
    post(handlers, ListArtifact([BlobArtifact(b"1"), BlobArtifact(b"2")], name="b").to_dict())
    assert doc_count(opensearch_client, opensearch_index) > 0 and all_objects()
    for ns in ("t", "b"):
        assert call(handlers.mh, ns_event("memories_delete_namespace_http.json", ns))[0] == 204
    assert doc_count(opensearch_client, opensearch_index) == 0 and all_objects() == []
    left = [i for i in all_items() if not i["sk"]["S"].startswith("META#")]
    # bare position counters, which keep their tenant-index attribute (ADR 0024)
    assert all(set(i) == {"pk", "sk", "next_position", "tenant_dir"} for i in left), left
    assert call(handlers.mh, http_event("memories_list_namespaces_http.json"))[1]["namespaces"] == []


class FailAfter:
    """Wraps a port: calls to `method` after the first `n` raise DependencyUnavailable."""

    def __init__(self, inner: Any, method: str, n: int) -> None:
        self.inner, self.method, self.n, self.calls = inner, method, n, 0

    def __getattr__(self, name: str) -> Any:
        target = getattr(self.inner, name)
        if name != self.method:
            return target

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            if self.calls > self.n:
                raise DependencyUnavailable(f"{name} failed: injected")
            return target(*args, **kwargs)

        return wrapped


class HalfWrittenTexts:
    """Stores the first artifact of a batch for real, then fails (OpenSearch dying mid-bulk)."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.fail = inner, True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def store(self, scope: Any, start: int, artifacts: Any, **options: Any) -> list[int]:
        if self.fail:
            self.inner.store(scope, start, artifacts[:1])
            raise DependencyUnavailable("OpenSearch bulk failed: injected")
        return self.inner.store(scope, start, artifacts, **options)


def test_opensearch_failing_mid_store_then_retry(
    svc: TaskMemoryService, opensearch_client: Any, opensearch_index: str
) -> None:
    flaky = HalfWrittenTexts(svc.texts)
    broken = task_memory_service(svc.namespaces, svc.blobs, flaky, bucket=BUCKET)  # type: ignore[arg-type]
    arts = ListArtifact([TextArtifact("alpha one"), TextArtifact("alpha two")], name="f")
    with pytest.raises(DependencyUnavailable):
        broken.process_output("t", "TaskMemory", tool="T", activity="a", artifact=arts)
    assert doc_count(opensearch_client, opensearch_index) == 1  # garbage, but nothing references it
    assert svc.namespaces.get("t", "TaskMemory", "f") is None and svc.load_items_json("t", "TaskMemory", "f") == []
    flaky.fail = False
    broken.process_output("t", "TaskMemory", tool="T", activity="a", artifact=arts)
    assert svc.load_items_json("t", "TaskMemory", "f") == [a.to_json() for a in arts.value]
    opensearch_client.indices.refresh(index=opensearch_index)
    hits = svc.search("t", "TaskMemory", "f", "alpha", top_k=10)
    assert sorted(h.text for h in hits) == ["alpha one", "alpha two"]  # the uncommitted copy never shows


def test_closed_index_is_503_and_retry_succeeds(
    handlers: SimpleNamespace, opensearch_client: Any, opensearch_index: str
) -> None:
    opensearch_client.indices.close(index=opensearch_index)
    try:
        status, body, _ = post(handlers, {"type": "TextArtifact", "value": "while closed", "name": "c"})
        assert (status, body["code"]) == (503, "dependency_unavailable")
        assert [i for i in all_items() if i["sk"]["S"].startswith("NS#") and "kind" in i] == []
    finally:
        opensearch_client.indices.open(index=opensearch_index, wait_for_active_shards=1)
    # `timeout=` on an opensearch-py API call is the *transport* timeout (a number), not the query parameter.
    opensearch_client.cluster.health(index=opensearch_index, wait_for_status="yellow", request_timeout=60)
    status, body, _ = post(handlers, {"type": "TextArtifact", "value": "after reopen", "name": "c"})
    assert status == 200
    assert json.loads(load(handlers, "c")[1])["value"][0]["value"] == "after reopen"


def test_s3_failing_mid_store_then_retry(svc: TaskMemoryService) -> None:
    flaky = FailAfter(svc.blobs, "put", 2)
    broken = task_memory_service(svc.namespaces, flaky, svc.texts, bucket=BUCKET)  # type: ignore[arg-type]
    arts = ListArtifact([BlobArtifact(base64.b64encode(b"%d" % i)) for i in range(4)], name="s")
    with pytest.raises(DependencyUnavailable):
        broken.process_output("t", "TaskMemory", tool="T", activity="a", artifact=arts)
    assert all_objects() == [] and svc.namespaces.get("t", "TaskMemory", "s") is None
    flaky.n = 100
    broken.process_output("t", "TaskMemory", tool="T", activity="a", artifact=arts)
    assert svc.load_items_json("t", "TaskMemory", "s") == [a.to_json() for a in arts.value]


def test_search_past_uncommitted_documents_crowding_a_large_top_k(
    svc: TaskMemoryService, opensearch_client: Any, opensearch_index: str
) -> None:
    # 60 documents of a store that never committed rank above the 3 committed ones; top_k=50 must still
    # answer with the committed ones (the service widens its search past the API's top_k limit).
    from offprompt.ports import TextScope

    svc.process_output(
        "t",
        "TaskMemory",
        tool="T",
        activity="a",
        artifact=ListArtifact([TextArtifact(f"alpha beta gamma delta epsilon {i}") for i in range(3)], name="crowd"),
    )
    garbage = [TextArtifact("alpha alpha alpha") for _ in range(60)]
    svc.texts.store(TextScope("t", "TaskMemory", "crowd"), 1000, garbage)
    opensearch_client.indices.refresh(index=opensearch_index)
    hits = svc.search("t", "TaskMemory", "crowd", "alpha", top_k=50)
    assert sorted(h.position for h in hits) == [0, 1, 2]


def test_query_limit_is_the_one_the_store_enforces() -> None:
    from offprompt.adapters import opensearch_query
    from offprompt.services.task_memory import MAX_QUERY_CHARS, SearchRequest

    # The store's checks live in the search helper the text store and the record index share.
    assert MAX_QUERY_CHARS == opensearch_query.MAX_QUERY_CHARS
    assert SearchRequest.model_fields["query"].metadata[-1].max_length == MAX_QUERY_CHARS  # type: ignore[attr-defined]
