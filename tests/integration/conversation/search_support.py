"""Helpers of the conversation search tests (test_thread_search.py on a fake index, test_thread_search_opensearch.py
on the real node): documents from what DynamoDB holds (what the stream indexer writes), the route, the direct call."""

from __future__ import annotations

import contextlib
import copy
import json
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

from conversation_api import Api, load_event, text_run

from offprompt.composition.conversation import default_service
from offprompt.errors import OffpromptError
from offprompt.ports import ConversationDoc, ConversationIndex


def index_stored(index: ConversationIndex, tenant: str, *threads: str) -> None:
    """Index every run and item stored in these threads' own partitions now (what the stream indexer would)."""
    runs = default_service().runs
    for thread in threads:
        for r in runs.iter_full(tenant, thread, lo=1, now_epoch=0):
            body = json.loads(default_service().bodies.run_json(r))
            kind = "item" if r.thread_kind == "items" else "run"
            if kind == "run":
                text_in, text_out = str(body["input"].get("value", "")), str(body["output"].get("value", ""))
            else:
                text_in, text_out = json.dumps(body), ""
            index.index(
                [ConversationDoc(tenant, thread, kind, r.seq, r.run_id, time.time(), text_in, text_out)]  # type: ignore[arg-type]
            )


def search(api: Api, body: Any, *, tenant: str = "tenant-a") -> tuple[int, Any, dict[str, str]]:
    event = copy.deepcopy(load_event("thread_search_http.json"))
    event["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = tenant
    event["body"] = json.dumps(body)
    out = api.threads(event, None)
    return out["statusCode"], json.loads(out["body"]), out.get("headers") or {}


def direct(api: Api, **fields: Any) -> Any:
    """The direct invocation's answer, or `{"code"}` of the library error it raised (as Step Functions sees it)."""
    event = {"tenant": fields.pop("tenant", "tenant-a"), "action": "search_threads", **fields}
    try:
        return api.threads(event, None)
    except OffpromptError as exc:
        return {"code": exc.code}


def add(api: Api, thread: str, *runs: tuple[str, str, str], tenant: str = "tenant-a") -> None:
    for run_id, question, answer in runs:
        status, body = api.post_run(thread, text_run(run_id, question, answer), tenant=tenant)
        assert status == 201, body


def ids(body: Any) -> list[tuple[str, str]]:
    return [(h["thread_id"], h.get("run_id") or h["item_id"]) for h in body["hits"]]


def fork(api: Api, thread: str, body: dict[str, Any]) -> None:
    path = f"/threads/{quote(thread, safe='')}/fork"
    status, out = api.http(api.threads, "thread_fork_http.json", "POST", path, body=body, thread_id=thread)
    assert status == 201, out


@contextlib.contextmanager
def dynamodb_calls() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """Every DynamoDB call the conversation service's client makes meanwhile: (operation, a copy of its params)."""
    client = default_service().runs.client  # type: ignore[attr-defined]
    calls: list[tuple[str, dict[str, Any]]] = []

    def record(params: dict[str, Any], model: Any, **_: Any) -> None:
        calls.append((model.name, copy.deepcopy(params)))

    client.meta.events.register("before-parameter-build.dynamodb", record)
    try:
        yield calls
    finally:
        client.meta.events.unregister("before-parameter-build.dynamodb", record)


def mcp(arguments: dict[str, Any]) -> Any:
    """The MCP tool `search_conversations` called through the MCP function (its JSON-RPC result)."""
    from mcp_server.handler import lambda_handler

    event = copy.deepcopy(load_event("mcp_call_http.json"))
    call = {"name": "search_conversations", "arguments": arguments}
    event["body"] = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call})
    out = lambda_handler(event, None)
    assert out["statusCode"] == 200, out
    return json.loads(out["body"])["result"]
