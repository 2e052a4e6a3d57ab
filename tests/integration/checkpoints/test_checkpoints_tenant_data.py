"""Export and verified erase cover LangGraph checkpoints (docs/adr/0039, 0024): the checkpoint family (thread roots,
checkpoints, writes, heads, a copy and the source it holds) and blobs under `checkpoints/` are the tenant's, found
through the layout, whether the tenant is in the tenant index or scanned; another tenant's are untouched."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from checkpoints_support import BUCKET, TABLE, blob, bucket_keys, table_items
from tenant_data_support import NoDocuments, Sink

from offprompt.adapters.dynamodb_account import DynamoDbAccountStore
from offprompt.adapters.tenant_items import DynamoDbTenantItems
from offprompt.adapters.tenant_objects import S3TenantObjects
from offprompt.identifiers import digest
from offprompt.services.checkpoints.context import Checkpoints
from offprompt.services.checkpoints.copy import copy_thread
from offprompt.services.checkpoints.delete import delete_thread
from offprompt.services.checkpoints.put import put_checkpoint
from offprompt.services.checkpoints.requests import CheckpointCopy, CheckpointPut, WritesPut
from offprompt.services.checkpoints.writes import put_writes
from offprompt.services.tenant_data.erase import erase_tenant
from offprompt.services.tenant_data.export import export_tenant
from offprompt.services.tenant_data.ports import TenantStores


def _checkpoints_of(ck: Checkpoints, tenant: str) -> None:
    for n, data in ((1, os.urandom(400_000)), (2, b"small")):
        body = CheckpointPut.model_validate({"checkpoint": blob(data), "metadata": {"n": n}})
        put_checkpoint(ck, tenant, "graph", f"1ef-{n}", body)
    writes = WritesPut.model_validate({"task_id": "t", "writes": [{"idx": 0, "channel": "c", "value": blob(b"w")}]})
    put_writes(ck, tenant, "graph", "1ef-2", writes)
    copy_thread(ck, tenant, "graph", CheckpointCopy(target_thread_id="graph-copy"))
    delete_thread(ck, tenant, "graph")  # hidden, kept for the copy: a head, floors, the held items


@pytest.mark.parametrize("indexed", [False, True])
def test_export_and_erase_cover_checkpoints(ck: Checkpoints, aws: dict[str, Any], indexed: bool) -> None:
    _checkpoints_of(ck, "alice#1")
    _checkpoints_of(ck, "alice")  # a tenant whose name is a prefix of the other's
    items = DynamoDbTenantItems(TABLE)
    stores = TenantStores(items, S3TenantObjects(BUCKET), NoDocuments(), DynamoDbAccountStore(TABLE))
    if indexed:
        items.mark_indexed("alice#1", "2026-12-02T00:00:00Z")
    alice_keys = [k for k in bucket_keys(aws["s3"]) if k.split("/")[1] == digest("alice#1")]
    assert len(alice_keys) == 1 and alice_keys[0].startswith("checkpoints/")

    sink = Sink()
    result = export_tenant("alice#1", stores, sink, export_id="e1", created_at="2026-12-02T00:00:00Z").to_dict()
    counts = result["counts"]
    assert counts["dynamodb.checkpoint_thread"] == 2  # the hidden source and its copy
    assert counts["dynamodb.checkpoint"] == 4 and counts["s3"] == 1  # 2 checkpoints, 1 write, 1 head
    lines = [json.loads(line) for line in sink.files["dynamodb.jsonl"].decode().splitlines()]
    assert {line["item"]["pk"]["S"] for line in lines} == {"CKP#alice%231#graph", "CKP#alice%231#graph-copy"}

    other_before = [i for i in table_items(aws["dynamodb"]) if i["pk"]["S"].startswith("CKP#alice#")]
    report = erase_tenant("alice#1", stores).to_dict()
    assert report["verified"] and report["remaining"] == {"dynamodb": 0, "s3": 0, "opensearch": 0}
    left = table_items(aws["dynamodb"])
    assert not [i for i in left if i["pk"]["S"].startswith("CKP#alice%231#")]
    assert not [k for k in bucket_keys(aws["s3"]) if k.split("/")[1] == digest("alice#1")]
    assert [i for i in left if i["pk"]["S"].startswith("CKP#alice#")] == other_before  # the other tenant untouched
    assert [k for k in bucket_keys(aws["s3"]) if k.split("/")[1] == digest("alice")]


class Source:
    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files

    def read(self, name: str) -> bytes:
        return self.files[name]


def test_an_export_imports_back_byte_exact(ck: Checkpoints, aws: dict[str, Any]) -> None:
    """Checkpoint and write blobs are DynamoDB binary values: the export writes them as base64, the import reads
    them back as bytes (a JSON export of a `B` attribute failed before)."""
    from offprompt.services.checkpoints.get import get_checkpoint
    from offprompt.services.checkpoints.requests import CheckpointRead
    from offprompt.services.tenant_data.importer import import_tenant

    _checkpoints_of(ck, "bob")
    before = get_checkpoint(ck, "bob", "graph-copy", CheckpointRead())
    items = DynamoDbTenantItems(TABLE)
    stores = TenantStores(items, S3TenantObjects(BUCKET), NoDocuments(), DynamoDbAccountStore(TABLE))
    sink = Sink()
    export_tenant("bob", stores, sink, export_id="e1", created_at="2026-12-02T00:00:00Z")
    assert erase_tenant("bob", stores).to_dict()["verified"]
    import_tenant("bob", stores, Source(sink.files))
    assert get_checkpoint(ck, "bob", "graph-copy", CheckpointRead()) == before
    assert before["pending_writes"][0]["value"] == blob(b"w")
