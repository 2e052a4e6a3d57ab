"""Export and erase of a tenant read only that tenant's items: the tenant index (docs/adr/0024-tenant-export-erase.md).

Two tenants with threads, runs, aliases, namespaces, meta entries, receipts, API keys, usage counters and rate
windows in one table (moto, through the functions' handlers and the tenancy service). Every DynamoDB call of the
operator CLI's export and erase is recorded by a botocore `after-call` hook on the shared client: for a tenant
marked indexed (`offprompt_admin backfill-index`) there is no Scan and no item of the other tenant in any response.
A tenant whose data predates the index (the attribute and the `#INDEXED` marker removed) is indexed by its first
export (the filtered Scan, once), then Queried (docs/adr/0043).

`pytest -s` prints the calls and items read per path (the figures in the ADR).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from test_export_erase_import import ALICE, BOB, Deployment, _reset_caches, _workload, cli

from offprompt.adapters import layout
from offprompt.adapters.layout import DEPLOYMENT_PK, INDEXED_SK, TENANT_INDEX_ATTRIBUTE
from offprompt.identifiers import key
from offprompt.services.account import plan_named

EXPORTED_KINDS = layout.exported_kinds()


def item_kind(item: dict[str, Any], tenant: str) -> str | None:
    found = layout.classify(item, tenant)
    return found[1].name if found else None


class Calls:
    """DynamoDB operations made through the library's client, and the partition keys of every item returned."""

    def __init__(self) -> None:
        self.ops: Counter[str] = Counter()
        self.pks_read: list[str] = []
        self.evaluated = 0  # items a Query or Scan read (ScannedCount: what it is billed for, before any filter)

    def reset(self) -> None:
        self.ops.clear()
        self.pks_read.clear()
        self.evaluated = 0

    def __call__(self, model: Any, parsed: dict[str, Any], **_: Any) -> None:
        self.ops[model.name] += 1
        self.evaluated += int(parsed.get("ScannedCount", 0))
        for item in [*parsed.get("Items", []), *([parsed["Item"]] if "Item" in parsed else [])]:
            self.pks_read.append(item["pk"]["S"])

    def summary(self) -> str:
        return (
            f"calls {dict(sorted(self.ops.items()))}, items evaluated {self.evaluated}, "
            f"items returned {len(self.pks_read)}"
        )


@pytest.fixture
def calls() -> Iterator[Calls]:
    from offprompt.adapters.clients import aws_client

    recorder = Calls()
    client = aws_client("dynamodb")
    client.meta.events.register("after-call.dynamodb", recorder)
    yield recorder
    client.meta.events.unregister("after-call.dynamodb", recorder)


@pytest.fixture
def first(
    moto_server: str,
    opensearch_url: str,
    opensearch_client: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Iterator[Deployment]:
    d = Deployment(monkeypatch, moto_server, opensearch_url, opensearch_client, "idx")
    # a new deployment, marked indexed as the deploy guide says (an empty table: nothing to backfill)
    code, report, _ = cli(capsys, "backfill-index", "--all")
    assert code == 0 and report["roots_indexed"] == 0, report
    yield d
    opensearch_client.indices.delete(index=d.index, ignore_unavailable=True)
    _reset_caches()


def _tenant_with_everything(d: Deployment, tenant: str) -> None:
    """A hosted tenant (record, key, usage, a rate window) with the workload's threads, memories and receipts."""
    from offprompt.composition.account import default_account

    tenancy = default_account()
    tenancy.create_tenant(tenant, plan_named("pro"))
    tenancy.create_key(tenant, "first")
    _workload(d, tenant)
    day = time.strftime("%Y-%m-%d", time.gmtime())
    tenancy.records.add_usage(tenant, day, {"requests": 1})
    assert tenancy.records.take_rate_token(tenant, int(time.time()), 0, 10)


def _raw(d: Deployment) -> list[dict[str, Any]]:
    pages = boto3.client("dynamodb").get_paginator("scan").paginate(TableName=d.table)
    return [item for page in pages for item in page["Items"]]


def _owned_pks(d: Deployment, tenant: str) -> set[str]:
    """The tenant's partition keys, by an independent look at the raw table (escaped tenant in the key, or a
    `tenant` attribute)."""
    escaped = key(tenant)
    return {
        i["pk"]["S"]
        for i in _raw(d)
        if f"#{escaped}#" in i["pk"]["S"]
        or i["pk"]["S"].endswith(f"#{escaped}")
        or i.get("tenant", {}).get("S") == tenant
    }


def _exported_items(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line)["item"] for line in (out / "dynamodb.jsonl").read_text(encoding="utf-8").splitlines()]


def _expected_export(d: Deployment, tenant: str) -> list[tuple[str, str]]:
    owned = _owned_pks(d, tenant)
    return sorted(
        (i["pk"]["S"], i["sk"]["S"])
        for i in _raw(d)
        if i["pk"]["S"] in owned and item_kind(i, tenant) in EXPORTED_KINDS
    )


def test_indexed_export_and_erase_read_no_item_of_another_tenant(
    first: Deployment, tmp_path: Path, capsys: pytest.CaptureFixture[str], calls: Calls
) -> None:
    _tenant_with_everything(first, ALICE)
    _tenant_with_everything(first, BOB)
    alice_traces = first.raw_traces(ALICE)
    code, report, _ = cli(capsys, "backfill-index", "--all")  # marks every tenant it finds (nothing to index)
    assert code == 0 and report["roots_indexed"] == 0 and report["tenants_marked"] == 2, report
    bob_pks = _owned_pks(first, BOB)
    bob_traces = first.raw_traces(BOB)
    assert any(p.startswith("APIKEY#") for p in bob_pks) and any(p.startswith("RATE#") for p in bob_pks)
    expected = _expected_export(first, ALICE)

    calls.reset()
    out = tmp_path / "export"
    code, result, _ = cli(capsys, "export", ALICE, "--out", str(out))
    assert code == 0
    with capsys.disabled():
        print(f"\nindexed export of {ALICE!r}: {calls.summary()}")
    assert calls.ops["Scan"] == 0 and calls.ops["Query"] > 0
    assert not set(calls.pks_read) & bob_pks
    assert sorted((i["pk"]["S"], i["sk"]["S"]) for i in _exported_items(out)) == expected
    # the workload's threads: t1, t#2, the fork "t1 fork" (docs/adr/0037) and the alias's thread
    assert result["counts"]["dynamodb.thread"] == 4 and result["counts"]["dynamodb.alias"] == 1

    calls.reset()
    code, report, _ = cli(capsys, "erase", ALICE, "--yes")
    assert code == 0
    with capsys.disabled():
        print(f"indexed erase of {ALICE!r}: {calls.summary()}")
    assert calls.ops["Scan"] == 0
    assert not set(calls.pks_read) & bob_pks
    # raw_traces leaves out the audit log, which the erase deletes too (ADR 0056)
    logged = result["counts"].get("dynamodb.audit_entry", 0)
    assert report["verified"] and report["deleted"]["dynamodb"] == alice_traces["dynamodb"] + logged
    # An independent scan: nothing of alice is left (record, keys, usage, rate window, marker included); bob intact.
    assert first.raw_traces(ALICE) == {"dynamodb": 0, "s3": 0, "opensearch": 0}
    assert not _owned_pks(first, ALICE)
    assert first.raw_traces(BOB) == bob_traces


def _make_legacy(d: Deployment, tenant: str) -> None:
    """The tenant's data as the code before the index wrote it: no index attribute, no `#INDEXED` marker (and the
    deployment not marked indexed as a whole: it predates the index)."""
    ddb = boto3.client("dynamodb")
    ddb.delete_item(TableName=d.table, Key={"pk": {"S": DEPLOYMENT_PK}, "sk": {"S": INDEXED_SK}})
    owned = _owned_pks(d, tenant)
    for item in _raw(d):
        if item["pk"]["S"] not in owned:
            continue
        k = {"pk": item["pk"], "sk": item["sk"]}
        if item["sk"]["S"] == INDEXED_SK:
            ddb.delete_item(TableName=d.table, Key=k)
        elif TENANT_INDEX_ATTRIBUTE in item:
            ddb.update_item(TableName=d.table, Key=k, UpdateExpression=f"REMOVE {TENANT_INDEX_ATTRIBUTE}")


def test_a_tenant_older_than_the_index_is_scanned_until_backfilled(
    first: Deployment, tmp_path: Path, capsys: pytest.CaptureFixture[str], calls: Calls
) -> None:
    _tenant_with_everything(first, ALICE)
    _tenant_with_everything(first, BOB)
    _make_legacy(first, ALICE)
    bob_pks = _owned_pks(first, BOB)
    expected = _expected_export(first, ALICE)

    legacy_roots = [i for i in _raw(first) if layout.with_index_attribute(i, ALICE) is not i]
    # roots: 4 threads (one a fork), 1 alias, 2 namespace records, 1 receipt, 1 API key
    assert len(legacy_roots) == 9

    calls.reset()
    assert cli(capsys, "export", ALICE, "--out", str(tmp_path / "legacy"))[0] == 0
    with capsys.disabled():
        print(f"\nlegacy export of {ALICE!r} (indexed first: the Scan, once): {calls.summary()}")
    assert calls.ops["Scan"] >= 1
    assert calls.evaluated >= len(_raw(first))  # the whole table, both tenants
    assert set(calls.pks_read) & bob_pks == set()  # filtered server-side: read (billed), never returned
    assert sorted((i["pk"]["S"], i["sk"]["S"]) for i in _exported_items(tmp_path / "legacy")) == expected
    assert not [i for i in _raw(first) if layout.with_index_attribute(i, ALICE) is not i]  # every root indexed

    code, report, _ = cli(capsys, "backfill-index", ALICE)
    assert code == 0 and report["roots_indexed"] == 0, report  # the export did it: nothing left to write

    calls.reset()
    assert cli(capsys, "export", ALICE, "--out", str(tmp_path / "indexed"))[0] == 0
    with capsys.disabled():
        print(f"backfilled export of {ALICE!r}: {calls.summary()}")
    assert calls.ops["Scan"] == 0 and not set(calls.pks_read) & bob_pks
    assert sorted((i["pk"]["S"], i["sk"]["S"]) for i in _exported_items(tmp_path / "indexed")) == expected

    calls.reset()
    code, erased, _ = cli(capsys, "erase", ALICE, "--yes")
    assert code == 0 and erased["verified"] and calls.ops["Scan"] == 0
    assert not _owned_pks(first, ALICE)


def _as_exported_before_the_index(out: Path) -> None:
    """The export's items without the index attribute (an export made by a version before the index), its manifest
    digest updated."""
    import hashlib

    lines = []
    for line in (out / "dynamodb.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        entry["item"].pop(TENANT_INDEX_ATTRIBUTE, None)
        lines.append(json.dumps(entry, ensure_ascii=False, separators=(",", ":"), sort_keys=True) + "\n")
    data = "".join(lines).encode("utf-8")
    (out / "dynamodb.jsonl").write_bytes(data)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    for entry in manifest["files"]:
        if entry["name"] == "dynamodb.jsonl":
            entry.update(size=len(data), sha256=hashlib.sha256(data).hexdigest())
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def test_import_indexes_the_roots_of_a_legacy_export(
    first: Deployment, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _tenant_with_everything(first, ALICE)
    out = tmp_path / "export"
    assert cli(capsys, "export", ALICE, "--out", str(out))[0] == 0
    _as_exported_before_the_index(out)
    assert not any(TENANT_INDEX_ATTRIBUTE in i for i in _exported_items(out))
    assert cli(capsys, "erase", ALICE, "--yes")[0] == 0
    assert cli(capsys, "import", ALICE, str(out))[0] == 0
    roots = [i for i in _raw(first) if item_kind(i, ALICE) in ("thread", "alias", "namespace")]
    assert len(roots) == 7 and all(TENANT_INDEX_ATTRIBUTE in i for i in roots)  # 4 threads, 1 alias, 2 namespaces
    others = [i for i in _raw(first) if item_kind(i, ALICE) in ("run", "run_id", "batch", "meta")]
    assert others and not any(TENANT_INDEX_ATTRIBUTE in i for i in others)
