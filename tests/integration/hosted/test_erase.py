"""An erase is complete and can always be finished (outsider findings 3 and 4)."""

from __future__ import annotations

import boto3
import pytest
from hosted_support import MEMORY, Deployment, authorized, call, erase_until_verified, new_key, no_fence_wait, text_run

from offprompt.adapters.layout import DEPLOYMENT_PK, INDEXED_SK, TENANT_INDEX_ATTRIBUTE

TENANT = "legacy"


def add_run(token: str, thread: str, run_id: str, cached: dict | None = None) -> int:
    status, _, _ = call(
        "add_run",
        "add_run_http.json",
        token,
        path=f"/threads/{thread}/runs",
        method="POST",
        body=text_run(run_id),
        cached=cached,
        thread_id=thread,
    )
    return status


def erase(token: str, cached: dict | None = None) -> tuple[int, dict, dict]:
    return call(
        "tenant_data",
        "tenant_erase_http.json",
        token,
        path="/tenant",
        method="DELETE",
        body={"confirm": TENANT},
        cached=cached,
    )


def write_before_the_index(stack: Deployment) -> None:
    """Data of a tenant with no tenant record (JWT/IAM callers), written before the tenant index existed: the same
    items as today's, without the index attribute (as `offprompt_admin backfill-index` finds them)."""
    from add_run.handler import lambda_handler as add
    from process_output.handler import lambda_handler as store

    for i in range(3):
        add({"tenant": TENANT, "thread_id": "old", "run": text_run(f"r{i}")}, None)
    artifact = {"type": "TextArtifact", "id": "a" * 32, "name": "ns", "meta": {}, "value": "old text " * 50}
    store({"tenant": TENANT, "memory_name": MEMORY, "tool": "T", "activity": "a", "artifact": artifact}, None)
    ddb = boto3.client("dynamodb")
    # a deployment from before the index has no marker saying every tenant's data is in it
    ddb.delete_item(TableName=stack.table, Key={"pk": {"S": DEPLOYMENT_PK}, "sk": {"S": INDEXED_SK}})
    for page in ddb.get_paginator("scan").paginate(TableName=stack.table):
        for item in page["Items"]:
            if TENANT_INDEX_ATTRIBUTE in item:
                ddb.update_item(
                    TableName=stack.table,
                    Key={"pk": item["pk"], "sk": item["sk"]},
                    UpdateExpression="REMOVE #a",
                    ExpressionAttributeNames={"#a": TENANT_INDEX_ATTRIBUTE},
                )


def test_erase_after_the_first_key_finds_data_from_before_the_index(
    stack: Deployment, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_before_the_index(stack)
    before = stack.raw_traces(TENANT)
    assert before["dynamodb"] >= 6 and before["opensearch"] > 0, before
    token = new_key(TENANT)  # the tenant's first key (its first tenant record)
    status, export, _ = call("tenant_data", "tenant_export_http.json", token, path="/export", method="POST")
    assert status == 200 and export["counts"]["dynamodb"] >= 6, export
    finish_erase(token, monkeypatch)
    assert stack.raw_traces(TENANT) == {"dynamodb": 0, "s3": 0, "opensearch": 0}
    from threads.handler import lambda_handler as threads

    listed = threads({"tenant": TENANT, "thread_id": "old", "action": "list_runs", "limit": 10}, None)
    assert listed["runs"] == []


def finish_erase(token: str, monkeypatch: pytest.MonkeyPatch) -> dict:
    """Repeat the erase as its answers say (a 202 names when), with the clock moved on instead of sleeping."""
    status, report = erase_until_verified(token, TENANT, no_fence_wait(monkeypatch))
    assert status == 200 and report["verified"] is True, report
    return report


def test_an_erase_raced_by_the_tenants_own_writes_can_be_finished_with_the_same_key(
    stack: Deployment, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = new_key(TENANT)
    in_flight = authorized(token)  # API Gateway's cached answer for the key
    assert add_run(token, "t", "r0") == 201
    from offprompt.composition.tenant_data import default_stores

    stores = default_stores()
    delete_documents = stores.documents.delete
    late: list[int] = []

    def racing_delete(tenant: str) -> int:
        # while the erase runs: a new request of the tenant (refused: the tenant is being erased) ...
        late.append(add_run(token, "t", "late", cached=in_flight))
        # ... and a write of a request admitted before the erase began, landing now
        from add_run.handler import lambda_handler as add

        add({"tenant": TENANT, "thread_id": "t", "run": text_run("straggler")}, None)
        return delete_documents(tenant)

    monkeypatch.setattr(stores.documents, "delete", racing_delete)
    status, first, _ = erase(token)
    monkeypatch.setattr(stores.documents, "delete", delete_documents)
    assert late == [409], late
    assert status in (202, 503), first  # not verified: a write landed after the erase began
    report = finish_erase(token, monkeypatch)
    assert report["remaining"] == {"dynamodb": 0, "s3": 0, "opensearch": 0}, report
    assert stack.raw_traces(TENANT) == {"dynamodb": 0, "s3": 0, "opensearch": 0}
    assert add_run(token, "t", "after", cached=in_flight) == 401  # the key went with the tenant


def test_an_erase_leaves_a_kind_of_item_the_layout_does_not_know_until_the_layout_knows_it(
    stack: Deployment, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Erase completeness follows from the storage layout: a store that writes a new partition family without
    declaring it there is caught here (the erase, and its verification, cannot see what the layout does not
    define); declared in `layout.FAMILIES`, the same item is erased."""
    from tenant_data.handler import lambda_handler as tenant_data

    from offprompt.adapters import layout

    def write_note() -> None:
        pk = f"NOTES#{layout.part(TENANT)}#n1"
        # without the index attribute: the layout's backfill indexes the roots of the families it knows
        item = {"pk": {"S": pk}, "sk": {"S": "#NOTE"}, "text": {"S": "a new kind of item"}}
        boto3.client("dynamodb").put_item(TableName=stack.table, Item=item)

    erase = {"tenant": TENANT, "action": "erase", "confirm": TENANT}
    write_note()
    report = tenant_data(erase, None)
    assert report["verified"] is True  # it looked only where the layout said...
    assert stack.raw_traces(TENANT)["dynamodb"] == 1  # ...and left the new kind behind
    family = layout.Family("notes", "NOTES#{tenant}#", (layout.Kind("note", "#NOTE", exported=True, root=True),))
    monkeypatch.setattr(layout, "FAMILIES", (*layout.FAMILIES, family))
    report = tenant_data(erase, None)
    # the new kind, and the first erase's audit entry (which this erase's replaces: ADR 0056)
    assert report["verified"] is True and report["deleted"]["dynamodb"] == 2, report
    assert stack.raw_traces(TENANT) == {"dynamodb": 0, "s3": 0, "opensearch": 0}
