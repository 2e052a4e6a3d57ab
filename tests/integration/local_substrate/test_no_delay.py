"""The substrate's HTTP server answers keep-alive requests without Nagle's ~40 ms delayed-ACK stall."""

from __future__ import annotations

import http.client
import socket
from typing import Any

import pytest

from offprompt_local.substrate.server import AtomicMotoServer


def test_the_substrate_sets_tcp_nodelay_on_every_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    server = AtomicMotoServer("127.0.0.1", 0)
    server.start()
    try:
        handler = server._server.RequestHandlerClass
        seen: list[int] = []
        original = handler.setup

        def setup(self: Any) -> None:
            original(self)
            seen.append(self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

        monkeypatch.setattr(handler, "setup", setup)
        host, port = server.get_host_and_port()
        conn = http.client.HTTPConnection(host, port, timeout=10)
        conn.request("GET", "/moto-api/")
        conn.getresponse().read()
        conn.close()
        assert seen and all(seen)
    finally:
        server.stop()
