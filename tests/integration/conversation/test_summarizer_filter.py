"""The summarizer's stream filter (template.yaml) against the items add-run really writes.

Each item the code writes is turned into the INSERT/MODIFY record DynamoDB Streams would carry, and the filter
pattern is evaluated the way Lambda's event filtering does (exact values and `prefix`): only a run written to a
summary-memory thread may wake the summarizer.
"""

from __future__ import annotations

import json
from typing import Any

from conversation_api import TABLE, Api, text_run
from sam_support import load_template


def summarizer_pattern() -> dict[str, Any]:
    events = load_template()["Resources"]["SummarizerFunction"]["Properties"]["Events"]
    (stream,) = [e for e in events.values() if e["Type"] == "DynamoDB"]
    (pattern,) = stream["Properties"]["FilterCriteria"]["Filters"]
    return dict(json.loads(pattern["Pattern"]))


def matches(pattern: Any, value: Any) -> bool:
    if isinstance(pattern, dict):
        return isinstance(value, dict) and all(k in value and matches(p, value[k]) for k, p in pattern.items())
    # A list is a set of alternatives: exact values or {"prefix": ...}.
    return any(
        (isinstance(alt, dict) and isinstance(value, str) and value.startswith(alt["prefix"])) or alt == value
        for alt in pattern
    )


def stream_records(ddb: Any) -> list[tuple[str, dict[str, Any]]]:
    """(kind of item, its INSERT record) for every item in the table."""
    items = ddb.scan(TableName=TABLE)["Items"]
    return [
        (
            item["sk"]["S"].split("#", 1)[0],
            {"eventName": "INSERT", "dynamodb": {"Keys": {"pk": item["pk"], "sk": item["sk"]}, "NewImage": item}},
        )
        for item in items
    ]


def test_only_runs_of_summary_threads_wake_the_summarizer(api: Api, aws: dict[str, Any]) -> None:
    assert api.thread("PUT", "summarized", {"memory_type": "summary", "offset": 1})[0] == 200
    for thread in ("summarized", "buffered"):
        for i in range(2):
            assert api.post_run(thread, text_run(f"{thread}-{i}", f"q{i}", f"a{i}"))[0] == 201
    pattern = summarizer_pattern()
    woken = {
        (record["dynamodb"]["NewImage"]["thread_id"]["S"], kind)
        for kind, record in stream_records(aws["dynamodb"])
        if matches(pattern, record)
    }
    assert woken == {("summarized", "RUN")}
    # and the filter is not vacuous: the summary thread's runs are exactly the records it lets through
    summary_runs = [
        r for k, r in stream_records(aws["dynamodb"]) if k == "RUN" and "summarized" in r["dynamodb"]["Keys"]["pk"]["S"]
    ]
    assert len(summary_runs) == 2 and all(matches(pattern, r) for r in summary_runs)
    assert not matches(pattern, {**summary_runs[0], "eventName": "MODIFY"})
