"""Hosted mode through the real handlers on moto: API keys, the authorizer, usage metering, plans and quotas.

Events are the sample API Gateway v2 events with `requestContext.authorizer.lambda` set from what the real
authorizer handler answered (as API Gateway does with AuthMode=apikey).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from conversation_api import Api, all_items, load_event, text_run

from offprompt import metering
from offprompt.composition.account import default_account
from offprompt.metering import Plan
from offprompt.services.account.keys import parse_key

HTTP_AUTH = "authorizer.handler"


@pytest.fixture
def tenancy(aws: dict[str, Any]) -> Any:
    default_account.cache_clear()
    yield default_account()
    default_account.cache_clear()


def authorize(token: str) -> dict[str, Any]:
    from authorizer.handler import lambda_handler

    event = copy.deepcopy(load_event("authorizer_request.json"))
    event["headers"]["authorization"] = f"Bearer {token}"
    event["identitySource"] = [f"Bearer {token}"]
    return lambda_handler(event, None)


def hosted(event_name: str, token: str, *, path: str, method: str, body: Any = None, **params: str) -> dict[str, Any]:
    """The event API Gateway sends a function after the authorizer admitted `token` (which must be valid)."""
    answer = authorize(token)
    assert answer["isAuthorized"] is True, answer
    event = copy.deepcopy(load_event(event_name))
    event["rawPath"] = path
    event["requestContext"]["http"]["method"] = method
    event["requestContext"]["http"]["path"] = path
    event["requestContext"]["authorizer"] = {"lambda": answer["context"]}
    event["pathParameters"] = params
    event.pop("body", None)
    event.pop("queryStringParameters", None)
    event["rawQueryString"] = ""
    if body is not None:
        event["body"] = json.dumps(body)
    return event


def add_run(token: str, thread: str, run: Any) -> dict[str, Any]:
    from add_run.handler import lambda_handler

    event = hosted(
        "add_run_http.json", token, path=f"/threads/{thread}/runs", method="POST", body=run, thread_id=thread
    )
    return lambda_handler(event, None)


def usage(token: str) -> dict[str, Any]:
    from account.handler import lambda_handler

    event = hosted("usage_http.json", token, path="/usage", method="GET")
    out = lambda_handler(event, None)
    assert out["statusCode"] == 200, out
    return json.loads(out["body"])


def test_the_authorizer_admits_a_valid_key_and_nothing_else(tenancy: Any) -> None:
    tenancy.create_tenant("acme", Plan("pro", rate_per_second=100, runs_per_day=10, stored_bytes=10**6, max_keys=3))
    created = tenancy.create_key("acme", "ci")
    answer = authorize(created["key"])
    assert answer == {
        "isAuthorized": True,
        "context": {
            "tenant": "acme",
            "key_id": created["key_id"],
            "plan": "pro",
            "rate_per_second": 100,
            "runs_per_day": 10,
            "stored_bytes": 10**6,
            "max_keys": 3,
            "scans_per_day": 2,
            "extraction_tokens_per_day": 0,
            "audit_days": 90,
        },
    }
    wrong_secret = created["key"][:-2] + ("AA" if not created["key"].endswith("AA") else "BB")
    for token in (wrong_secret, "op_0123456789abcdef_" + "a" * 43, "local", ""):
        assert authorize(token) == {"isAuthorized": False}
    tenancy.revoke_key("acme", created["key_id"])
    assert authorize(created["key"]) == {"isAuthorized": False}


def test_keys_are_listed_without_secrets_and_revoked_only_by_their_tenant(tenancy: Any, aws: dict[str, Any]) -> None:
    first = tenancy.create_key("acme", "one")
    other = tenancy.create_key("globex", "theirs")
    listed = tenancy.list_keys("acme")["keys"]
    assert [k["key_id"] for k in listed] == [first["key_id"]]
    assert set(listed[0]) == {"key_id", "prefix", "name", "created_at"}
    secret = parse_key(first["key"]).secret
    dump = json.dumps(all_items(aws["dynamodb"]))
    assert secret not in dump and first["key"] not in dump  # only the hash is stored
    assert tenancy.revoke_key("acme", other["key_id"]) is False  # another tenant's key: untouched
    assert authorize(other["key"])["isAuthorized"] is True
    assert tenancy.revoke_key("acme", first["key_id"]) is True
    assert tenancy.revoke_key("acme", first["key_id"]) is False  # idempotent
    assert tenancy.list_keys("acme") == {"keys": []}


def test_max_keys_is_the_plans(tenancy: Any) -> None:
    tenancy.create_tenant("small", Plan("tiny", max_keys=2))
    tenancy.create_key("small")
    second = tenancy.create_key("small")
    from offprompt.errors import QuotaExceeded

    with pytest.raises(QuotaExceeded) as refused:
        tenancy.create_key("small")
    assert refused.value.details["quota"] == "max_keys"
    tenancy.revoke_key("small", second["key_id"])
    tenancy.create_key("small")  # a slot freed by a revoke can be used again


def test_a_plan_change_reaches_the_keys_the_authorizer_reads(tenancy: Any) -> None:
    created = tenancy.create_key("acme")
    assert authorize(created["key"])["context"]["plan"] == "free"
    tenancy.set_plan("acme", Plan("pro", rate_per_second=7))
    assert authorize(created["key"])["context"]["rate_per_second"] == 7


def test_runs_are_metered_exactly_once_and_replays_are_not_runs(tenancy: Any, api: Api) -> None:
    key = tenancy.create_key("acme")["key"]
    run = text_run("r-1", "hello", "hi")
    first = add_run(key, "t1", run)
    assert first["statusCode"] == 201, first
    replay = add_run(key, "t1", run)  # the same id and body: the first answer again
    assert replay["statusCode"] in (200, 201) and json.loads(replay["body"])["seq"] == 1
    assert add_run(key, "t1", text_run("r-2", "more", "ok"))["statusCode"] == 201
    report = usage(key)
    totals = report["totals"]
    assert report["tenant"] == "acme"
    assert totals["runs_added"] == 2
    assert totals["requests"] == 3  # the usage request itself is counted after it answered
    assert totals["requests_by_route"] == {"POST /threads/{thread_id}/runs": 3}
    assert totals["tokens_stored"] > 0 and totals["bytes_stored_dynamodb"] > 0
    assert totals["bytes_stored"] == totals["bytes_stored_dynamodb"]
    assert report["stored_bytes"] == totals["bytes_stored_dynamodb"]
    assert len(report["days"]) == 1 and report["days"][0]["runs_added"] == 2
    assert totals["bytes_served"] > 0


def test_runs_per_day_quota_refuses_before_anything_is_written(tenancy: Any, api: Api, aws: dict[str, Any]) -> None:
    tenancy.create_tenant("tiny", Plan("tiny", runs_per_day=1))
    key = tenancy.create_key("tiny")["key"]
    assert add_run(key, "t1", text_run("r-1", "a", "b"))["statusCode"] == 201
    before = all_items(aws["dynamodb"])
    refused = add_run(key, "t2", text_run("r-2", "c", "d"))
    assert refused["statusCode"] == 429
    assert json.loads(refused["body"])["code"] == "quota_exceeded"
    assert 1 <= int(refused["headers"]["Retry-After"]) <= 86_400
    after = all_items(aws["dynamodb"])
    # nothing of the refused request was written: no thread t2, no run (only the rate/usage bookkeeping may differ)
    assert [i for i in after if "t2" in i["pk"]["S"]] == []
    assert len([i for i in after if i["sk"]["S"].startswith("RUN#")]) == 1
    assert len(before) <= len(after)


def test_the_transaction_enforces_runs_per_day_when_the_pre_check_is_raced(
    tenancy: Any, api: Api, aws: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    tenancy.create_tenant("tiny", Plan("tiny", runs_per_day=1))
    key = tenancy.create_key("tiny")["key"]
    assert add_run(key, "t1", text_run("r-1", "a", "b"))["statusCode"] == 201
    # two requests that both passed the cheap pre-check: the second one's transaction still refuses it
    monkeypatch.setattr(type(tenancy.records), "runs_added", lambda self, tenant, day: 0)
    refused = add_run(key, "t1", text_run("r-2", "c", "d"))
    assert refused["statusCode"] == 429 and json.loads(refused["body"])["code"] == "quota_exceeded"
    runs = [i for i in all_items(aws["dynamodb"]) if i["sk"]["S"].startswith("RUN#")]
    assert len(runs) == 1
    assert usage(key)["totals"]["runs_added"] == 1


def test_stored_bytes_quota(tenancy: Any, api: Api) -> None:
    tenancy.create_tenant("small", Plan("small", stored_bytes=600))
    key = tenancy.create_key("small")["key"]
    assert add_run(key, "t1", text_run("r-1", "a", "b"))["statusCode"] == 201
    big = text_run("r-2", "x" * 700, "y")
    refused = add_run(key, "t1", big)
    assert refused["statusCode"] == 429 and json.loads(refused["body"])["details"]["quota"] == "stored_bytes"
    assert usage(key)["totals"]["runs_added"] == 1


def test_rate_limit_refuses_past_the_plans_rate_in_one_second(
    tenancy: Any, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    tenancy.create_tenant("slow", Plan("slow", rate_per_second=2))
    key = tenancy.create_key("slow")["key"]
    now = [1_700_000_000.2]
    monkeypatch.setattr(metering, "clock", lambda: now[0])
    answers = [add_run(key, "t1", text_run(f"r-{n}", "q", "a")) for n in range(3)]
    assert [a["statusCode"] for a in answers] == [201, 201, 429]
    assert json.loads(answers[2]["body"])["code"] == "rate_limited"
    assert answers[2]["headers"]["Retry-After"] == "1"
    now[0] += 1  # the next second has its own window
    assert add_run(key, "t1", text_run("r-3", "q", "a"))["statusCode"] == 201
    monkeypatch.undo()
