"""Long-term records (docs/adr/0034-records.md): the pure rules, no I/O.

- namespaces: a tuple of 1 to 8 labels, each an identifier (ADR 0014) without "."; the path form is the labels joined
  by "." (LangGraph's own rule, so every LangGraph namespace maps and the path form is unambiguous);
- keys: identifiers; values: JSON objects;
- the filter language of a search: `{"field": value}` (equality) or `{"field": {"$eq"|"$ne"|"$gt"|"$gte"|"$lt"|
  "$lte": value}}` on value fields (a top-level field, else a dotted path into nested objects, `user.level`, as
  LangGraph's SqliteStore reads it), ANDed, as LangGraph's `InMemoryStore` compares (a nested object
  without operators matches field by field; `$gt`…`$lte` compare numbers with numbers and strings with strings,
  anything else does not match; an unknown operator at any depth is refused, 400 `invalid_input`);
- the text a record indexes: the strings at its index paths (`index: false` → none; default: every string);
- list-namespace match conditions (LangGraph's `MatchCondition`: prefix/suffix with "*" wildcards, `max_depth`
  truncation, deduplicated, sorted);
- TTL arithmetic (minutes, as LangGraph's TTL config).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from offprompt.errors import InvalidInput
from offprompt.identifiers import check_identifier
from offprompt.limits import MAX_JSON_DEPTH
from offprompt.memory.json_values import is_number, json_equal

MAX_LABELS = 8
#: Conditions of one filter.
MAX_FILTER_FIELDS = 32
#: Index paths of one record.
MAX_INDEX_PATHS = 32
#: Characters of one index path.
MAX_INDEX_PATH_CHARS = 256
#: The most text one version indexes (characters): what a search needs, not the whole value.
MAX_INDEXED_CHARS = 100_000
#: A record's TTL in minutes: at most 100 years.
MAX_TTL_MINUTES = 100 * 365 * 24 * 60
MIN_TTL_MINUTES = 1 / 60
OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")
WILDCARD = "*"

Namespace = tuple[str, ...]


# ---- addressing -----------------------------------------------------------------------------------------------
def check_label(label: object, what: str = "namespace label") -> str:
    check_identifier(what, label)
    assert isinstance(label, str)
    if "." in label:
        raise InvalidInput(f'{what} must not contain "." (the path form joins labels with it)')
    return label


def check_namespace(labels: object, *, allow_empty: bool = False, what: str = "namespace") -> Namespace:
    """A namespace (or a prefix of one, `allow_empty`) as a tuple of valid labels, else InvalidInput."""
    if not isinstance(labels, list | tuple):
        raise InvalidInput(f"{what} must be a list of labels")
    if not labels and not allow_empty:
        raise InvalidInput(f"{what} must have at least one label")
    if len(labels) > MAX_LABELS:
        raise InvalidInput(f"{what} has {len(labels)} labels; at most {MAX_LABELS}")
    return tuple(check_label(label, f"{what} label") for label in labels)


def parse_path(path: object, *, what: str = "namespace") -> Namespace:
    """A namespace from its path form (`a.b.c`, as a URL path segment carries it)."""
    if not isinstance(path, str) or not path:
        raise InvalidInput(f"{what} must be a non-empty path of labels joined by '.'")
    return check_namespace(path.split("."), what=what)


def path_of(namespace: Sequence[str]) -> str:
    return ".".join(namespace)


def check_key(value: object) -> str:
    return check_identifier("key", value)


def check_value(value: object) -> dict[str, Any]:
    """A record's value: a JSON object nested at most MAX_JSON_DEPTH levels (deeper would recurse when written)."""
    if not isinstance(value, dict):
        raise InvalidInput("value must be a JSON object")
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise InvalidInput(f"value is nested deeper than {MAX_JSON_DEPTH} levels")
        children = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return value


def has_prefix(namespace: Sequence[str], prefix: Sequence[str]) -> bool:
    """A label-wise prefix: ("a","b") is a prefix of ("a","b") and ("a","b","c"), never of ("a","bc")."""
    return tuple(namespace[: len(prefix)]) == tuple(prefix)


# ---- filters --------------------------------------------------------------------------------------------------
def check_filter(spec: object) -> dict[str, Any]:
    """A search filter, checked: a JSON object of at most MAX_FILTER_FIELDS fields; an operator object holds only
    known operators."""
    if spec is None:
        return {}
    if not isinstance(spec, dict):
        raise InvalidInput("filter must be a JSON object of field conditions")
    if len(spec) > MAX_FILTER_FIELDS:
        raise InvalidInput(f"filter has {len(spec)} conditions; at most {MAX_FILTER_FIELDS}")
    for field, condition in spec.items():
        if not isinstance(field, str) or not field:
            raise InvalidInput("filter field names must be non-empty strings")
        _check_condition(field, condition)
    return spec


def _check_condition(field: str, condition: object) -> None:
    """Every operator object in `condition`, at any depth `matches` reads (nested objects, list elements, the
    operands of `$eq`/`$ne`), holds only known operators: an unknown one is refused, never compared as another."""
    if isinstance(condition, list):
        for element in condition:
            _check_condition(field, element)
        return
    if not isinstance(condition, dict):
        return
    if any(isinstance(k, str) and k.startswith("$") for k in condition):
        unknown = [k for k in condition if k not in OPERATORS]
        if unknown:
            raise InvalidInput(
                f'filter on "{field[:100]}": unknown operator {str(unknown[0])[:20]!r} (one of {", ".join(OPERATORS)})'
            )
    for operand in condition.values():
        _check_condition(field, operand)


def matches(value: Mapping[str, Any], spec: Mapping[str, Any]) -> bool:
    """Whether a record's value passes every condition of a checked filter."""
    return all(_compare(field_value(value, field), condition) for field, condition in spec.items())


def field_value(value: Mapping[str, Any], field: str) -> Any:
    """What a filter's field names in a value: its top-level field of that name when it has one (as LangGraph's
    InMemoryStore and PostgresStore read a field), else, for a name holding ".", the path through nested objects
    (`user.access-level`, as LangGraph's SqliteStore reads it); None when there is neither (a list is no step)."""
    if field in value or "." not in field:
        return value.get(field)
    found: Any = value
    for step in field.split("."):
        if not isinstance(found, Mapping) or step not in found:
            return None
        found = found[step]
    return found


def _compare(item: Any, condition: Any) -> bool:
    if isinstance(condition, dict):
        if any(k.startswith("$") for k in condition):
            return all(_apply(item, op, operand) for op, operand in condition.items())
        if not isinstance(item, dict):
            return False
        return all(_compare(item.get(k), v) for k, v in condition.items())
    if isinstance(condition, list):
        return isinstance(item, list) and len(item) == len(condition) and all(map(_compare, item, condition))
    return json_equal(item, condition)  # JSON's types: true is not 1


def _apply(item: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return _compare(item, operand)
    if op == "$ne":
        return not _compare(item, operand)
    comparable = (is_number(item) and is_number(operand)) or (isinstance(item, str) and isinstance(operand, str))
    if not comparable:
        return False
    if op == "$gt":
        return bool(item > operand)
    if op == "$gte":
        return bool(item >= operand)
    if op == "$lt":
        return bool(item < operand)
    return bool(item <= operand)  # $lte (check_filter refused anything else)


# ---- indexed text ---------------------------------------------------------------------------------------------
IndexSpec = Literal[False] | list[str] | None

_PATH = re.compile(r"[^.\[\]]+(?:\.[^.\[\]]+|\[(?:\*|\d+)\])*")
_STEP = re.compile(r"([^.\[\]]+)|\[(\*|\d+)\]")


def check_index(spec: object) -> IndexSpec:
    """`index` of a put: None (every string), False (not searchable) or a list of field paths (`a`, `a.b`,
    `items[0].text`, `items[*].text`)."""
    if spec is None or spec is False:
        return spec
    if spec is True:
        return None
    if not isinstance(spec, list) or not all(isinstance(p, str) for p in spec):
        raise InvalidInput("index must be false or a list of field paths")
    if len(spec) > MAX_INDEX_PATHS:
        raise InvalidInput(f"index has {len(spec)} paths; at most {MAX_INDEX_PATHS}")
    for path in spec:
        _segments(path)
    return list(spec)


def _segments(path: str) -> list[str | int | None]:
    """A path's steps: a field name, a list index, or None for `[*]` (every element)."""
    if not path or len(path) > MAX_INDEX_PATH_CHARS:
        raise InvalidInput(f"an index path must have 1 to {MAX_INDEX_PATH_CHARS} characters")
    if _PATH.fullmatch(path) is None:
        raise InvalidInput(f"index path {path[:100]!r} is not field names joined by '.', with [n] or [*]")
    return [
        m.group(1) if m.group(1) is not None else (None if m.group(2) == "*" else int(m.group(2)))
        for m in _STEP.finditer(path)
    ]


def indexed_text(value: Mapping[str, Any], spec: IndexSpec) -> str:
    """The text a version indexes: the strings at its index paths (every string of the value by default), in
    order, one per line, cut at MAX_INDEXED_CHARS; "" when there is none (the version is then not indexed)."""
    if spec is False:
        return ""
    found: list[str] = []
    roots: Iterable[Any] = [value] if spec is None else (v for p in spec for v in _at(value, _segments(p)))
    for root in roots:
        found.extend(_strings(root))
    text = "\n".join(s for s in found if s.strip())
    return text[:MAX_INDEXED_CHARS]


def _at(value: Any, steps: Sequence[str | int | None]) -> Iterator[Any]:
    if not steps:
        yield value
        return
    step, rest = steps[0], steps[1:]
    if isinstance(step, str):
        if isinstance(value, dict) and step in value:
            yield from _at(value[step], rest)
    elif isinstance(value, list):
        if step is None:
            for element in value:
                yield from _at(element, rest)
        elif 0 <= step < len(value):
            yield from _at(value[step], rest)


def _strings(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            yield v
        elif isinstance(v, dict):
            stack.extend(reversed(list(v.values())))
        elif isinstance(v, list):
            stack.extend(reversed(v))


# ---- list namespaces ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MatchCondition:
    match_type: Literal["prefix", "suffix"]
    path: tuple[str, ...]  # labels, "*" matching any one label

    def matches(self, namespace: Sequence[str]) -> bool:
        if len(namespace) < len(self.path):
            return False
        n = len(self.path)
        window = namespace[:n] if self.match_type == "prefix" else namespace[len(namespace) - n :]
        return all(want in (WILDCARD, got) for want, got in zip(self.path, window, strict=True))


def check_condition_path(path: object, what: str) -> tuple[str, ...]:
    if not isinstance(path, list | tuple):
        raise InvalidInput(f"{what} must be a list of labels")
    if len(path) > MAX_LABELS:
        raise InvalidInput(f"{what} has {len(path)} labels; at most {MAX_LABELS}")
    return tuple(label if label == WILDCARD else check_label(label, f"{what} label") for label in path)


def select_namespaces(
    namespaces: Iterable[Sequence[str]],
    conditions: Sequence[MatchCondition] = (),
    *,
    max_depth: int | None = None,
    limit: int = 100,
    offset: int = 0,
) -> list[tuple[str, ...]]:
    """LangGraph's list_namespaces: those matching every condition, cut to `max_depth` labels, deduplicated,
    sorted, then the page `offset`..`offset+limit`."""
    kept = {tuple(ns) for ns in namespaces if all(c.matches(ns) for c in conditions)}
    if max_depth is not None:
        kept = {ns[:max_depth] for ns in kept}
    return sorted(kept)[offset : offset + limit]


# ---- TTL ------------------------------------------------------------------------------------------------------
def check_ttl_minutes(value: object, what: str = "ttl_minutes") -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidInput(f"{what} must be a number of minutes")
    # At least a second: DynamoDB's TTL attribute is whole seconds, and a number under 1e-130 is not one DynamoDB
    # stores at all (its write would fail whole).
    if not MIN_TTL_MINUTES <= value <= MAX_TTL_MINUTES:
        raise InvalidInput(f"{what} must be at least 1/60 (one second) and at most {MAX_TTL_MINUTES}")
    return float(value)


def expires_at(now: float, ttl_minutes: float | None) -> int | None:
    """The epoch second a record written (or refreshed) at `now` expires at (DynamoDB's TTL attribute is whole
    seconds: rounded up, so a record never expires before its TTL)."""
    if ttl_minutes is None:
        return None
    return math.ceil(now + ttl_minutes * 60)


def is_live(expires: float | None, now: float) -> bool:
    """An item with `expires_at` at or before now is expired, swept or not."""
    return expires is None or expires > now


# ---- times ----------------------------------------------------------------------------------------------------
def millis(epoch: float) -> float:
    """A time as records keep it: whole milliseconds, so its ISO form (`iso`) reads back (`parse_time`) exactly."""
    return round(math.floor(epoch * 1000) / 1000, 3)


def iso(epoch: float | None) -> str | None:
    """ISO 8601 UTC with milliseconds (`2026-12-02T15:50:01.123Z`)."""
    if epoch is None:
        return None
    ms = round(epoch * 1000)
    base = datetime.fromtimestamp(ms // 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{base}.{ms % 1000:03d}Z"


_EPOCH = re.compile(r"\d{1,11}(\.\d{1,9})?")


def parse_time(value: object, what: str = "as_of") -> float | None:
    """An `as_of`: ISO 8601 (a zone is required; `Z` is UTC) or epoch seconds, as a records time."""
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not math.isfinite(value) or not 0 <= value < 1e11:
            raise InvalidInput(f"{what} must be a time: ISO 8601 with a zone, or epoch seconds")
        return round(float(value), 3)
    if isinstance(value, str) and _EPOCH.fullmatch(value):
        return parse_time(float(value), what)
    if isinstance(value, str) and len(value) <= 64:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            parsed = None
        if parsed is not None and parsed.tzinfo is not None:
            return round(parsed.timestamp(), 3)
    raise InvalidInput(f"{what} must be a time: ISO 8601 with a zone (e.g. 2026-01-31T12:00:00Z), or epoch seconds")
