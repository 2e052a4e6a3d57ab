"""The dev server against clients that misbehave, over raw sockets: idle keep-alive connections are closed, a
slow header or body is cut off with 408, malformed framing is a 400 that closes the connection without running
the function, and connections past the cap get a 503 (offprompt_local.devserver's docstring has the values).

The servers here run with timeouts of half a second instead of the defaults, so the tests take seconds.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from offprompt_local import devserver
from offprompt_local.devserver import DevServer
from offprompt_local.routes import functions

SHORT = 0.5
#: How long past a timeout the server may take to act on it (a loaded 2-core machine).
SLACK = 2.5


class Counter:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def __call__(self, event: dict[str, Any], context: Any) -> Any:
        with self.lock:
            self.events.append(event)
        return {"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": json.dumps({"ok": True})}


@dataclass
class Served:
    server: DevServer
    calls: Counter
    lines: list[str]

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.server.server_address[:2]
        return str(host), int(port)

    def connect(self, timeout: float = 10) -> socket.socket:
        return socket.create_connection(self.address, timeout=timeout)


@pytest.fixture
def served() -> Iterator[Served]:
    calls, lines = Counter(), []
    server = DevServer("127.0.0.1", 0, handlers=dict.fromkeys(functions(), calls), log=lines.append)
    server.header_timeout = server.body_timeout = server.idle_timeout = SHORT
    server.start()
    yield Served(server, calls, lines)
    server.stop()


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes


def read_response(sock: socket.socket) -> Response | None:
    """One response from `sock`, or None when the server closed the connection without one."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return Response(int(status_line.split()[1]), headers, body[:length])


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes `sock` (EOF) within `seconds`; anything else it sends is read and dropped."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            if not sock.recv(65536):
                return True
        except TimeoutError:
            return False
        except ConnectionResetError:
            return True
    return False


#: Raw requests here carry no Host (the dev server refuses a foreign one, and these know no port: ADR 0044).
REQUEST = b"POST /threads/t/runs HTTP/1.1\r\nContent-Type: application/json\r\n"


def test_idle_keep_alive_connections_are_closed(served: Served) -> None:
    connections = [served.connect() for _ in range(20)]
    try:
        for sock in connections:
            sock.sendall(b"GET /threads/t/runs HTTP/1.1\r\n\r\n")
            response = read_response(sock)
            assert response is not None and response.status == 200
            assert response.headers.get("connection", "keep-alive").lower() != "close"
        assert all(closed_within(sock, SHORT + SLACK) for sock in connections)
    finally:
        for sock in connections:
            sock.close()


def test_a_connection_that_never_sends_a_request_is_closed(served: Served) -> None:
    with served.connect() as sock:
        assert closed_within(sock, SHORT + SLACK)


def trickle(sock: socket.socket, piece: bytes, seconds: float) -> None:
    """Send `piece` every 0.1 s until the server answers or closes, or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            sock.sendall(piece)
        except (BrokenPipeError, ConnectionResetError):
            return
        if select.select([sock], [], [], 0.1)[0]:
            return


@pytest.mark.parametrize(
    ("start", "piece"),
    [(REQUEST, b"X-Slow: 1\r\n"), (b"POST /threads/t/ru", b"n")],
    ids=["header-lines", "request-line"],
)
def test_a_slow_header_is_cut_off_with_408(served: Served, start: bytes, piece: bytes) -> None:
    with served.connect() as sock:
        sock.sendall(start)
        trickle(sock, piece, SHORT + SLACK)  # never the blank line that ends the headers
        response = read_response(sock)
        assert response is not None and response.status == 408, response
        assert json.loads(response.body)["code"] == "request_timeout"
        assert response.headers["connection"] == "close"
        assert closed_within(sock, SLACK)
    assert served.calls.events == []


def test_a_slow_body_is_cut_off_with_408(served: Served) -> None:
    with served.connect() as sock:
        sock.sendall(REQUEST + b"Content-Length: 100\r\n\r\n")
        trickle(sock, b"x", SHORT + SLACK)
        response = read_response(sock)
        assert response is not None and response.status == 408, response
        assert json.loads(response.body)["code"] == "request_timeout"
        assert closed_within(sock, SLACK)
    assert served.calls.events == []


MALFORMED = {
    "negative-length": b"Content-Length: -1\r\n\r\n{}",
    "non-numeric-length": b"Content-Length: abc\r\n\r\n{}",
    "signed-length": b"Content-Length: +2\r\n\r\n{}",
    "spaced-digits": b"Content-Length: 1 2\r\n\r\n{}",
    "conflicting-lengths": b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{} ",
    "conflicting-length-list": b"Content-Length: 2, 3\r\n\r\n{} ",
    "chunked-and-length": b"Transfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    "unsupported-coding": b"Transfer-Encoding: gzip\r\n\r\n{}",
    "coding-after-chunked": b"Transfer-Encoding: chunked, gzip\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    "chunked-twice": b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    "negative-chunk": b"Transfer-Encoding: chunked\r\n\r\n-2\r\n{}\r\n0\r\n\r\n",
    "non-hex-chunk": b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    "chunk-without-crlf": b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}XX0\r\n\r\n",
    "body-shorter-than-length": b"Content-Length: 50\r\n\r\n{}",
    "chunked-body-cut-off": b"Transfer-Encoding: chunked\r\n\r\n20\r\n{}",
}


@pytest.mark.parametrize("framing", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_framing_is_400_and_closes_the_connection(served: Served, framing: bytes) -> None:
    with served.connect() as sock:
        sock.sendall(REQUEST + framing)
        sock.shutdown(socket.SHUT_WR)  # a client that sent everything it had
        response = read_response(sock)
        assert response is not None and response.status == 400, response
        assert json.loads(response.body)["code"] == "bad_request"
        assert response.headers["connection"] == "close"
        assert closed_within(sock, SLACK)
    assert served.calls.events == []  # the function never ran


@pytest.mark.parametrize(
    "framing",
    [
        b"Content-Length: 2\r\n\r\n{}",
        b"Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}",  # repeated with the same value: one length
        b"Content-Length: 002\r\n\r\n{}",
        b"Transfer-Encoding: chunked\r\n\r\n2;ext=1\r\n{}\r\n0\r\nX-Trailer: 1\r\n\r\n",
        b"Transfer-Encoding: Chunked\r\n\r\n1\r\n{\r\n1\r\n}\r\n0\r\n\r\n",
    ],
    ids=["length", "same-length-twice", "leading-zeros", "chunked-with-extension-and-trailer", "mixed-case-chunked"],
)
def test_well_formed_framing_is_served_on_a_kept_connection(served: Served, framing: bytes) -> None:
    with served.connect() as sock:
        for _ in range(2):  # the same connection serves the next request: the body was read exactly
            sock.sendall(REQUEST + framing)
            response = read_response(sock)
            assert response is not None and response.status == 200, response
    assert [event["body"] for event in served.calls.events] == ["{}", "{}"]


def test_a_method_that_is_not_a_plain_token_is_http_servers_501(served: Served) -> None:
    with served.connect() as sock:
        sock.sendall(b"M-SEARCH /threads/t/runs HTTP/1.1\r\n\r\n")
        response = read_response(sock)
        assert response is not None and response.status == 501
    assert served.calls.events == []


def test_connections_past_the_cap_get_a_503_and_the_others_are_served(served: Served) -> None:
    served.server.max_connections = 4
    served.server.idle_timeout = 60  # the held connections stay open
    held = [served.connect() for _ in range(4)]
    try:
        for sock in held:  # each is being served (a request in flight keeps its slot)
            sock.sendall(b"GET /threads/t/runs HTTP/1.1\r\n\r\n")
            assert (response := read_response(sock)) is not None and response.status == 200
        with served.connect() as extra:
            response = read_response(extra)
            assert response is not None and response.status == 503, response
            assert json.loads(response.body)["code"] == "too_many_connections"
            assert response.headers["connection"] == "close" and response.headers["retry-after"] == "1"
        held.pop().close()
        deadline = time.monotonic() + SLACK
        while True:  # the slot is given back once the server sees the close
            with served.connect() as again:
                again.sendall(b"GET /threads/t/runs HTTP/1.1\r\n\r\n")
                response = read_response(again)
            if response is not None and response.status == 200:
                break
            assert time.monotonic() < deadline, "the slot of a closed connection was not given back"
            time.sleep(0.05)
    finally:
        for sock in held:
            sock.close()


def test_the_defaults_are_the_documented_ones() -> None:
    server = DevServer("127.0.0.1", 0, handlers={}, log=lambda line: None)
    try:
        assert server.header_timeout == devserver.HEADER_TIMEOUT_S
        assert server.body_timeout == devserver.BODY_TIMEOUT_S
        assert server.idle_timeout == devserver.IDLE_TIMEOUT_S
        assert server.max_connections == devserver.MAX_CONNECTIONS
    finally:
        server.server_close()
    doc = devserver.__doc__ or ""
    for value, what in (
        (devserver.HEADER_TIMEOUT_S, "header"),
        (devserver.BODY_TIMEOUT_S, "body"),
        (devserver.IDLE_TIMEOUT_S, "idle"),
    ):
        assert f"{value:g} s" in doc, f"the module docstring does not state the {what} timeout"
    assert f"{devserver.MAX_CONNECTIONS} connections" in doc
    readme = (Path(__file__).resolve().parents[2] / "docs" / "local-stack.md").read_text(encoding="utf-8")
    stated = (
        f"headers must arrive within {devserver.HEADER_TIMEOUT_S:g} s",
        f"body within {devserver.BODY_TIMEOUT_S:g} s",
        f"idle for {devserver.IDLE_TIMEOUT_S:g} s",
        f"at most {devserver.MAX_CONNECTIONS} connections",
    )
    assert all(" ".join(phrase.split()) in " ".join(readme.split()) for phrase in stated), (
        "docs/local-stack.md's values differ"
    )
