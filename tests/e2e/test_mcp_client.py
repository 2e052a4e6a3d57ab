"""The MCP endpoint as an MCP client uses it: the official `mcp` Python SDK's `Client` over Streamable HTTP against
the local stack (`python -m offprompt_local.stack`, what `make dev` runs): it negotiates (its `server/discover`
probe falls back to `initialize`), lists the tools, calls each one; a protocol error is an `MCPError`, a tool's
failure an `isError` result; a foreign tenant sees nothing; a hosted key works the same way with `Authorization`.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from test_hosted_keys import admin
from test_local_stack import RunningStack, stack, uid  # noqa: F401  (stack: fixture)

pytestmark = pytest.mark.slow
T = TypeVar("T")

TOOLS = [
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


def session(running: RunningStack, headers: dict[str, str], use: Callable[[Client], Awaitable[T]]) -> T:
    """Run `use` with an SDK client connected to the stack's /mcp, sending `headers` on every request."""

    async def main() -> T:
        http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60, read=120))
        async with http, Client(streamable_http_client(f"{running.url}/mcp", http_client=http)) as client:
            return await use(client)

    return asyncio.run(main())


def as_tenant(tenant: str) -> dict[str, str]:
    return {"X-Offprompt-Tenant": tenant}


def structured(result: Any) -> dict[str, Any]:
    assert result.is_error is False, result
    return dict(result.structured_content)


def test_the_sdk_client_lists_and_calls_every_tool(stack: RunningStack) -> None:  # noqa: F811
    thread, text = uid("mcp-thread"), "Offprompt keeps big tool outputs out of the prompt. " * 30
    labels, value = ["users", uid("u"), "facts"], {"text": "likes ramen", "since": 2026}

    async def use(client: Client) -> dict[str, Any]:
        seen: dict[str, Any] = {"version": client.protocol_version, "server": client.server_info}
        listed = await client.list_tools()
        seen["tools"] = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]
        seen["append"] = structured(
            await client.call_tool("append_turn", {"thread_id": thread, "input": "hi", "output": "hello"})
        )
        await client.call_tool("append_turn", {"thread_id": thread, "input": "and?", "output": "more"})
        seen["recent"] = structured(await client.call_tool("get_recent_turns", {"thread_id": thread, "limit": 5}))
        seen["context"] = structured(await client.call_tool("get_context", {"thread_id": thread, "max_tokens": 500}))
        seen["threads"] = structured(await client.call_tool("list_threads", {"alias": uid("no-such-alias")}))
        stored = await client.call_tool("store_output", {"output": text, "tool": "WebTool", "activity": "fetch"})
        seen["line"] = stored.content[0].text  # type: ignore[union-attr]
        namespace = structured(stored)["namespace"]
        seen["load"] = structured(await client.call_tool("load_artifacts", {"namespace": namespace}))
        deadline = time.monotonic() + 30
        while True:
            seen["search"] = structured(
                await client.call_tool("search_memory", {"namespace": namespace, "query": "tool outputs"})
            )
            if seen["search"]["hits"] or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.5)
        seen["namespace"] = namespace
        # long-term records: remember (then replace), recall by text and as_of, forget
        first = structured(await client.call_tool("remember", {"namespace": labels, "key": "food", "text": "sushi"}))
        await asyncio.sleep(0.01)
        seen["remember"] = structured(
            await client.call_tool("remember", {"namespace": labels, "key": "food", "value": value})
        )
        seen["then"] = structured(
            await client.call_tool("recall", {"namespace_prefix": labels, "as_of": first["updated_at"]})
        )
        deadline = time.monotonic() + 30
        while True:
            seen["recall"] = structured(
                await client.call_tool("recall", {"namespace_prefix": labels, "query": "ramen"})
            )
            if seen["recall"]["records"] or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.5)
        seen["forget"] = structured(await client.call_tool("forget", {"namespace": labels, "key": "food"}))
        seen["after"] = structured(await client.call_tool("recall", {"namespace_prefix": labels}))
        await client.call_tool("remember", {"namespace": labels, "key": "kept", "text": "alice's"})
        return seen

    seen = session(stack, as_tenant("alice"), use)
    print("\ntools/list as the SDK client sees it:\n" + json.dumps(seen["tools"], indent=2))
    assert seen["version"] == "2025-11-25" and seen["server"].name == "offprompt"
    assert [t["name"] for t in seen["tools"]] == TOOLS
    for tool in seen["tools"]:
        assert tool["inputSchema"]["type"] == "object" and tool["description"], tool
    assert seen["append"]["seq"] == 1
    assert [(t["input"], t["output"]) for t in seen["recent"]["turns"]] == [("hi", "hello"), ("and?", "more")]
    assert [m["content"] for m in seen["context"]["messages"]] == ["hi", "hello", "and?", "more"]
    assert seen["threads"] == {"threads": []}
    assert seen["line"] == (
        'Output of "WebTool.fetch" was stored in memory with memory_name "TaskMemory" and artifact_namespace '
        f'"{seen["namespace"]}"'
    )
    assert [a["value"] for a in seen["load"]["artifacts"]] == [text]
    assert seen["search"]["hits"] and "tool outputs" in seen["search"]["hits"][0]["text"]
    assert (seen["remember"]["key"], seen["remember"]["version"]) == ("food", 2)
    assert [r["value"] for r in seen["then"]["records"]] == [{"text": "sushi"}]  # what was true before the replace
    assert [(r["key"], r["value"], r["version"]) for r in seen["recall"]["records"]] == [("food", value, 2)]
    assert seen["forget"]["deleted"] is True and seen["after"] == {"records": []}

    # Another tenant, same thread and namespace: nothing.
    async def foreign(client: Client) -> list[Any]:
        return [
            structured(await client.call_tool("get_recent_turns", {"thread_id": thread}))["turns"],
            structured(await client.call_tool("load_artifacts", {"namespace": seen["namespace"]}))["artifacts"],
            structured(await client.call_tool("search_memory", {"namespace": seen["namespace"], "query": "tool"}))[
                "hits"
            ],
            structured(await client.call_tool("recall", {"namespace_prefix": labels}))["records"],
            structured(await client.call_tool("forget", {"namespace": labels, "key": "kept"}))["deleted"],
        ]

    async def kept(client: Client) -> list[Any]:
        return structured(await client.call_tool("recall", {"namespace_prefix": labels}))["records"]

    assert session(stack, as_tenant("mallory"), foreign) == [[], [], [], [], False]
    assert [r["key"] for r in session(stack, as_tenant("alice"), kept)] == ["kept"]  # mallory's forget did nothing


def test_errors_reach_the_sdk_client_as_mcp_errors_and_error_results(stack: RunningStack) -> None:  # noqa: F811
    async def use(client: Client) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("no_such_tool", {})
        seen["unknown"] = unknown.value.error.code
        bad = await client.call_tool("get_context", {"thread_id": "t", "max_tokens": -1})
        seen["bad"] = (bad.is_error, bad.structured_content)
        bad_id = await client.call_tool("get_recent_turns", {"thread_id": "a/b"})
        seen["bad_id"] = (bad_id.is_error, bad_id.structured_content)
        neither = await client.call_tool("remember", {"namespace": ["n"], "key": "k"})
        seen["neither"] = (neither.is_error, neither.structured_content)
        bad_label = await client.call_tool("forget", {"namespace": ["a.b"], "key": "k"})
        seen["bad_label"] = (bad_label.is_error, bad_label.structured_content)
        await client.send_ping()
        return seen

    seen = session(stack, as_tenant("alice"), use)
    assert seen["unknown"] == -32602
    assert seen["bad"][0] is True and seen["bad"][1]["code"] == "schema_invalid" and seen["bad"][1]["status"] == 422
    assert seen["bad_id"][0] is True and seen["bad_id"][1]["code"] == "invalid_input"
    assert seen["neither"][0] is True and seen["neither"][1]["code"] == "schema_invalid"  # neither value nor text
    assert seen["bad_label"][0] is True and seen["bad_label"][1]["code"] == "invalid_input"  # a label holds no "."


def test_plain_http_answers(stack: RunningStack) -> None:  # noqa: F811
    """What curl sees: GET is 405 (no SSE stream), a notification 202 with no body, bad JSON a -32700."""

    def send(method: str, body: bytes | None = None) -> tuple[int, bytes, Any]:
        request = urllib.request.Request(
            f"{stack.url}/mcp",
            data=body,
            method=method,
            headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, response.read(), response.headers
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read(), exc.headers

    status, _, headers = send("GET")
    assert status == 405 and headers["Allow"] == "POST"
    status, body, _ = send("POST", json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())
    assert (status, body) == (202, b"")
    status, body, _ = send("POST", b"{oops")
    assert status == 400 and json.loads(body)["error"]["code"] == -32700


def test_a_hosted_key_works_through_the_sdk_client(stack: RunningStack) -> None:  # noqa: F811
    tenant = uid("mcp-acme")
    key = admin("tenant", "create", tenant, "--plan", "free")["key"]
    thread = uid("t")

    async def use(client: Client) -> Any:
        await client.call_tool("append_turn", {"thread_id": thread, "input": "q", "output": "a"})
        return structured(await client.call_tool("get_recent_turns", {"thread_id": thread}))["turns"]

    turns = session(stack, {"Authorization": f"Bearer {key}"}, use)
    assert [t["output"] for t in turns] == ["a"]
    with pytest.raises(Exception):  # noqa: B017  (a refused key: 401 before any MCP message is read)
        session(stack, {"Authorization": f"Bearer {key[:-4]}xxxx"}, use)


def test_the_mcp_demo_runs_clean(stack: RunningStack) -> None:  # noqa: F811
    """`make demo-mcp`: an MCP client storing and recalling through offprompt (issue 21's done-when)."""
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "offprompt_local.demo_mcp", "--url", stack.url, "--tenant", uid("demo-mcp")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert result.stdout.strip().splitlines()[-1].startswith("MCP demo OK"), result.stdout
