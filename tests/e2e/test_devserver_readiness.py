"""The API accepts connections only when it can answer them: `make dev` binds its port first (a taken port fails
at once) but listens only once the whole stack is ready, so an early connection is refused instead of hanging;
and a client that goes away early is one log line, never a traceback."""

from __future__ import annotations

import errno
import json
import socket
import struct
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from stack_process import StackProcess, call

from offprompt_local.devserver import DevServer
from offprompt_local.routes import functions
from offprompt_local.stack import LocalStack, StackError


def get(address: tuple[str, int], timeout: float) -> bytes:
    """GET over a fresh connection; raises ConnectionRefusedError when nothing listens, TimeoutError on a hang."""
    with socket.create_connection(address, timeout=timeout) as sock:
        host = f"{address[0]}:{address[1]}".encode()  # the server's own (a foreign Host is a 421: ADR 0044)
        sock.sendall(b"GET /threads/t/runs HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        return data


def ok(event: dict[str, Any], context: Any) -> Any:
    return {"statusCode": 200, "body": "{}"}


def test_a_bound_server_refuses_connections_until_it_listens() -> None:
    dev = DevServer("127.0.0.1", 0, handlers=dict.fromkeys(functions(), ok), log=lambda line: None, listen=False)
    try:
        address = (str(dev.server_address[0]), int(dev.server_address[1]))
        with pytest.raises(ConnectionRefusedError):
            get(address, timeout=2)
        dev.activate()
        dev.start()
        assert get(address, timeout=10).startswith(b"HTTP/1.1 200 ")
        with pytest.raises(OSError) as taken:  # a listening server keeps its port: the next one fails at once
            DevServer("127.0.0.1", address[1], handlers={}, log=lambda line: None, listen=False)
        assert taken.value.errno == errno.EADDRINUSE
    finally:
        dev.stop()


def test_a_port_taken_between_bind_and_listen_is_the_port_in_use_error() -> None:
    """Two stacks booting at once can both bind the port (SO_REUSEADDR, needed to restart past TIME_WAIT); the
    one that listens second fails with the same message as a taken port, before it says it is ready."""
    stack = LocalStack(api_port=0, log=lambda line: None)
    try:
        stack._bind_api()
        assert stack._server is not None
        port = int(stack._server.server_address[1])
        other = socket.socket()
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        other.bind(("127.0.0.1", port))
        other.listen(1)
        try:
            with pytest.raises(StackError, match=rf"port {port} on 127.0.0.1 is already in use"):
                stack._listen()
        finally:
            other.close()
    finally:
        stack.stop()


def test_the_stack_refuses_connections_until_it_is_ready(tmp_path: Path, opensearch_url: str) -> None:
    """Every connection made while the stack boots is refused or answered, never left hanging; after `ready`
    every one is answered, and the log has no traceback."""
    index = f"offprompt-ready-{uuid.uuid4().hex[:12]}"
    with StackProcess(tmp_path / "data", opensearch_url=opensearch_url, index=index) as stack:
        bound = stack.wait_for(r"^\[stack\] API port bound: http://([\d.]+):(\d+)", 120)
        address = (bound.group(1), int(bound.group(2)))
        outcomes: list[str] = []
        while not any(line.startswith("[stack] ready: ") for line in stack.lines) and stack.process.poll() is None:
            try:
                outcomes.append("answered" if get(address, timeout=3).startswith(b"HTTP/1.1 ") else "broken")
            except ConnectionRefusedError:
                outcomes.append("refused")
            except (TimeoutError, ConnectionError) as exc:
                outcomes.append(f"hung ({type(exc).__name__})")
            time.sleep(0.05)
        url = stack.wait_ready(5)
        assert "refused" in outcomes, outcomes  # it was probed while booting
        assert set(outcomes) <= {"refused", "answered"}, outcomes
        assert call(url, "GET", "/threads/t/runs")[0] == 200
    assert not [line for line in stack.lines if "Traceback" in line or "BrokenPipeError" in line], stack.output()


# ------------------------------------------------------------------------------------- early disconnects


def rst_close(sock: socket.socket) -> None:
    """Close with a reset (SO_LINGER 0), as a client that gives up does: the server's next write fails."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


@pytest.fixture
def slow_server() -> Iterator[tuple[DevServer, list[str], threading.Event]]:
    lines: list[str] = []
    answered = threading.Event()

    def slow(event: dict[str, Any], context: Any) -> Any:
        time.sleep(0.3)
        answered.set()
        return {"statusCode": 200, "body": json.dumps({"value": "x" * 200_000})}

    dev = DevServer("127.0.0.1", 0, handlers=dict.fromkeys(functions(), slow), log=lines.append)
    dev.start()
    yield dev, lines, answered
    dev.stop()


def wait_for_line(lines: list[str], text: str, timeout: float = 10) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [line for line in lines if text in line]
        if found:
            return found[0]
        time.sleep(0.02)
    raise AssertionError(f"no log line with {text!r}: {lines}")


@pytest.mark.parametrize(
    ("request_bytes", "runs"),
    [
        (b"GET /threads/t/runs HTTP/1.1\r\nHost: HOST\r\n\r\n", True),  # gone while the function runs
        (b'POST /threads/t/runs HTTP/1.1\r\nHost: HOST\r\nContent-Length: 1000\r\n\r\n{"a":', False),  # mid-body
    ],
    ids=["before-the-response", "in-the-middle-of-its-body"],
)
def test_a_client_gone_early_is_a_log_line_not_a_traceback(
    slow_server: tuple[DevServer, list[str], threading.Event],
    capfd: pytest.CaptureFixture[str],
    request_bytes: bytes,
    runs: bool,
) -> None:
    dev, lines, answered = slow_server
    sock = socket.create_connection(dev.server_address[:2], timeout=10)
    host = "{}:{}".format(*dev.server_address[:2]).encode()  # the server's own (a foreign Host is a 421: ADR 0044)
    sock.sendall(request_bytes.replace(b"HOST", host))
    time.sleep(0.05)
    rst_close(sock)
    line = wait_for_line(lines, "client disconnected")
    assert line.startswith(request_bytes.split(b" HTTP/")[0].decode() + " -> "), line
    time.sleep(0.5)
    captured = capfd.readouterr()
    assert "Traceback" not in captured.err + captured.out, captured.err
    assert answered.is_set() is runs  # a request cut off in its body never reaches the function
