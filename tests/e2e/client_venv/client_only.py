"""Every OffpromptClient method a user calls, in a venv holding only `offprompt-client` (no Griptape, no server
library, no repository), against the real local stack. Run by tests/e2e/test_client_standalone.py, once per
check (each a test of its own):

    python -I client_only.py CHECK API_URL TENANT

Prints `ok` when the isolation check and CHECK passed (a traceback and exit status 1 otherwise). Standard
library and offprompt_client only: the repository's test helpers are out of reach here, on purpose.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import random
import socket
import sys
import time
import urllib.parse
import uuid
from collections.abc import Callable
from typing import Any

import offprompt_client
from offprompt_client import OffpromptClient, OffpromptClientError, OffpromptConnectionError

BLOB_BYTES = 6 * 1024 * 1024 + 1  # base64 past the 5 MB response limit: BlobDownloads; not a multiple of 3: "=="
RESPONSE_LIMIT = 5 * 1024 * 1024
# 1.9 M characters, mostly non-ASCII: about 6 MB as JSON (\u escapes), past the response limit (a 303 to a
# presigned GET), while the text store indexes only 1.9 M characters.
TEXT_CHARS = 1_900_000
WORDS = ["ünïcödé", "✓✓✓", "ñandú", "€uro", "groß", "çà", "øå"]
LIST_ARTIFACT_KEYS = ("type", "id", "reference", "meta", "name", "value", "item_separator", "validate_uniform_types")


def uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def artifact(kind: str, name: str, value: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """An artifact's JSON in Griptape's key order: what a load must give back, byte for byte."""
    return {"type": kind, "id": uuid.uuid4().hex, "reference": None, "meta": meta or {}, "name": name, "value": value}


def artifacts_path(memory: str, namespace: str) -> str:
    return (
        f"/memories/{urllib.parse.quote(memory, safe='')}/namespaces/{urllib.parse.quote(namespace, safe='')}/artifacts"
    )


def fails(call: Callable[[], Any], status: int) -> OffpromptClientError:
    try:
        call()
    except OffpromptClientError as error:
        assert error.status == status, (error.status, error.code, error.message)
        return error
    raise AssertionError(f"expected a {status}")


def needs_griptape(call: Callable[[], Any]) -> None:
    """Decoding into objects (raw=False) needs the `griptape` extra: a clear ImportError, never `offprompt`."""
    try:
        call()
    except ImportError as error:
        assert error.name != "offprompt" and "offprompt-client[griptape]" in str(error), repr(error)
        assert "raw=True" in str(error), str(error)
        return
    raise AssertionError("decoding without Griptape should raise ImportError")


def check_isolation() -> None:
    assert sys.flags.isolated, "run me with python -I"
    for name in ("offprompt", "api_common", "offprompt_local", "griptape", "pydantic", "boto3"):
        assert importlib.util.find_spec(name) is None, f"{name} is importable: the venv is not the client alone"
    try:
        import offprompt  # noqa: F401  (must not exist here)
    except ModuleNotFoundError as error:
        assert error.name == "offprompt"
    else:
        raise AssertionError("import offprompt succeeded")
    assert "site-packages" in (offprompt_client.__file__ or ""), offprompt_client.__file__


def check_conversation(api: OffpromptClient) -> None:
    thread = uid("thread ü #?")  # percent-encoded in the path
    assert api.configure_thread(thread, {})["thread_id"] == thread  # creates it
    assert api.get_thread(thread)["stored_runs"] == 0
    added = [api.add_run(thread, input=f"question {n}", output=f"answer {n}", id=f"run-{n}") for n in range(1, 5)]
    assert [a["seq"] for a in added] == [1, 2, 3, 4]
    assert api.add_run(thread, added[0]["run"])["seq"] == 1  # an idempotent retry of the same run
    fails(lambda: api.add_run(thread, input="something else", output="answer 1", id="run-1"), 409)

    stack = api.prompt_stack(thread, system="Be brief.", input="question 5", raw=True)
    assert [m["role"] for m in stack["messages"]] == ["system"] + ["user", "assistant"] * 4 + ["user"]
    assert stack["messages"][1]["content"][0]["artifact"]["value"] == "question 1"
    assert len(api.prompt_stack(thread, last_n=1, raw=True)["messages"]) == 2
    tight = api.prompt_stack(thread, input="question 5", max_tokens=20, tokenizer="chars_per_token:4", raw=True)
    assert 1 <= len(tight["messages"]) < 9
    needs_griptape(lambda: api.prompt_stack(thread, input="question 5"))

    page = api.list_runs(thread, limit=3)
    assert [r["seq"] for r in page["runs"]] == [1, 2, 3] and page["next_cursor"]
    assert [r["seq"] for r in api.iter_runs(thread, page_size=3, order="desc")] == [4, 3, 2, 1]
    assert api.configure_thread(thread, max_runs=2)["max_runs"] == 2
    assert [r["run"]["id"] for r in api.all_runs(thread, page_size=1)] == ["run-3", "run-4"]
    assert api.delete_thread(thread) is None  # 204
    assert fails(lambda: api.get_thread(thread), 404).code == "not_found"
    assert api.list_runs(thread)["runs"] == []


def search_until_found(api: OffpromptClient, memory: str, namespace: str, query: str) -> list[Any]:
    deadline = time.monotonic() + 15  # search is near-real-time (the index refreshes every second)
    while True:
        hits: list[Any] = api.search(memory, namespace, query, top_k=2, mode="bm25")["hits"]
        if hits or time.monotonic() > deadline:
            return hits
        time.sleep(0.2)


def check_text_memory(api: OffpromptClient) -> None:
    memory, namespace = uid("Memory"), "call_7 output ü"
    page = artifact("TextArtifact", namespace, "Some page text. The secret word is zanzibar.", {"source": "venv"})
    action = {"tag": "call_7", "name": "WebScraper", "path": "get_content", "input": {"values": {"url": "u"}}}
    needs_griptape(lambda: api.process_output(memory, "WebScraper", "get_content", page))
    assert api.list_namespaces(memory)["namespaces"] == []  # the missing extra failed before any request
    reference = api.process_output(memory, "WebScraper", "get_content", page, actions=[action], thought="T", raw=True)
    assert reference["type"] == "InfoArtifact" and f'artifact_namespace "{namespace}"' in reference["value"]
    assert api.load_artifacts(memory, namespace, raw=True)["value"] == [page]  # byte-exact: id, name, meta
    needs_griptape(lambda: api.load_artifacts(memory, namespace))

    hits = search_until_found(api, memory, namespace, "secret word zanzibar")
    assert hits and "zanzibar" in hits[0]["text"] and hits[0]["artifact_id"] == page["id"]
    record = api.get_namespace(memory, namespace)
    assert record["storage"] == "text" and record["tool"] == "WebScraper" and record["artifact_count"] == 1
    assert [n["namespace"] for n in api.iter_namespaces(memory, page_size=1)] == [namespace]
    assert [e["thought"] for e in api.meta(memory)["entries"]] == ["T"]
    assert [e["answer"] for e in api.iter_meta(memory, page_size=1)] == [reference["value"]]
    empty = api.process_output(memory, "T", "a", {"type": "TextArtifact", "name": "blank", "value": "  "}, raw=True)
    assert empty["value"] == "tool output is empty"

    assert api.delete_namespace(memory, namespace) is None
    fails(lambda: api.get_namespace(memory, namespace), 404)
    assert api.load_artifacts(memory, namespace, raw=True)["value"] == []


def check_uploads(api: OffpromptClient) -> None:
    memory = uid("Uploads")
    text = "uploaded by hand ✓ " * 1000
    ticket = api.create_upload(memory)
    assert api.upload_bytes(ticket["url"], text.encode("utf-8"), ticket.get("headers")) == 200
    envelope = {"type": "TextArtifact", "name": "by-hand", "meta": {"page": 1}}
    value_from = {"upload_id": ticket["upload_id"]}
    assert api.process_output(memory, "T", "a", envelope, value_from=value_from, raw=True)["type"] == "InfoArtifact"
    [loaded] = api.load_artifacts(memory, "by-hand", raw=True)["value"]
    assert loaded["value"] == text and loaded["meta"] == {"page": 1}

    photo = bytes(range(256)) * 8 + b"\x00"
    needs_griptape(lambda: api.process_upload(memory, "Camera", "shoot", photo))
    answer = api.process_upload(
        memory, "Camera", "shoot", photo, artifact={"type": "BlobArtifact", "name": "p"}, raw=True
    )
    assert answer["type"] == "InfoArtifact"
    [blob] = api.load_artifacts(memory, "p", raw=True)["value"]
    assert base64.b64decode(blob["value"]) == photo and blob["value"] == base64.b64encode(photo).decode()


def check_large_blob(api: OffpromptClient) -> None:
    """A 6 MB blob: stored through the uploads route by process_output itself (its JSON is past the 6 MB request
    limit), answered as BlobDownloads (presigned GETs of the bytes), rebuilt by the client, byte-exact."""
    memory, namespace = uid("Blobs"), "big picture"
    data = random.Random(6).randbytes(BLOB_BYTES)
    big = artifact("BlobArtifact", namespace, base64.b64encode(data).decode("ascii"), {"camera": "venv"})
    assert big["value"].endswith("==")
    reference = api.process_output(memory, "Camera", "shoot", big, raw=True)
    assert reference["type"] == "InfoArtifact", reference
    small = artifact("BlobArtifact", namespace, base64.b64encode(b"\x00\xff").decode("ascii"))
    api.process_output(memory, "Camera", "shoot", small, raw=True)  # the same namespace: appended

    listing = api.request("GET", artifacts_path(memory, namespace))
    assert listing.status == 200 and listing.json()["type"] == "BlobDownloads", listing.body[:200]
    assert [e["size"] for e in listing.json()["artifacts"]] == [BLOB_BYTES, 2]

    loaded = api.load_artifacts(memory, namespace, raw=True)
    assert loaded["type"] == "ListArtifact" and loaded["value"] == [big, small]  # padded base64, same envelopes
    assert tuple(loaded) == LIST_ARTIFACT_KEYS
    needs_griptape(lambda: api.load_artifacts(memory, namespace))


def check_large_text(api: OffpromptClient) -> None:
    """A text namespace of 6 MB JSON: its ListArtifact JSON is past the response limit, so the API answers 303 and the
    client follows the presigned GET (without the API's credentials), byte-exact."""
    memory, namespace = uid("Texts"), "long read"
    rng = random.Random(55)
    text = " ".join(rng.choice(WORDS) for _ in range(TEXT_CHARS // 5))[:TEXT_CHARS]
    page = artifact("TextArtifact", namespace, text, {"pages": 900})
    assert len(json.dumps(page)) > RESPONSE_LIMIT * 1.1
    assert api.process_output(memory, "Reader", "read", page, raw=True)["type"] == "InfoArtifact"
    response = api.request("GET", artifacts_path(memory, namespace))
    assert response.status == 303 and response.headers["location"] == response.json()["download_url"]
    assert api.load_artifacts(memory, namespace, raw=True)["value"] == [page]
    needs_griptape(lambda: api.load_artifacts(memory, namespace))


def check_errors(api: OffpromptClient) -> None:
    fails(lambda: api.search("m", "n", "q", top_k=0), 422)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    try:
        OffpromptClient(f"http://127.0.0.1:{closed}", timeout=5).get_thread("t")
    except OffpromptConnectionError as error:
        assert error.status == 0 and error.code == "connection_error"
    else:
        raise AssertionError("nothing listens there")


def check_session_items(api: OffpromptClient) -> None:
    """`offprompt_client.openai_agents` imports and works without the Agents SDK (a structural protocol)."""
    import asyncio

    from offprompt_client.openai_agents import OffpromptSession

    assert importlib.util.find_spec("agents") is None, "the Agents SDK is installed: this venv holds only the client"
    session = OffpromptSession(f"items-{uuid.uuid4().hex[:8]}", client=api)

    async def use() -> None:
        await session.add_items([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
        assert await session.get_items(limit=1) == [{"role": "assistant", "content": "hello"}]
        assert await session.pop_item() == {"role": "assistant", "content": "hello"}
        await session.clear_session()
        assert await session.get_items() == []

    asyncio.run(use())


CHECKS: dict[str, Callable[[OffpromptClient], None]] = {
    "conversation": check_conversation,
    "text_memory": check_text_memory,
    "uploads": check_uploads,
    "large_blob": check_large_blob,
    "large_text": check_large_text,
    "errors": check_errors,
    "session_items": check_session_items,
}


def main(check: str, url: str, tenant: str) -> None:
    check_isolation()  # in every run: no check can pass where the server library is importable
    started = time.monotonic()
    CHECKS[check](OffpromptClient(url, tenant=tenant, timeout=120))
    print(f"{check} passed in {time.monotonic() - started:.1f}s\nok")


if __name__ == "__main__":
    main(*sys.argv[1:])
