"""OffpromptClient against a tiny stub HTTP server on 127.0.0.1: encoding, errors, redirects, uploads, paging.

The happy paths against the real handlers are in tests/e2e/test_local_stack.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from offprompt_client import OffpromptClient, OffpromptClientError, OffpromptConnectionError

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


Reply = tuple[int, dict[str, str], bytes]


@dataclass
class Stub:
    url: str = ""
    seen: list[Seen] = field(default_factory=list)
    routes: dict[tuple[str, str], Callable[[Seen], Reply]] = field(default_factory=dict)

    def on(self, method: str, path: str, reply: Callable[[Seen], Reply] | Reply) -> None:
        self.routes[(method, path)] = reply if callable(reply) else (lambda _: reply)


def json_reply(status: int, body: Any, headers: dict[str, str] | None = None) -> Reply:
    return status, {"Content-Type": "application/json", **(headers or {})}, json.dumps(body).encode()


@pytest.fixture
def stub() -> Iterator[Stub]:
    state = Stub()

    class Handler(BaseHTTPRequestHandler):
        def _any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            seen = Seen(
                self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length)
            )
            state.seen.append(seen)
            route = state.routes.get((self.command, self.path))
            status, headers, body = route(seen) if route else json_reply(404, {"code": "route_not_found"})
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_DELETE = _any

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    yield state
    server.shutdown()
    server.server_close()


def test_path_parameters_are_percent_encoded_and_headers_sent(stub: Stub) -> None:
    stub.on("POST", "/threads/a%20b%2Fc%C3%BC/runs", json_reply(201, {"seq": 1}))
    api = OffpromptClient(stub.url + "/", tenant="alice", headers={"Authorization": "Bearer t"})
    assert api.add_run("a b/cü", input="hi", output="ho", id="r1") == {"seq": 1}
    (seen,) = stub.seen
    assert seen.headers["x-offprompt-tenant"] == "alice"
    assert seen.headers["authorization"] == "Bearer t"
    assert seen.headers["content-type"] == "application/json"
    assert json.loads(seen.body) == {
        "input": {"type": "TextArtifact", "value": "hi"},
        "output": {"type": "TextArtifact", "value": "ho"},
        "id": "r1",
    }


def test_add_run_needs_a_run_or_input_and_output(stub: Stub) -> None:
    with pytest.raises(ValueError):
        OffpromptClient(stub.url).add_run("t", input="only input")
    with pytest.raises(ValueError):
        OffpromptClient(stub.url).get_thread("")


def test_error_bodies_become_client_errors(stub: Stub) -> None:
    stub.on("GET", "/threads/a", json_reply(404, {"code": "not_found", "message": 'thread "a" does not exist'}))
    stub.on("GET", "/threads/b", json_reply(500, {"message": "Internal Server Error"}))  # API Gateway's own
    stub.on("GET", "/threads/c", (502, {"Content-Type": "text/plain"}, b"Bad Gateway"))
    api = OffpromptClient(stub.url)
    with pytest.raises(OffpromptClientError) as info:
        api.get_thread("a")
    assert (info.value.status, info.value.code, info.value.message) == (404, "not_found", 'thread "a" does not exist')
    with pytest.raises(OffpromptClientError) as info:
        api.get_thread("b")
    assert (info.value.status, info.value.code, info.value.message) == (500, "http_500", "Internal Server Error")
    with pytest.raises(OffpromptClientError) as info:
        api.get_thread("c")
    assert (info.value.status, info.value.code, info.value.message) == (502, "http_502", "Bad Gateway")
    assert str(info.value) == "502 http_502: Bad Gateway"


def test_unreachable_api_is_a_connection_error() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens here
    with pytest.raises(OffpromptConnectionError) as info:
        OffpromptClient(f"http://127.0.0.1:{port}", timeout=5).get_thread("t")
    assert info.value.status == 0 and info.value.code == "connection_error"


def test_list_runs_iterates_cursors(stub: Stub) -> None:
    pages = {
        "/threads/t/runs?limit=2&order=desc": {"runs": [{"seq": 5}, {"seq": 4}], "next_cursor": "c1"},
        "/threads/t/runs?limit=2&cursor=c1&order=desc": {"runs": [{"seq": 3}, {"seq": 2}], "next_cursor": "c2"},
        "/threads/t/runs?limit=2&cursor=c2&order=desc": {"runs": [{"seq": 1}], "next_cursor": None},
    }
    for path, body in pages.items():
        stub.on("GET", path, json_reply(200, body))
    runs = OffpromptClient(stub.url).all_runs("t", page_size=2, order="desc")
    assert [r["seq"] for r in runs] == [5, 4, 3, 2, 1]
    assert len(stub.seen) == 3


def test_load_artifacts_follows_303_without_credentials(stub: Stub) -> None:
    listing = {"type": "ListArtifact", "id": "x", "reference": None, "meta": {}, "name": "x", "value": []}
    location = stub.url + "/bucket/key?X-Amz-Signature=abc"
    stub.on(
        "GET",
        "/memories/m/namespaces/n%201/artifacts",
        json_reply(303, {"download_url": location}, {"Location": location}),
    )
    stub.on("GET", "/bucket/key?X-Amz-Signature=abc", json_reply(200, listing))
    api = OffpromptClient(stub.url, tenant="alice", headers={"Authorization": "Bearer secret"})
    assert api.load_artifacts("m", "n 1", raw=True) == listing
    loaded = api.load_artifacts("m", "n 1")
    assert type(loaded).__name__ == "ListArtifact" and loaded.value == []
    download = stub.seen[1]
    assert download.path.startswith("/bucket/key")
    assert "authorization" not in download.headers and "x-offprompt-tenant" not in download.headers


def test_load_artifacts_follows_a_download_url_body(stub: Stub) -> None:
    listing = {"type": "ListArtifact", "id": "x", "reference": None, "meta": {}, "name": "x", "value": []}
    stub.on("GET", "/memories/m/namespaces/n/artifacts", json_reply(200, {"download_url": stub.url + "/dl"}))
    stub.on("GET", "/dl", json_reply(200, listing))
    assert OffpromptClient(stub.url).load_artifacts("m", "n", raw=True) == listing


def test_load_artifacts_rebuilds_a_blob_downloads_answer(stub: Stub) -> None:
    envelope = {"type": "BlobArtifact", "id": "b1", "reference": None, "meta": {"k": 1}, "name": "n"}
    listing = {
        "type": "BlobDownloads",
        "size": 3,
        "expires_in": 900,
        "artifacts": [{"artifact": envelope, "size": 3, "download_url": stub.url + "/obj?X-Amz-Signature=s"}],
    }
    stub.on("GET", "/memories/m/namespaces/n/artifacts", json_reply(200, listing))
    stub.on("GET", "/obj?X-Amz-Signature=s", (200, {"Content-Type": "application/octet-stream"}, b"\x00\xffz"))
    api = OffpromptClient(stub.url, headers={"Authorization": "Bearer secret"})
    loaded = api.load_artifacts("m", "n")
    assert type(loaded).__name__ == "ListArtifact" and [a.value for a in loaded.value] == [b"\x00\xffz"]
    assert loaded.value[0].meta == {"k": 1} and loaded.value[0].id == "b1"
    assert "authorization" not in stub.seen[1].headers
    raw = api.load_artifacts("m", "n", raw=True)
    assert raw["type"] == "ListArtifact" and raw["value"] == [envelope | {"value": "AP96"}]


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4, 1000])
def test_a_rebuilt_blob_downloads_answer_is_griptapes_list_artifact_json(stub: Stub, size: int) -> None:
    """The client's own rebuild (no server library) is the JSON Griptape writes: padded base64, Griptape's keys in
    Griptape's order, and a round trip through Griptape's classes changes no byte."""
    from griptape.artifacts import BlobArtifact, ListArtifact

    data = bytes(range(256))[:size] if size <= 256 else os.urandom(size)
    blob = BlobArtifact(data, name="n", meta={"k": [1, "ü"]})
    envelope = {k: v for k, v in blob.to_dict().items() if k != "value"}
    listing = {
        "type": "BlobDownloads",
        "size": size,
        "expires_in": 900,
        "artifacts": [{"artifact": envelope, "size": size, "download_url": stub.url + "/obj"}],
    }
    stub.on("GET", "/memories/m/namespaces/n/artifacts", json_reply(200, listing))
    stub.on("GET", "/obj", (200, {"Content-Type": "application/octet-stream"}, data))
    raw = OffpromptClient(stub.url).load_artifacts("m", "n", raw=True)
    assert raw["value"] == [blob.to_dict()]  # padded standard base64, as Griptape's BlobArtifact JSON holds it
    shell = ListArtifact([blob]).to_dict()
    assert list(raw) == list(shell)  # the same keys in the same order
    assert {k: v for k, v in raw.items() if k not in ("id", "name")} == {
        k: v for k, v in shell.items() if k not in ("id", "name")
    }
    assert raw["name"] == raw["id"] != shell["id"]  # a fresh ListArtifact, as the API answers inline
    assert json.dumps(ListArtifact.from_dict(raw).to_dict()) == json.dumps(raw)  # byte-exact round trip
    assert ListArtifact.from_dict(raw).value[0].value == data


def hide_griptape(monkeypatch: pytest.MonkeyPatch) -> None:
    """Griptape made unimportable in this process (as in a venv with only offprompt-client)."""
    for name in [m for m in sys.modules if m == "griptape" or m.startswith("griptape.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "griptape", None)


def test_decoding_without_griptape_fails_before_any_request(stub: Stub, monkeypatch: pytest.MonkeyPatch) -> None:
    info = {"type": "InfoArtifact", "id": "i", "reference": None, "meta": {}, "name": "i", "value": "stored"}
    stub.on("POST", "/memories/m/outputs", json_reply(200, info))
    stub.on("POST", "/threads/t/prompt-stack", json_reply(200, {"messages": []}))
    api = OffpromptClient(stub.url)
    hide_griptape(monkeypatch)
    calls: list[Callable[[], Any]] = [
        lambda: api.process_output("m", "T", "a", {"type": "TextArtifact", "value": "x"}),
        lambda: api.process_upload("m", "T", "a", b"x"),
        lambda: api.load_artifacts("m", "n"),
        lambda: api.prompt_stack("t", input="q"),
    ]
    for call in calls:
        with pytest.raises(ImportError, match=r"offprompt-client\[griptape\].*raw=True") as info_:
            call()
        assert info_.value.name == "griptape"
    assert stub.seen == []  # nothing sent, nothing stored
    assert api.process_output("m", "T", "a", {"type": "TextArtifact", "value": "x"}, raw=True) == info
    assert api.prompt_stack("t", input="q", raw=True) == {"messages": []}


def test_a_failed_download_is_a_client_error(stub: Stub) -> None:
    location = stub.url + "/expired"
    stub.on(
        "GET", "/memories/m/namespaces/n/artifacts", json_reply(303, {"download_url": location}, {"Location": location})
    )
    stub.on("GET", "/expired", (403, {"Content-Type": "application/xml"}, b"<Error><Code>AccessDenied</Code></Error>"))
    with pytest.raises(OffpromptClientError) as info:
        OffpromptClient(stub.url).load_artifacts("m", "n")
    assert info.value.status == 403 and "AccessDenied" in info.value.message


def test_process_upload_puts_octet_stream_then_references_it(stub: Stub) -> None:
    ticket = {
        "upload_id": "0" * 32,
        "url": stub.url + "/bucket/up?sig=1",
        "expires_in": 900,
        "headers": {"Content-Type": "application/octet-stream", "x-amz-server-side-encryption": "AES256"},
        "s3_uri": "s3://bucket/up",
    }
    info = {"type": "InfoArtifact", "id": "i", "reference": None, "meta": {}, "name": "i", "value": "stored"}
    stub.on("POST", "/memories/m/uploads", json_reply(201, ticket))
    stub.on("PUT", "/bucket/up?sig=1", (200, {}, b""))
    stub.on("POST", "/memories/m/outputs", json_reply(200, info))
    api = OffpromptClient(stub.url, headers={"Authorization": "Bearer secret"})
    data = bytes(range(256)) * 10
    answer = api.process_upload("m", "Tool", "act", data, artifact={"type": "BlobArtifact", "name": "b"})
    assert type(answer).__name__ == "InfoArtifact" and answer.value == "stored"
    create, put, output = stub.seen
    assert put.method == "PUT" and put.body == data
    assert put.headers["content-type"] == "application/octet-stream"
    assert put.headers["x-amz-server-side-encryption"] == "AES256"
    assert "authorization" not in put.headers
    assert json.loads(output.body) == {
        "tool": "Tool",
        "activity": "act",
        "artifact": {"type": "BlobArtifact", "name": "b"},
        "value_from": {"upload_id": "0" * 32},
    }
    assert create.headers["authorization"] == "Bearer secret"


def test_process_output_uploads_values_past_the_request_limit_by_itself(stub: Stub) -> None:
    import base64

    ticket = {"upload_id": "1" * 32, "url": stub.url + "/bucket/up?sig=2", "headers": {}, "expires_in": 900}
    info = {"type": "InfoArtifact", "id": "i", "reference": None, "meta": {}, "name": "i", "value": "stored"}
    stub.on("POST", "/memories/m/uploads", json_reply(201, ticket))
    stub.on("PUT", "/bucket/up?sig=2", (200, {}, b""))
    stub.on("POST", "/memories/m/outputs", json_reply(200, info))
    limit = 70 * 1024  # EVENT_OVERHEAD (64 KiB) + 6 KiB for the body
    api = OffpromptClient(stub.url, max_request_bytes=limit)

    # within the limit: one request, inline
    api.process_output("m", "T", "a", {"type": "TextArtifact", "name": "n", "value": "x" * 4000}, raw=True)
    assert [s.path for s in stub.seen] == ["/memories/m/outputs"]
    # quotes are escaped once more in the Lambda event: 4,000 of them count 8,000 bytes
    assert not api.request_too_large(b"x" * 6000) and api.request_too_large(b'"' * 4000)

    stub.seen.clear()
    text = 'ü"' * 2000  # 6 KB of UTF-8, 16 KB as JSON (escaped ü and "): past the limit
    artifact = {"type": "TextArtifact", "name": "n", "meta": {"k": 1}, "value": text}
    api.process_output("m", "T", "a", artifact, thought="t", raw=True)
    create, put, output = stub.seen
    assert (create.path, put.method, put.body) == ("/memories/m/uploads", "PUT", text.encode("utf-8"))
    assert json.loads(output.body) == {
        "tool": "T",
        "activity": "a",
        "artifact": {"type": "TextArtifact", "name": "n", "meta": {"k": 1}},
        "thought": "t",
        "value_from": {"upload_id": "1" * 32},
    }

    stub.seen.clear()  # a blob's bytes are uploaded, not its base64
    blob = bytes(range(256)) * 40
    api.process_output("m", "T", "a", {"type": "BlobArtifact", "name": "b", "value": base64.b64encode(blob).decode()})
    assert stub.seen[1].body == blob and "value" not in json.loads(stub.seen[2].body)["artifact"]

    stub.seen.clear()  # a ListArtifact cannot be referenced: it goes inline (the server decides)
    items = {"type": "ListArtifact", "value": [{"type": "TextArtifact", "value": text}]}
    api.process_output("m", "T", "a", items, raw=True)
    assert [s.path for s in stub.seen] == ["/memories/m/outputs"]
    assert json.loads(stub.seen[0].body)["artifact"] == items


def test_every_route_uses_the_documented_method_and_path(stub: Stub) -> None:
    empty_list = {"type": "ListArtifact", "id": "x", "reference": None, "meta": {}, "name": "x", "value": []}
    calls: list[tuple[str, str, Callable[[OffpromptClient], Any], Any]] = [
        ("POST", "/threads/t/prompt-stack", lambda c: c.prompt_stack("t", input="q", max_tokens=9, raw=True),
         {"input": "q", "max_tokens": 9}),
        ("GET", "/threads/t", lambda c: c.get_thread("t"), None),
        ("PUT", "/threads/t", lambda c: c.configure_thread("t", max_runs=3), {"max_runs": 3}),
        ("DELETE", "/threads/t", lambda c: c.delete_thread("t"), None),
        ("GET", "/threads/t/runs?limit=5", lambda c: c.list_runs("t", limit=5), None),
        ("GET", "/threads?limit=5&prefix=a", lambda c: c.list_threads(limit=5, prefix="a"), None),
        ("GET", "/threads/t/runs?as_of_run=r+1", lambda c: c.list_runs("t", as_of_run="r 1"), None),
        ("POST", "/threads/t/prompt-stack", lambda c: c.prompt_stack("t", as_of_run="r1", raw=True),
         {"as_of_run": "r1"}),
        ("POST", "/threads/t/fork", lambda c: c.fork_thread("t", after_run_id="r1", new_thread_id="f"),
         {"after_run_id": "r1", "thread_id": "f"}),
        ("POST", "/threads/t/fork", lambda c: c.fork_thread("t"), {}),
        ("POST", "/threads/search", lambda c: c.search_threads("q"), {"query": "q"}),
        ("POST", "/threads/search",
         lambda c: c.search_threads("q", thread_ids=["a"], thread_prefix="u-", limit=3, mode="bm25", context=1,
                                    since="2026-01-01T00:00:00Z", until="2026-02-01T00:00:00Z", consistency="search"),
         {"query": "q", "thread_ids": ["a"], "thread_prefix": "u-", "limit": 3, "mode": "bm25", "context": 1,
          "since": "2026-01-01T00:00:00Z", "until": "2026-02-01T00:00:00Z", "consistency": "search"}),
        ("POST", "/memories/m/outputs", lambda c: c.process_output("m", "T", "a", {"type": "TextArtifact"}, raw=True),
         {"tool": "T", "activity": "a", "artifact": {"type": "TextArtifact"}}),
        ("POST", "/memories/m/uploads", lambda c: c.create_upload("m"), {}),
        ("GET", "/memories/m/namespaces/n/artifacts", lambda c: c.load_artifacts("m", "n", raw=True), None),
        ("GET", "/memories/m/namespaces", lambda c: c.list_namespaces("m"), None),
        ("GET", "/memories/m/namespaces/n", lambda c: c.get_namespace("m", "n"), None),
        ("DELETE", "/memories/m/namespaces/n", lambda c: c.delete_namespace("m", "n"), None),
        ("GET", "/memories/m/meta", lambda c: c.meta("m"), None),
        ("POST", "/memories/m/namespaces/n/search", lambda c: c.search("m", "n", "q", top_k=3, mode="bm25"),
         {"query": "q", "top_k": 3, "mode": "bm25"}),
    ]  # fmt: skip
    api = OffpromptClient(stub.url)
    for method, path, call, body in calls:
        stub.on(method, path, json_reply(200, empty_list))
        stub.seen.clear()
        call(api)
        (seen,) = stub.seen
        assert (seen.method, seen.path) == (method, path)
        assert (json.loads(seen.body) if seen.body else None) == body, path


def test_search_threads_answers_the_hits_and_whether_the_consistency_wait_completed(stub: Stub) -> None:
    hit = {"thread_id": "t", "seq": 1, "run_id": "r", "score": 0.5, "run": {"type": "Run"}, "created_at": "x"}
    api = OffpromptClient(stub.url)
    stub.on("POST", "/threads/search", json_reply(200, {"hits": [hit]}))
    assert api.search_threads("q") == {"hits": [hit]}
    stub.on("POST", "/threads/search", json_reply(200, {"hits": []}, {"X-Offprompt-Searchable": "false"}))
    assert api.search_threads("q", consistency="search") == {"hits": [], "searchable": False}
    stub.on("POST", "/threads/search", json_reply(200, {"hits": []}, {"X-Offprompt-Searchable": "true"}))
    assert api.search_threads("q", consistency="search") == {"hits": [], "searchable": True}
    stub.on("POST", "/threads/search", json_reply(422, {"code": "schema_invalid", "message": "query: too long"}))
    with pytest.raises(OffpromptClientError) as refused:
        api.search_threads("q" * 3000)
    assert (refused.value.status, refused.value.code) == (422, "schema_invalid")


def test_delete_with_204_returns_none(stub: Stub) -> None:
    stub.on("DELETE", "/threads/t", (204, {}, b""))
    assert OffpromptClient(stub.url).delete_thread("t") is None


def test_importing_the_client_does_no_work_and_needs_no_aws_sdk() -> None:
    code = (
        "import sys, offprompt_client; "
        "bad = sorted(m for m in ('boto3', 'botocore', 'pydantic', 'offprompt', 'griptape') if m in sys.modules); "
        "assert not bad, bad"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "clients" / "python" / "src")}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=60)


def test_connect_takes_the_environment_and_lets_arguments_win(monkeypatch: pytest.MonkeyPatch) -> None:
    """OffpromptClient.connect: the framework doors' one way to build a client (OpenAI/Strands sessions, the LangGraph
    store, the Griptape drivers)."""
    from offprompt_client.client import LOCAL_URL, OffpromptClient

    monkeypatch.delenv("OFFPROMPT_API_URL", raising=False)
    monkeypatch.delenv("OFFPROMPT_API_KEY", raising=False)
    bare = OffpromptClient.connect()
    assert bare.base_url == LOCAL_URL and "Authorization" not in bare.headers

    monkeypatch.setenv("OFFPROMPT_API_URL", "https://env.example/")
    monkeypatch.setenv("OFFPROMPT_API_KEY", "op_env_secret")
    from_env = OffpromptClient.connect(tenant="t1", timeout=3.0)
    assert from_env.base_url == "https://env.example"
    assert from_env.headers["Authorization"] == "Bearer op_env_secret"
    assert from_env.timeout == 3.0 and "t1" in from_env.headers.values()

    explicit = OffpromptClient.connect("https://arg.example", api_key="")
    assert explicit.base_url == "https://arg.example" and "Authorization" not in explicit.headers


def test_load_artifacts_passes_the_reference_its_store_answered(stub: Stub) -> None:
    """ADR 0053: the client keeps each store's X-Offprompt-Ref and sends it with that namespace's load (a
    shortcut only: the API answers any ref as a load by name); a namespace deleted through it forgets it."""
    info = {"type": "InfoArtifact", "id": "i", "reference": None, "meta": {}, "name": "ns 1", "value": "stored"}
    listing = {"type": "ListArtifact", "id": "x", "reference": None, "meta": {}, "name": "x", "value": []}
    stub.on("POST", "/memories/m/outputs", json_reply(200, info, {"X-Offprompt-Ref": "b1." + "a" * 32 + ".1.3"}))
    stub.on("GET", "/memories/m/namespaces/ns%201/artifacts?ref=b1." + "a" * 32 + ".1.3", json_reply(200, listing))
    stub.on("GET", "/memories/m/namespaces/ns%201/artifacts", json_reply(200, listing))
    stub.on("GET", "/memories/m/namespaces/other/artifacts", json_reply(200, listing))
    stub.on("DELETE", "/memories/m/namespaces/ns%201", (204, {}, b""))
    api = OffpromptClient(stub.url)
    api.process_output("m", "T", "a", {"type": "BlobArtifact", "value": "YWJj", "name": "ns 1"}, raw=True)
    assert api.load_artifacts("m", "ns 1", raw=True) == listing
    assert api.load_artifacts("m", "other", raw=True) == listing
    api.delete_namespace("m", "ns 1")
    api.load_artifacts("m", "ns 1", raw=True)
    paths = [s.path for s in stub.seen if s.method == "GET"]
    assert paths == [
        "/memories/m/namespaces/ns%201/artifacts?ref=b1." + "a" * 32 + ".1.3",
        "/memories/m/namespaces/other/artifacts",
        "/memories/m/namespaces/ns%201/artifacts",
    ]
