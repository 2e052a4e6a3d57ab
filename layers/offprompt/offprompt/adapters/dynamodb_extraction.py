"""ExtractionStore on the single DynamoDB table: a tenant's strategies and statuses in one fixed partition,
`XTR#{tenant}` (`layout.extraction_pk`; docs/adr/0051): `STRAT#{name}` a strategy (its JSON in `strategy`),
`XS#{thread}#{strategy}` where a strategy stands on a thread. Export and erase query the partition by its key
(`layout.fixed_partitions`), like the records'.

A status is claimed for one attempt with a conditional UpdateItem (no live lease, and the `processed_through_seq`
that was read), and saved conditioned on that lease: two attempts never process one range, and a replayed event
finds the range processed.
"""

from __future__ import annotations

import json
from typing import Any

from botocore.exceptions import ClientError

from offprompt.errors import InvalidInput
from offprompt.ports import ExtractionLeaseTaken, ExtractionStatus

from .aws_errors import CONDITION_FAILED, aws_call_allowing
from .dynamodb_table import DynamoDbTable
from .layout import (
    STRATEGY_PREFIX,
    extraction_pk,
    extraction_status_prefix,
    extraction_status_sk,
    strategy_sk,
)

_STATUS_FIELDS = ("processed_through_seq", "records_written", "failures", "lease_until")


class DynamoDbExtractionStore(DynamoDbTable):
    def _call(self, operation: str, **params: Any) -> Any:
        """The call's answer; a failed condition is its ClientError (the callers that set one catch it)."""
        with aws_call_allowing(f"DynamoDB {operation}", CONDITION_FAILED) as call:
            return getattr(self.client, operation)(TableName=self.table_name, **params)
        assert call.error is not None  # only a swallowed condition failure leaves the block without returning
        raise call.error

    def _query(self, tenant: str, prefix: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        params: dict[str, Any] = {
            "KeyConditionExpression": "pk = :pk AND begins_with(sk, :prefix)",
            "ExpressionAttributeValues": {":pk": {"S": extraction_pk(tenant)}, ":prefix": {"S": prefix}},
            "ConsistentRead": True,
        }
        while True:
            page = self._call("query", **params)
            items.extend(page.get("Items", []))
            if "LastEvaluatedKey" not in page:
                return items
            params["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    # ---- strategies -------------------------------------------------------------------------------------------
    def put_strategy(self, tenant: str, strategy: dict[str, Any], *, max_strategies: int) -> dict[str, Any]:
        name = strategy["name"]
        stored = self.get_strategy(tenant, name)
        if stored is None and len(self.list_strategies(tenant)) >= max_strategies:
            raise InvalidInput(f"a tenant keeps at most {max_strategies} extraction strategies")
        value = {**strategy, "created_at": (stored or strategy)["created_at"]}
        self._call(
            "put_item",
            Item={
                "pk": {"S": extraction_pk(tenant)},
                "sk": {"S": strategy_sk(name)},
                "tenant": {"S": tenant},
                "strategy": {"S": json.dumps(value, ensure_ascii=False)},
            },
        )
        return value

    def get_strategy(self, tenant: str, name: str) -> dict[str, Any] | None:
        out = self._call("get_item", Key=_key(extraction_pk(tenant), strategy_sk(name)), ConsistentRead=True)
        item = out.get("Item")
        return json.loads(item["strategy"]["S"]) if item else None

    def list_strategies(self, tenant: str) -> list[dict[str, Any]]:
        found = [json.loads(i["strategy"]["S"]) for i in self._query(tenant, STRATEGY_PREFIX + "#")]
        return sorted(found, key=lambda s: s["name"])

    def delete_strategy(self, tenant: str, name: str) -> bool:
        out = self._call("delete_item", Key=_key(extraction_pk(tenant), strategy_sk(name)), ReturnValues="ALL_OLD")
        return "Attributes" in out

    # ---- statuses ---------------------------------------------------------------------------------------------
    def statuses(self, tenant: str, thread_id: str) -> dict[str, ExtractionStatus]:
        found = (_status(i) for i in self._query(tenant, extraction_status_prefix(thread_id)))
        return {s.strategy: s for s in found if s.thread_id == thread_id}

    def claim(self, tenant: str, status: ExtractionStatus, lease: str, until: float, now: float) -> None:
        try:
            self._call(
                "update_item",
                Key=_key(extraction_pk(tenant), extraction_status_sk(status.thread_id, status.strategy)),
                UpdateExpression="SET lease = :lease, lease_until = :until, tenant = :tenant, thread_id = :thread, "
                "strategy_name = :strategy, processed_through_seq = if_not_exists(processed_through_seq, :zero)",
                ConditionExpression="(attribute_not_exists(lease_until) OR lease_until < :now) AND "
                "(attribute_not_exists(processed_through_seq) OR processed_through_seq = :seq)",
                ExpressionAttributeValues={
                    ":lease": {"S": lease},
                    ":until": {"N": repr(until)},
                    ":now": {"N": repr(now)},
                    ":seq": {"N": str(status.processed_through_seq)},
                    ":zero": {"N": "0"},
                    ":tenant": {"S": tenant},
                    ":thread": {"S": status.thread_id},
                    ":strategy": {"S": status.strategy},
                },
            )
        except ClientError:  # the condition: another attempt holds it, or it moved since it was read
            raise ExtractionLeaseTaken(status.strategy) from None
        status.lease, status.lease_until = lease, until

    def save(self, tenant: str, status: ExtractionStatus, *, lease: str | None) -> None:
        item: dict[str, Any] = {
            "pk": {"S": extraction_pk(tenant)},
            "sk": {"S": extraction_status_sk(status.thread_id, status.strategy)},
            "tenant": {"S": tenant},
            "thread_id": {"S": status.thread_id},
            "strategy_name": {"S": status.strategy},
            "lease_until": {"N": "0"},
            **{name: {"N": str(getattr(status, name))} for name in _STATUS_FIELDS if name != "lease_until"},
        }
        for name in ("last_error", "paused", "updated_at"):
            value = getattr(status, name)
            if value is not None:
                item[name] = {"S": value}
        params: dict[str, Any] = {"Item": item}
        if lease is not None:
            params["ConditionExpression"] = "lease = :lease"
            params["ExpressionAttributeValues"] = {":lease": {"S": lease}}
        try:
            self._call("put_item", **params)
        except ClientError:
            raise ExtractionLeaseTaken(status.strategy) from None
        status.lease, status.lease_until = None, 0.0


def _key(pk: str, sk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def _status(item: dict[str, Any]) -> ExtractionStatus:
    def number(name: str) -> float:
        return float(item[name]["N"]) if name in item else 0.0

    def text(name: str) -> str | None:
        return item[name]["S"] if name in item else None

    return ExtractionStatus(
        thread_id=item["thread_id"]["S"],
        strategy=item["strategy_name"]["S"],
        processed_through_seq=int(number("processed_through_seq")),
        records_written=int(number("records_written")),
        failures=int(number("failures")),
        last_error=text("last_error"),
        paused=text("paused"),
        updated_at=text("updated_at"),
        lease=text("lease"),
        lease_until=number("lease_until"),
    )
