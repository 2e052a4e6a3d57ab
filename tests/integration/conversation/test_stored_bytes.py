"""The stored-bytes gauge goes down by exactly what deletes remove, and GET /threads/{id} reads one item
(docs/adr/0021-stored-bytes-and-run-counts.md).

Through the real handlers on moto, with the hosted-mode events of test_hosted_mode (a key the real authorizer
admitted). The gauge is checked against an independent sum: the `metered_bytes` of the run items in the table.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conversation_api import Api, all_items, text_run
from test_hosted_mode import add_run, hosted, tenancy, usage

from offprompt.metering import Plan

__all__ = ["tenancy"]  # the fixture, imported for the tests here


def thread_call(token: str, method: str, thread: str, body: Any = None) -> dict[str, Any]:
    from threads.handler import lambda_handler

    name = {"GET": "thread_get_http.json", "PUT": "thread_put_http.json", "DELETE": "thread_delete_http.json"}[method]
    event = hosted(name, token, path=f"/threads/{thread}", method=method, body=body, thread_id=thread)
    out: dict[str, Any] = lambda_handler(event, None)
    return out


def gauge(token: str) -> int:
    return int(usage(token)["stored_bytes"])


def metered_in_table(ddb: Any) -> int:
    """What the stored run items say they added to the gauge (independent of the gauge)."""
    return sum(int(i["metered_bytes"]["N"]) for i in all_items(ddb) if "metered_bytes" in i)


def run_items(ddb: Any, thread: str) -> list[dict[str, Any]]:
    return [i for i in all_items(ddb) if i["sk"]["S"].startswith("RUN#") and f"#TH#{thread}" in i["pk"]["S"]]


@pytest.fixture
def key(tenancy: Any, api: Api) -> str:
    tenancy.create_tenant("acme", Plan("pro", rate_per_second=0, runs_per_day=0, stored_bytes=0, max_keys=3))
    return str(tenancy.create_key("acme")["key"])


def test_deleting_a_thread_takes_its_bytes_off_the_gauge_once(key: str, aws: dict[str, Any]) -> None:
    for n in range(3):
        assert add_run(key, "keep", text_run(f"k-{n}", "q" * 50, "a"))["statusCode"] == 201
        assert add_run(key, "drop", text_run(f"d-{n}", "x" * 100, "y"))["statusCode"] == 201
    kept = sum(int(i["size"]["N"]) for i in run_items(aws["dynamodb"], "keep"))
    dropped = sum(int(i["size"]["N"]) for i in run_items(aws["dynamodb"], "drop"))
    assert gauge(key) == kept + dropped == metered_in_table(aws["dynamodb"])
    assert thread_call(key, "DELETE", "drop")["statusCode"] == 204
    assert gauge(key) == kept
    assert thread_call(key, "DELETE", "drop")["statusCode"] == 204  # a retried delete takes nothing off again
    assert gauge(key) == kept == metered_in_table(aws["dynamodb"])


def test_max_runs_pruning_takes_the_pruned_runs_off_the_gauge(key: str, aws: dict[str, Any]) -> None:
    assert thread_call(key, "PUT", "t", {"max_runs": 1})["statusCode"] == 200
    for n in range(15):  # pruning deletes what max_runs + PRUNE_SLACK (8) certainly hides
        assert add_run(key, "t", text_run(f"r-{n}", f"question {n} " + "z" * n, "a"))["statusCode"] == 201
    runs = run_items(aws["dynamodb"], "t")
    assert 0 < len(runs) < 15  # some were pruned
    assert gauge(key) == sum(int(i["size"]["N"]) for i in runs) == metered_in_table(aws["dynamodb"])
    view = json.loads(thread_call(key, "GET", "t")["body"])
    assert (view["stored_runs"], view["visible_runs"]) == (len(runs), 1)


def test_a_tenant_at_its_stored_bytes_quota_can_add_again_after_deleting(
    tenancy: Any, api: Api, aws: dict[str, Any]
) -> None:
    tenancy.create_tenant("small", Plan("small", stored_bytes=1_500))
    key = tenancy.create_key("small")["key"]
    added = 0
    while (answer := add_run(key, "full", text_run(f"r-{added}", "p" * 200, "a")))["statusCode"] == 201:
        added += 1
    assert added >= 1 and json.loads(answer["body"])["details"]["quota"] == "stored_bytes"
    assert thread_call(key, "DELETE", "full")["statusCode"] == 204
    assert gauge(key) == 0
    assert add_run(key, "again", text_run("r-new", "p" * 200, "a"))["statusCode"] == 201


def test_a_run_gone_before_the_delete_is_not_taken_off_twice(key: str, aws: dict[str, Any]) -> None:
    """A run deleted under the thread delete (TTL or a concurrent prune, which took its bytes off): the delete's
    conditional transaction skips it instead of taking its bytes off again."""
    from offprompt.composition.conversation import default_service

    for n in range(3):
        assert add_run(key, "t", text_run(f"r-{n}", "q" * 40, "a"))["statusCode"] == 201
    first, *rest = sorted(run_items(aws["dynamodb"], "t"), key=lambda i: i["sk"]["S"])
    runs = default_service().runs
    original = runs.client.transact_write_items
    raced: list[bool] = []

    def racing(**params: Any) -> Any:
        if not raced:  # the first run vanishes between the delete's Query and its transaction, bytes released
            raced.append(True)
            aws["dynamodb"].delete_item(TableName="offprompt-test", Key={"pk": first["pk"], "sk": first["sk"]})
            assert runs.release_expired("acme", "t", "event-1", int(first["metered_bytes"]["N"]))
        return original(**params)

    before = gauge(key)
    runs.client.transact_write_items = racing
    try:
        assert thread_call(key, "DELETE", "t")["statusCode"] == 204
    finally:
        runs.client.transact_write_items = original
    assert raced and before == sum(int(i["metered_bytes"]["N"]) for i in [first, *rest])
    assert gauge(key) == 0


def test_an_expired_runs_stream_record_takes_its_bytes_off_once(key: str, aws: dict[str, Any]) -> None:
    """The summarizer's TTL path: a REMOVE record by the DynamoDB service, redelivered, moves the gauge once."""
    from summarizer.handler import lambda_handler

    for n in range(2):
        assert add_run(key, "t", text_run(f"r-{n}", "q" * 40, "a"))["statusCode"] == 201
    item = sorted(run_items(aws["dynamodb"], "t"), key=lambda i: i["sk"]["S"])[0]
    aws["dynamodb"].delete_item(TableName="offprompt-test", Key={"pk": item["pk"], "sk": item["sk"]})  # "TTL"
    record = {
        "eventID": "expired-1",
        "eventName": "REMOVE",
        "eventSource": "aws:dynamodb",
        "userIdentity": {"type": "Service", "principalId": "dynamodb.amazonaws.com"},
        "dynamodb": {"Keys": {"pk": item["pk"], "sk": item["sk"]}, "OldImage": item, "SequenceNumber": "1"},
    }
    before = gauge(key)
    for _delivery in range(2):  # Lambda may deliver a record again
        assert lambda_handler({"Records": [record]}, None) == {"batchItemFailures": []}
        assert gauge(key) == before - int(item["metered_bytes"]["N"]) == metered_in_table(aws["dynamodb"])
    # a REMOVE by anyone else (the API's own deletes release their bytes themselves) moves nothing
    other = {**record, "eventID": "expired-2", "userIdentity": {"type": "Service", "principalId": "x"}}
    lambda_handler({"Records": [other]}, None)
    assert gauge(key) == before - int(item["metered_bytes"]["N"])


def test_the_thread_view_reads_one_item(key: str, api: Api, aws: dict[str, Any], monkeypatch: Any) -> None:
    """GET /threads/{id} answers from the thread item's run count: no Query of the run keys (the same view)."""
    from offprompt.adapters.dynamodb_runs import DynamoDbRunStore

    assert thread_call(key, "PUT", "t", {"max_runs": 4})["statusCode"] == 200
    for n in range(6):
        assert add_run(key, "t", text_run(f"r-{n}", "q", "a"))["statusCode"] == 201
    counted = json.loads(thread_call(key, "GET", "t")["body"])
    assert (counted["stored_runs"], counted["visible_runs"]) == (6, 4)

    def no_run_reads(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the thread view read run keys")

    monkeypatch.setattr(DynamoDbRunStore, "page_runs", no_run_reads)
    assert json.loads(thread_call(key, "GET", "t")["body"]) == counted


def test_a_thread_older_than_the_run_count_is_counted_once(api: Api, aws: dict[str, Any], monkeypatch: Any) -> None:
    from offprompt.adapters.dynamodb_runs import DynamoDbRunStore

    for n in range(3):
        assert api.post_run("old", text_run(f"r-{n}", "q", "a"))[0] == 201
    (thread,) = [i for i in all_items(aws["dynamodb"]) if i["sk"]["S"] == "#THREAD"]
    aws["dynamodb"].update_item(  # as written before the count existed
        TableName="offprompt-test",
        Key={"pk": thread["pk"], "sk": thread["sk"]},
        UpdateExpression="REMOVE run_count, runs_counted, expiring_runs",
    )
    reads: list[int] = []
    original = DynamoDbRunStore.page_runs

    def counting(self: Any, *args: Any, **kwargs: Any) -> Any:
        reads.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(DynamoDbRunStore, "page_runs", counting)
    first = api.thread("GET", "old")
    assert first[0] == 200 and first[1]["stored_runs"] == 3 and reads  # counted
    reads.clear()
    assert api.thread("GET", "old") == first and not reads  # remembered
    assert api.post_run("old", text_run("r-3", "q", "a"))[0] == 201
    assert api.thread("GET", "old")[1]["stored_runs"] == 4 and not reads


def test_threads_with_expiring_runs_are_counted_every_time(api: Api, aws: dict[str, Any]) -> None:
    """Runs past their expiry are hidden before TTL deletes them: a kept count would be wrong, so it is not used."""
    assert api.thread("PUT", "short", {"retention_days": 1})[0] == 200
    for n in range(2):
        assert api.post_run("short", text_run(f"r-{n}", "q", "a"))[0] == 201
    assert api.thread("GET", "short")[1]["stored_runs"] == 2
    first = min((i for i in all_items(aws["dynamodb"]) if i["sk"]["S"].startswith("RUN#")), key=lambda i: i["sk"]["S"])
    aws["dynamodb"].update_item(  # expired, not yet deleted by TTL
        TableName="offprompt-test",
        Key={"pk": first["pk"], "sk": first["sk"]},
        UpdateExpression="SET expires_at = :past",
        ExpressionAttributeValues={":past": {"N": "1000"}},
    )
    assert api.thread("GET", "short")[1]["stored_runs"] == 1
