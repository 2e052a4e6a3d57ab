"""Opaque list cursors: the list-runs cursor (bound to one thread and one order, carrying the position and the visible
floor) and the thread-listing cursor (bound to a tenant and a prefix, carrying the last position)."""

from __future__ import annotations

import base64
import binascii
import json

from offprompt.errors import InvalidInput


def _pack(fields: dict[str, object]) -> str:
    raw = json.dumps(fields, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unpack(cursor: str) -> object:
    """The cursor's JSON, or None when it is not one."""
    try:
        return json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, binascii.Error, UnicodeDecodeError, RecursionError):
        return None


def encode_cursor(binding: str, order: str, after: int, floor: int) -> str:
    return _pack({"b": binding, "o": order, "a": after, "f": floor})


def decode_cursor(cursor: str, binding: str, order: str) -> tuple[int, int]:
    data = _unpack(cursor)
    ok = (
        isinstance(data, dict)
        and data.get("b") == binding
        and data.get("o") == order
        and all(type(data.get(k)) is int and data[k] >= 0 for k in ("a", "f"))
    )
    if not ok or len(cursor) > 1000:
        raise InvalidInput("cursor is invalid for this thread and order")
    assert isinstance(data, dict)
    return int(data["a"]), int(data["f"])


def encode_listing_cursor(binding: str, position: str) -> str:
    return _pack({"b": binding, "k": position})


def decode_listing_cursor(cursor: str, binding: str) -> str:
    """The position (opaque to the client) of the last thread of the previous page."""
    data = _unpack(cursor)
    if not (isinstance(data, dict) and data.get("b") == binding and isinstance(data.get("k"), str)):
        raise InvalidInput("cursor is invalid for this listing")
    return str(data["k"])
