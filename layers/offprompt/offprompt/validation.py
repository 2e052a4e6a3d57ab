"""The one validation path for request models: HTTP (through Powertools) and direct invocations alike.

A value that is JSON but does not fit a model is `SchemaInvalid` (HTTP 422 `schema_invalid`, `details:
[{loc, type, msg}]`); a value that fits but breaks a domain rule is an `InvalidInput` subclass raised later
by the service (HTTP 400 with its own code).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from offprompt.errors import InvalidInput, schema_invalid

M = TypeVar("M", bound=BaseModel)


def validate(model: type[M], data: Any) -> M:
    """`data` as `model`, or SchemaInvalid listing why not."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise schema_invalid([dict(e) for e in exc.errors(include_url=False)]) from None


#: A JSON escape of a UTF-16 surrogate (`\ud800`..`\udfff`): only such an escape can put one in parsed JSON.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def check_unicode(value: Any, raw: str | None = None) -> None:
    """InvalidInput when a string anywhere in `value` holds a lone surrogate (JSON can escape one, `"\\ud800"`;
    UTF-8 cannot encode it, so nothing could store it). `raw`: the JSON text `value` came from, so the common case,
    a body with no surrogate escape at all, is a single regex scan."""
    if raw is not None and not _SURROGATE_ESCAPE.search(raw):
        return
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"the request holds a lone surrogate (U+{ord(exc.object[exc.start]):04X}, a half of a UTF-16 pair): "
            "text must be valid Unicode"
        ) from None


def parse_json(raw: str) -> tuple[Any, bool]:
    """`json.loads(raw)`, and whether a number in it parsed to NaN or ±Infinity: Python's `json` reads the bare words
    `NaN`, `Infinity`, `-Infinity` (not JSON, RFC 8259 §6), and a number beyond a double's range (`1e400`) becomes
    `inf`. The parser's own hooks notice them, so a body pays nothing per byte (a regex over a 100 KB text cost
    ~3 ms) and only a body holding floats pays a call per float."""
    seen: list[bool] = []

    def number(text: str) -> float:
        value = float(text)
        if math.isinf(value):
            seen.append(True)
        return value

    def constant(name: str) -> float:
        seen.append(True)
        return float(name)  # "NaN", "Infinity", "-Infinity": Python's float reads all three

    value = json.loads(raw, parse_float=number, parse_constant=constant)
    return value, bool(seen)


def non_finite_at(value: Any) -> list[str | int] | None:
    """Where (a pydantic-style `loc`) `value` holds the first float that is NaN or ±Infinity; None if nowhere."""
    stack: list[tuple[Any, list[str | int]]] = [(value, [])]
    while stack:
        item, loc = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return loc
        elif isinstance(item, dict):
            stack.extend((v, [*loc, str(k)]) for k, v in item.items())
        elif isinstance(item, list | tuple):
            stack.extend((v, [*loc, i]) for i, v in enumerate(item))
    return None


def check_finite(value: Any, *, loc_prefix: tuple[str | int, ...] = ()) -> None:
    """SchemaInvalid (`finite_number`, HTTP 422) when a number anywhere in `value` is NaN or ±Infinity: JSON has no
    such numbers, so nothing could store or answer them as JSON (docs/adr/0044-front-door.md)."""
    loc = non_finite_at(value)
    if loc is not None:
        raise schema_invalid(
            [
                {
                    "loc": (*loc_prefix, *loc),
                    "type": "finite_number",
                    "msg": "Input should be a finite number (JSON has no NaN or Infinity; 1e400 is beyond a double)",
                }
            ]
        )
