"""The substrate's HTTP server keeps a connection for the next request, as AWS's endpoints do (werkzeug's closed
every connection after one response: each AWS call paid a connect and a server thread), and a kept connection
never carries a request to the wrong place: a body the application did not read is not taken for the next request,
a chunked body is read whole, and a stopped server's kept connections end."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator

import pytest

from offprompt_local.substrate.server import AtomicMotoServer

LIST_TABLES = {"X-Amz-Target": "DynamoDB_20120810.ListTables", "Content-Type": "application/x-amz-json-1.0"}
AUTH = {"Authorization": "AWS4-HMAC-SHA256 Credential=x/20260101/us-east-1/dynamodb/aws4_request"}


@pytest.fixture
def server() -> Iterator[AtomicMotoServer]:
    running = AtomicMotoServer("127.0.0.1", 0)
    running.start()
    try:
        yield running
    finally:
        running.stop()


def _list_tables(conn: http.client.HTTPConnection) -> dict[str, object]:
    conn.request("POST", "/", body=b"{}", headers={**LIST_TABLES, **AUTH})
    response = conn.getresponse()
    body = response.read()
    assert response.status == 200, body
    assert response.getheader("Connection") != "close"
    parsed: dict[str, object] = json.loads(body)
    return parsed


def test_one_connection_carries_many_requests(server: AtomicMotoServer) -> None:
    conn = http.client.HTTPConnection(*server.get_host_and_port(), timeout=10)
    conn.connect()
    sock = conn.sock
    for _ in range(5):
        assert _list_tables(conn) == {"TableNames": []}
        assert conn.sock is sock, "the server closed the connection"
    conn.close()


def test_a_body_the_application_does_not_read_is_not_taken_for_the_next_request(server: AtomicMotoServer) -> None:
    conn = http.client.HTTPConnection(*server.get_host_and_port(), timeout=10)
    # moto's own API answers GET /moto-api/ without reading a body; 64 KiB of it must not become a request line
    conn.request("GET", "/moto-api/", body=b"GET / HTTP/1.1\r\n" + b"x" * 65_536)
    conn.getresponse().read()
    assert _list_tables(conn) == {"TableNames": []}
    conn.close()


def test_a_chunked_body_is_read_whole(server: AtomicMotoServer) -> None:
    conn = http.client.HTTPConnection(*server.get_host_and_port(), timeout=10)
    body = json.dumps(
        {
            "TableName": "chunked",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "BillingMode": "PAY_PER_REQUEST",
        }
    ).encode()
    target = {**LIST_TABLES, "X-Amz-Target": "DynamoDB_20120810.CreateTable", **AUTH}
    conn.request("POST", "/", body=iter([body[:10], body[10:]]), headers=target, encode_chunked=True)
    response = conn.getresponse()
    assert response.status == 200, response.read()
    response.read()
    assert _list_tables(conn) == {"TableNames": ["chunked"]}
    conn.close()


def test_a_stopped_server_ends_its_kept_connections() -> None:
    server = AtomicMotoServer("127.0.0.1", 0)
    server.start()
    conn = http.client.HTTPConnection(*server.get_host_and_port(), timeout=10)
    _list_tables(conn)
    server.stop()
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError, http.client.BadStatusLine)):
        _list_tables(conn)
    conn.close()


def _read_head(sock: socket.socket) -> bytes:
    data = b""
    while not data.endswith(b"\r\n\r\n"):
        byte = sock.recv(1)
        assert byte, f"the connection ended after {data!r}"
        data += byte
    return data


def _read_answer(sock: socket.socket) -> tuple[bytes, bytes]:
    """The next answer's head and body (by its Content-Length), nothing more read from the socket."""
    head = _read_head(sock)
    lines = head.lower().split(b"\r\n")
    length = next((int(line.split(b":")[1]) for line in lines if line.startswith(b"content-length:")), 0)
    body = b""
    while len(body) < length:
        body += sock.recv(length - len(body))
    return head, body


def test_a_request_expecting_100_continue_gets_one_interim_answer_then_its_own(server: AtomicMotoServer) -> None:
    """botocore sends S3 uploads with `Expect: 100-continue` and waits for the 100 before the body; the server
    says it once (http.server's `handle_expect_100`), not once more before the answer."""
    head = "\r\n".join(
        ["POST / HTTP/1.1", "Host: substrate", "Expect: 100-continue", "Content-Length: 2"]
        + [f"{name}: {value}" for name, value in {**LIST_TABLES, **AUTH}.items()]
    ).encode()
    with socket.create_connection(server.get_host_and_port(), timeout=10) as sock:
        for _ in range(2):  # the second on the same connection: the first answer was read whole
            sock.sendall(head + b"\r\n\r\n")
            assert _read_head(sock) == b"HTTP/1.1 100 Continue\r\n\r\n"
            sock.sendall(b"{}")
            status, body = _read_answer(sock)
            assert status.startswith(b"HTTP/1.1 200 "), status  # not a second "100 Continue"
            assert "TableNames" in json.loads(body)
