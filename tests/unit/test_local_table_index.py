"""The local table has template.yaml's tenant index (docs/adr/0024-tenant-export-erase.md), also a table kept from
a local stack started before the index existed."""

from __future__ import annotations

import boto3

from offprompt.adapters.layout import TENANT_INDEX, TENANT_INDEX_ATTRIBUTE
from offprompt_local import resources


def _indexes(ddb: object, table: str) -> dict[str, dict[str, object]]:
    described = ddb.describe_table(TableName=table)["Table"]  # type: ignore[attr-defined]
    return {i["IndexName"]: i for i in described.get("GlobalSecondaryIndexes", [])}


def test_created_with_the_sparse_keys_only_tenant_index(moto_aws: None) -> None:
    ddb = boto3.client("dynamodb")
    assert resources.create_table(ddb, "fresh")
    index = _indexes(ddb, "fresh")[TENANT_INDEX]
    assert index["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    assert [k["AttributeName"] for k in index["KeySchema"]] == [TENANT_INDEX_ATTRIBUTE]  # any pk length fits


def test_a_kept_table_without_it_gets_it(moto_aws: None) -> None:
    ddb = boto3.client("dynamodb")
    props = resources.template_resource("MemoryTable")
    ddb.create_table(
        TableName="old",
        AttributeDefinitions=[a for a in props["AttributeDefinitions"] if a["AttributeName"] in ("pk", "sk")],
        KeySchema=props["KeySchema"],
        BillingMode="PAY_PER_REQUEST",
    )
    assert TENANT_INDEX not in _indexes(ddb, "old")
    assert resources.create_table(ddb, "old", exist_ok=True) is False  # kept, not re-created
    assert TENANT_INDEX in _indexes(ddb, "old")
    ddb.put_item(TableName="old", Item={"pk": {"S": "T#a#TH#t"}, "sk": {"S": "#THREAD"}, "tenant_dir": {"S": "a#3"}})
    out = ddb.query(
        TableName="old",
        IndexName=TENANT_INDEX,
        KeyConditionExpression="tenant_dir = :d",
        ExpressionAttributeValues={":d": {"S": "a#3"}},
    )
    assert [i["pk"]["S"] for i in out["Items"]] == ["T#a#TH#t"]
