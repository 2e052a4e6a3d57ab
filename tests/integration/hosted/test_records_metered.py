"""Record puts are metered (docs/adr/0034, 0028): a put's value bytes are charged in its own transaction, a put the
plan refuses is a 429 that stores nothing (no item, no S3 body, no gauge change), and another tenant's key sees none
of the records. The record index is the in-memory one (the OpenSearch adapter is tested by its contract)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fakes.record_index import InMemoryRecordIndex
from hosted_support import Deployment, all_items, call, new_key

from offprompt.composition import records as composition


@pytest.fixture(autouse=True)
def record_index(stack: Deployment, monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemoryRecordIndex]:
    index = InMemoryRecordIndex()
    monkeypatch.setattr(composition, "_index_override", index)
    composition.default_records.cache_clear()
    yield index
    composition.default_records.cache_clear()


def _put(token: str, ns: str, key: str, value: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
    return call(
        "records",
        "record_put_http.json",
        token,
        path=f"/records/{ns}/{key}",
        method="PUT",
        body={"value": value},
        namespace=ns,
        key=key,
    )


def _usage(token: str) -> Any:
    status, usage, _ = call("account", "usage_http.json", token, path="/usage", method="GET")
    assert status == 200, usage
    return usage


def _records(stack: Deployment) -> list[dict[str, Any]]:
    return [i for i in all_items(stack.table) if i["pk"]["S"].startswith("REC#")]


def test_puts_are_charged_and_refused_over_quota(stack: Deployment) -> None:
    token = new_key("acme", stored_bytes=5_000)
    status, body, _ = _put(token, "u.1", "k", {"t": "x" * 1_000})
    assert status == 200, body
    stored = _usage(token)["stored_bytes"]
    assert stored >= 1_000
    before = _records(stack)
    status, body, _ = _put(token, "u.1", "k", {"t": "y" * 6_000})  # past stored_bytes
    assert status == 429 and body["code"] == "quota_exceeded", body
    assert _records(stack) == before and _usage(token)["stored_bytes"] == stored
    status, body, _ = _put(token, "u.1", "k", {"t": "z" * 3_000})  # a replace adds its bytes (versions are kept)
    assert status == 200 and body["version"] == 2
    usage = _usage(token)
    assert usage["stored_bytes"] > stored + 3_000
    # Two versions stored today (the refused put is not counted), beside the bytes they hold.
    assert usage["totals"]["records_stored"] == 2, usage["totals"]
    assert usage["totals"]["bytes_stored_dynamodb"] >= 4_000


def test_another_tenants_key_sees_no_record(stack: Deployment) -> None:
    mine, theirs = new_key("acme"), new_key("umbrella")
    assert _put(mine, "u.1", "k", {"secret": "mine"})[0] == 200
    status, body, _ = call(
        "records", "record_get_http.json", theirs, path="/records/u.1/k", method="GET", namespace="u.1", key="k"
    )
    assert status == 404 and body["code"] == "record_not_found"
    status, found, _ = call(
        "records", "record_search_http.json", theirs, path="/records/search", method="POST", body={"query": "mine"}
    )
    assert status == 200 and found["items"] == []
