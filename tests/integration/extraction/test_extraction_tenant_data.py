"""Export and verified erase cover extraction (docs/adr/0051, 0024): a tenant's strategies and statuses (the
`XTR#{tenant}` partition, a fixed one of the layout) are exported and erased, indexed tenant or scanned; another
tenant's are untouched."""

from __future__ import annotations

import json
from typing import Any

import pytest
from extraction_support import BUCKET, TABLE
from tenant_data_support import NoDocuments, Sink

from offprompt.adapters.dynamodb_account import DynamoDbAccountStore
from offprompt.adapters.tenant_items import DynamoDbTenantItems
from offprompt.adapters.tenant_objects import S3TenantObjects
from offprompt.ports import ExtractionStatus
from offprompt.services.extraction.context import Extractions
from offprompt.services.extraction.requests import StrategyPut
from offprompt.services.extraction.strategies import list_strategies, put_strategy
from offprompt.services.tenant_data.erase import erase_tenant
from offprompt.services.tenant_data.export import export_tenant
from offprompt.services.tenant_data.ports import TenantStores


def _extraction_of(ext: Extractions, tenant: str) -> None:
    put_strategy(ext, tenant, "facts", StrategyPut(type="facts", namespace="users/{actor_id}/facts"))
    put_strategy(ext, tenant, "summary", StrategyPut(type="summary", namespace="threads/{thread_id}"))
    ext.store.save(tenant, ExtractionStatus("t1", "facts", processed_through_seq=3, records_written=2), lease=None)


def _items(aws: dict[str, Any], pk: str) -> list[dict[str, Any]]:
    found = aws["dynamodb"].scan(TableName=TABLE, ConsistentRead=True)["Items"]
    return sorted((i for i in found if i["pk"]["S"] == pk), key=lambda i: i["sk"]["S"])


@pytest.mark.parametrize("indexed", [False, True])
def test_export_and_erase_cover_strategies_and_statuses(ext: Extractions, aws: dict[str, Any], indexed: bool) -> None:
    _extraction_of(ext, "alice#1")
    _extraction_of(ext, "alice")  # a tenant whose name is a prefix of the other's
    items = DynamoDbTenantItems(TABLE)
    stores = TenantStores(items, S3TenantObjects(BUCKET), NoDocuments(), DynamoDbAccountStore(TABLE))
    if indexed:
        items.mark_indexed("alice#1", "2026-12-02T00:00:00Z")

    sink = Sink()
    result = export_tenant("alice#1", stores, sink, export_id="e1", created_at="2026-12-02T00:00:00Z").to_dict()
    counts = result["counts"]
    assert counts["dynamodb.extraction_strategy"] == 2 and counts["dynamodb.extraction_status"] == 1
    lines = [json.loads(line) for line in sink.files["dynamodb.jsonl"].decode().splitlines()]
    assert {line["item"]["pk"]["S"] for line in lines} == {"XTR#alice%231"}

    other_before = _items(aws, "XTR#alice")
    report = erase_tenant("alice#1", stores).to_dict()
    assert report["verified"] and report["remaining"] == {"dynamodb": 0, "s3": 0, "opensearch": 0}
    assert _items(aws, "XTR#alice%231") == []
    assert list_strategies(ext, "alice#1") == {"strategies": []}
    assert ext.store.statuses("alice#1", "t1") == {}
    assert _items(aws, "XTR#alice") == other_before and len(other_before) == 3  # the other tenant untouched
