"""offprompt_client.langgraph without a server: each LangGraph operation as the HTTP request it becomes, and each
answer as the LangGraph `Item`/`SearchItem` it becomes (docs/adr/0034-records.md's route table).

A fake transport records every request urllib would send (method, URL with its query, JSON body) and answers from a
script, so the mapping is checked to the byte, bad input is seen to send nothing, and the batch order is visible.
The same store against the real local stack, compared with LangGraph's InMemoryStore, is
tests/e2e/test_langgraph_store.py.
"""

from __future__ import annotations

import asyncio
import json
import sys
import urllib.parse
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from client_support import FakeTransport
from hypothesis import example, given, settings
from hypothesis import strategies as st
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)

from offprompt.memory.records import matches
from offprompt_client import OffpromptClientError, OffpromptConnectionError, retries
from offprompt_client import langgraph as lg
from offprompt_client.langgraph import OffpromptStore


def record(namespace: tuple[str, ...] = ("users", "ada"), key: str = "prefs", **fields: Any) -> dict[str, Any]:
    return {
        "namespace": list(namespace),
        "key": key,
        "value": {"food": "lentils"},
        "version": 1,
        "created_at": "2026-01-02T03:04:05.123456Z",
        "updated_at": "2026-01-03T03:04:05+00:00",
        "valid_from": "2026-01-03T03:04:05+00:00",
        "valid_to": None,
        "expires_at": None,
        **fields,
    }


@pytest.fixture(autouse=True)
def no_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retries.time, "sleep", lambda _s: None)


def store_on(answer: Callable[[str, str, dict[str, str], Any], tuple[int, Any]] | None = None, **kw: Any) -> Any:
    transport = FakeTransport(answer)
    return OffpromptStore(client=transport, **kw), transport


# ---- get ------------------------------------------------------------------------------------------------------
def test_get_is_one_get_of_the_path_form_and_answers_an_item_with_aware_datetimes() -> None:
    store, sent = store_on(lambda *_: (200, record()))
    item = store.get(("users", "ada"), "prefs")
    assert sent.sent == [("GET", "/records/users.ada/prefs", {"refresh_ttl": "true"}, None)]
    assert isinstance(item, Item) and not isinstance(item, SearchItem)
    assert (item.namespace, item.key, item.value) == (("users", "ada"), "prefs", {"food": "lentils"})
    assert item.created_at == datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)
    assert item.updated_at == datetime(2026, 1, 3, 3, 4, 5, tzinfo=UTC)


def test_labels_and_keys_are_percent_encoded_as_one_segment() -> None:
    store, sent = store_on(lambda *_: (200, record(("a b", "é#?"), "k?1 %")))
    store.get(("a b", "é#?"), "k?1 %")
    path = "/records/" + urllib.parse.quote("a b.é#?", safe="") + "/" + urllib.parse.quote("k?1 %", safe="")
    assert path == "/records/a%20b.%C3%A9%23%3F/k%3F1%20%25"
    assert [s[1] for s in sent.sent] == [path]


def test_get_missing_is_none_but_another_404_raises() -> None:
    store, _ = store_on(lambda *_: (404, {"code": "record_not_found", "message": "no"}))
    assert store.get(("users",), "nope") is None
    store, _ = store_on(lambda *_: (404, {"code": "not_found", "message": "no such route"}))
    with pytest.raises(OffpromptClientError, match="not_found"):
        store.get(("users",), "nope")


def test_refresh_ttl_follows_the_call_then_the_ttl_config() -> None:
    store, sent = store_on(
        lambda m, *_: (200, record() if m == "GET" else {"items": []}), ttl={"refresh_on_read": False}
    )
    store.get(("users", "ada"), "prefs")
    store.get(("users", "ada"), "prefs", refresh_ttl=True)
    store.search(("users",))
    assert [s[2].get("refresh_ttl") for s in sent.sent[:2]] == ["false", "true"]
    assert sent.sent[2][3]["refresh_ttl"] is False


def test_times_with_offsets_or_without_a_zone_are_utc_aware() -> None:
    assert lg.parse_time("2026-01-02T03:04:05+02:00") == datetime(2026, 1, 2, 1, 4, 5, tzinfo=UTC)
    assert lg.parse_time("2026-01-02T03:04:05").tzinfo is UTC
    assert lg.parse_time("2026-01-02T03:04:05-05:30").utcoffset() == -timedelta(hours=5, minutes=30)
    assert lg.parse_time("2026-01-02T03:04:05Z").tzinfo == UTC


# ---- put / delete ---------------------------------------------------------------------------------------------
def test_put_maps_value_index_and_ttl_minutes() -> None:
    store, sent = store_on(lambda *_: (200, record()))
    store.put(("users", "ada"), "prefs", {"food": "lentils", "n": 1.5})
    store.put(("users", "ada"), "prefs", {"food": "x"}, index=False)
    store.put(("users", "ada"), "prefs", {"food": "x"}, index=["food", "notes[*].text"], ttl=2.5)
    assert sent.sent == [
        ("PUT", "/records/users.ada/prefs", {}, {"value": {"food": "lentils", "n": 1.5}}),
        ("PUT", "/records/users.ada/prefs", {}, {"value": {"food": "x"}, "index": False}),
        (
            "PUT",
            "/records/users.ada/prefs",
            {},
            {"value": {"food": "x"}, "index": ["food", "notes[*].text"], "ttl_minutes": 2.5},
        ),
    ]


def test_default_ttl_applies_to_puts_that_give_none_and_ttl_none_means_none() -> None:
    store, sent = store_on(lambda *_: (200, record()), ttl={"default_ttl": 60})
    assert store.supports_ttl is True
    store.put(("a",), "k", {"v": 1})
    store.put(("a",), "k", {"v": 1}, ttl=None)
    store.put(("a",), "k", {"v": 1}, ttl=5)
    assert [s[3].get("ttl_minutes") for s in sent.sent] == [60, None, 5]


def test_delete_is_a_delete_and_value_none_is_a_delete() -> None:
    store, sent = store_on()
    store.delete(("users", "ada"), "prefs")
    store.batch([PutOp(("users", "ada"), "other", None)])
    assert sent.sent == [
        ("DELETE", "/records/users.ada/prefs", {}, None),
        ("DELETE", "/records/users.ada/other", {}, None),
    ]


# ---- search ---------------------------------------------------------------------------------------------------
def test_search_maps_prefix_query_filter_limit_offset_and_answers_search_items() -> None:
    hits = {"items": [record(score=3.25), record(key="b", score=None)]}
    store, sent = store_on(lambda *_: (200, hits))
    flt = {"n": {"$gt": 1, "$lte": 9}, "kind": "pref", "tag": {"$ne": "x"}, "m": {"$eq": [1, 2]}, "o": {"$gte": 2}}
    found = store.search(("users",), query="food", filter=flt, limit=5, offset=2, refresh_ttl=False)
    assert sent.sent == [
        (
            "POST",
            "/records/search",
            {},
            {
                "namespace_prefix": ["users"],
                "query": "food",
                "filter": flt,
                "limit": 5,
                "offset": 2,
                "refresh_ttl": False,
            },
        )
    ]
    assert [type(i) for i in found] == [SearchItem, SearchItem]
    assert [(i.key, i.score) for i in found] == [("prefs", 3.25), ("b", None)]
    assert found[0].updated_at.tzinfo is not None


def test_search_of_everything_an_empty_query_and_an_empty_filter_send_neither() -> None:
    store, sent = store_on(lambda *_: (200, {"items": []}))
    assert store.search((), query="", filter={}) == []
    assert store.search((), query=" \t") == []
    assert sent.sent == 2 * [
        ("POST", "/records/search", {}, {"namespace_prefix": [], "limit": 10, "offset": 0, "refresh_ttl": True})
    ]


def test_a_limit_past_one_page_is_paged_and_stops_at_a_short_page() -> None:
    pages = iter([{"items": [record(key=f"k{i}") for i in range(100)]}, {"items": [record(key="last")]}])
    store, sent = store_on(lambda *_: (200, next(pages)))
    found = store.search(("users",), limit=250, offset=7)
    assert [(s[3]["limit"], s[3]["offset"]) for s in sent.sent] == [(100, 7), (100, 107)]
    assert len(found) == 101 and found[-1].key == "last"


def test_limit_zero_sends_nothing() -> None:
    store, sent = store_on()
    assert store.search(("users",), limit=0) == [] and store.list_namespaces(limit=0) == []
    assert sent.sent == []


# ---- list namespaces ------------------------------------------------------------------------------------------
def test_list_namespaces_maps_prefix_suffix_depth_limit_offset() -> None:
    store, sent = store_on(lambda *_: (200, {"namespaces": [["a", "b"], ["a", "c"]]}))
    found = store.list_namespaces(prefix=("a", "*"), suffix=("v1",), max_depth=2, limit=5, offset=1)
    assert sent.sent == [
        (
            "POST",
            "/records/namespaces",
            {},
            {"prefix": ["a", "*"], "suffix": ["v1"], "max_depth": 2, "limit": 5, "offset": 1},
        )
    ]
    assert found == [("a", "b"), ("a", "c")]
    store.list_namespaces()
    assert sent.sent[-1][3] == {"limit": 100, "offset": 0}


def merged(*conditions: tuple[str, tuple[str, ...]]) -> Any:
    op = ListNamespacesOp(match_conditions=tuple(MatchCondition(kind, path) for kind, path in conditions))  # type: ignore[arg-type]
    return lg.list_fields(op)


def test_several_conditions_of_one_kind_merge_label_by_label() -> None:
    assert merged(("prefix", ("a",)), ("prefix", ("*", "b"))) == {"prefix": ["a", "b"]}
    assert merged(("suffix", ("x", "*")), ("suffix", ("z",))) == {"suffix": ["x", "z"]}
    assert merged(("suffix", ("y",)), ("suffix", ("x", "*"))) == {"suffix": ["x", "y"]}
    assert merged(("prefix", ("a", "*")), ("suffix", ("v1",)), ("prefix", ())) == {
        "prefix": ["a", "*"],
        "suffix": ["v1"],
    }
    assert merged(("prefix", ("a",)), ("prefix", ("b",))) is None
    assert merged() == {}


def test_conditions_no_namespace_meets_send_nothing() -> None:
    store, sent = store_on()
    op = ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("a",)), MatchCondition("prefix", ("b", "c"))))
    assert store.batch([op]) == [[]]
    assert sent.sent == []


# ---- bad input: refused before anything is sent ----------------------------------------------------------------
BAD: list[Callable[[OffpromptStore], Any]] = [
    lambda s: s.put(("a.b",), "k", {"v": 1}),
    lambda s: s.put(("a", ""), "k", {"v": 1}),
    lambda s: s.put((), "k", {"v": 1}),
    lambda s: s.put(("langgraph", "x"), "k", {"v": 1}),
    lambda s: s.put(("a", 1), "k", {"v": 1}),  # type: ignore[arg-type]
    lambda s: s.put(("a\x00",), "k", {"v": 1}),
    lambda s: s.get(("a.b",), "k"),
    lambda s: s.delete(("x", "."), "k"),
    lambda s: s.search(("a.",)),
    lambda s: s.list_namespaces(prefix=("a.b",)),
    lambda s: s.list_namespaces(suffix=("",)),
    lambda s: s.batch([GetOp(("ok",), "k"), GetOp("ok", "k")]),  # type: ignore[arg-type]  # a string is not a tuple of labels
    lambda s: s.batch([GetOp(("ok",), "k"), PutOp(("x.y",), "k", {"v": 1})]),
    lambda s: s.put(("a/b",), "k", {"v": 1}),  # offprompt: a label is one URL path segment
    lambda s: s.search(("a", "b/c")),
]


@pytest.mark.parametrize("call", BAD)
def test_invalid_namespaces_raise_langgraphs_error_and_send_nothing(call: Callable[[OffpromptStore], Any]) -> None:
    store, sent = store_on(lambda *_: (200, record()))
    with pytest.raises(InvalidNamespaceError):
        call(store)
    assert sent.sent == []


@pytest.mark.parametrize(
    "call", [lambda s: s.put(("a",), "x/y", {"v": 1}), lambda s: s.get(("a",), "x/y"), lambda s: s.delete(("a",), "/")]
)
def test_a_key_with_a_slash_is_refused_unsent(call: Callable[[OffpromptStore], Any]) -> None:
    store, sent = store_on()
    with pytest.raises(ValueError, match="URL path segment"):
        call(store)
    assert sent.sent == []


def test_an_unknown_operation_or_match_type_sends_nothing() -> None:
    store, sent = store_on(lambda *_: (200, record()))
    with pytest.raises(ValueError, match="Unknown operation"):
        store.batch([GetOp(("a",), "k"), ("not", "an op")])
    with pytest.raises(ValueError, match="match type"):
        store.batch([ListNamespacesOp(match_conditions=(MatchCondition("middle", ("a",)),))])  # type: ignore[arg-type]
    assert sent.sent == []


def test_an_empty_namespace_holds_nothing_get_is_none_delete_is_a_no_op() -> None:
    store, sent = store_on()
    assert store.get((), "k") is None
    store.delete((), "k")
    assert sent.sent == []


def test_server_refusals_surface_unchanged_and_are_not_retried() -> None:
    store, sent = store_on(lambda *_: (400, {"code": "invalid_input", "message": "a refusal"}))
    with pytest.raises(OffpromptClientError) as error:
        store.put(("a",), "x..y", {"v": 1})
    assert (error.value.status, error.value.code) == (400, "invalid_input")
    assert len(sent.sent) == 1


def test_connection_errors_and_503_are_retried() -> None:
    answers: list[Any] = [
        OffpromptConnectionError(0, "connection_error", "reset"),
        (503, {"code": "busy"}),
        (409, {"code": "record_conflict"}),
    ]

    def answer(*_: Any) -> tuple[int, Any]:
        if answers:
            nxt = answers.pop(0)
            if isinstance(nxt, BaseException):
                raise nxt
            return nxt
        return 200, record()

    store, sent = store_on(answer)
    assert store.get(("users", "ada"), "prefs") is not None
    assert len(sent.sent) == 4


# ---- batches --------------------------------------------------------------------------------------------------
def test_a_batch_reads_first_in_order_then_writes_last_write_wins() -> None:
    def answer(method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any]:
        if method == "GET":
            return 404, {"code": "record_not_found", "message": ""}
        if path == "/records/search":
            return 200, {"items": []}
        if path == "/records/namespaces":
            return 200, {"namespaces": []}
        return 200, record()

    store, sent = store_on(answer)
    ops = [
        PutOp(("a",), "k", {"v": 1}),
        GetOp(("a",), "k"),
        PutOp(("a",), "j", {"v": 1}),
        PutOp(("a",), "k", {"v": 2}),
        SearchOp(("a",)),
        ListNamespacesOp(),
        PutOp(("a",), "j", None),
    ]
    assert store.batch(ops) == [None, None, None, None, [], [], None]
    assert [(m, p, b and b.get("value")) for m, p, _, b in sent.sent] == [
        ("GET", "/records/a/k", None),
        ("POST", "/records/search", None),
        ("POST", "/records/namespaces", None),
        ("PUT", "/records/a/k", {"v": 2}),
        ("DELETE", "/records/a/j", None),
    ]


def test_abatch_and_the_async_methods_give_the_same_answers() -> None:
    store, sent = store_on(lambda *_: (200, record()))

    async def main() -> Any:
        await store.aput(("users", "ada"), "prefs", {"food": "lentils"})
        return await store.aget(("users", "ada"), "prefs"), await store.abatch([GetOp(("users", "ada"), "prefs")])

    item, (again,) = asyncio.run(main())
    assert item == again == lg.item_from(record())
    assert [s[0] for s in sent.sent] == ["PUT", "GET", "GET"]


def test_settings_come_from_the_environment_like_the_other_doors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OFFPROMPT_API_URL", "https://api.example/")
    monkeypatch.setenv("OFFPROMPT_API_KEY", "op_k_s")
    store = OffpromptStore()
    assert store.client.base_url == "https://api.example"
    assert store.client.headers["Authorization"] == "Bearer op_k_s"
    assert "OffpromptStore(" in repr(store)


# ---- non-finite filter operands (JSON has none; the API refuses them) ---------------------------------------------
INF, NAN = float("inf"), float("nan")
finite_values = st.fixed_dictionaries(
    {},
    optional={
        "p": st.one_of(
            st.integers(-5, 5), st.floats(allow_nan=False, allow_infinity=False), st.sampled_from(["a", "z"])
        ),
        "q": st.one_of(st.none(), st.booleans(), st.just({"k": 1}), st.just([1.5])),
    },
)
operands = st.sampled_from([INF, -INF, NAN, 0, 2.5, -3, "m", True, None, {"k": INF}, [NAN], {"k": 1}])
non_finite_filters = st.dictionaries(
    st.sampled_from(["p", "q", "missing"]),
    operands | st.dictionaries(st.sampled_from(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]), operands, min_size=1),
    min_size=1,
    max_size=3,
)


@settings(max_examples=1500, deadline=None)
@given(non_finite_filters, finite_values)
# found by this test in a suite run: `$lt: inf` became `$gte: -max`, and the `$gte: inf` after it was then taken for
# a finite operand already kept (the filter meant "nothing" and was sent as "any number")
@example({"p": {"$lt": INF, "$gte": INF}}, {"p": 0})
def test_a_filter_with_nan_or_infinity_is_sent_finite_and_means_the_same(spec: dict[str, Any], value: Any) -> None:
    """LangGraph's stores take float("inf") and NaN operands; the API, like JSON, takes neither (422). The filter is
    sent as one that the server's own matching (offprompt.memory.records.matches) answers the same for every value
    a record can hold (finite numbers), or not at all when no value can meet it."""
    finite = lg.finite_filter(spec)
    if finite is None:
        assert not matches(value, spec)
        return
    json.dumps(finite, allow_nan=False)  # no NaN or infinity left to send
    assert matches(value, finite) == matches(value, spec), finite


def test_searches_with_infinite_operands_send_finite_filters_or_nothing() -> None:
    store, sent = store_on(lambda *_: (200, {"items": []}))
    store.search(("items",), filter={"price": {"$lt": INF}})
    store.search(("items",), filter={"price": {"$gt": -INF, "$lte": 9}, "n": {"$ne": NAN}})
    assert [body["filter"] for *_, body in sent.sent] == [
        {"price": {"$gte": -sys.float_info.max}},
        {"price": {"$lte": 9}},
    ]
    assert store.search(("items",), filter={"price": {"$eq": NAN}}) == []
    assert store.search(("items",), filter={"price": INF}) == []
    assert store.search(("items",), filter={"price": {"$gt": INF}}) == []
    assert len(sent.sent) == 2  # a filter no value meets sends nothing
