"""Create the DynamoDB table and S3 bucket from template.yaml's own definitions (moto or any endpoint).

The template is the single source of truth for the table's keys and stream settings; tests and the local
stack build their resources from it rather than repeating it.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[3]
TEMPLATE = ROOT / "template.yaml"


def template_resource(logical_id: str, template: Path = TEMPLATE) -> dict[str, Any]:
    stat = template.stat()
    # A copy: callers may change what they get (the parse is cached per version of the file).
    properties: dict[str, Any] = json.loads(_resources_json(template, stat.st_mtime_ns, stat.st_size)[logical_id])
    return properties


@functools.lru_cache(maxsize=4)
def _resources_json(template: Path, mtime_ns: int, size: int) -> dict[str, str]:
    """Each resource's Properties as JSON, parsed once per version of the file (~0.5 s a parse: every test that
    creates the table used to pay it)."""
    parsed = load_template(template.read_text(encoding="utf-8"))
    return {name: json.dumps(r["Properties"]) for name, r in parsed["Resources"].items() if "Properties" in r}


class _TemplateLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """YAML's safe loader (libyaml's when built with it) with CloudFormation's short-form tags."""


def _intrinsic(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    """`!Ref x` → `{"Ref": "x"}`, `!Condition c` → `{"Condition": "c"}`, `!GetAtt A.B` → `{"Fn::GetAtt": ["A",
    "B"]}`, any other `!Fn args` → `{"Fn::Fn": args}`: the long form, as cfn-lint's decoder writes it."""
    value: Any
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if suffix in ("Ref", "Condition"):
        return {suffix: value}
    if suffix == "GetAtt" and isinstance(value, str):
        return {"Fn::GetAtt": value.split(".", 1)}
    return {f"Fn::{suffix}": value}


_TemplateLoader.add_multi_constructor("!", _intrinsic)


def load_template(text: str) -> dict[str, Any]:
    """template.yaml as plain JSON-like data, its short-form intrinsics in long form. The local stack reads its
    resources with this rather than importing cfn-lint (~1 s of CPU a boot; the suite boots ~40 stacks);
    tests/infrastructure/test_template_loader.py proves it reads what cfn-lint's decoder reads."""
    parsed: dict[str, Any] = yaml.load(text, Loader=_TemplateLoader)
    return parsed


def create_table(client: Any, table_name: str, *, exist_ok: bool = False) -> bool:
    """Create the memory table as template.yaml declares it (keys, indexes, billing, stream, TTL).

    With `exist_ok`, an existing table (a restarted local stack) is kept as it is. Returns True if created.
    """
    props = template_resource("MemoryTable")
    if exist_ok and _table_exists(client, table_name):
        _add_missing_indexes(client, table_name, props)
        return False
    client.create_table(
        TableName=table_name,
        AttributeDefinitions=props["AttributeDefinitions"],
        KeySchema=props["KeySchema"],
        BillingMode=props["BillingMode"],
        **({"GlobalSecondaryIndexes": props["GlobalSecondaryIndexes"]} if "GlobalSecondaryIndexes" in props else {}),
        StreamSpecification={"StreamEnabled": True, **props["StreamSpecification"]},
    )
    client.get_waiter("table_exists").wait(TableName=table_name)
    ttl = props["TimeToLiveSpecification"]
    client.update_time_to_live(
        TableName=table_name, TimeToLiveSpecification={"AttributeName": ttl["AttributeName"], "Enabled": True}
    )
    return True


def _add_missing_indexes(client: Any, table_name: str, props: dict[str, Any]) -> None:
    """A table kept from an earlier local stack gets the indexes the template added since (the tenant index)."""
    have = {
        i["IndexName"] for i in client.describe_table(TableName=table_name)["Table"].get("GlobalSecondaryIndexes", [])
    }
    missing = [i for i in props.get("GlobalSecondaryIndexes", []) if i["IndexName"] not in have]
    if missing:
        client.update_table(
            TableName=table_name,
            AttributeDefinitions=props["AttributeDefinitions"],
            GlobalSecondaryIndexUpdates=[{"Create": index} for index in missing],
        )


def _table_exists(client: Any, table_name: str) -> bool:
    try:
        client.describe_table(TableName=table_name)
    except client.exceptions.ResourceNotFoundException:
        return False
    return True


def _bucket_exists(client: Any, bucket_name: str) -> bool:
    try:
        client.head_bucket(Bucket=bucket_name)
    except client.exceptions.ClientError as exc:
        if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchBucket", "NotFound"):
            return False
        raise
    return True


def create_bucket(client: Any, bucket_name: str, *, exist_ok: bool = False) -> bool:
    """Create the blob bucket with template.yaml's encryption; with `exist_ok`, keep an existing one."""
    if exist_ok and _bucket_exists(client, bucket_name):
        return False
    client.create_bucket(Bucket=bucket_name)
    props = template_resource("BlobBucket")
    # CloudFormation's property names differ from the API's (ServerSideEncryptionByDefault vs Apply...).
    rules = [
        {"ApplyServerSideEncryptionByDefault": dict(rule["ServerSideEncryptionByDefault"])}
        for rule in props["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    ]
    client.put_bucket_encryption(Bucket=bucket_name, ServerSideEncryptionConfiguration={"Rules": rules})
    return True
