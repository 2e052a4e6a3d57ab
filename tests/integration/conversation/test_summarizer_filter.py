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


def summarizer_patterns() -> list[dict[str, Any]]:
    events = load_template()["Resources"]["SummarizerFunction"]["Properties"]["Events"]
    (stream,) = [e for e in events.values() if e["Type"] == "DynamoDB"]
    return [dict(json.loads(f["Pattern"])) for f in stream["Properties"]["FilterCriteria"]["Filters"]]


def summarizer_pattern() -> list[dict[str, Any]]:
    """Lambda's filters are alternatives: a record passes when any pattern matches it."""
    return summarizer_patterns()


def matches(pattern: Any, value: Any) -> bool:
    if isinstance(pattern, list) and pattern and all(isinstance(p, dict) and "eventName" in p for p in pattern):
        return any(matches(p, value) for p in pattern)  # the filters: any of them
    if isinstance(pattern, dict):
        return isinstance(value, dict) and all(k in value and matches(p, value[k]) for k, p in pattern.items())
    # A list is a set of alternatives: exact values, {"prefix": ...} or {"exists": true} (the key is there).
    return any(
        (isinstance(alt, dict) and isinstance(value, str) and "prefix" in alt and value.startswith(alt["prefix"]))
        or (isinstance(alt, dict) and alt.get("exists") is True)
        or alt == value
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


TTL = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}


def remove_records(ddb: Any, identity: dict[str, str] | None) -> list[tuple[str, dict[str, Any]]]:
    """(kind of item, the REMOVE record DynamoDB Streams would carry when it is deleted by `identity`)."""
    out = []
    for item in ddb.scan(TableName=TABLE)["Items"]:
        record: dict[str, Any] = {
            "eventName": "REMOVE",
            "dynamodb": {"Keys": {"pk": item["pk"], "sk": item["sk"]}, "OldImage": item},
        }
        if identity is not None:
            record["userIdentity"] = identity
        out.append((item["sk"]["S"].split("#", 1)[0], record))
    return out


def test_only_ttl_removals_of_metered_runs_reach_the_summarizer(api: Api, aws: dict[str, Any]) -> None:
    from offprompt import metering
    from offprompt.composition.conversation import default_service
    from offprompt.services.conversation.add_run import add_run

    assert api.post_run("unmetered", text_run("u-1", "q", "a"))[0] == 201
    meter = metering.Meter("tenant-a", metering.Plan("p"))  # hosted mode: runs carry their bytes
    add_run(default_service(), "tenant-a", "metered", text_run("m-1", "q", "a"), meter=meter)
    pattern = summarizer_pattern()
    by_ttl = [(k, r) for k, r in remove_records(aws["dynamodb"], TTL) if matches(pattern, r)]
    assert [(k, r["dynamodb"]["OldImage"]["thread_id"]["S"]) for k, r in by_ttl] == [("RUN", "metered")]
    # a delete by anyone but the TTL service (the API's own deletes take the bytes off themselves) never does
    assert not any(matches(pattern, r) for _, r in remove_records(aws["dynamodb"], None))
    someone = {"type": "Service", "principalId": "other.amazonaws.com"}
    assert not any(matches(pattern, r) for _, r in remove_records(aws["dynamodb"], someone))
