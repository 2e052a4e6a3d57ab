"""The dev server's front door (issue 30, items 5 and 6; docs/adr/0044-front-door.md), over real HTTP.

- Only the developer's own programs and pages: a foreign `Host` (DNS rebinding) is a 421 `host_refused`, a foreign
  `Origin` (any web page) a 403 `origin_refused`, and neither reaches a function; the server's own origins (the
  console it serves) and requests without an Origin (every non-browser client) go on.
- A body that is not JSON by its Content-Type is a 415 `unsupported_media_type` on every JSON route (a `text/plain`
  POST is what a web page can send without a CORS preflight), `/mcp` too; nothing is written.
- NaN, Infinity and numbers too large for a double (1e400) are not JSON: 422 `schema_invalid` on every route and MCP
  tool, nothing stored, and no answer ever holds a bare `NaN`.

The first part runs the dev server in-process with a recording handler (no AWS); the second the whole local stack
(`python -m offprompt_local.stack`, what `make dev` runs).
"""

from __future__ import annotations

import http.client
import json
import socket
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from test_local_stack import RunningStack, stack  # noqa: F401  (the stack subprocess, one per module)

from offprompt_local.devserver import DevServer
from offprompt_local.routes import functions

RUN = {"input": {"type": "TextArtifact", "value": "q"}, "output": {"type": "TextArtifact", "value": "a"}}


class Recorder:
    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, event: dict[str, Any], context: Any) -> Any:
        self.calls += 1
        return {"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": "{}"}


def send(
    host: str, port: int, method: str, path: str, headers: dict[str, str], body: bytes | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One request with exactly these headers (`Host` too: http.client's own is skipped)."""
    conn = http.client.HTTPConnection(host, port, timeout=60)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in headers.items():
            conn.putheader(name, value)
        data = body or b""
        if body is not None:
            conn.putheader("Content-Length", str(len(data)))
        conn.endheaders(data if body is not None else None)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


# ---- the dev server alone ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def recorded() -> Iterator[tuple[DevServer, Recorder]]:
    recorder = Recorder()
    dev = DevServer("127.0.0.1", 0, handlers=dict.fromkeys(functions(), recorder), log=lambda line: None)
    dev.start()
    yield dev, recorder
    dev.stop()


def own(dev: DevServer) -> tuple[str, int]:
    host, port = dev.server_address[:2]
    return str(host), int(port)


@pytest.mark.parametrize(
    "origin",
    ["https://evil.example", "http://evil.example", "null", "http://127.0.0.1", "http://127.0.0.1:1", "file://"],
)
def test_a_foreign_origin_is_refused_before_any_function(recorded: tuple[DevServer, Recorder], origin: str) -> None:
    dev, recorder = recorded
    host, port = own(dev)
    before = recorder.calls
    for method, path in [("POST", "/threads/t/runs"), ("POST", "/mcp"), ("GET", "/threads/t/runs")]:
        status, headers, body = send(
            host, port, method, path, {"Host": f"{host}:{port}", "Origin": origin, "Content-Type": "text/plain"}, b"{}"
        )
        assert status == 403, (origin, method, path, status, body)
        assert headers["content-type"] == "application/json"
        assert json.loads(body)["code"] == "origin_refused"
    assert recorder.calls == before


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "LOCALHOST", "[::1]"])
def test_the_servers_own_origins_and_no_origin_go_on(recorded: tuple[DevServer, Recorder], name: str) -> None:
    dev, recorder = recorded
    host, port = own(dev)
    before = recorder.calls
    status, _, body = send(
        host, port, "POST", "/threads/t/runs", {"Host": f"{name}:{port}", "Origin": f"http://{name}:{port}"}, b"{}"
    )
    assert status == 200, body
    status, _, body = send(host, port, "POST", "/threads/t/runs", {"Host": f"{name}:{port}"}, b"{}")
    assert status == 200, body
    assert recorder.calls == before + 2


@pytest.mark.parametrize(
    "host_header", ["evil.example", "evil.example:{port}", "127.0.0.1:1", "127.0.0.1", "localhost.evil.example:{port}"]
)
def test_a_foreign_host_is_refused_dns_rebinding(recorded: tuple[DevServer, Recorder], host_header: str) -> None:
    dev, recorder = recorded
    host, port = own(dev)
    before = recorder.calls
    value = host_header.format(port=port)
    for method, path in [("GET", "/threads/t/runs"), ("GET", "/docs"), ("POST", "/mcp")]:
        # a rebound page's own origin agrees with its Host: both are foreign
        status, _, body = send(host, port, method, path, {"Host": value, "Origin": f"http://{value}"}, b"{}")
        assert status == 421, (value, method, path, status, body)
        assert json.loads(body)["code"] == "host_refused"
    status, _, body = send(host, port, "GET", "/threads/t/runs", {"Host": value})
    assert status == 421 and json.loads(body)["code"] == "host_refused"
    assert recorder.calls == before


def test_two_host_headers_are_refused(recorded: tuple[DevServer, Recorder]) -> None:
    dev, _ = recorded
    host, port = own(dev)
    with socket.create_connection((host, port), timeout=30) as sock:
        sock.sendall(
            f"GET /threads/t/runs HTTP/1.1\r\nHost: {host}:{port}\r\nHost: evil.example\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        response = http.client.HTTPResponse(sock)
        response.begin()
        assert response.status == 421


def test_a_host_the_server_was_told_to_bind_is_its_own() -> None:
    recorder = Recorder()
    dev = DevServer("127.0.0.2", 0, handlers=dict.fromkeys(functions(), recorder), log=lambda line: None)
    dev.start()
    try:
        host, port = own(dev)
        headers = {"Host": f"127.0.0.2:{port}", "Origin": f"http://127.0.0.2:{port}"}
        assert send(host, port, "GET", "/threads/t/runs", headers)[0] == 200
        assert send(host, port, "GET", "/threads/t/runs", {"Host": f"localhost:{port}"})[0] == 200
        assert send(host, port, "GET", "/threads/t/runs", {"Host": f"127.0.0.3:{port}"})[0] == 421
    finally:
        dev.stop()


# ---- the whole local stack -------------------------------------------------------------------------------------


def address(running: RunningStack) -> tuple[str, int]:
    host, _, port = running.url.removeprefix("http://").rpartition(":")
    return host, int(port)


def request(
    running: RunningStack,
    method: str,
    path: str,
    body: bytes | None = None,
    *,
    content_type: str | None = "application/json",
    tenant: str = "local",
    **extra: str,
) -> tuple[int, Any]:
    host, port = address(running)
    headers = {
        "Host": f"{host}:{port}",
        "X-Offprompt-Tenant": tenant,
        **{k.replace("_", "-"): v for k, v in extra.items()},
    }
    if content_type is not None:
        headers["Content-Type"] = content_type
    status, _, raw = send(host, port, method, path, headers, body)
    return status, strict_json(raw) if raw else None


def strict_json(raw: bytes) -> Any:
    """JSON as RFC 8259 has it (and JSON.parse in the console): a bare NaN or Infinity is an error."""

    def refuse(word: str) -> Any:
        raise AssertionError(f"the answer holds a bare {word}: {raw[:300]!r}")

    return json.loads(raw, parse_constant=refuse)


def no_runs(running: RunningStack, thread: str) -> bool:
    status, body = request(running, "GET", f"/threads/{thread}/runs", content_type=None)
    return status == 404 or (status == 200 and body["runs"] == [])


#: Stands for a number JSON cannot hold in a body built with `with_number`.
N = "__NUMBER__"


def with_number(value: Any, number: str) -> str:
    """`value` as JSON text with each `N` replaced by the bare `number` (`NaN`, `1e400`: json.dumps cannot write
    them all)."""
    return json.dumps(value).replace(json.dumps(N), number)


def mcp_call(name: str, arguments: dict[str, Any], number: str = "0") -> bytes:
    """A tools/call message; `N` in `arguments` becomes `number`."""
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
    return with_number(message, number).encode()


MCP_HEADERS = {"Accept": "application/json, text/event-stream", "MCP_Protocol_Version": "2025-11-25"}


@pytest.mark.slow
@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain;charset=UTF-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonx",
        "application/json-patch",
        "text/json",
    ],
)
def test_a_body_that_is_not_json_by_its_content_type_is_a_415(
    stack: RunningStack,  # noqa: F811
    content_type: str,
) -> None:
    """What a web page can send without a preflight: nothing is written, no tool runs."""
    thread = f"ct-{uuid.uuid4().hex[:8]}"
    status, body = request(
        stack, "POST", f"/threads/{thread}/runs", json.dumps(RUN).encode(), content_type=content_type
    )
    assert (status, body["code"]) == (415, "unsupported_media_type"), body
    status, body = request(stack, "PUT", f"/records/ct/{thread}", b'{"value": 1}', content_type=content_type)
    assert (status, body["code"]) == (415, "unsupported_media_type"), body
    remember = mcp_call("remember", {"namespace": ["ct"], "key": thread, "value": "x"})
    status, body = request(stack, "POST", "/mcp", remember, content_type=content_type, **MCP_HEADERS)
    assert status == 415, body
    append = mcp_call("append_turn", {"thread_id": thread, "input": "q", "output": "a"})
    assert request(stack, "POST", "/mcp", append, content_type=content_type, **MCP_HEADERS)[0] == 415
    assert no_runs(stack, thread)
    assert request(stack, "GET", f"/records/ct/{thread}", content_type=None)[0] == 404


@pytest.mark.slow
@pytest.mark.parametrize(
    "content_type",
    [
        "application/json",
        "application/json; charset=utf-8",
        "Application/JSON;charset=UTF-8",
        "application/vnd.api+json",
        None,
    ],
)
def test_json_content_types_and_none_go_on(stack: RunningStack, content_type: str | None) -> None:  # noqa: F811
    thread = f"ok-{uuid.uuid4().hex[:8]}"
    status, body = request(
        stack, "POST", f"/threads/{thread}/runs", json.dumps(RUN).encode(), content_type=content_type
    )
    assert status == 201, body
    append = mcp_call("append_turn", {"thread_id": f"{thread}-m", "input": "q", "output": "a"})
    status, body = request(stack, "POST", "/mcp", append, content_type=content_type, **MCP_HEADERS)
    assert status == 200 and body["result"]["isError"] is False, body


@pytest.mark.slow
def test_a_cross_site_page_can_neither_write_nor_read(stack: RunningStack) -> None:  # noqa: F811
    host, port = address(stack)
    thread = f"xs-{uuid.uuid4().hex[:8]}"
    run = json.dumps(RUN).encode()
    status, body = request(stack, "POST", f"/threads/{thread}/runs", run, Origin="https://evil.example")
    assert (status, body["code"]) == (403, "origin_refused")
    append = mcp_call("append_turn", {"thread_id": thread, "input": "q", "output": "a"})
    status, body = request(stack, "POST", "/mcp", append, Origin="https://evil.example", **MCP_HEADERS)
    assert (status, body["code"]) == (403, "origin_refused")
    assert no_runs(stack, thread)
    # the console's own origin writes; a rebound name reads nothing back
    status, _ = request(stack, "POST", f"/threads/{thread}/runs", run, Origin=f"http://{host}:{port}")
    assert status == 201
    status, _ = request(stack, "POST", "/mcp", append, Origin=f"http://localhost:{port}", **MCP_HEADERS)
    assert status == 200
    status, _, raw = send(host, port, "GET", f"/threads/{thread}/runs", {"Host": f"evil.example:{port}"})
    assert (status, json.loads(raw)["code"]) == (421, "host_refused")


# ---- NaN, Infinity, 1e400 ----------------------------------------------------------------------------------------

NOT_JSON_NUMBERS = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"]


def bodies(n: str, key: str) -> list[tuple[str, str, str]]:
    """(method, path, body) for every JSON body that takes a free-form value, with the number `n` in it."""
    run = {"input": {"type": "TextArtifact", "value": "q"}, "output": {"type": "TextArtifact", "value": "a"}}
    checkpoint = {"checkpoint_ns": "", "checkpoint": {"type": "json", "data": "e30="}, "metadata": {"step": N}}
    cases: list[tuple[str, str, Any]] = [
        ("PUT", f"/records/nan/{key}", {"value": {"x": N}}),
        ("PUT", f"/records/nan/{key}-b", {"value": N}),
        ("POST", "/records/search", {"namespace_prefix": ["nan"], "filter": {"x": {"$gte": N}}}),
        ("POST", f"/threads/{key}/items", {"items": [{"role": "user", "content": "x", "n": N}]}),
        ("POST", f"/threads/{key}/runs", {"meta": {"n": N}, **run}),
        (
            "POST",
            "/memories/m/outputs",
            {"tool": "T", "activity": "a", "artifact": {"type": "JsonArtifact", "value": N}},
        ),
        ("PUT", f"/checkpoint-threads/{key}/checkpoints/c1", checkpoint),
        ("POST", f"/checkpoint-threads/{key}/checkpoints/list", {"filter": {"step": N}}),
        ("POST", "/api/threads", {"name": "x", "alias": key, "metadata": {"n": N}}),
        ("PUT", f"/threads/{key}-c", {"max_runs": N}),
    ]
    return [(method, path, with_number(body, n)) for method, path, body in cases]


@pytest.mark.slow
@pytest.mark.parametrize("number", NOT_JSON_NUMBERS)
def test_numbers_json_cannot_hold_are_a_422_on_every_route(stack: RunningStack, number: str) -> None:  # noqa: F811
    key = f"n{uuid.uuid4().hex[:8]}"
    for method, path, body in bodies(number, key):
        status, answer = request(stack, method, path, body.encode())
        assert status == 422 and answer["code"] == "schema_invalid", (method, path, status, answer)
        assert answer["details"] and answer["details"][0]["type"] == "finite_number", answer
    for path in (f"/records/nan/{key}", f"/records/nan/{key}-b", f"/threads/{key}/items", f"/threads/{key}/runs"):
        status, answer = request(stack, "GET", path, content_type=None)
        assert status == 404 or answer.get("items") == [] or answer.get("runs") == [], (path, answer)
    assert request(stack, "GET", "/api/threads?alias=" + key, content_type=None)[1]["threads"] == []
    assert request(stack, "GET", f"/checkpoint-threads/{key}/checkpoint", content_type=None)[0] == 404


@pytest.mark.slow
@pytest.mark.parametrize("number", NOT_JSON_NUMBERS)
def test_numbers_json_cannot_hold_are_a_422_in_every_mcp_tool(stack: RunningStack, number: str) -> None:  # noqa: F811
    key = f"m{uuid.uuid4().hex[:8]}"
    for name, arguments in [
        ("remember", {"namespace": ["nan"], "key": key, "value": {"x": N}}),
        ("recall", {"namespace_prefix": ["nan"], "filter": {"x": N}}),
        ("get_recent_turns", {"thread_id": key, "limit": N}),
        ("get_context", {"thread_id": key, "max_tokens": N}),
    ]:
        status, answer = request(stack, "POST", "/mcp", mcp_call(name, arguments, number), **MCP_HEADERS)
        assert status == 200, answer
        result = answer["result"]
        assert result["isError"] is True, (name, result)
        assert result["structuredContent"]["code"] == "schema_invalid", (name, result)
        assert result["structuredContent"]["status"] == 422
    assert request(stack, "GET", f"/records/nan/{key}", content_type=None)[0] == 404
