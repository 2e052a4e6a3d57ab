"""Export and verified erase cover records (docs/adr/0034, 0024): the record family (current items, versions,
tombstones, namespace settings) and big values under `records/` are the tenant's, found through the layout, whether
the tenant is in the tenant index or scanned; another tenant's records are untouched. (The records' OpenSearch
documents are erased by `tenant` with the rest of the index: tenant_documents, tested with the index.)"""

from __future__ import annotations

import json
from typing import Any

import pytest
from records_support import BUCKET, TABLE, Clock, bucket_keys, table_items
from tenant_data_support import NoDocuments, Sink

from offprompt.adapters.dynamodb_account import DynamoDbAccountStore
from offprompt.adapters.tenant_items import DynamoDbTenantItems
from offprompt.adapters.tenant_objects import S3TenantObjects
from offprompt.identifiers import digest
from offprompt.services.records.context import Records
from offprompt.services.records.delete import delete_record
from offprompt.services.records.namespaces import configure_namespace
from offprompt.services.records.put import put_record
from offprompt.services.records.requests import NamespaceSettings, RecordPut
from offprompt.services.tenant_data.erase import erase_tenant
from offprompt.services.tenant_data.export import export_tenant
from offprompt.services.tenant_data.ports import TenantStores


def _records_of(rec: Records, clock: Clock, tenant: str) -> None:
    def put(key: str, value: dict[str, Any], ns: tuple[str, ...] = ("users", "u1")) -> None:
        put_record(rec, tenant, ns, key, RecordPut(value=value))
        clock.tick()

    put("a", {"v": 1})
    put("a", {"v": 2})  # a version item
    put("b", {"big": "x" * 400_000})  # an S3 body
    put("c", {"v": 3}, ns=("other",))
    delete_record(rec, tenant, ("other",), "c")  # a tombstone
    configure_namespace(rec, tenant, ("users",), NamespaceSettings(default_ttl_minutes=60))


@pytest.mark.parametrize("indexed", [False, True])
def test_export_and_erase_cover_records(rec: Records, clock: Clock, aws: dict[str, Any], indexed: bool) -> None:
    _records_of(rec, clock, "alice#1")
    _records_of(rec, clock, "alice")  # a tenant whose name is a prefix of the other's
    items = DynamoDbTenantItems(TABLE)
    stores = TenantStores(items, S3TenantObjects(BUCKET), NoDocuments(), DynamoDbAccountStore(TABLE))
    if indexed:
        items.mark_indexed("alice#1", "2026-12-02T00:00:00Z")
    alice_keys = [k for k in bucket_keys(aws["s3"]) if k.split("/")[1] == digest("alice#1")]
    assert len(alice_keys) == 1 and alice_keys[0].startswith("records/")

    sink = Sink()
    result = export_tenant("alice#1", stores, sink, export_id="e1", created_at="2026-12-02T00:00:00Z").to_dict()
    counts = result["counts"]
    assert counts["dynamodb.record"] == 3 and counts["dynamodb.record_version"] == 2
    assert counts["dynamodb.record_namespace"] == 1 and counts["s3"] == 1
    lines = [json.loads(line) for line in sink.files["dynamodb.jsonl"].decode().splitlines()]
    assert {line["item"]["pk"]["S"] for line in lines} == {"REC#alice%231"}

    other_before = [i for i in table_items(aws["dynamodb"]) if i["pk"]["S"] == "REC#alice"]
    report = erase_tenant("alice#1", stores).to_dict()
    assert report["verified"] and report["remaining"] == {"dynamodb": 0, "s3": 0, "opensearch": 0}
    left = table_items(aws["dynamodb"])
    assert not [i for i in left if i["pk"]["S"] == "REC#alice%231"]
    assert not [k for k in bucket_keys(aws["s3"]) if k.split("/")[1] == digest("alice#1")]
    assert [i for i in left if i["pk"]["S"] == "REC#alice"] == other_before  # the other tenant untouched
    assert [k for k in bucket_keys(aws["s3"]) if k.split("/")[1] == digest("alice")]
