"""A DynamoDB TransactWriteItems whose items carry tags, so a cancellation is read by what failed, not by position.

    tx = Transaction()
    tx.put("run", {...})
    tx.update("thread", {...})
    tx.extend(charge_items(table, charge))        # tagged "charge.day", "charge.gauge"
    try:
        with tx.cancellation():                   # a cancellation raised as Cancelled, read by tag
            client.transact_write_items(TransactItems=tx.request())
    except Cancelled as cancelled:
        if cancelled.failed("charge.gauge"): ...

DynamoDB reports a cancelled transaction's reasons as a list in item order; `Cancelled` maps them back to the tags.
Errors other than a cancellation are the caller's to map (DependencyUnavailable). The adapter makes the SDK call
itself, so this module is never between a use case's adapter and DynamoDB (tests/infrastructure/test_call_depth.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import ClientError

from offprompt.errors import DependencyUnavailable

from .aws_errors import error_code

CONDITION_FAILED = "ConditionalCheckFailed"
#: The most items one TransactWriteItems may hold.
MAX_ITEMS = 100


@dataclass(frozen=True)
class TaggedItem:
    tag: str
    item: dict[str, Any]  # {"Put": {...}} | {"Update": {...}} | {"Delete": {...}} | {"ConditionCheck": {...}}


class Cancelled(Exception):
    """The transaction was cancelled: nothing of it was written. `reasons` by tag (DynamoDB's CancellationReasons)."""

    def __init__(self, reasons: dict[str, dict[str, Any]], error: ClientError) -> None:
        # The message is what an error answer may say (no tag, no item name); `reasons` is for the caller.
        super().__init__("TransactionCanceledException")
        self.reasons = reasons
        self.error = error

    def failed(self, tag: str) -> bool:
        """Whether the item tagged `tag` failed its condition."""
        return self.reasons.get(tag, {}).get("Code") == CONDITION_FAILED

    def failed_tags(self) -> set[str]:
        return {tag for tag, r in self.reasons.items() if r.get("Code") == CONDITION_FAILED}

    def old_item(self, tag: str) -> dict[str, Any] | None:
        """The stored item whose condition failed, when the item asked for it (ReturnValuesOnConditionCheckFailure)."""
        item: dict[str, Any] | None = self.reasons.get(tag, {}).get("Item")
        return item

    def unavailable(self) -> DependencyUnavailable:
        """This cancellation as the library's error, where none of the caller's conditions explains it."""
        return DependencyUnavailable(f"DynamoDB transact_write_items failed: {self}")

    @property
    def conflicted(self) -> bool:
        """Another transaction on the same items was in flight (retry)."""
        return any(r.get("Code") == "TransactionConflict" for r in self.reasons.values())


@dataclass
class Transaction:
    items: list[TaggedItem] = field(default_factory=list)

    def add(self, tag: str, item: dict[str, Any]) -> None:
        if any(t.tag == tag for t in self.items):
            raise ValueError(f"two items tagged {tag!r} in one transaction")
        self.items.append(TaggedItem(tag, item))

    def put(self, tag: str, put: dict[str, Any]) -> None:
        self.add(tag, {"Put": put})

    def update(self, tag: str, update: dict[str, Any]) -> None:
        self.add(tag, {"Update": update})

    def delete(self, tag: str, delete: dict[str, Any]) -> None:
        self.add(tag, {"Delete": delete})

    def extend(self, items: Iterable[TaggedItem]) -> None:
        for tagged in items:
            self.add(tagged.tag, tagged.item)

    def __len__(self) -> int:
        return len(self.items)

    def request(self) -> list[dict[str, Any]]:
        """The `TransactItems` of `transact_write_items` (every item or none is written)."""
        return [t.item for t in self.items]

    @contextlib.contextmanager
    def cancellation(self) -> Iterator[None]:
        """Around the `transact_write_items` of `request()`: DynamoDB's cancellation raised as Cancelled (by tag);
        other errors propagate."""
        try:
            yield
        except ClientError as exc:
            if error_code(exc) != "TransactionCanceledException":
                raise
            reasons = exc.response.get("CancellationReasons") or []
            by_tag = {t.tag: (reasons[i] if i < len(reasons) else {}) for i, t in enumerate(self.items)}
            raise Cancelled(by_tag, exc) from exc


def at_version(version: int) -> tuple[str, dict[str, Any]]:
    """The condition "the thread item is at `version`" (docs/concurrency.md; `#ver` names the `version` attribute,
    which a thread item written before it was kept lacks: 0)."""
    values = {":ver": {"N": str(version)}}
    if version == 0:
        return "(#ver = :ver OR (attribute_exists(pk) AND attribute_not_exists(#ver)))", values
    return "#ver = :ver", values
