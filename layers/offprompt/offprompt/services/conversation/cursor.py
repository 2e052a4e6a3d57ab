"""The opaque list-runs cursor: bound to one thread and one order, carrying the position and the visible floor."""

from __future__ import annotations

import base64
import binascii
import json

from offprompt.errors import InvalidInput


def encode_cursor(binding: str, order: str, after: int, floor: int) -> str:
    raw = json.dumps({"b": binding, "o": order, "a": after, "f": floor}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, binding: str, order: str) -> tuple[int, int]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw)
        ok = (
            isinstance(data, dict)
            and data.get("b") == binding
            and data.get("o") == order
            and all(type(data.get(k)) is int and data[k] >= 0 for k in ("a", "f"))
        )
    except (ValueError, binascii.Error, UnicodeDecodeError, RecursionError):
        ok = False
    if not ok or len(cursor) > 1000:
        raise InvalidInput("cursor is invalid for this thread and order")
    return int(data["a"]), int(data["f"])
