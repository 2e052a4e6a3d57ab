"""Per use case, the path from the handler to DynamoDB / S3 / OpenSearch crosses at most 3 modules of ours (issue 10),
measured, not asserted by a table.

Every use case runs through its real handler (API Gateway v2 events, the summarizer's direct invocation), built by
the real composition root from settings, on moto's DynamoDB and S3 and the real local OpenSearch node. At every SDK
call (`botocore.client.BaseClient._make_api_call`, `opensearchpy.transport.Transport.perform_request`) the Python
stack is recorded; work handed to a thread pool (`ThreadPoolExecutor.submit`) carries its submitter's stack, so a
call made in a worker is counted from the handler that started it.

The rule (also in docs/architecture.md):
1. *Our* modules are the files under `functions/` except `functions/api_common/` (the shared HTTP glue, below every
   handler) and under `layers/offprompt/offprompt/`. Other frames (Powertools, botocore, opensearch-py, the
   standard library) are not ours and are ignored.
2. The path starts at the first frame of a handler module (its route function, direct-invocation function or
   stream callback) and ends at the SDK call. Consecutive frames of one module form one segment.
3. A segment is *transparent* when the next segment of ours deeper on the stack belongs to a module already
   counted: it only calls back into the path (a generator or callback the use case handed to pure logic, the
   deadline wrapper of a worker thread, the idempotency wrapper calling the handler's closure).
4. The depth of a call is the number of distinct modules among the non-transparent segments. Helpers that ran
   and returned before the SDK call (keys, identifiers, validation, decoding) are not on the stack: not counted.

A use case passes when every SDK call it makes has depth <= 3 (handler → use case → adapter). The measured table
is printed (`pytest tests/infrastructure/test_call_depth.py -s`) and is the one in docs/architecture.md.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import functools
import json
import sys
import threading
from collections import defaultdict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import quote

import boto3
import pytest

ROOT = Path(__file__).resolve().parents[2]
FUNCTIONS = ROOT / "functions"
LIBRARY = ROOT / "layers" / "offprompt" / "offprompt"
EVENTS = ROOT / "events"
TABLE, BUCKET = "offprompt-depth", "offprompt-depth-bucket"
MAX_DEPTH = 3
INLINE_RUN_BYTES = 350_000

Frame = tuple[str, str]  # (module of ours or "", function name)


@functools.cache  # resolved once per file: every SDK call walks ~60 frames (1,200 blob loads ran past 27 s)
def module_of(filename: str) -> str:
    """Our module for a source file ("functions/add_run/handler.py", "offprompt/services/..."), or "" if not ours."""
    path = Path(filename)
    for root, label in ((FUNCTIONS, "functions"), (LIBRARY, "offprompt")):
        try:
            rel = path.resolve().relative_to(root)
        except ValueError:
            continue
        if label == "functions" and rel.parts[0] == "api_common":
            return ""
        return f"{label}/{rel.as_posix()}"
    return ""


def path_modules(stack: list[Frame]) -> list[str]:
    """The modules a call crossed, in order (the rule in the module docstring); [] if no handler is on the stack."""
    ours = [m for m, _ in stack if m]
    start = next((i for i, m in enumerate(ours) if m.startswith("functions/")), None)
    if start is None:
        return []
    segments: list[str] = []
    for m in ours[start:]:
        if not segments or segments[-1] != m:
            segments.append(m)
    counted: list[str] = []
    for i, m in enumerate(segments):
        deeper = segments[i + 1] if i + 1 < len(segments) else None
        if deeper is not None and deeper in counted:
            continue  # transparent: calls back into a module already on the path
        if m not in counted:
            counted.append(m)
    return counted


def test_the_rule_counts_distinct_modules_and_skips_callbacks_into_the_path() -> None:
    h, uc, mech, ad, pure = (
        "functions/x/handler.py",
        "offprompt/services/x.py",
        "offprompt/services/mech.py",
        "offprompt/adapters/a.py",
        "offprompt/memory/m.py",
    )
    frames = lambda *ms: [("", "entry"), *[(m, "f") for m in ms], ("", "sdk")]  # noqa: E731
    assert path_modules(frames(h, uc, ad)) == [h, uc, ad]
    assert path_modules(frames(h, uc, mech, ad)) == [h, uc, mech, ad]  # a shared mechanic in between: 4
    assert path_modules(frames(h, uc, pure, uc, ad)) == [h, uc, ad]  # pure logic pulling the use case's generator
    assert path_modules(frames(h, uc, pure, ad)) == [h, uc, pure, ad]  # ... but not when it reaches an adapter
    assert path_modules(frames(h, uc, uc, ad, ad)) == [h, uc, ad]
    assert path_modules(frames(uc, ad)) == []  # no handler: setup code of the test, not a use case


class Recorder:
    """The stacks of SDK calls made while a use case runs, by (use case, store)."""

    def __init__(self) -> None:
        self.label: str | None = None
        self.calls: dict[tuple[str, str], list[tuple[list[str], str]]] = defaultdict(list)
        self.parent = threading.local()

    def stack(self) -> list[Frame]:
        frames: list[Frame] = []
        f: FrameType | None = sys._getframe(2)
        while f is not None:
            frames.append((module_of(f.f_code.co_filename), f.f_code.co_name))
            f = f.f_back
        frames.reverse()
        return list(getattr(self.parent, "frames", [])) + frames

    def record(self, store: str, operation: str) -> None:
        if self.label is None:
            return
        chain = path_modules(self.stack())
        if chain:
            self.calls[(self.label, store)].append((chain, operation))

    @contextlib.contextmanager
    def use_case(self, label: str) -> Iterator[None]:
        self.label = label
        try:
            yield
        finally:
            self.label = None


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    import botocore.client
    import opensearchpy.transport

    rec = Recorder()
    make_api_call = botocore.client.BaseClient._make_api_call
    perform_request = opensearchpy.transport.Transport.perform_request
    submit = ThreadPoolExecutor.submit

    def api_call(self: Any, operation_name: str, api_params: Any) -> Any:
        rec.record(self.meta.service_model.service_name, operation_name)
        return make_api_call(self, operation_name, api_params)

    def os_request(self: Any, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        rec.record("opensearch", f"{method} {url.split('?')[0].rsplit('/', 1)[-1]}")
        return perform_request(self, method, url, *args, **kwargs)

    def pool_submit(self: Any, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        frames = rec.stack()

        def carried(*a: Any, **k: Any) -> Any:
            rec.parent.frames = frames
            try:
                return fn(*a, **k)
            finally:
                rec.parent.frames = []

        return submit(self, carried, *args, **kwargs)

    monkeypatch.setattr(botocore.client.BaseClient, "_make_api_call", api_call)
    monkeypatch.setattr(opensearchpy.transport.Transport, "perform_request", os_request)
    monkeypatch.setattr(ThreadPoolExecutor, "submit", pool_submit)
    return rec


class EchoSummarizer:
    def summarize(self, prompt: str) -> str:
        return f"summary of {len(prompt)} characters"


def clear_caches() -> None:
    from offprompt.adapters.clients import reset_clients
    from offprompt.adapters.opensearch_client import reset_opensearch_clients
    from offprompt.composition import conversation, conversation_index, records, task_memory
    from offprompt.config import get_settings

    get_settings.cache_clear()
    reset_clients()
    reset_opensearch_clients()
    for cached in (
        conversation.default_service,
        conversation.default_cloud_threads,
        task_memory.default_service,
        task_memory.default_receipts,
        records.default_records,
        conversation_index.default_indexing,
        conversation_index.default_conversation_index,
    ):
        cached.cache_clear()


@pytest.fixture
def deployment(
    moto_aws: None, opensearch_url: str, opensearch_index: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """The functions' settings on moto and the OpenSearch node, services built by the composition root."""
    from task_memory_support import make_resources

    from offprompt.composition.conversation import set_summarizer_override

    monkeypatch.setenv("OFFPROMPT_TABLE", TABLE)
    monkeypatch.setenv("OFFPROMPT_BUCKET", BUCKET)
    monkeypatch.setenv("OFFPROMPT_OPENSEARCH_URL", opensearch_url)
    monkeypatch.setenv("OFFPROMPT_OPENSEARCH_INDEX", opensearch_index)
    monkeypatch.setenv("OFFPROMPT_SUMMARIZE_MODE", "async")
    clear_caches()
    make_resources(TABLE, BUCKET)
    set_summarizer_override(EchoSummarizer())
    yield
    set_summarizer_override(None)
    clear_caches()


def event(name: str, path: str, *, method: str | None = None, params: dict[str, str], body: Any = None) -> Any:
    e = copy.deepcopy(json.loads((EVENTS / name).read_text()))
    e["rawPath"] = e["requestContext"]["http"]["path"] = path
    if method is not None:
        e["requestContext"]["http"]["method"] = method
    e["pathParameters"] = params
    e["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = "tenant-depth"
    e.pop("body", None)
    if body is not None:
        e["body"] = json.dumps(body)
    return e


def invoke(handler: Any, e: Any, expect: int | None = None) -> Any:
    out = handler.lambda_handler(e, None)
    if expect is not None:
        assert out["statusCode"] == expect, out.get("body")
    text = out.get("body") if isinstance(out, dict) and "statusCode" in out else None
    return json.loads(text) if text else out


def run(run_id: str, text: str) -> dict[str, Any]:
    artifact = {"type": "TextArtifact", "id": f"a-{run_id}", "reference": None, "meta": {}, "name": "a"}
    return {
        "type": "Run",
        "id": run_id,
        "meta": None,
        "input": {**artifact, "value": f"question {run_id}"},
        "output": {**artifact, "id": f"b-{run_id}", "value": text},
    }


def conversation_use_cases(rec: Recorder) -> None:
    import add_run.handler as add_run
    import cloud_threads.handler as cloud_threads
    import prompt_stack.handler as prompt_stack
    import summarizer.handler as summarizer
    import threads.handler as threads

    tid = "thread-depth"
    p = {"thread_id": tid}
    runs_path = f"/threads/{tid}/runs"
    big = run("big", "x" * (INLINE_RUN_BYTES + 10_000))  # stored in S3, a pointer in DynamoDB
    with rec.use_case("thread admin"):
        invoke(
            threads,
            event("thread_put_http.json", f"/threads/{tid}", params=p, body={"memory_type": "summary", "offset": 1}),
            200,
        )
    with rec.use_case("add-run"):
        for r in (run("r1", "one"), big, run("r2", "two"), run("r3", "three")):
            invoke(add_run, event("add_run_http.json", runs_path, params=p, body=r), 201)
        invoke(add_run, event("add_run_http.json", runs_path, params=p, body=big), 201)  # a replayed big run
    with rec.use_case("prompt-stack"):
        invoke(prompt_stack, event("prompt_stack_http.json", f"/threads/{tid}/prompt-stack", params=p, body={}), 200)
    with rec.use_case("thread admin"):
        invoke(threads, event("thread_get_http.json", f"/threads/{tid}", params=p), 200)
        invoke(threads, event("thread_runs_http.json", runs_path, params=p), 200)
        invoke(threads, event("thread_list_http.json", "/threads", params={}), 200)  # the tenant index (ADR 0038)
    with rec.use_case("summarize"):
        out = summarizer.lambda_handler({"tenant": "tenant-depth", "thread_id": tid}, None)
        assert out["status"] == "committed", out
    with rec.use_case("thread admin"):  # a fork (docs/adr/0037): made, read through its ancestry, deleted
        fork_body = {"thread_id": f"{tid}-fork", "after_run_id": "r2"}
        fp = {"thread_id": f"{tid}-fork"}
        invoke(threads, event("thread_fork_http.json", f"/threads/{tid}/fork", params=p, body=fork_body), 201)
        invoke(threads, event("thread_runs_http.json", f"/threads/{tid}-fork/runs", params=fp), 200)
        invoke(threads, event("thread_delete_http.json", f"/threads/{tid}-fork", params=fp), 204)
        invoke(threads, event("thread_delete_http.json", f"/threads/{tid}", params=p), 204)

    sid = "session-depth"
    sp = {"thread_id": sid}
    items_path = f"/threads/{sid}/items"
    session = [{"role": "user", "content": "hi"}, {"role": "user", "content": "x" * (INLINE_RUN_BYTES + 10)}]
    with rec.use_case("session items"):  # docs/adr/0033: a big item in S3, read, popped (its body dropped)
        body = {"items": session, "request_id": "depth"}
        invoke(threads, event("thread_items_add_http.json", items_path, params=sp, body=body), 201)
        invoke(threads, event("thread_items_add_http.json", items_path, params=sp, body=body), 201)  # a replay
        invoke(threads, event("thread_items_get_http.json", items_path, params=sp), 200)
        invoke(threads, event("thread_items_pop_http.json", items_path + "/pop", params=sp), 200)

    messages = [
        {
            "input": json.dumps({"type": "TextArtifact", "value": f"q{i}"}),
            "output": json.dumps({"type": "TextArtifact", "value": "y" * (INLINE_RUN_BYTES + 1) if i == 1 else "a"}),
            "metadata": {"run_id": f"m{i}"},
        }
        for i in range(3)
    ]
    with rec.use_case("/api/threads"):
        create = event("cloud_threads_create_http.json", "/api/threads", params={}, body={"name": "n"})
        cloud = invoke(cloud_threads, create, 201)["thread_id"]
        cp = {"thread_id": cloud}
        invoke(
            cloud_threads,
            event("cloud_threads_patch_http.json", f"/api/threads/{cloud}", params=cp, body={"messages": messages}),
            200,
        )
        invoke(
            cloud_threads,
            event("cloud_threads_patch_http.json", f"/api/threads/{cloud}", params=cp, body={"messages": messages[2:]}),
            200,
        )
        invoke(
            cloud_threads, event("cloud_threads_messages_http.json", f"/api/threads/{cloud}/messages", params=cp), 200
        )
        invoke(cloud_threads, event("thread_delete_http.json", f"/api/threads/{cloud}", params=cp), 204)


def search_use_cases(rec: Recorder) -> None:
    """POST /threads/search (docs/adr/0049) on the real conversation index: the named threads' items, the index's
    candidates, every hit checked in DynamoDB, the max_runs floor, the context around each hit, consistency."""
    import threads.handler as threads

    from offprompt.composition.conversation import default_service
    from offprompt.composition.conversation_index import default_conversation_index
    from offprompt.ports import ConversationDoc
    from offprompt.services.conversation import ThreadConfigRequest

    service = default_service()
    tenant, tid = "tenant-depth", "search-depth"
    service.configure(tenant, tid, ThreadConfigRequest(max_runs=5))
    for n in range(1, 4):
        service.add_run(tenant, tid, run(f"s{n}", f"heron number {n}"))
    docs = [
        ConversationDoc(tenant, tid, "run", n, f"s{n}", 1_700_000_000.0 + n, f"question s{n}", f"heron number {n}")
        for n in range(1, 4)
    ]
    default_conversation_index().index(docs)  # as the stream indexer would (its own depth is its own use case)
    body = {"query": "heron", "thread_ids": [tid], "mode": "bm25", "context": 1, "consistency": "search"}
    with rec.use_case("thread search"):
        found = invoke(threads, event("thread_search_http.json", "/threads/search", params={}, body=body), 200)
    assert len(found["hits"]) == 3 and found["hits"][0]["context"], found


def task_memory_use_cases(rec: Recorder) -> None:
    import load_artifacts.handler as load_artifacts
    import memories.handler as memories
    import process_output.handler as process_output

    memory = "DepthMemory"
    mp = {"memory_name": memory}
    outputs = f"/memories/{memory}/outputs"

    def ns_params(ns: str) -> dict[str, str]:
        return {"memory_name": memory, "namespace": ns}

    def output(artifact: Any, **extra: Any) -> Any:
        body = {"tool": "DepthTool", "activity": "act", "artifact": artifact, **extra}
        return invoke(process_output, event("process_output_http.json", outputs, params=mp, body=body), 200)

    text = {"type": "TextArtifact", "id": "t", "reference": None, "meta": {}, "name": "text-ns", "value": "brown fox"}
    blob = {"type": "BlobArtifact", "name": "b", "value": base64.b64encode(b"\x00\x01" * 100).decode()}
    many = {"type": "ListArtifact", "name": "blob-ns", "value": [{**blob, "name": f"b{i}"} for i in range(1200)]}
    with rec.use_case("process-output"):
        output(text)
        output({**text, "name": "text-ns-2"})
        output(many)  # entries past the inline limit: a manifest in S3
    with rec.use_case("uploads"):
        up = invoke(
            process_output, event("process_output_upload_http.json", f"/memories/{memory}/uploads", params=mp), 201
        )
        key = up["s3_uri"].split("/", 3)[3]
    boto3.client("s3").put_object(Bucket=BUCKET, Key=key, Body=b"uploaded text")  # the client's PUT
    with rec.use_case("uploads"):
        envelope = {k: v for k, v in text.items() if k != "value"} | {"name": "upload-ns"}
        output(envelope, value_from={"upload_id": up["upload_id"]})
    with rec.use_case("load"):
        for ns in ("text-ns", "blob-ns"):
            path = f"/memories/{memory}/namespaces/{ns}/artifacts"
            invoke(load_artifacts, event("load_artifacts_http.json", path, params=ns_params(ns)), 200)
    with rec.use_case("search"):
        path = f"/memories/{memory}/namespaces/text-ns/search"
        body = {"query": "brown fox", "top_k": 5, "mode": "bm25"}
        hits = invoke(memories, event("memories_search_http.json", path, params=ns_params("text-ns"), body=body), 200)
        assert hits["hits"], hits
    with rec.use_case("namespaces"):
        invoke(memories, event("memories_list_namespaces_http.json", f"/memories/{memory}/namespaces", params=mp), 200)
        invoke(memories, event("memories_meta_http.json", f"/memories/{memory}/meta", params=mp), 200)
        for ns in ("text-ns", "blob-ns"):
            path = f"/memories/{memory}/namespaces/{quote(ns)}"
            invoke(memories, event("memories_get_namespace_http.json", path, params=ns_params(ns)), 200)
            invoke(memories, event("memories_delete_namespace_http.json", path, params=ns_params(ns)), 204)


def records_use_cases(rec: Recorder) -> None:
    """Long-term records (docs/adr/0034) on their DynamoDB partition, S3 bodies and the real OpenSearch record index
    (built by the composition root on first use): puts index and supersede, a text search, a delete supersedes."""
    import records.handler as records

    from offprompt.composition import records as composition

    composition.default_records.cache_clear()
    try:
        ns = "depth.facts"
        kp = {"namespace": ns, "key": "k"}
        path = f"/records/{ns}/k"
        with rec.use_case("records"):
            invoke(records, event("record_put_http.json", path, params=kp, body={"value": {"text": "brown fox"}}), 200)
            big = {"value": {"text": "x" * (400_000)}}
            invoke(records, event("record_put_http.json", path, params=kp, body=big), 200)
            for name, at in (("record_get_http.json", path), ("record_history_http.json", f"{path}/history")):
                read = event(name, at, params=kp)
                read.pop("queryStringParameters", None)  # the sample's as_of and limit: the current version
                read["rawQueryString"] = ""
                invoke(records, read, 200)
            body: dict[str, Any] = {"namespace_prefix": ["depth"]}
            invoke(records, event("record_search_http.json", "/records/search", params={}, body=body), 200)
            body = {"namespace_prefix": ["depth"], "query": "x"}
            invoke(records, event("record_search_http.json", "/records/search", params={}, body=body), 200)
            body = {"namespace_prefix": ["depth"], "query": "brown fox", "as_of": 1_700_000_000}
            invoke(records, event("record_search_http.json", "/records/search", params={}, body=body), 200)
            invoke(records, event("record_namespaces_http.json", "/records/namespaces", params={}, body={}), 200)
            settings = {"default_ttl_minutes": 60}
            np = {"namespace": ns}
            invoke(
                records,
                event("record_configure_namespace_http.json", f"/record-namespaces/{ns}", params=np, body=settings),
                200,
            )
            invoke(records, event("record_delete_http.json", path, params=kp), 204)
    finally:
        composition.default_records.cache_clear()


def checkpoints_use_cases(rec: Recorder) -> None:
    """LangGraph checkpoints (docs/adr/0039): puts inline and offloaded to S3, writes, the latest and by id, list,
    a copy read through its source, prune and deletes (the merged view is walked in the adapter)."""
    import checkpoints.handler as checkpoints

    from offprompt.composition import checkpoints as composition

    composition.default_checkpoints.cache_clear()
    try:
        ids = ["1ef00000-0000-6000-8000-000000000001", "1ef00000-0000-6000-8000-000000000002"]
        thread = {"thread_id": "depth"}
        with rec.use_case("checkpoints"):
            for n, cid in enumerate(ids):
                params = {**thread, "checkpoint_id": cid}
                data = base64.b64encode(b"x" * (400_000 if n else 10)).decode()
                body: dict[str, Any] = {"checkpoint": {"type": "bytes", "data": data}, "metadata": {"n": n}}
                path = f"/checkpoint-threads/depth/checkpoints/{cid}"
                invoke(checkpoints, event("checkpoint_put_http.json", path, params=params, body=body), 200)
                value = {"type": "bytes", "data": data}
                body = {"task_id": "t", "writes": [{"idx": 0, "channel": "c", "value": value}]}
                invoke(
                    checkpoints, event("checkpoint_writes_http.json", f"{path}/writes", params=params, body=body), 200
                )
            get = event("checkpoint_get_http.json", "/checkpoint-threads/depth/checkpoint", params=thread)
            invoke(checkpoints, get, 200)
            body = {"target_thread_id": "depth-copy"}
            invoke(
                checkpoints,
                event("checkpoint_copy_http.json", "/checkpoint-threads/depth/copy", params=thread, body=body),
                201,
            )
            copied = {"thread_id": "depth-copy"}
            get = event("checkpoint_get_http.json", "/checkpoint-threads/depth-copy/checkpoint", params=copied)
            invoke(checkpoints, get, 200)
            listing = event(
                "checkpoint_list_http.json", "/checkpoint-threads/depth-copy/checkpoints/list", params=copied, body={}
            )
            invoke(checkpoints, listing, 200)
            prune = {"strategy": "keep_latest"}
            invoke(
                checkpoints,
                event("checkpoint_prune_http.json", "/checkpoint-threads/depth/prune", params=thread, body=prune),
                200,
            )
            invoke(checkpoints, event("checkpoint_delete_http.json", "/checkpoint-threads/depth", params=thread), 204)
            invoke(
                checkpoints, event("checkpoint_delete_http.json", "/checkpoint-threads/depth-copy", params=copied), 204
            )
    finally:
        composition.default_checkpoints.cache_clear()


def mcp_use_cases(rec: Recorder) -> None:
    """The MCP endpoint's tools: each one calls its use case from the handler, as a route does (the protocol module
    on the stack between them calls back into the handler, so it does not count)."""
    import mcp_server.handler as mcp

    def tool(name: str, **arguments: Any) -> Any:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        result = invoke(mcp, event("mcp_call_http.json", "/mcp", params={}, body=body), 200)["result"]
        assert result["isError"] is False, result
        return result["structuredContent"]

    with rec.use_case("MCP tools"):
        tid = "mcp-depth"
        tool("append_turn", thread_id=tid, input="q", output="a")
        tool("append_turn", thread_id=tid, input="q", output="y" * (INLINE_RUN_BYTES + 10_000))  # a body in S3
        tool("get_context", thread_id=tid, max_tokens=100_000)
        tool("get_recent_turns", thread_id=tid)
        tool("list_threads", alias="no-such-alias")
        namespace = tool("store_output", output="brown fox " * 50, tool="T", activity="a")["namespace"]
        tool("load_artifacts", namespace=namespace)
        tool("search_memory", namespace=namespace, query="brown fox")
        tool("search_conversations", query="question", thread_ids=[tid], mode="bm25")


def conversation_index_use_case(rec: Recorder) -> None:
    """The stream indexer (docs/adr/0048) on the run items the scenario left (in-process moto has no DynamoDB Streams
    API: the records are the ones their writes made, INSERT then a REMOVE, in Lambda's shape)."""
    import conversation_index.handler as conversation_index

    items = boto3.client("dynamodb").scan(TableName=TABLE)["Items"]
    runs = [item for item in items if item["sk"]["S"].startswith("RUN#")]
    assert runs, "the scenario left no run"
    records = [
        {
            "eventID": f"e{n}",
            "eventName": "INSERT" if n < len(runs) else "REMOVE",
            "eventSource": "aws:dynamodb",
            "dynamodb": {
                "Keys": {"pk": item["pk"], "sk": item["sk"]},
                "SequenceNumber": str(n + 1),
                **({"NewImage": item} if n < len(runs) else {"OldImage": item}),
            },
        }
        for n, item in enumerate([*runs, runs[0]])
    ]
    with rec.use_case("conversation index"):
        assert conversation_index.lambda_handler({"Records": records}, None) == {"batchItemFailures": []}


USE_CASES = [
    "add-run",
    "prompt-stack",
    "thread admin",
    "session items",
    "thread search",
    "summarize",
    "/api/threads",
    "process-output",
    "uploads",
    "load",
    "namespaces",
    "search",
    "records",
    "checkpoints",
    "MCP tools",
    "conversation index",
]
STORES = {"dynamodb": "DynamoDB", "s3": "S3", "opensearch": "OpenSearch"}
# The one known exception, pinned so that it cannot grow: Griptape Cloud's Threads API is a facade over the add-run
# and thread-admin use cases (docs/adr/0012), so its writes cross handler → cloud_threads → add_run / thread_admin
# → adapter. Its own reads (messages, thread views) are 3.
FACADES = {"/api/threads": 4}


def depth_table(recorder: Recorder) -> tuple[list[str], list[str]]:
    """The measured table (markdown rows) and every call deeper than its use case may go."""
    rows = ["| Use case | " + " | ".join(STORES.values()) + " |", "| --- |" + " --- |" * len(STORES)]
    too_deep: set[str] = set()
    for use_case in USE_CASES:
        cells = []
        for store, name in STORES.items():
            calls = recorder.calls.get((use_case, store), [])
            cells.append(str(max(len(chain) for chain, _ in calls)) if calls else "-")
            for chain, op in calls:
                if len(chain) > FACADES.get(use_case, MAX_DEPTH):
                    too_deep.add(f"{use_case} → {name} {op}: {len(chain)}: {' → '.join(chain)}")
        rows.append(f"| {use_case} | " + " | ".join(cells) + " |")
    return rows, sorted(too_deep)


def test_every_use_case_reaches_its_stores_through_at_most_three_modules(deployment: None, recorder: Recorder) -> None:
    conversation_use_cases(recorder)
    search_use_cases(recorder)
    task_memory_use_cases(recorder)
    records_use_cases(recorder)
    checkpoints_use_cases(recorder)
    mcp_use_cases(recorder)
    conversation_index_use_case(recorder)
    rows, too_deep = depth_table(recorder)
    print("\n".join(rows + too_deep))
    for use_case in USE_CASES:
        assert any(k[0] == use_case for k in recorder.calls), f"{use_case} made no SDK call: the scenario is broken"
    assert not too_deep, "\n".join(too_deep)
    # records reach the real OpenSearch record index (index, supersede, search), so its depth is measured
    assert ("records", "opensearch") in recorder.calls, "the records scenario made no OpenSearch call"
    # The facade's exception is exact: if its calls got shallower, FACADES (and docs/architecture.md) must say so.
    for use_case, depth in FACADES.items():
        assert max(len(c) for (u, _), calls in recorder.calls.items() if u == use_case for c, _ in calls) == depth
