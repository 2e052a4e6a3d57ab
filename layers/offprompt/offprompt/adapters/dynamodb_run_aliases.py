"""The RunStore's aliases: a tenant's unique names of threads (Griptape Cloud's `alias`; partition
`T#{tenant}#ALIAS#{alias}`, item `#ALIAS`, by a conditional put).

A part of `DynamoDbRunStore` (dynamodb_runs.py); its SDK calls are made here (the call-depth rule)."""

from __future__ import annotations

from typing import Any

from .aws_errors import CONDITION_FAILED, aws_call, aws_call_allowing
from .dynamodb_run_items import (
    _key,
    _s,
    get_request,
)
from .dynamodb_table import DynamoDbTable
from .layout import (
    ALIAS_SK,
    TENANT_INDEX_ATTRIBUTE,
    alias_pk,
    tenant_index_value,
)


class Aliases(DynamoDbTable):
    """The aliases of `DynamoDbRunStore` (a mixin: the table and client are `DynamoDbTable`'s)."""

    def claim_alias(self, tenant: str, alias: str, thread_id: str, *, replace: str | None = None) -> bool:
        params: dict[str, Any] = {
            "TableName": self.table_name,
            "Item": {
                **_key(alias_pk(tenant, alias), ALIAS_SK),
                "thread_id": {"S": thread_id},
                TENANT_INDEX_ATTRIBUTE: {"S": tenant_index_value(tenant, alias_pk(tenant, alias))},
            },
        }
        if replace is None:
            params["ConditionExpression"] = "attribute_not_exists(pk)"
        else:
            params["ConditionExpression"] = "thread_id = :old"
            params["ExpressionAttributeValues"] = {":old": {"S": replace}}
        with aws_call_allowing("DynamoDB put_item", CONDITION_FAILED) as call:
            self.client.put_item(**params)
        return not call.refused

    def release_alias(self, tenant: str, alias: str, thread_id: str) -> None:
        with aws_call_allowing("DynamoDB delete_item", CONDITION_FAILED) as call:
            self.client.delete_item(
                TableName=self.table_name,
                Key=_key(alias_pk(tenant, alias), ALIAS_SK),
                ConditionExpression="thread_id = :t",
                ExpressionAttributeValues={":t": {"S": thread_id}},
            )
        if call.refused:
            return  # the alias names another thread now (or nothing): leave it

    def alias_target(self, tenant: str, alias: str) -> str | None:
        with aws_call("DynamoDB get_item"):
            item = self.client.get_item(**get_request(self.table_name, alias_pk(tenant, alias), ALIAS_SK)).get("Item")
        return _s(item, "thread_id") if item else None
