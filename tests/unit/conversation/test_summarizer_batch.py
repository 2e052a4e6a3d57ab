"""The summarizer's stream path (Powertools' BatchProcessor): a poison record is reported alone, a failed thread
reports all its records, every thread is summarized once per batch, and an all-failed batch is still a partial
response (reported, not raised)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from summarizer import handler

EVENT = json.loads((Path(__file__).resolve().parents[3] / "events" / "summarizer_stream.json").read_text())


def record(sequence_number: str, thread_id: str, tenant: str = "tenant-a") -> dict[str, Any]:
    item = copy.deepcopy(EVENT["Records"][0])
    item["dynamodb"]["SequenceNumber"] = sequence_number
    item["dynamodb"]["NewImage"]["thread_id"]["S"] = thread_id
    item["dynamodb"]["NewImage"]["tenant"]["S"] = tenant
    return item


def poison(sequence_number: str) -> dict[str, Any]:
    """A record whose image cannot be read (an attribute that is not a typed DynamoDB value); the hand-written
    parser this replaced raised on it, so the whole batch was replayed."""
    item = record(sequence_number, "whatever")
    item["dynamodb"]["NewImage"]["sk"] = "RUN#000000000001"
    return item


@pytest.fixture()
def summarized(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "offprompt-test")
    calls: list[tuple[str, str]] = []

    def fake(tenant: str, thread_id: str) -> dict[str, Any]:
        calls.append((tenant, thread_id))
        if thread_id.startswith("failing"):
            raise RuntimeError("bedrock is down")
        return {"status": "committed"}

    monkeypatch.setattr(handler, "summarize", fake)
    return calls


def failures(response: dict[str, Any]) -> list[str]:
    return [f["itemIdentifier"] for f in response["batchItemFailures"]]


def test_one_poison_record_is_the_only_one_reported(summarized: list[tuple[str, str]]) -> None:
    event = {"Records": [record("1", "a"), poison("2"), record("3", "b")]}
    assert failures(handler.handle_stream(event)) == ["2"]
    assert summarized == [("tenant-a", "a"), ("tenant-a", "b")]


def test_a_failed_thread_reports_each_of_its_records_and_is_summarized_once(
    summarized: list[tuple[str, str]],
) -> None:
    event = {"Records": [record("1", "failing-t"), record("2", "a"), record("3", "failing-t"), record("4", "a")]}
    assert failures(handler.handle_stream(event)) == ["1", "3"]
    assert summarized == [("tenant-a", "failing-t"), ("tenant-a", "a")]


def test_records_that_name_no_run_are_skipped(summarized: list[tuple[str, str]]) -> None:
    modify = record("1", "a") | {"eventName": "MODIFY"}
    not_a_run = record("2", "a")
    not_a_run["dynamodb"]["NewImage"]["sk"]["S"] = "META#x"
    no_tenant = record("3", "a")
    del no_tenant["dynamodb"]["NewImage"]["tenant"]
    assert handler.handle_stream({"Records": [modify, not_a_run, no_tenant]}) == {"batchItemFailures": []}
    assert summarized == []


def test_an_all_failed_batch_is_reported_not_raised(summarized: list[tuple[str, str]]) -> None:
    event = {"Records": [poison("1"), record("2", "failing-x")]}
    assert failures(handler.handle_stream(event)) == ["1", "2"]


def test_an_empty_batch_is_an_empty_report(summarized: list[tuple[str, str]]) -> None:
    assert handler.lambda_handler({"Records": []}, None) == {"batchItemFailures": []}
    assert summarized == []
