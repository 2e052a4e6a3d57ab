"""The extraction store's conditional writes on the real DynamoDB adapter (moto): a claim or a save whose condition
fails is `ExtractionLeaseTaken`, the runner's signal that another attempt holds the thread, never another error
(a bare re-raise after the condition was swallowed raised RuntimeError, "No active exception to reraise")."""

from __future__ import annotations

from typing import Any

import pytest
from extraction_support import TABLE

from offprompt.adapters.dynamodb_extraction import DynamoDbExtractionStore
from offprompt.ports import ExtractionLeaseTaken, ExtractionStatus

TENANT = "acme"


def test_a_claim_on_a_status_another_attempt_holds_is_lease_taken(aws: dict[str, Any]) -> None:
    store = DynamoDbExtractionStore(TABLE)
    store.claim(TENANT, ExtractionStatus("t1", "facts"), "first", until=200.0, now=100.0)
    with pytest.raises(ExtractionLeaseTaken):
        store.claim(TENANT, ExtractionStatus("t1", "facts"), "second", until=210.0, now=110.0)


def test_a_save_under_a_lease_that_was_taken_over_is_lease_taken(aws: dict[str, Any]) -> None:
    store = DynamoDbExtractionStore(TABLE)
    mine = ExtractionStatus("t1", "facts")
    store.claim(TENANT, mine, "first", until=200.0, now=100.0)
    store.claim(TENANT, ExtractionStatus("t1", "facts"), "second", until=400.0, now=300.0)  # mine ran out
    mine.processed_through_seq = 3
    with pytest.raises(ExtractionLeaseTaken):
        store.save(TENANT, mine, lease="first")
    assert store.statuses(TENANT, "t1")["facts"].processed_through_seq == 0
