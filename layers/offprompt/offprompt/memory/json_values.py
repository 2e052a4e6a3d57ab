"""JSON values compared as JSON (pure): what a filter means by "equal" wherever one is applied (records' filters,
the checkpoint list's metadata filter).

JSON has one number type and a separate boolean type: `true` is not `1` (Python's `True == 1` says it is), `1` is
`1.0`; objects are equal when they have the same keys with equal values, arrays when their elements are, in order.
"""

from __future__ import annotations

from typing import Any


def json_equal(a: Any, b: Any) -> bool:
    """Whether two decoded JSON values are the same JSON value."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a is b
    if is_number(a) and is_number(b):
        return bool(a == b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(json_equal, a, b))
    return type(a) is type(b) and bool(a == b)


def is_number(v: Any) -> bool:
    """A JSON number (a bool is not one)."""
    return isinstance(v, int | float) and not isinstance(v, bool)
