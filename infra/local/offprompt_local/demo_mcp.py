"""An MCP client storing and recalling through offprompt: `make demo-mcp` against a running `make dev`.

The official MCP Python SDK's `Client` over Streamable HTTP to `/mcp` (docs/adr/0032-mcp-endpoint.md), as an MCP
host (Claude, Cursor, VS Code, an agent SDK) would use it: list the tools, append the turns of a conversation, get
the context that fits a token budget, keep a big tool output off-prompt (the model sees one reference line), then
search it and load it back. Prints what a model would read; exits 1 when an answer is not what it should be.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
import uuid
from collections.abc import Sequence
from typing import Any

DEFAULT_URL = "http://127.0.0.1:3000"
TURNS = [
    ("I'm planning a trip to Lisbon in May.", "Lovely time to go: warm, before the summer crowds."),
    ("I don't eat meat.", "Noted: vegetarian suggestions from now on."),
    ("Which neighbourhood should I stay in?", "Príncipe Real: quiet, central, good vegetarian food."),
]
PAGE = (
    " ".join(
        f"Section {i}: Lisbon's tram 28 climbs through Alfama and Graça; the miradouros look over the river."
        for i in range(400)
    )
    + " The vegetarian restaurant Ao 26 is near Chiado."
)


class Mismatch(Exception):
    pass


def text(result: Any) -> str:
    """A tool result's first content block: the text a model reads."""
    return str(result.content[0].text)


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Mismatch(message)


async def run(url: str, tenant: str) -> str:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    thread = f"mcp-demo-{uuid.uuid4().hex[:8]}"
    http = httpx2.AsyncClient(headers={"X-Offprompt-Tenant": tenant}, timeout=httpx2.Timeout(60, read=120))
    async with http, Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
        tools = [t.name for t in (await client.list_tools()).tools]
        print(f"[1] connected (protocol {client.protocol_version}); tools: {', '.join(tools)}")

        print(f"[2] append_turn x{len(TURNS)} into thread {thread!r}")
        for user, assistant in TURNS:
            await client.call_tool("append_turn", {"thread_id": thread, "input": user, "output": assistant})

        context = await client.call_tool("get_context", {"thread_id": thread, "max_tokens": 60, "input": "Dinner?"})
        shown: dict[str, Any] = dict(context.structured_content or {})
        print(f"[3] get_context, max_tokens 60: {len(shown['messages'])} messages, {shown['tokens']} tokens")
        print("    " + text(context).replace("\n", "\n    "))
        check(0 < len(shown["messages"]) < 2 * len(TURNS) + 1, "the budget kept every turn")

        stored = await client.call_tool("store_output", {"output": PAGE, "tool": "WebScraper", "activity": "get"})
        line = text(stored)
        namespace = (stored.structured_content or {})["namespace"]
        print(f"[4] store_output of {len(PAGE):,} characters; the model sees only:\n    {line}")
        check(namespace in line, "the reference line does not name the namespace")

        deadline, hits = time.monotonic() + 30, list[dict[str, Any]]()
        while not hits and time.monotonic() < deadline:
            found = await client.call_tool("search_memory", {"namespace": namespace, "query": "vegetarian restaurant"})
            hits = (found.structured_content or {})["hits"]
            if not hits:
                await asyncio.sleep(0.5)
        check(bool(hits) and "Ao 26" in hits[0]["text"], f"search did not find the restaurant: {hits[:1]}")
        print(f"[5] search_memory 'vegetarian restaurant' -> ...{hits[0]['text'][-60:]!r}")

        loaded = await client.call_tool("load_artifacts", {"namespace": namespace})
        check(text(loaded) == PAGE, "load_artifacts did not give back the page byte for byte")
        print(f"[6] load_artifacts: the {len(PAGE):,} characters back, byte-exact")

        failed = await client.call_tool("get_recent_turns", {"thread_id": "a/b"})
        check(failed.is_error is True, "a bad thread id was not an error result")
        print(f"[7] a bad call is an error result the model can read: {text(failed)}")
    return f"MCP demo OK: {len(TURNS)} turns, context within budget, {len(PAGE):,} characters off-prompt and recalled"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m offprompt_local.demo_mcp", description=__doc__.split("\n")[0])
    parser.add_argument("--url", default=os.environ.get("OFFPROMPT_API_URL", DEFAULT_URL))
    parser.add_argument("--tenant", default="demo", help="X-Offprompt-Tenant (local stack only)")
    args = parser.parse_args(argv)
    try:
        print(asyncio.run(run(args.url.rstrip("/"), args.tenant)))
    except Mismatch as exc:
        print(f"MISMATCH: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
