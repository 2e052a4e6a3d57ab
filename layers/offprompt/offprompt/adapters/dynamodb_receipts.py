"""ReceiptStore on the single DynamoDB table: one item per idempotency key of process-output (ADR 0026).

`pk = RECEIPT#{tenant}#%~{digest(memory, key)}` (`layout.receipt_pk`), `sk = RECEIPT`: a key per partition,
so no tenant or memory is a hot
partition. A claim is a conditional PutItem (absent, or an unfinished claim whose lease ran out); completion
sets the answer and `expires_at` (the table's TTL attribute), so receipts go away by themselves.
"""

from __future__ import annotations

from typing import Any

from offprompt.ports import Receipt

from .aws_errors import CONDITION_FAILED, aws_call, aws_call_allowing
from .dynamodb_table import DynamoDbTable
from .layout import RECEIPT_SK, TENANT_INDEX_ATTRIBUTE, receipt_pk, tenant_index_value

SK = RECEIPT_SK


class DynamoDbReceiptStore(DynamoDbTable):
    def claim(
        self, tenant: str, memory: str, key: str, request_hash: str, claim_id: str, now: int, lease_until: int
    ) -> Receipt | None:
        item_key = _key(tenant, memory, key)
        with aws_call_allowing("DynamoDB put_item", CONDITION_FAILED):
            self.client.put_item(
                TableName=self.table_name,
                Item={
                    **item_key,
                    TENANT_INDEX_ATTRIBUTE: {"S": tenant_index_value(tenant, receipt_pk(tenant, memory, key))},
                    "request_hash": {"S": request_hash},
                    "claim_id": {"S": claim_id},
                    "lease_until": {"N": str(lease_until)},
                    "expires_at": {"N": str(lease_until + 86_400)},  # a claim never completed is swept by TTL
                },
                ConditionExpression=(
                    "attribute_not_exists(pk) OR (attribute_not_exists(#result) AND lease_until < :now)"
                ),
                ExpressionAttributeNames={"#result": "result_json"},
                ExpressionAttributeValues={":now": {"N": str(now)}},
            )
            return None
        held = self._call("get_item", TableName=self.table_name, Key=item_key, ConsistentRead=True).get("Item")
        if held is None:  # released between the two calls: the holder failed; claim again
            return self.claim(tenant, memory, key, request_hash, claim_id, now, lease_until)
        result = held.get("result_json")
        return Receipt(
            request_hash=held["request_hash"]["S"],
            completed=result is not None,
            lease_until=int(held["lease_until"]["N"]),
            result_json=result["S"] if result is not None else None,
        )

    def complete(self, tenant: str, memory: str, key: str, result_json: str, expires_at: int) -> None:
        self._call(
            "update_item",
            TableName=self.table_name,
            Key=_key(tenant, memory, key),
            UpdateExpression="SET #result = :result, expires_at = :expires, #tdir = :tdir",
            ExpressionAttributeNames={"#result": "result_json", "#tdir": TENANT_INDEX_ATTRIBUTE},
            ExpressionAttributeValues={
                ":result": {"S": result_json},
                ":expires": {"N": str(expires_at)},
                ":tdir": {"S": tenant_index_value(tenant, receipt_pk(tenant, memory, key))},
            },
        )

    def release(self, tenant: str, memory: str, key: str, claim_id: str) -> None:
        with aws_call_allowing("DynamoDB delete_item", CONDITION_FAILED):
            self.client.delete_item(
                TableName=self.table_name,
                Key=_key(tenant, memory, key),
                ConditionExpression="claim_id = :claim AND attribute_not_exists(#result)",
                ExpressionAttributeNames={"#result": "result_json"},
                ExpressionAttributeValues={":claim": {"S": claim_id}},
            )

    def _call(self, operation: str, **params: Any) -> Any:
        with aws_call(f"DynamoDB {operation}"):
            return getattr(self.client, operation)(**params)


def _key(tenant: str, memory: str, idempotency_key: str) -> dict[str, Any]:
    return {"pk": {"S": receipt_pk(tenant, memory, idempotency_key)}, "sk": {"S": SK}}
