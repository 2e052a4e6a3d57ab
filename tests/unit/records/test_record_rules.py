"""The pure rules of records (offprompt/memory/records.py): adversarial inputs first, then LangGraph's semantics."""

from __future__ import annotations

import pytest

from offprompt.errors import InvalidInput
from offprompt.memory.records import (
    MAX_LABELS,
    MatchCondition,
    check_condition_path,
    check_filter,
    check_index,
    check_key,
    check_namespace,
    check_ttl_minutes,
    expires_at,
    has_prefix,
    indexed_text,
    is_live,
    matches,
    parse_path,
    path_of,
    select_namespaces,
)


@pytest.mark.parametrize(
    "bad",
    [
        [],
        ["a.b"],
        ["a", ""],
        ["a", "/"],
        ["a", ".."],
        ["a", 3],
        "a",
        None,
        ["x"] * (MAX_LABELS + 1),
        ["a\x00"],
        ["x" * 257],
    ],
)
def test_bad_namespaces_are_refused(bad: object) -> None:
    with pytest.raises(InvalidInput):
        check_namespace(bad)


def test_the_empty_prefix_is_a_prefix_only_where_allowed() -> None:
    assert check_namespace([], allow_empty=True) == ()
    with pytest.raises(InvalidInput):
        check_namespace([])


@pytest.mark.parametrize("path", ["", "a..b", ".a", "a.", "a./b"])
def test_bad_paths_are_refused(path: str) -> None:
    with pytest.raises(InvalidInput):
        parse_path(path)


def test_path_form_round_trips() -> None:
    ns = ("users", "u#1", "é€🦊", "%~x")
    assert parse_path(path_of(ns)) == ns
    assert parse_path("a") == ("a",)


@pytest.mark.parametrize("bad", ["", None, 1, "a/b", ".", "x" * 300])
def test_bad_keys_are_refused(bad: object) -> None:
    with pytest.raises(InvalidInput):
        check_key(bad)


def test_prefix_is_label_wise() -> None:
    assert has_prefix(("a", "b"), ("a", "b")) and has_prefix(("a", "b", "c"), ("a", "b")) and has_prefix(("a",), ())
    assert not has_prefix(("a", "bc"), ("a", "b")) and not has_prefix(("a",), ("a", "b"))


# ---- filters
@pytest.mark.parametrize(
    "bad", [[1], "x", {"": 1}, {"a": {"$regex": "x"}}, {"a": {"$gt": 1, "$in": [1]}}, {f"f{i}": 1 for i in range(33)}]
)
def test_bad_filters_are_refused(bad: object) -> None:
    with pytest.raises(InvalidInput):
        check_filter(bad)


@pytest.mark.parametrize(
    "bad",
    [
        {"o": {"p": {"$regex": 5}}},
        {"o": {"p": {"$where": "1"}}},
        {"o": {"p": {"q": {"$lte": 1, "$foo": 2}}}},
        {"o": {"$eq": {"p": {"$regex": "x"}}}},
        {"o": {"$ne": [{"$where": 1}]}},
        {"l": [{"$in": [1]}]},
    ],
)
def test_unknown_operators_are_refused_at_every_depth(bad: object) -> None:
    """Issue 30 item 7: below the top level an unknown operator was accepted and compared as `$lte`."""
    with pytest.raises(InvalidInput, match="unknown operator"):
        check_filter(bad)
    assert check_filter({"o": {"p": {"$lte": 5}, "q": [{"r": {"$ne": 1}}]}, "s": {"$eq": {"t": 1}}})


def test_filter_equality_is_json_equality() -> None:
    value = {"n": 1, "b": True, "s": "x", "f": 2.0, "o": {"k": 1, "j": 2}, "l": [1, 2], "z": None}
    assert matches(value, {"n": 1}) and matches(value, {"f": 2}) and matches(value, {"s": "x"})
    assert not matches(value, {"b": 1}) and not matches(value, {"n": True}) and not matches(value, {"n": "1"})
    assert matches(value, {"o": {"k": 1}})  # a nested object without operators matches field by field
    assert not matches(value, {"o": {"k": 2}}) and not matches(value, {"s": {"k": 1}})
    assert matches(value, {"l": [1, 2]}) and not matches(value, {"l": [1]}) and not matches(value, {"l": [2, 1]})
    assert matches(value, {"z": None}) and matches(value, {"missing": None})
    assert not matches(value, {"missing": 1}) and matches(value, {"missing": {"$ne": 1}})
    assert matches(value, {}) and not matches(value, {"n": 1, "s": "y"})  # ANDed


def test_filter_operators() -> None:
    value = {"n": 5, "s": "m", "b": False}
    assert matches(value, {"n": {"$gt": 4, "$lt": 6}}) and not matches(value, {"n": {"$gt": 5}})
    assert matches(value, {"n": {"$gte": 5, "$lte": 5.0}}) and matches(value, {"n": {"$ne": 4}})
    assert matches(value, {"n": {"$eq": 5}}) and not matches(value, {"n": {"$ne": 5}})
    assert matches(value, {"s": {"$gt": "a"}}) and not matches(value, {"s": {"$gt": "z"}})
    # Incomparable types never match (no TypeError): number vs string, bool vs number, missing field.
    assert not matches(value, {"n": {"$gt": "1"}}) and not matches(value, {"s": {"$lt": 9}})
    assert not matches(value, {"b": {"$lt": 1}}) and not matches(value, {"missing": {"$gte": 0}})


def test_a_dotted_filter_field_is_a_path_unless_the_value_has_that_field() -> None:
    value = {"access-level": "public", "user": {"access-level": "nested", "n": 3, "deep": {"k": [1]}}, "a.b": 1}
    assert matches(value, {"user.access-level": "nested"})  # LangGraph's SqliteStore: a path into nested objects
    assert matches(value, {"user.n": {"$gt": 2, "$lte": 3}}) and matches(value, {"user.deep.k": [1]})
    assert matches(value, {"user.deep": {"k": [1]}}) and not matches(value, {"user.access-level": "public"})
    assert matches(value, {"a.b": 1})  # a field so named wins (InMemoryStore, PostgresStore read it)
    assert not matches({"a.b": 1, "a": {"b": 2}}, {"a.b": 2}) and matches({"a": {"b": 2}}, {"a.b": 2})
    # A path through a missing field, or through a non-object, finds nothing (as a missing top-level field).
    assert matches(value, {"user.missing": None}) and matches(value, {"user.n.x": None})
    assert not matches(value, {"user.n.x": 3}) and not matches(value, {"access-level.x": {"$gte": ""}})
    assert matches(value, {"user.access-level.x": {"$ne": 1}}) and not matches(value, {"nobody.n": 3})
    assert not matches(value, {"user..n": 3}) and not matches(value, {".user": {"n": 3}})
    assert not matches({"l": [{"k": 1}]}, {"l.0.k": 1})  # list elements are not path steps


# ---- indexed text
@pytest.mark.parametrize("bad", ["x", [1], ["a..b"], [""], ["a["], ["a[x]"], ["[0]"], ["a"] * 33, ["x" * 300], {}])
def test_bad_index_specs_are_refused(bad: object) -> None:
    with pytest.raises(InvalidInput):
        check_index(bad)


def test_indexed_text_takes_the_strings_at_the_paths() -> None:
    value = {"text": "hello", "n": 3, "tags": ["a", {"t": "b"}], "items": [{"x": "one"}, {"x": "two"}, {"y": "no"}]}
    assert indexed_text(value, None) == "hello\na\nb\none\ntwo\nno"
    assert indexed_text(value, False) == ""
    assert indexed_text(value, check_index(["text"])) == "hello"
    assert indexed_text(value, check_index(["items[*].x"])) == "one\ntwo"
    assert indexed_text(value, check_index(["items[1].x", "tags"])) == "two\na\nb"
    assert indexed_text(value, check_index(["missing", "n", "items[9].x", "text.deeper"])) == ""
    assert indexed_text({"a": "  ", "b": ""}, None) == ""  # whitespace only indexes nothing
    assert check_index(True) is None and check_index(None) is None and check_index(False) is False


# ---- list namespaces
def test_match_conditions_as_langgraph() -> None:
    spaces = [("a", "b", "c"), ("a", "b"), ("a", "x", "c"), ("b", "c"), ("a", "b", "c")]
    prefix = MatchCondition("prefix", ("a", "*"))
    suffix = MatchCondition("suffix", ("c",))
    assert select_namespaces(spaces, [prefix]) == [("a", "b"), ("a", "b", "c"), ("a", "x", "c")]
    assert select_namespaces(spaces, [prefix, suffix]) == [("a", "b", "c"), ("a", "x", "c")]
    assert select_namespaces(spaces, [MatchCondition("suffix", ("*", "c"))]) == [
        ("a", "b", "c"),
        ("a", "x", "c"),
        ("b", "c"),
    ]
    assert select_namespaces(spaces, max_depth=1) == [("a",), ("b",)]
    assert select_namespaces(spaces, max_depth=2, limit=2, offset=1) == [("a", "x"), ("b", "c")]
    assert select_namespaces(spaces, [MatchCondition("prefix", ("a", "b", "c", "d"))]) == []


def test_condition_paths_allow_the_wildcard_but_no_bad_label() -> None:
    assert check_condition_path(["a", "*"], "prefix") == ("a", "*")
    for bad in (["a.b"], "a", ["x"] * 9, [""]):
        with pytest.raises(InvalidInput):
            check_condition_path(bad, "prefix")


# ---- TTL
# 1e-244 minutes: below DynamoDB's smallest number (1e-130), it failed the put's transaction with a 503 (found by
# the API contract fuzzing); anything under a second is refused, since the TTL attribute is whole seconds anyway.
@pytest.mark.parametrize("bad", [0, -1, True, "5", float("nan"), float("inf"), 10**9, 1.1819277490060674e-244, 0.01])
def test_bad_ttls_are_refused(bad: object) -> None:
    with pytest.raises(InvalidInput):
        check_ttl_minutes(bad)


def test_the_shortest_ttl_is_one_second() -> None:
    assert check_ttl_minutes(1 / 60) == 1 / 60 and check_ttl_minutes(0.1) == 0.1


def test_ttl_arithmetic() -> None:
    assert expires_at(1000.2, None) is None
    assert expires_at(1000.2, 1) == 1061  # rounded up: never before its TTL
    assert expires_at(1000.0, 0.5) == 1030
    assert is_live(None, 5) and is_live(6, 5) and not is_live(5, 5) and not is_live(4, 5)
