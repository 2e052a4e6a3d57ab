"""AuditStore on the single DynamoDB table: a tenant's entries in one fixed partition, `AUDIT#{tenant}`
(`layout.audit_pk`), sort key `A#{time_ns}#{entry_id}`, the entry as JSON, `actor_id` for the key filter and
`expires_at` for DynamoDB's TTL. Export and erase find the partition by its key (`layout.fixed_partitions`).
docs/adr/0056."""

from __future__ import annotations

import json
from typing import Any

from offprompt.errors import InvalidInput

from .aws_errors import aws_call
from .dynamodb_table import DynamoDbTable
from .layout import AUDIT_PREFIX, audit_pk, audit_sk

#: Items read per listing call at most (the key filter may discard many): the page is then short, with a cursor.
MAX_READ_ITEMS = 1000


class DynamoDbAuditStore(DynamoDbTable):
    def _dynamodb(self, operation: str, **params: Any) -> Any:
        with aws_call(f"DynamoDB {operation}"):
            return getattr(self.client, operation)(TableName=self.table_name, **params)

    def put_audit_entry(
        self, tenant: str, time_ns: int, entry: dict[str, Any], *, actor_id: str, expires_at: int
    ) -> None:
        self._dynamodb(
            "put_item",
            Item={
                "pk": {"S": audit_pk(tenant)},
                "sk": {"S": audit_sk(time_ns, entry["entry_id"])},
                "entry": {"S": json.dumps(entry, separators=(",", ":"))},
                "actor_id": {"S": actor_id},
                "expires_at": {"N": str(expires_at)},
            },
        )

    def audit_page(
        self, tenant: str, since_ns: int, until_ns: int, *, actor_id: str | None, limit: int, after: str | None
    ) -> tuple[list[dict[str, Any]], str | None]:
        low, high = audit_sk(since_ns, ""), audit_sk(until_ns, "")
        if after is not None and not (after.startswith(AUDIT_PREFIX + "#") and low <= after < high):
            raise InvalidInput('"cursor" is not a cursor of this listing (same since and until)')
        params: dict[str, Any] = {
            "KeyConditionExpression": "pk = :pk AND sk BETWEEN :low AND :high",
            "ExpressionAttributeValues": {":pk": {"S": audit_pk(tenant)}, ":low": {"S": low}, ":high": {"S": high}},
            "ScanIndexForward": False,
        }
        if actor_id is not None:
            params["FilterExpression"] = "actor_id = :actor"
            params["ExpressionAttributeValues"][":actor"] = {"S": actor_id}
        if after is not None:
            params["ExclusiveStartKey"] = {"pk": {"S": audit_pk(tenant)}, "sk": {"S": after}}
        entries: list[dict[str, Any]] = []
        read = 0
        while True:
            params["Limit"] = min(limit - len(entries), MAX_READ_ITEMS - read) if actor_id is None else limit
            page = self._dynamodb("query", **params)
            read += int(page.get("ScannedCount", 0))
            for item in page.get("Items", []):
                entries.append(json.loads(item["entry"]["S"]))
                if len(entries) == limit:
                    return entries, item["sk"]["S"]
            last = page.get("LastEvaluatedKey")
            if last is None:
                return entries, None
            if read >= MAX_READ_ITEMS:
                return entries, str(last["sk"]["S"])
            params["ExclusiveStartKey"] = last
