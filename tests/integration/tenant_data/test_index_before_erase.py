"""A tenant not known to be indexed is indexed before anything of it is exported, erased or verified (issue 30,
item 2; docs/adr/0043-index-before-export-and-erase.md).

The tenant's data predates the tenant index: written through the functions' handlers (the real store code paths),
then the index attribute taken off its items, and no `#INDEXED` marker of its own. The deployment itself is marked
indexed as a whole (`make dev` creates its table so; `offprompt-admin backfill-index --all` did so on a deployed
one): that marker never stood for data its writers did not index. Export, erase, its repeat and the reads are
checked through every door that reaches them: `POST /export` and `DELETE /tenant` with a key, the direct
invocation, and the operator CLI.

The backfill is bounded per invocation and resumable: a table too big for one invocation answers honestly (202,
not verified; the export says it is incomplete and writes nothing), an interrupted backfill resumes where it
stopped and marks the tenant indexed only once it has read the whole table, and a write racing the backfill of an
erase is erased with the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import pytest
from hosted_support import MEMORY, Deployment, all_items, call, erase_until_verified, new_key, text_run
from test_export_erase_import import cli

from offprompt.adapters import layout
from offprompt.adapters.layout import DEPLOYMENT_PK, INDEXED_SK, TENANT_INDEX_ATTRIBUTE

TENANT = "old-tenant"
OTHER = "new-tenant"
NOTHING = {"dynamodb": 0, "s3": 0, "opensearch": 0}


def data_items(counts: dict[str, int]) -> int:
    """The exported items but the tenant's audit entries (the direct invocations that wrote them: ADR 0056)."""
    return counts["dynamodb"] - counts.get("dynamodb.audit_entry", 0)


@pytest.fixture
def stack(moto_server: str, opensearch_url: str, opensearch_client: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    d = Deployment(monkeypatch, moto_server, opensearch_url, opensearch_client, "preindex")
    # the deployment marked indexed as a whole, as the local stack creates its table
    marker = {"pk": {"S": DEPLOYMENT_PK}, "sk": {"S": INDEXED_SK}, "indexed_since": {"S": "table created"}}
    boto3.client("dynamodb").put_item(TableName=d.table, Item=marker)
    yield d
    d.close()


def write_before_the_index(stack: Deployment, tenant: str = TENANT) -> None:
    """A thread with runs and a text namespace, stored by the handlers, then stripped of the index attribute (the
    items as the code before the index wrote them); no `#INDEXED` marker of the tenant."""
    from add_run.handler import lambda_handler as add
    from process_output.handler import lambda_handler as store

    for i in range(3):
        add({"tenant": tenant, "thread_id": "old", "run": text_run(f"r{i}")}, None)
    artifact = {"type": "TextArtifact", "id": "a" * 32, "name": "ns", "meta": {}, "value": "old text " * 50}
    store({"tenant": tenant, "memory_name": MEMORY, "tool": "T", "activity": "a", "artifact": artifact}, None)
    strip_index_attribute(stack, tenant)


def strip_index_attribute(stack: Deployment, tenant: str) -> None:
    ddb = boto3.client("dynamodb")
    for item in all_items(stack.table):
        if layout.classify(item, tenant) is None:
            continue
        k = {"pk": item["pk"], "sk": item["sk"]}
        assert item["sk"]["S"] != INDEXED_SK
        if TENANT_INDEX_ATTRIBUTE in item:
            ddb.update_item(TableName=stack.table, Key=k, UpdateExpression=f"REMOVE {TENANT_INDEX_ATTRIBUTE}")


def list_runs(thread: str = "old", tenant: str = TENANT) -> list[Any]:
    from threads.handler import lambda_handler as threads

    return list(threads({"tenant": tenant, "thread_id": thread, "action": "list_runs", "limit": 10}, None)["runs"])


def load(tenant: str = TENANT) -> Any:
    from load_artifacts.handler import lambda_handler as load_fn

    return load_fn({"tenant": tenant, "memory_name": MEMORY, "namespace": "ns"}, None)


def marked(stack: Deployment, tenant: str = TENANT) -> bool:
    key = {"pk": {"S": layout.tenant_pk(tenant)}, "sk": {"S": INDEXED_SK}}
    return "Item" in boto3.client("dynamodb").get_item(TableName=stack.table, Key=key, ConsistentRead=True)


def http_export(token: str) -> tuple[int, Any, dict[str, str]]:
    return call("tenant_data", "tenant_export_http.json", token, path="/export", method="POST")


def http_erase(token: str) -> tuple[int, Any, dict[str, str]]:
    body = {"confirm": TENANT}
    return call("tenant_data", "tenant_erase_http.json", token, path="/tenant", method="DELETE", body=body)


#: The items of the thread (1 + 3 runs + 3 run ids) and of the namespace (its record, a batch, a meta entry).
LEGACY_ITEMS = 10


def test_the_self_service_routes_index_a_tenant_older_than_the_index_first(
    stack: Deployment, fence_clock: Callable[[float], None]
) -> None:
    write_before_the_index(stack)
    assert list_runs() and stack.raw_traces(TENANT)["dynamodb"] == LEGACY_ITEMS
    token = new_key(TENANT)  # the tenant's first key, long after its data

    status, export, _ = http_export(token)
    assert status == 200, export
    assert data_items(export["counts"]) == LEGACY_ITEMS and export["complete"] is True, export
    assert export["counts"]["dynamodb.run"] == 3 and export["counts"]["dynamodb.batch"] == 1, export
    assert marked(stack)  # the export indexed the tenant first

    status, first, headers = http_erase(token)
    assert status == 202 and first["verified"] is False and "Retry-After" in headers, first
    fence_clock(float(headers["Retry-After"]))
    status, report, _ = http_erase(token)
    assert status == 200 and report["verified"] is True and report["remaining"] == NOTHING, report
    assert stack.raw_traces(TENANT) == NOTHING
    assert list_runs() == []


def test_a_repeated_erase_of_a_tenant_older_than_the_index_leaves_nothing(
    stack: Deployment, fence_clock: Callable[[float], None]
) -> None:
    """The finding as reported: no export first; the first erase is 202, the repeat must not verify a table that
    still holds the tenant's thread, runs, namespace and batch."""
    write_before_the_index(stack)
    assert load()["value"] and list_runs()
    token = new_key(TENANT)
    status, report = erase_until_verified(token, TENANT, fence_clock)
    assert status == 200 and report["verified"] is True, report
    assert stack.raw_traces(TENANT) == NOTHING
    assert list_runs() == []
    assert load()["value"] == []


@pytest.mark.parametrize("door", ["direct", "cli"])
def test_direct_invocation_and_the_operator_cli_index_first(
    stack: Deployment, door: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tenant_data.handler import lambda_handler as tenant_data

    write_before_the_index(stack)
    write_before_the_index(stack, OTHER)
    other = stack.raw_traces(OTHER)
    if door == "direct":
        export = tenant_data({"tenant": TENANT, "action": "export"}, None)
        counts = export["counts"]
        assert export["complete"] is True
        report = tenant_data({"tenant": TENANT, "action": "erase", "confirm": TENANT}, None)
    else:
        code, export, _ = cli(capsys, "export", TENANT, "--out", str(tmp_path / "export"))
        assert code == 0
        counts = export["counts"]
        code, report, _ = cli(capsys, "erase", TENANT, "--yes")
        assert code == 0
    assert data_items(counts) == LEGACY_ITEMS, export
    assert report["verified"] is True and report["remaining"] == NOTHING, report
    assert stack.raw_traces(TENANT) == NOTHING and list_runs() == []
    assert stack.raw_traces(OTHER) == other and len(list_runs(tenant=OTHER)) == 3  # the other tenant untouched
    assert not marked(stack, TENANT)  # the erase took the tenant's marker too, last


@pytest.fixture
def small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Backfill Scan pages of 2 items, and an invocation budget of one page: the table is "too big" for one call."""
    from offprompt.adapters import tenant_items
    from offprompt.services.tenant_data import backfill

    monkeypatch.setattr(tenant_items, "SCAN_PAGE_ITEMS", 2)
    monkeypatch.setattr(backfill, "PAGES_PER_CALL", 1)


def test_a_table_too_big_for_one_invocation_is_indexed_over_several_never_claiming_success(
    stack: Deployment, small_pages: None, fence_clock: Callable[[float], None]
) -> None:
    from tenant_data.handler import lambda_handler as tenant_data

    write_before_the_index(stack)
    write_before_the_index(stack, OTHER)
    token = new_key(TENANT)
    table_items = len(all_items(stack.table))

    status, export, headers = http_export(token)
    assert status == 202 and export["complete"] is False and "Retry-After" in headers, export
    assert export["status"] == "indexing" and export["indexing"]["scanned"] > 0, export
    assert "manifest_url" not in export and not marked(stack)
    direct = tenant_data({"tenant": TENANT, "action": "export"}, None)
    assert direct["complete"] is False and direct["status"] == "indexing", direct

    answers = []
    for _ in range(table_items):  # one page of 2 items per call: at most this many calls
        status, report, headers = http_erase(token)
        answers.append((status, report.get("status")))
        if status != 202:
            break
        assert report["verified"] is False, report
        fence_clock(float(headers["Retry-After"]))
    assert status == 200 and report["verified"] is True and report["remaining"] == NOTHING, (answers, report)
    assert answers[0] == (202, "indexing") and len(answers) > 3, answers
    assert stack.raw_traces(TENANT) == NOTHING and list_runs() == []
    assert len(list_runs(tenant=OTHER)) == 3


def test_an_interrupted_backfill_resumes_and_marks_only_when_complete(
    stack: Deployment, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from offprompt.adapters import tenant_items
    from offprompt.composition.tenant_data import default_stores

    write_before_the_index(stack)
    write_before_the_index(stack, OTHER)
    monkeypatch.setattr(tenant_items, "SCAN_PAGE_ITEMS", 3)
    stores = default_stores()
    real = stores.items.set_index_attribute
    calls: list[int] = []

    def crash_on_the_third_page(roots: Any) -> int:
        calls.append(len(roots))
        if len(calls) == 3:
            raise RuntimeError("the invocation ended here (kill -9, a timeout)")
        return int(real(roots))

    monkeypatch.setattr(stores.items, "set_index_attribute", crash_on_the_third_page)
    from tenant_data.handler import lambda_handler as tenant_data

    with pytest.raises(RuntimeError):
        tenant_data({"tenant": TENANT, "action": "export"}, None)
    assert not marked(stack)  # half a backfill marks nothing
    monkeypatch.setattr(stores.items, "set_index_attribute", real)
    done = len(calls)
    export = tenant_data({"tenant": TENANT, "action": "export"}, None)
    assert export["complete"] is True and data_items(export["counts"]) == LEGACY_ITEMS, export
    assert marked(stack)
    assert stack.raw_traces(TENANT)["dynamodb"] == LEGACY_ITEMS + 1  # + the marker; the progress item is gone
    assert done == 3  # the crash came on the third page; the rest resumed from the second page's end


def test_a_write_racing_the_backfill_of_an_erase_is_erased_too(
    stack: Deployment, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request of the tenant lands while its erase indexes it: a new thread (its root indexed by its writer) and
    a run on the old thread (whose root the backfill may not have reached yet). No key: nothing is fenced, so the
    erase must find both by the index once the backfill is complete."""
    from add_run.handler import lambda_handler as add
    from tenant_data.handler import lambda_handler as tenant_data

    from offprompt.adapters import tenant_items
    from offprompt.composition.tenant_data import default_stores

    write_before_the_index(stack)
    monkeypatch.setattr(tenant_items, "SCAN_PAGE_ITEMS", 2)
    stores = default_stores()
    real = stores.items.set_index_attribute
    raced: list[bool] = []

    def write_in_the_middle(roots: Any) -> int:
        if not raced:
            raced.append(True)
            add({"tenant": TENANT, "thread_id": "new", "run": text_run("n0")}, None)
            add({"tenant": TENANT, "thread_id": "old", "run": text_run("r9")}, None)
        return int(real(roots))

    monkeypatch.setattr(stores.items, "set_index_attribute", write_in_the_middle)
    report = tenant_data({"tenant": TENANT, "action": "erase", "confirm": TENANT}, None)
    assert raced and report["verified"] is True, report
    assert stack.raw_traces(TENANT) == NOTHING
    assert list_runs() == [] and list_runs("new") == []


def test_writes_at_random_pages_of_the_backfill_are_erased_too(
    stack: Deployment, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bounded randomized (seeded): page sizes, the pages a write lands after and the kind of write vary; every
    erase ends verified with nothing of the tenant left and the other tenant intact."""
    import random

    from add_run.handler import lambda_handler as add
    from process_output.handler import lambda_handler as store
    from tenant_data.handler import lambda_handler as tenant_data

    from offprompt.adapters import tenant_items
    from offprompt.composition.tenant_data import default_stores

    rng = random.Random(30_2)
    write_before_the_index(stack, OTHER)
    other = stack.raw_traces(OTHER)
    stores = default_stores()
    real = stores.items.set_index_attribute
    for trial in range(3):
        write_before_the_index(stack)
        monkeypatch.setattr(tenant_items, "SCAN_PAGE_ITEMS", rng.randint(1, 4))
        pages = rng.sample(range(1, 8), 2)
        seen = [0]

        def write_now(roots: Any, pages: list[int] = pages, seen: list[int] = seen, trial: int = trial) -> int:
            seen[0] += 1
            if seen[0] in pages:
                kind = rng.choice(["new thread", "old thread", "namespace"])
                if kind == "namespace":
                    artifact = {"type": "TextArtifact", "id": "b" * 32, "name": f"n{seen[0]}", "value": "raced " * 9}
                    event = {"tool": "T", "activity": "a", "artifact": artifact}
                    store({"tenant": TENANT, "memory_name": MEMORY, **event}, None)
                else:
                    thread = "old" if kind == "old thread" else f"new{seen[0]}"
                    add({"tenant": TENANT, "thread_id": thread, "run": text_run(f"x{trial}{seen[0]}")}, None)
            return int(real(roots))

        monkeypatch.setattr(stores.items, "set_index_attribute", write_now)
        report = tenant_data({"tenant": TENANT, "action": "erase", "confirm": TENANT}, None)
        assert report["verified"] is True, (trial, report)
        assert stack.raw_traces(TENANT) == NOTHING, trial
        assert stack.raw_traces(OTHER) == other, trial
