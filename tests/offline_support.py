"""No network for a test module: every way a library opens a connection raises (the local models and tokenizers
must load from what their packages ship, never download)."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator

import pytest


class NetworkBlockedError(RuntimeError):
    """Not an OSError, so no HTTP library can swallow it and retry."""


def _refuse(*args: object, **kwargs: object) -> None:
    raise NetworkBlockedError(f"network access attempted: {args!r}")


@contextlib.contextmanager
def blocked_network() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(socket.socket, "connect", _refuse)
        mp.setattr(socket.socket, "connect_ex", _refuse)
        mp.setattr(socket, "create_connection", _refuse)
        mp.setattr(socket, "getaddrinfo", _refuse)
        yield
