"""Hosted mode through the real handlers: a key the real authorizer admitted, on the local substrate's moto server
and the real OpenSearch node (shared by tests/integration/hosted and tests/integration/tenant_data).

`call(function, event_name, token, ...)` builds the API Gateway v2 event a function gets after the real
authorizer admitted `token` (or, with `cached=`, the context API Gateway cached for it earlier), runs the handler
and returns (status, JSON body, headers). `raw_traces` counts what each store holds of a tenant by looking at
the stores themselves (a whole-table Scan, every object, every document): the ground truth an erase is checked
against.
"""

from __future__ import annotations

import copy
import importlib
import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import pytest

from offprompt.identifiers import digest, key
from offprompt_local.resources import create_bucket, create_table

ROOT = Path(__file__).resolve().parents[1]
MEMORY = "TaskMemory"


def reset_caches() -> None:
    """Every per-process cache of clients, settings and services: the next deployment's are built fresh."""
    from offprompt.adapters.clients import reset_clients
    from offprompt.adapters.opensearch_client import reset_opensearch_clients
    from offprompt.composition import (
        account,
        checkpoints,
        conversation,
        conversation_index,
        records,
        task_memory,
        tenant_data,
    )
    from offprompt.config import get_settings

    reset_clients()
    reset_opensearch_clients()
    get_settings.cache_clear()
    for cached in (
        conversation.default_service,
        conversation.default_cloud_threads,
        task_memory.default_service,
        task_memory.default_receipts,
        account.default_account,
        account.default_token_secret,
        tenant_data.default_stores,
        records.default_records,
        checkpoints.default_checkpoints,
        conversation_index.default_indexing,
    ):
        cached.cache_clear()


class Deployment:
    """A table, a bucket and an index of their own, on the moto server and the OpenSearch node the test has."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, moto_url: str, os_url: str, os_client: Any, name: str):
        self.table = f"table-{name}"
        self.bucket = f"bucket-{name}"
        self.index = f"offprompt-test-{name}-{uuid.uuid4().hex[:8]}"
        self.os = os_client
        monkeypatch.setenv("AWS_ENDPOINT_URL", moto_url)
        monkeypatch.setenv("OFFPROMPT_TABLE", self.table)
        monkeypatch.setenv("OFFPROMPT_BUCKET", self.bucket)
        monkeypatch.setenv("OFFPROMPT_OPENSEARCH_URL", os_url)
        monkeypatch.setenv("OFFPROMPT_OPENSEARCH_INDEX", self.index)
        monkeypatch.setenv("OFFPROMPT_SUMMARIZE_MODE", "off")
        monkeypatch.delenv("OFFPROMPT_EMBEDDING_MODEL_ID", raising=False)
        reset_caches()
        create_table(boto3.client("dynamodb"), self.table)
        create_bucket(boto3.client("s3"), self.bucket)

    # ---- the workload, through the functions' handlers ------------------------------------------------
    def add_run(self, tenant: str, thread: str, run_id: str, text: str) -> None:
        from add_run.handler import lambda_handler

        run = {
            "type": "Run",
            "id": run_id,
            "meta": None,
            "input": {"type": "TextArtifact", "id": f"i-{run_id}", "name": "i", "meta": {}, "value": "Q " + text},
            "output": {"type": "TextArtifact", "id": f"o-{run_id}", "name": "o", "meta": {}, "value": text},
        }
        lambda_handler({"tenant": tenant, "thread_id": thread, "run": run}, None)

    def store(self, tenant: str, artifact: dict[str, Any], idempotency_key: str | None = None) -> str:
        from process_output.handler import lambda_handler

        event: dict[str, Any] = {
            "tenant": tenant,
            "memory_name": MEMORY,
            "tool": "WebTool",
            "activity": "fetch",
            "artifact": artifact,
            "actions": [{"tag": "call_1", "name": "WebTool", "path": "fetch", "input": {"url": "u"}}],
            "thought": "fetching",
        }
        if idempotency_key is not None:  # leaves a receipt item (RECEIPT#{tenant}#...), which the erase must find
            event["idempotency_key"] = idempotency_key
        lambda_handler(event, None)
        return str(artifact["name"])  # Griptape's namespace: the artifact's name

    # ---- the reads whose bytes must survive ----------------------------------------------------------
    def reads(self, tenant: str, threads: list[str], namespaces: list[str]) -> dict[str, bytes]:
        from load_artifacts.handler import lambda_handler as load
        from memories.handler import lambda_handler as memories
        from threads.handler import lambda_handler as thread_fn

        out: dict[str, bytes] = {}
        for t in threads:
            event = {"tenant": tenant, "thread_id": t, "action": "list_runs", "limit": 100, "order": "asc"}
            out[f"runs:{t}"] = json.dumps(thread_fn(event, None)).encode()
            out[f"thread:{t}"] = json.dumps(
                thread_fn({"tenant": tenant, "thread_id": t, "action": "get"}, None)
            ).encode()
        for ns in namespaces:
            loaded = load({"tenant": tenant, "memory_name": MEMORY, "namespace": ns}, None)
            # The ListArtifact around the artifacts is minted per load (Griptape: a fresh id and name each
            # time); everything it holds must be byte-identical.
            assert loaded["value"], loaded
            out[f"load:{ns}"] = json.dumps({k: v for k, v in loaded.items() if k not in ("id", "name")}).encode()
        meta = memories({"tenant": tenant, "memory_name": MEMORY, "action": "list_meta", "limit": 100}, None)
        out["meta"] = json.dumps(meta).encode()
        return out

    def close(self) -> None:
        self.os.indices.delete(index=self.index, ignore_unavailable=True)
        reset_caches()

    def raw_traces(self, tenant: str) -> dict[str, int]:
        """How many items, objects and documents of `tenant` the stores hold, found without the layout's help; not
        counting its audit log (`AUDIT#{tenant}`: a refused erase adds an entry, an erase leaves its own; ADR 0056,
        tests/integration/hosted/test_audit_log.py)."""
        items = boto3.client("dynamodb").get_paginator("scan").paginate(TableName=self.table)
        escaped = key(tenant)
        n_items = sum(
            1
            for page in items
            for item in page["Items"]
            if item["pk"]["S"] != f"AUDIT#{escaped}"
            and (
                f"#{escaped}#" in item["pk"]["S"]
                or item["pk"]["S"].endswith(f"#{escaped}")
                or item.get("tenant", {}).get("S") == tenant
            )
        )
        objects = boto3.client("s3").get_paginator("list_objects_v2").paginate(Bucket=self.bucket)
        n_objects = sum(
            1 for page in objects for obj in page.get("Contents", []) if obj["Key"].split("/")[1:2] == [digest(tenant)]
        )
        if self.os.indices.exists(index=self.index):
            self.os.indices.refresh(index=self.index)
            body = {"query": {"term": {"tenant": tenant}}, "size": 0, "track_total_hits": True}
            n_docs = int(self.os.search(index=self.index, body=body)["hits"]["total"]["value"])
        else:
            n_docs = 0
        return {"dynamodb": n_items, "s3": n_objects, "opensearch": n_docs}


def authorized(token: str) -> dict[str, Any]:
    """What the real authorizer answers API Gateway for `token` (which must be valid): the context it caches."""
    from authorizer.handler import lambda_handler as authorize

    request = json.loads((ROOT / "events" / "authorizer_request.json").read_text())
    request["headers"]["authorization"] = f"Bearer {token}"
    request["identitySource"] = [f"Bearer {token}"]
    answer = authorize(request, None)
    assert answer["isAuthorized"] is True, answer
    return dict(answer["context"])


class Context:
    """A Lambda context whose clock starts at `remaining_ms` (a request near its time budget)."""

    def __init__(self, remaining_ms: int) -> None:
        import time

        self._deadline = time.monotonic() + remaining_ms / 1000
        self.aws_request_id = uuid.uuid4().hex
        self.function_name = "test"

    def get_remaining_time_in_millis(self) -> int:
        import time

        return max(0, int((self._deadline - time.monotonic()) * 1000))


def call(
    function: str,
    event_name: str,
    token: str,
    *,
    path: str,
    method: str,
    body: Any = None,
    raw_body: str | None = None,
    cached: dict[str, Any] | None = None,
    query: dict[str, str] | None = None,
    context: Any = None,
    **params: str,
) -> tuple[int, Any, dict[str, str]]:
    """The event API Gateway sends `function` after the real authorizer admitted `token` (or with the authorizer
    answer API Gateway `cached`): its status, JSON body and headers."""
    from urllib.parse import urlencode

    answer = {"context": cached if cached is not None else authorized(token)}
    event = copy.deepcopy(json.loads((ROOT / "events" / event_name).read_text()))
    event["rawPath"] = path
    event["routeKey"] = event.get("routeKey") or ""
    event["requestContext"]["http"]["method"] = method
    event["requestContext"]["http"]["path"] = path
    event["requestContext"]["authorizer"] = {"lambda": answer["context"]}
    event["pathParameters"] = params
    event.pop("queryStringParameters", None)
    event["rawQueryString"] = urlencode(query or {})
    if query:
        event["queryStringParameters"] = dict(query)
    event.pop("body", None)
    if raw_body is not None:
        event["body"] = raw_body
    elif body is not None:
        event["body"] = json.dumps(body)
    out = importlib.import_module(f"{function}.handler").lambda_handler(event, context)
    text = out.get("body")
    return out["statusCode"], json.loads(text) if text else None, dict(out.get("headers") or {})


def new_key(tenant: str, **plan: Any) -> str:
    """A tenant with a plan (`Plan` fields; name "test") and its first key."""
    from offprompt.composition.account import default_account
    from offprompt.metering import Plan

    account = default_account()
    account.create_tenant(tenant, Plan(plan.pop("name", "test"), **plan))
    return str(account.create_key(tenant)["key"])


def text_run(run_id: str, text: str = "hello") -> dict[str, Any]:
    return {
        "type": "Run",
        "id": run_id,
        "meta": None,
        "input": {"type": "TextArtifact", "id": f"i-{run_id}", "name": "i", "meta": {}, "value": "Q " + text},
        "output": {"type": "TextArtifact", "id": f"o-{run_id}", "name": "o", "meta": {}, "value": text},
    }


def message(run_id: str, text: str = "hello") -> dict[str, Any]:
    """A Griptape Cloud message as Griptape's driver PATCHes it (`metadata.run_id` names the run)."""
    return {
        "input": json.dumps(
            {"type": "TextArtifact", "id": f"i-{run_id}", "name": "i", "meta": {}, "value": "Q " + text}
        ),
        "output": json.dumps({"type": "TextArtifact", "id": f"o-{run_id}", "name": "o", "meta": {}, "value": text}),
        "metadata": {"run_id": run_id},
    }


def all_items(table: str) -> list[dict[str, Any]]:
    pages = boto3.client("dynamodb").get_paginator("scan").paginate(TableName=table)
    return [item for page in pages for item in page["Items"]]


def no_fence_wait(monkeypatch: pytest.MonkeyPatch) -> Callable[[float], None]:
    """An erase's fence window passes at once: the operator CLI's wait moves the erase's clock on instead of
    sleeping. Returns `advance(seconds)`, for a test that repeats an HTTP erase as its 202 says."""
    import offprompt.services.tenant_data.erase as erase_module
    import offprompt_admin.erase as cli_erase

    shift = [0.0]
    real = erase_module.clock

    def advance(seconds: float) -> None:
        shift[0] += seconds

    monkeypatch.setattr(erase_module, "clock", lambda: real() + shift[0])
    monkeypatch.setattr(cli_erase, "sleep", advance)
    return advance


def erase_until_verified(
    token: str, tenant: str, advance: Callable[[float], None], cached: dict[str, Any] | None = None
) -> tuple[int, Any]:
    """`DELETE /tenant` with the key, repeated as its 202 answers say (the clock moved on instead of waiting)."""
    for _ in range(4):
        status, body, headers = call(
            "tenant_data",
            "tenant_erase_http.json",
            token,
            path="/tenant",
            method="DELETE",
            body={"confirm": tenant},
            cached=cached,
        )
        if status != 202:
            return status, body
        advance(float(headers["Retry-After"]))
    raise AssertionError("the erase did not finish")
