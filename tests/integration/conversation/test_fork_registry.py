"""The tenant's fork registry (docs/adr/0064): what a prefix search reads instead of listing the threads under its
prefix. It must hold exactly the live forks that read another thread's runs, each with its ancestry: written in the
fork's own transaction, removed by its delete's mark, never for a fork of an empty thread, written again by
`offprompt-admin reindex` for forks made before it (never for a fork deleted meanwhile), and its item is bookkeeping:
not exported, not metered (export, import and erase: tests/integration/tenant_data/test_export_erase_import.py)."""

from __future__ import annotations

from typing import Any

import pytest
from conversation_api import TABLE, Api, all_items
from fakes.conversation_index import FakeConversationIndex
from search_support import add, fork, ids, index_stored, search

from offprompt.adapters import layout
from offprompt.adapters.stream_runs import StreamRunDecoder
from offprompt.adapters.tenant_items import DynamoDbTenantItems
from offprompt.composition.conversation import default_service
from offprompt.services.conversation_index.context import Indexing
from offprompt.services.conversation_index.reindex import reindex


def registry(tenant: str = "tenant-a", prefix: str = "") -> dict[str, tuple[tuple[str, int], ...]]:
    return default_service().runs.forks_under(tenant, prefix)


def links(aws: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in all_items(aws["dynamodb"]) if i["pk"]["S"].startswith("FORK#")]


def test_a_fork_is_registered_while_it_lives_and_leaves_with_its_delete(
    api: Api, index: FakeConversationIndex, aws: dict[str, Any]
) -> None:
    add(api, "base", ("b1", "kyoto temples", "yes"), ("b2", "kyoto food", "yum"))
    fork(api, "base", {"thread_id": "u-fork", "after_run_id": "b1"})
    fork(api, "u-fork", {"thread_id": "u-fork#2"})  # a fork of a fork: its whole ancestry
    api.thread("PUT", "empty", {"max_runs": 5})
    fork(api, "empty", {"thread_id": "u-empty-fork"})  # reads nothing: not registered
    assert registry() == {"u-fork": (("base", 1),), "u-fork#2": (("base", 1),)}
    assert registry(prefix="u-fork#") == {"u-fork#2": (("base", 1),)}  # `#` escaped: still a prefix
    assert registry(prefix="base") == {} and registry("tenant-b") == {}
    (link, _) = links(aws)
    assert "metered_bytes" not in link  # bookkeeping: never on the tenant's gauge

    add(api, "u-fork#2", ("g1", "kyoto in the grandchild", "mine"))
    index_stored(index, "tenant-a", "base", "u-fork#2")
    _, body, _ = search(api, {"query": "kyoto", "thread_prefix": "u-fork#"})
    assert sorted(ids(body)) == [("u-fork#2", "b1"), ("u-fork#2", "g1")]

    assert api.thread("DELETE", "u-fork#2")[0] == 204
    assert registry() == {"u-fork": (("base", 1),)}
    _, body, _ = search(api, {"query": "kyoto", "thread_prefix": "u-fork#"})
    assert body == {"hits": []}
    assert not index.calls[-1]["threads"]  # no ancestor asked for: nothing under the prefix shares history
    api.thread("PUT", "u-fork#2", {"max_runs": 5})  # the id made again, as a plain thread
    assert registry(prefix="u-fork#") == {}


def test_reindex_registers_forks_made_before_the_registry_and_never_a_deleted_one(
    api: Api, aws: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    add(api, "base", ("b1", "one", "x"), ("b2", "two", "x"))
    for name in ("old-fork", "gone-fork"):
        fork(api, "base", {"thread_id": name})
    for link in links(aws):  # as a deployment from before the registry holds them
        aws["dynamodb"].delete_item(TableName=TABLE, Key={"pk": link["pk"], "sk": link["sk"]})
    assert registry() == {}

    scan = DynamoDbTenantItems(TABLE)
    monkeypatch.setattr("offprompt.adapters.tenant_items.SCAN_PAGE_ITEMS", 3)
    gone = aws["dynamodb"].get_item(TableName=TABLE, Key={"pk": {"S": layout.thread_pk("tenant-a", "gone-fork")},
                                                          "sk": {"S": layout.THREAD_SK}})["Item"]  # fmt: skip
    assert api.thread("DELETE", "gone-fork")[0] == 204
    assert scan._link_fork(gone) is False  # read by the Scan before its delete: no entry for it afterwards

    service = default_service()
    indexing = Indexing(service.runs, service.bodies, FakeConversationIndex(), StreamRunDecoder())
    report = reindex(indexing, scan, "tenant-a")
    assert report.complete and report.forks == 1 and report.pages > 1 and report.indexed == 2
    assert registry() == {"old-fork": (("base", 2),)}
    assert reindex(indexing, scan, "tenant-a").forks == 1  # idempotent
    assert len(links(aws)) == 1
