"""Every function of template.yaml, started as Lambda starts it, answers its sample events from events/.

Each function runs in its own `python3.12 -S -I` interpreter whose `sys.path` holds only the standard library,
the layer's runtime dependencies (requirements/runtime.lock as `make layer` installs it, nothing from the dev
environment), the layer's package dir and `functions/`; its environment is Lambda's plus the template's
variables, with tracing as the template deploys it (`Tracing: Active`: a sampled `_X_AMZN_TRACE_ID` on every
invocation).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import boto3
import pytest
from lambda_runtime import (
    BUCKET,
    EVENT_BUS,
    IMPORTED,
    LambdaError,
    LambdaFunction,
    Start,
    runtime_dependencies,
    shipped_top_level,
)

from offprompt_build.layer import LAYERS

ROOT = Path(__file__).resolve().parents[2]
NS = "e59302f3225041b697b0efa5d1d93369"
STORED_LINE = (
    f'Output of "WebTool.fetch" was stored in memory with memory_name "TaskMemory" and artifact_namespace "{NS}"'
)
# Every function this tier runs; a function added to the template without a test here fails the check below.
EXERCISED = {
    "AddRunFunction",
    "PromptStackFunction",
    "ThreadsFunction",
    "SummarizerFunction",
    "ProcessOutputFunction",
    "LoadArtifactsFunction",
    "MemoriesFunction",
    "ExampleToolFunction",
    "CloudThreadsFunction",
    "AccountFunction",
    "AuthorizerFunction",
    "TenantDataFunction",
    "McpFunction",
    "RecordsFunction",
    "CheckpointsFunction",
    "EventsFunction",
    "ConversationIndexFunction",
    "ExampleExtractorFunction",
    "ExtractionFunction",
    "ConsoleFunction",
}


def event(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "events" / name).read_text())
    return data


def error_type(process: Any, sample: dict[str, Any]) -> str:
    outcome = process.invoke_raw(sample)
    assert "error" in outcome, outcome
    return str(outcome["error"]["type"])


def test_every_template_function_is_exercised(functions: dict[str, LambdaFunction]) -> None:
    assert set(functions) == EXERCISED
    assert {f.tracing for f in functions.values()} == {"Active"}  # as deployed: the tier runs with it


def test_interpreter_sees_only_the_layer_and_the_function_code(start_function: Start, runtime_deps_dir: Path) -> None:
    process = start_function("AddRunFunction")
    outside_stdlib = [p for p in process.sys_path if not p.startswith(("/usr/lib/python", "/usr/local/lib/python"))]
    core, text = runtime_deps_dir / "core", runtime_deps_dir / "text"
    # A conversation function: the core layer only.
    assert outside_stdlib[-3:] == [str(core), str(ROOT / "layers" / "offprompt"), str(ROOT / "functions")]
    assert str(text) not in process.sys_path
    assert not [p for p in process.sys_path if "site-packages" in p or ".venv" in p]
    installed = json.loads((runtime_deps_dir / ".complete").read_text())
    assert installed == runtime_dependencies()
    dist_infos = {
        d.name.removesuffix(".dist-info").rpartition("-")[0].lower().replace("_", "-")
        for tree in (core, text)
        for d in tree.glob("*.dist-info")
    }
    assert dist_infos == {pin.partition("==")[0].replace("_", "-") for pin in installed}
    assert {"offprompt", "add_run"} <= process.imported_modules()  # the driver answers the harness
    # No dev package is importable: the function would find only what the layer ships.
    for tree in (core, text):
        assert not (tree / "moto").exists() and not (tree / "griptape").exists()
    assert (text / "opensearchpy").is_dir() and not (core / "opensearchpy").exists()
    # A task-memory function: the core layer, then the text add-on, as SAM appends its own Layers to Globals'.
    process_output = start_function("ProcessOutputFunction")
    assert [p for p in process_output.sys_path if p.startswith(str(runtime_deps_dir))] == [str(core), str(text)]


def test_a_function_without_the_text_layer_cannot_reach_opensearch(start_text_function: Start) -> None:
    """The harness enforces per-function layers: process-output's code run with only the core layer (the
    AddRunFunction's layers) fails on the import of opensearch-py, as it would deployed that way."""
    wrong = start_text_function("AddRunFunction", handler="process_output.handler.lambda_handler")
    outcome = wrong.invoke_raw(event("process_output_direct.json"))
    assert "error" in outcome, outcome
    assert "No module named 'opensearchpy'" in outcome["error"]["traceback"], outcome


def test_conversation_functions(start_function: Start, local_aws: dict[str, Any]) -> None:
    add_run = start_function("AddRunFunction")
    status, body, _ = add_run.http(event("add_run_http.json"))
    assert status == 201, body
    assert body["seq"] == 1 and body["run"]["type"] == "Run" and body["run"]["id"] == "run-1"
    direct = add_run.invoke(event("add_run_direct.json"))
    assert direct["run"]["id"] == "run-1"  # the same id again: the first result
    # Metrics are not disabled anywhere: one EMF line per request on stdout, as CloudWatch receives it.
    emf = [json.loads(line) for line in add_run.logs().splitlines() if line.startswith("{") and '"_aws"' in line]
    assert [m["_aws"]["CloudWatchMetrics"][0]["Namespace"] for m in emf] == ["offprompt", "offprompt"]
    assert "RunsAdded" in emf[0] and "RunsReplayed" in emf[1]

    prompt = start_function("PromptStackFunction")
    status, stack, _ = prompt.http(event("prompt_stack_http.json"))
    assert status == 200, stack
    assert stack["type"] == "PromptStack" and stack["messages"][0]["role"] == "system"
    assert prompt.invoke(event("prompt_stack_direct.json"))["type"] == "PromptStack"
    # Its template layers include the text add-on: it counts with bpe-openai's BPE, never loading tiktoken (ADR 0069).
    assert "bpe_openai" in prompt.imported_modules() and "tiktoken" not in prompt.imported_modules()

    threads = start_function("ThreadsFunction")
    status, thread, _ = threads.http(event("thread_get_http.json"))
    assert status == 200 and thread["thread_id"] == "thread-1", thread
    status, runs, _ = threads.http(event("thread_runs_http.json"))
    assert status == 200 and [r["run"]["id"] for r in runs["runs"]] == ["run-1"], runs
    status, configured, _ = threads.http(event("thread_put_http.json"))
    assert status == 200 and configured["max_runs"] == 10, configured
    assert threads.invoke(event("thread_direct.json"))["thread_id"] == "thread-1"
    assert threads.invoke(event("thread_runs_direct.json"))["runs"]
    assert threads.invoke(event("thread_configure_direct.json"))["memory_type"] == "summary"
    status, listed, _ = threads.http(event("thread_list_http.json"))  # the tenant index, 8 shards at a time
    assert status == 200 and [t["thread_id"] for t in listed["threads"]] == ["thread-1"], listed
    assert threads.invoke(event("thread_list_direct.json"))["threads"] == listed["threads"]
    # Forks (docs/adr/0037): the fork reads thread-1's run without a copy; the parent's delete waits for its forks.
    status, forked, _ = threads.http(event("thread_fork_http.json"))
    assert status == 201 and forked["thread_id"] == "thread-1-fork" and forked["after_run_id"] == "run-1", forked
    direct_fork = threads.invoke(event("thread_fork_direct.json"))
    assert direct_fork["forked_from"] == "thread-1" and direct_fork["through_seq"] == 1, direct_fork
    status, body, _ = threads.http(event("thread_delete_http.json"))
    assert status == 409 and body["code"] == "thread_has_forks", body
    for fork_id in (forked["thread_id"], direct_fork["thread_id"]):
        assert threads.invoke({"tenant": "tenant-a", "thread_id": fork_id, "action": "delete"}) == {"deleted": True}

    summarizer = start_function("SummarizerFunction")
    summarized = summarizer.invoke(event("summarizer_direct.json"))
    assert summarized == {"status": "nothing_to_do", "through_seq": 0, "summarized_runs": 0}
    assert summarizer.invoke(event("summarizer_stream.json")) == {"batchItemFailures": []}

    status, body, _ = threads.http(event("thread_delete_http.json"))
    assert status == 204, body
    status, body, _ = threads.http(event("thread_get_http.json"))
    assert status == 404 and body["code"] == "not_found"
    assert error_type(threads, event("thread_direct.json")) == "NotFound"

    # Framework session items (docs/adr/0033) on the deleted thread's id: a thread of items now.
    status, added, _ = threads.http(event("thread_items_add_http.json"))
    assert status == 201 and added == {"seqs": [1, 2], "replayed": 0}, added
    assert threads.invoke(event("thread_items_add_direct.json")) == {"seqs": [1, 2], "replayed": 2}  # the retry
    status, page, _ = threads.http(event("thread_items_get_http.json"))
    assert status == 200 and page["items"] == event("thread_items_add_direct.json")["items"], page
    assert threads.invoke(event("thread_items_get_direct.json"))["seqs"] == [1, 2]
    status, popped, _ = threads.http(event("thread_items_pop_http.json"))
    assert status == 200 and popped["seq"] == 2, popped
    assert threads.invoke(event("thread_items_pop_direct.json"))["seq"] == 1
    status, body, _ = add_run.http(event("add_run_http.json"))
    assert status == 409 and body["code"] == "thread_kind_mismatch", body


def test_thread_search_finds_what_the_stream_indexer_indexed(
    start_text_function: Start, local_aws: dict[str, Any]
) -> None:
    """POST /threads/search (docs/adr/0049) in ThreadsFunction's own interpreter (the text layer, the template's
    environment), over documents the ConversationIndexFunction wrote from the table's stream."""
    from offprompt_local.memory_events import lambda_record

    add_run = start_text_function("AddRunFunction")
    status, body, _ = add_run.http(event("add_run_http.json"))
    assert status == 201, body
    streams = boto3.client("dynamodbstreams", endpoint_url=local_aws["endpoint"])
    arn = local_aws["dynamodb"].describe_table(TableName=local_aws["table"])["Table"]["LatestStreamArn"]
    records = []
    for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        position = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")
        page = streams.get_records(ShardIterator=position["ShardIterator"], Limit=100)
        records.extend(json.loads(json.dumps(lambda_record(r, arn), default=str)) for r in page["Records"])
    indexer = start_text_function("ConversationIndexFunction")
    assert indexer.invoke({"Records": records}) == {"batchItemFailures": []}

    threads = start_text_function("ThreadsFunction")
    request = {"query": "capital of France", "thread_ids": ["thread-1"], "mode": "bm25", "consistency": "search"}
    sample = event("thread_search_http.json")
    sample["body"] = json.dumps(request)
    status, found, headers = threads.http(sample)
    assert status == 200 and headers["X-Offprompt-Searchable"] == "true", (found, headers)
    assert [(h["thread_id"], h["run_id"], h["run"]["output"]["value"]) for h in found["hits"]] == [
        ("thread-1", "run-1", "Paris.")
    ]
    direct = {**event("thread_search_direct.json"), **request}
    assert threads.invoke(direct) == {"hits": found["hits"], "searchable": True}
    sample["body"] = json.dumps({"query": ""})
    status, refused, _ = threads.http(sample)
    assert status == 422 and refused["code"] == "schema_invalid", refused


def test_task_memory_functions(start_text_function: Start, local_aws: dict[str, Any]) -> None:
    process_output = start_text_function("ProcessOutputFunction")
    status, body, headers = process_output.http(event("process_output_http.json"))
    assert status == 200, body
    assert body["type"] == "InfoArtifact" and body["value"] == STORED_LINE
    assert headers["X-Offprompt-Stored"] == "true"
    assert process_output.invoke(event("process_output_direct.json"))["value"] == STORED_LINE
    status, upload, _ = process_output.http(event("process_output_upload_http.json"))
    assert status == 201 and set(upload) == {"upload_id", "url", "expires_in", "headers", "s3_uri"}
    assert process_output.invoke(event("process_output_upload_direct.json"))["s3_uri"].startswith(f"s3://{BUCKET}/")

    load = start_text_function("LoadArtifactsFunction")
    status, loaded, _ = load.http(event("load_artifacts_http.json"))
    assert status == 200 and loaded["type"] == "ListArtifact", loaded
    assert [a["value"] for a in loaded["value"]] == ["The quick brown fox jumps over the lazy dog."] * 2
    assert load.invoke(event("load_artifacts_direct.json"))["value"] == loaded["value"]

    memories = start_text_function("MemoriesFunction")
    status, listed, _ = memories.http(event("memories_list_namespaces_http.json"))
    assert status == 200 and [n["namespace"] for n in listed["namespaces"]] == [NS], listed
    assert memories.invoke(event("memories_list_namespaces_direct.json")) == listed
    status, record, _ = memories.http(event("memories_get_namespace_http.json"))
    assert status == 200 and record["tool"] == "WebTool", record
    assert memories.invoke(event("memories_get_namespace_direct.json")) == record
    status, meta, _ = memories.http(event("memories_meta_http.json"))
    assert status == 200 and meta["entries"][0]["answer"] == STORED_LINE, meta
    assert memories.invoke(event("memories_meta_direct.json")) == meta
    status, found, _ = memories.http(event("memories_search_http.json"))
    assert status == 200 and found["hits"], found
    assert set(found["hits"][0]) == {"artifact_id", "position", "chunk", "text", "score"}
    assert memories.invoke(event("memories_search_direct.json"))["hits"] == found["hits"]
    status, body, _ = memories.http(event("memories_delete_namespace_http.json"))
    assert status == 204 and body is None
    again = memories.invoke(event("memories_delete_namespace_direct.json"))  # idempotent
    assert again == {"deleted": False, "namespace": record["namespace"]}, again
    status, body, _ = memories.http(event("memories_get_namespace_http.json"))
    assert status == 404 and body["code"] == "not_found"


def mcp_call(process: Any, request_id: int, method: str, params: dict[str, Any] | None = None) -> Any:
    sample = event("mcp_call_http.json")
    sample["body"] = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params or {}})
    status, body, _ = process.http(sample)
    assert status == 200 and body["id"] == request_id, body
    return body["result"]


def test_mcp_function(start_text_function: Start, local_aws: dict[str, Any]) -> None:
    mcp = start_text_function("McpFunction")
    status, body, _ = mcp.http(event("mcp_initialize_http.json"))
    assert status == 200 and body["result"]["protocolVersion"] == "2025-11-25", body
    status, body, _ = mcp.http(event("mcp_tools_list_http.json"))
    assert status == 200, body
    assert [t["name"] for t in body["result"]["tools"]] == [
        "append_turn",
        "get_context",
        "get_recent_turns",
        "list_threads",
        "search_conversations",
        "store_output",
        "load_artifacts",
        "search_memory",
        "remember",
        "recall",
        "forget",
    ]
    status, body, _ = mcp.http(event("mcp_call_http.json"))
    assert status == 200 and body["result"]["isError"] is False, body
    assert body["result"]["structuredContent"]["seq"] == 1
    recent = mcp_call(mcp, 4, "tools/call", {"name": "get_recent_turns", "arguments": {"thread_id": "thread-mcp"}})
    assert [t["output"] for t in recent["structuredContent"]["turns"]] == ["Paris."], recent
    text = "The quick brown fox jumps over the lazy dog."
    stored = mcp_call(
        mcp,
        5,
        "tools/call",
        {"name": "store_output", "arguments": {"output": text, "tool": "WebTool", "activity": "fetch"}},
    )
    namespace = stored["structuredContent"]["namespace"]
    assert stored["content"][0]["text"].startswith('Output of "WebTool.fetch" was stored'), stored
    loaded = mcp_call(mcp, 6, "tools/call", {"name": "load_artifacts", "arguments": {"namespace": namespace}})
    assert loaded["content"][0]["text"] == text, loaded
    search = {"name": "search_memory", "arguments": {"namespace": namespace, "query": "brown fox"}}
    waited_until = time.monotonic() + 15  # a store answers once loadable; search sees it within ~1 s (ADR 0031)
    while not (found := mcp_call(mcp, 7, "tools/call", search))["structuredContent"]["hits"]:
        assert time.monotonic() < waited_until, found
        time.sleep(0.5)
    failed = mcp_call(mcp, 8, "tools/call", {"name": "get_context", "arguments": {"thread_id": 7}})
    assert failed["isError"] is True and failed["structuredContent"]["code"] == "schema_invalid", failed
    status, body, headers = mcp.http(event("mcp_get_http.json"))
    assert status == 405 and headers["Allow"] == "POST", (status, body)


def test_the_console_serves_its_files_from_the_function_package(start_function: Start) -> None:
    """The page and its files ship in the function's code (CodeUri functions/), with their security headers; the
    page names its files by version; anything else is a 404 and a direct invocation is refused (docs/adr/0038)."""
    console = start_function("ConsoleFunction")
    response = console.invoke(event("console_page_http.json"))
    assert response["statusCode"] == 200 and response["headers"]["Content-Type"].startswith("text/html")
    assert "script-src 'self'" in response["headers"]["Content-Security-Policy"]
    assert response["headers"]["X-Content-Type-Options"] == "nosniff"
    assert "/console/app.js?v=" in response["body"] and "__VERSION__" not in response["body"]
    script = console.invoke(event("console_asset_http.json"))
    assert script["statusCode"] == 200 and script["headers"]["Content-Type"].startswith("text/javascript")
    assert "textContent" in script["body"] and script["headers"]["Cache-Control"].startswith("public")
    missing = {**event("console_asset_http.json"), "rawPath": "/console/handler.py"}
    missing["pathParameters"] = {"asset": "handler.py"}
    status, body, _ = console.http(missing)
    assert status == 404 and body["code"] == "not_found"
    assert error_type(console, {"tenant": "t", "action": "get"}) == "InvalidInput"


def test_api_keys_and_the_authorizer(start_function: Start, local_aws: dict[str, Any]) -> None:
    tenancy = start_function("AccountFunction")
    created = tenancy.invoke(event("keys_create_direct.json"))
    assert created["key"].startswith(f"op_{created['key_id']}_") and created["name"] == "ci"
    status, made, _ = tenancy.http(event("keys_create_http.json"))
    assert status == 201 and made["prefix"] == f"op_{made['key_id']}"
    status, listed, _ = tenancy.http(event("keys_list_http.json"))
    assert status == 200 and {k["key_id"] for k in listed["keys"]} == {created["key_id"], made["key_id"]}
    assert "key" not in json.dumps(listed["keys"][0]).replace('"key_id"', "")
    status, report, _ = tenancy.http(event("usage_http.json"))
    assert status == 200 and report["tenant"] == "tenant-a" and report["days"] == []
    assert tenancy.invoke(event("usage_direct.json"))["totals"]["requests"] == 0

    authorizer = start_function("AuthorizerFunction")
    assert authorizer.invoke(event("authorizer_request.json")) == {"isAuthorized": False}  # the sample's key
    sample = event("authorizer_request.json")
    sample["headers"]["authorization"] = f"Bearer {created['key']}"
    sample["identitySource"] = [f"Bearer {created['key']}"]
    answer = authorizer.invoke(sample)
    assert answer["isAuthorized"] is True and answer["context"]["tenant"] == "tenant-a"
    # A hosted add-run (the key's principal in the authorizer's context) charges the run's tokens, so it counts them
    # cold: with tiktoken, from the core layer add-run has alone (ADR 0069; an unmetered add-run counts nothing).
    hosted = event("add_run_http.json")
    hosted["requestContext"]["authorizer"] = {"lambda": answer["context"]}
    add_run = start_function("AddRunFunction")
    status, body, _ = add_run.http(hosted)
    assert status == 201 and body["seq"] == 1, body
    assert "tiktoken" in add_run.imported_modules() and "bpe_openai" not in add_run.imported_modules()
    revoke = event("keys_revoke_http.json")
    revoke["rawPath"] = f"/keys/{created['key_id']}"
    revoke["requestContext"]["http"]["path"] = revoke["rawPath"]
    revoke["pathParameters"] = {"key_id": created["key_id"]}
    status, _, _ = tenancy.http(revoke)
    assert status == 204
    assert authorizer.invoke(sample) == {"isAuthorized": False}


def test_tenant_function_exports_and_erases(start_text_function: Start, local_aws: dict[str, Any]) -> None:
    process_output = start_text_function("ProcessOutputFunction")
    assert process_output.invoke(event("process_output_direct.json"))["value"] == STORED_LINE
    tenant = start_text_function("TenantDataFunction")
    status, exported, _ = tenant.http(event("tenant_export_http.json"))
    assert status == 200, exported
    assert exported["counts"]["dynamodb.namespace"] == 1 and exported["counts"]["opensearch"] >= 1, exported
    assert exported["manifest_url"].startswith("http")
    again = tenant.invoke(event("tenant_export_direct.json"))["counts"]
    audit = ("dynamodb", "dynamodb.audit_entry")  # the first export is in the second's audit log (ADR 0056)
    assert {k: v for k, v in again.items() if k not in audit} == {
        k: v for k, v in exported["counts"].items() if k not in audit
    }
    assert again["dynamodb.audit_entry"] == exported["counts"]["dynamodb.audit_entry"] + 1
    no_confirm = {**event("tenant_erase_http.json"), "body": "{}"}
    status, refused, _ = tenant.http(no_confirm)
    assert status == 400 and refused["code"] == "invalid_input", refused
    status, erased, _ = tenant.http(event("tenant_erase_http.json"))
    assert status == 200 and erased["verified"] is True and erased["deleted"]["dynamodb"] >= 3, erased
    again = tenant.invoke(event("tenant_erase_direct.json"))
    # a repeat deletes only the first erase's own audit entry, and leaves its own (ADR 0056)
    assert again["verified"] and again["deleted"] == {"dynamodb": 1, "opensearch": 0, "s3": 0}, again


def test_records_function(start_text_function: Start, local_aws: dict[str, Any]) -> None:
    """Long-term records (docs/adr/0034) as Lambda runs them: the sample put (text-indexed, with a TTL), a replace
    kept as history, a get now and `as_of` the first version, a text search with its filter (polled: a put answers
    before the index refreshes), a delete that is a version too; the direct put answers as the HTTP one does."""
    records = start_text_function("RecordsFunction")
    status, first, _ = records.http(event("record_put_http.json"))
    assert status == 200 and first["version"] == 1 and first["expires_at"], first
    replace = event("record_put_http.json")
    replace["body"] = json.dumps({"value": {"text": "likes ramen now", "since": 2025}, "index": ["text"]})
    status, second, _ = records.http(replace)
    assert status == 200 and second["version"] == 2, second
    get = event("record_get_http.json")
    get["rawQueryString"], get["queryStringParameters"] = "refresh_ttl=false", {"refresh_ttl": "false"}
    status, current, _ = records.http(get)
    assert status == 200 and current["value"]["text"] == "likes ramen now", current
    as_of = first["valid_from"]
    get["rawQueryString"], get["queryStringParameters"] = f"as_of={as_of}", {"as_of": as_of}
    status, old, _ = records.http(get)
    assert status == 200 and old["version"] == 1 and old["value"]["text"] == "likes sushi", old
    search = event("record_search_http.json")
    search["body"] = json.dumps({"namespace_prefix": ["users", "u1"], "query": "ramen", "filter": {"since": 2025}})
    waited_until = time.monotonic() + 15
    while not (found := records.http(search)[1])["items"]:
        assert time.monotonic() < waited_until, found
        time.sleep(0.5)
    assert [(i["key"], i["version"]) for i in found["items"]] == [("food", 2)], found
    status, history, _ = records.http(event("record_history_http.json"))
    assert status == 200 and [v["version"] for v in history["versions"]] == [2, 1], history
    status, _, _ = records.http(event("record_delete_http.json"))
    assert status == 204
    get["rawQueryString"] = ""
    get.pop("queryStringParameters")
    status, gone, _ = records.http(get)
    assert status == 404 and gone["code"] == "record_not_found", gone
    direct = records.invoke(event("record_put_direct.json"))
    assert direct["version"] == 4 and direct["value"] == {"text": "likes sushi", "since": 2024}, records.logs()


def test_checkpoints_function(start_function: Start, local_aws: dict[str, Any]) -> None:
    """LangGraph checkpoints (docs/adr/0039) as Lambda runs them, on the core layer: the sample put and writes, the
    latest tuple with them, a 2 MB checkpoint through S3 byte-exact, list, copy, prune, the deletes; the direct put
    answers as the HTTP one does."""
    import base64
    import os

    checkpoints = start_function("CheckpointsFunction")
    status, key, _ = checkpoints.http(event("checkpoint_put_http.json"))
    assert status == 200 and key["thread_id"] == "graph-1", key
    status, stored, _ = checkpoints.http(event("checkpoint_writes_http.json"))
    assert (status, stored) == (200, {"stored": 1}), stored
    status, got, _ = checkpoints.http(event("checkpoint_get_http.json"))
    assert status == 200 and got["checkpoint_id"] == key["checkpoint_id"] and len(got["pending_writes"]) == 1, got
    big = event("checkpoint_put_http.json")
    data = os.urandom(2 * 1024 * 1024)
    newer = "1ef4f797-8335-6428-8002-000000000000"
    big["pathParameters"]["checkpoint_id"] = newer
    big["body"] = json.dumps({"checkpoint": {"type": "bytes", "data": base64.b64encode(data).decode()}, "metadata": {}})
    assert checkpoints.http(big)[0] == 200
    status, latest, _ = checkpoints.http(event("checkpoint_get_http.json"))
    assert status == 200 and latest["checkpoint_id"] == newer, latest["checkpoint_id"]
    assert base64.b64decode(latest["checkpoint"]["data"]) == data
    objects = local_aws["s3"].list_objects_v2(Bucket=local_aws["bucket"]).get("Contents", [])
    assert [o["Key"].split("/")[0] for o in objects] == ["checkpoints"], objects
    status, page, _ = checkpoints.http(event("checkpoint_list_http.json"))
    assert status == 200 and [c["checkpoint_id"] for c in page["checkpoints"]] == [key["checkpoint_id"]], page
    assert checkpoints.invoke(event("checkpoint_put_direct.json")) == key, checkpoints.logs()  # a re-put replaces
    assert checkpoints.invoke(event("checkpoint_get_direct.json"))["checkpoint_id"] == newer
    status, copied, _ = checkpoints.http(event("checkpoint_copy_http.json"))
    assert status == 201 and copied["through"] == {"": newer}, copied
    assert checkpoints.http(event("checkpoint_prune_http.json"))[0] == 200
    assert checkpoints.http(event("checkpoint_delete_http.json"))[0] == 204
    status, gone, _ = checkpoints.http(event("checkpoint_get_http.json"))
    assert status == 404 and gone["code"] == "checkpoint_not_found", gone


def test_events_function_publishes_the_stream_batch(start_function: Start, local_aws: dict[str, Any]) -> None:
    """The memory events (docs/adr/0036): the sample batch's events on the bus (read back through a rule into
    SQS on the same moto server), the API key's record nothing."""
    import boto3

    endpoint = local_aws["endpoint"]
    sqs = boto3.client("sqs", endpoint_url=endpoint)
    url = sqs.create_queue(QueueName="memory-events")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    bridge = boto3.client("events", endpoint_url=endpoint)
    bridge.create_event_bus(Name=EVENT_BUS)
    bridge.put_rule(Name="all", EventBusName=EVENT_BUS, EventPattern=json.dumps({"source": ["offprompt"]}))
    bridge.put_targets(Rule="all", EventBusName=EVENT_BUS, Targets=[{"Id": "q", "Arn": arn}])

    publisher = start_function("EventsFunction")
    assert publisher.invoke(event("events_stream.json")) == {"batchItemFailures": []}, publisher.logs()
    bodies = [json.loads(m["Body"]) for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]]
    assert sorted(b["detail-type"] for b in bodies) == ["output.stored", "run.added"]
    assert {b["detail"]["tenant"] for b in bodies} == {"tenant-a"}


def test_conversation_indexer_indexes_the_run_of_a_stream_batch(
    start_text_function: Start, opensearch_client: Any
) -> None:
    """The conversation indexer (docs/adr/0048) on the stream sample: its run is a search document of its tenant (in
    the function's index on the node); the sample's other records (a batch, an API key) mean nothing to it."""
    indexer = start_text_function("ConversationIndexFunction")
    query = {"bool": {"filter": [{"term": {"doc_kind": "conversation"}}, {"term": {"ref_id": "run-1"}}]}}
    # the search test of this module indexes its own run-1 of tenant-a's thread-1 (the same document): gone first
    opensearch_client.delete_by_query(
        index="offprompt-runtime-*", body={"query": query}, refresh=True, ignore_unavailable=True
    )
    assert indexer.invoke(event("events_stream.json")) == {"batchItemFailures": []}, indexer.logs()
    opensearch_client.indices.refresh(index="offprompt-runtime-*")
    hits = opensearch_client.search(index="offprompt-runtime-*", body={"query": query})["hits"]["hits"]
    assert [(h["_source"]["tenant"], h["_source"]["input_text"]) for h in hits] == [("tenant-a", "my name is Ada")]


def test_example_extractor_reads_the_run_an_event_names(start_text_function: Start, local_aws: dict[str, Any]) -> None:
    """The example extractor (docs/adr/0036) on its sample EventBridge event: the run it names is read (gone here:
    no facts, no model call); its model is Bedrock, as deployed."""
    extractor = start_text_function("ExampleExtractorFunction")
    result = extractor.invoke(event("example_extractor_run_added.json"))
    assert result == {"run_id": None, "records": [], "extractor": "bedrock:amazon.nova-micro-v1:0"}, extractor.logs()


def test_extraction_stores_a_strategy_and_reads_its_queue(
    start_text_function: Start, local_aws: dict[str, Any]
) -> None:
    """Extraction (docs/adr/0051) as deployed: a strategy put and listed by direct invocation, then the queue's sample
    message (a run.added of a thread that does not exist here: nothing to extract, no model call, no failure)."""
    extraction = start_text_function("ExtractionFunction")
    stored = extraction.invoke(event("extraction_put_strategy_direct.json"))
    assert stored["name"] == "facts" and stored["trigger"] == {"after_runs": 2, "idle_seconds": 30}, extraction.logs()
    assert [s["name"] for s in extraction.invoke(event("extraction_list_strategies_direct.json"))["strategies"]] == [
        "facts"
    ]
    assert extraction.invoke(event("extraction_queue.json")) == {"batchItemFailures": []}, extraction.logs()


def test_example_tool_fills_a_presigned_upload(start_function: Start, local_aws: dict[str, Any]) -> None:
    process_output = start_function("ProcessOutputFunction")
    upload = process_output.invoke(event("process_output_upload_direct.json"))
    tool = start_function("ExampleToolFunction")
    result = tool.invoke({"upload": upload, "topic": "runtime tier", "size_bytes": 50_000})
    assert result["bytes"] >= 50_000 and len(result["sha256"]) == 64
    key = upload["s3_uri"].removeprefix(f"s3://{BUCKET}/")
    assert local_aws["s3"].head_object(Bucket=BUCKET, Key=key)["ContentLength"] == result["bytes"]


def test_a_direct_event_that_is_not_an_object_raises_invalid_input(start_function: Start) -> None:
    threads = start_function("ThreadsFunction")
    assert error_type(threads, ["not", "an", "object"]) == "InvalidInput"


def test_a_failed_import_is_reported(start_function: Start) -> None:
    """The harness itself: a handler that cannot be imported fails with the import error, as Lambda's init does."""
    with pytest.raises(LambdaError, match="No module named 'no_such_module'"):
        start_function("ThreadsFunction", handler="no_such_module.handler.lambda_handler")


def with_thread(sample: dict[str, Any], thread_id: str) -> dict[str, Any]:
    return json.loads(json.dumps(sample).replace("THREAD_ID", thread_id))


def test_cloud_threads_function(start_function: Start, local_aws: dict[str, Any]) -> None:
    cloud = start_function("CloudThreadsFunction")
    status, thread, _ = cloud.http(event("cloud_threads_create_http.json"))
    assert status == 201 and thread["alias"] == "user-42", thread
    thread_id = thread["thread_id"]
    status, found, _ = cloud.http(event("cloud_threads_find_http.json"))
    assert status == 200 and [t["thread_id"] for t in found["threads"]] == [thread_id], found
    status, patched, _ = cloud.http(with_thread(event("cloud_threads_patch_http.json"), thread_id))
    assert status == 200 and patched["metadata"] == {"summary": None, "summary_index": 0}, patched
    status, page, _ = cloud.http(with_thread(event("cloud_threads_messages_http.json"), thread_id))
    assert status == 200, page
    # As Griptape's Cloud driver sends and reads them: artifacts as JSON strings.
    assert [(m["metadata"]["run_id"], json.loads(m["output"])["value"]) for m in page["messages"]] == [
        ("run-1", "Paris."),
        ("run-2", "Rome."),
    ]


# Shipped top-level names no function imports, each with the reason it stays. Keep this empty if you can: an
# entry here is a package every cold start downloads for nothing.
SHIPPED_BUT_UNUSED_ALLOWED: dict[str, str] = {}


def test_layer_ships_no_package_that_no_function_imports(
    runtime_deps_dir: Path, functions: dict[str, LambdaFunction]
) -> None:
    """Runs last: every test above has exercised its functions; their processes reported `sys.modules` on close.

    Per layer: every top-level name a layer ships is imported by a function for which that layer is the last of its
    layers (the core layer: a function with no add-on). A package only the text functions import belongs in the text
    layer, not in the core every conversation function carries."""
    if set(IMPORTED) != EXERCISED:
        pytest.skip(f"needs the whole runtime tier (functions run so far: {sorted(IMPORTED)})")
    for logical_id, spec in LAYERS.items():
        owners = [name for name, function in functions.items() if function.layers[-1] == logical_id]
        assert owners, f"no function has {logical_id} as its last layer"
        imported = set().union(*(IMPORTED[name] for name in owners))
        unused = shipped_top_level(runtime_deps_dir / spec.part) - imported - set(SHIPPED_BUT_UNUSED_ALLOWED)
        assert not unused, f"shipped in {logical_id} but imported by none of {sorted(owners)}: {sorted(unused)}"
    imported = set().union(*IMPORTED.values())
    assert not set(SHIPPED_BUT_UNUSED_ALLOWED) & imported, "an allowed-unused package is imported now: drop it"


def test_shipped_top_level_names_a_layer_tree(tmp_path: Path) -> None:
    for name in ["pkg", "pkg-1.0.dist-info", "__pycache__", "bin", ".complete"]:
        (tmp_path / name).mkdir() if "." not in name or name.endswith("dist-info") else (tmp_path / name).touch()
    (tmp_path / "mod.py").touch()
    (tmp_path / "_ext.cpython-312-aarch64-linux-gnu.so").touch()
    (tmp_path / "ext2.cpython-312-aarch64-linux-gnu.so").touch()
    assert shipped_top_level(tmp_path) == {"pkg", "mod", "_ext", "ext2"}
