"""Valid input never fails on a store limit, and bad input is a clear 4xx (outsider findings 8, 9, 10, 13)."""

from __future__ import annotations

import json

import pytest
from hosted_support import MEMORY, Deployment, call, new_key, text_run

from offprompt.errors import InvalidInput
from offprompt.services.account.plans import PLAN_NUMBERS


def test_the_longest_identifiers_fit_every_key_they_end_up_in(stack: Deployment) -> None:
    tenant = "#" * 256  # 768 bytes once escaped for a key
    token = new_key(tenant)
    thread = "#" * 256
    status, body, _ = call(
        "add_run",
        "add_run_http.json",
        token,
        path="/threads/x/runs",
        method="POST",
        body=text_run("r" * 256),
        thread_id=thread,
    )
    assert status == 201, body
    artifact = {"type": "TextArtifact", "name": "#" * 256, "meta": {}, "value": "hello"}
    body = {"tool": "T", "activity": "a", "artifact": artifact, "idempotency_key": "🦊" * 256}
    status, answer, _ = call(
        "process_output",
        "process_output_http.json",
        token,
        path=f"/memories/{MEMORY}/outputs",
        method="POST",
        body=body,
        memory_name="€" * 170,  # 510 UTF-8 bytes: the most a memory name may hold
    )
    assert status == 200, answer
    status, export, _ = call("tenant_data", "tenant_export_http.json", token, path="/export", method="POST")
    assert status == 200 and export["counts"]["dynamodb"] > 0, export


@pytest.mark.parametrize(
    "query",
    [
        {"from": "9999-12-31", "to": "9999-12-31"},
        {"from": "0001-01-01", "to": "0001-01-01"},
        {"to": "9999-12-31"},
    ],
)
def test_usage_dates_outside_the_calendar_the_service_keeps_are_a_400(stack: Deployment, query: dict) -> None:
    token = new_key("acme")
    status, body, _ = call("account", "usage_http.json", token, path="/usage", method="GET", query=query)
    assert status == 400 and body["code"] == "invalid_input", body


@pytest.mark.parametrize("field", PLAN_NUMBERS)
def test_a_plan_number_below_zero_is_refused(stack: Deployment, field: str) -> None:
    from offprompt.services.account import plan_named

    with pytest.raises(InvalidInput, match=field):
        plan_named("free", **{field: -5})


def test_the_operator_cli_refuses_negative_plan_numbers(stack: Deployment, capsys: pytest.CaptureFixture[str]) -> None:
    from offprompt_admin.__main__ import main as admin

    assert admin(["tenant", "create", "acme", "--plan", "free"]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as refused:
        admin(["plan", "set", "acme", "free", "--runs-per-day", "-5", "--stored-bytes", "-1"])
    assert refused.value.code == 2
    assert "--runs-per-day" in capsys.readouterr().err
    from offprompt.composition.account import default_account

    assert default_account().tenant_plan("acme").runs_per_day == 1_000  # the free plan's, unchanged


LONE_SURROGATE = '{"type": "Run", "id": "r1", "input": {"type": "TextArtifact", "value": "hi"}, '
LONE_SURROGATE += '"output": {"type": "TextArtifact", "value": "\\ud800"}}'


@pytest.mark.parametrize(
    ("function", "event", "path", "method", "params", "raw"),
    [
        ("add_run", "add_run_http.json", "/threads/t/runs", "POST", {"thread_id": "t"}, LONE_SURROGATE),
        (
            "process_output",
            "process_output_http.json",
            f"/memories/{MEMORY}/outputs",
            "POST",
            {"memory_name": MEMORY},
            '{"tool": "T", "activity": "a", "idempotency_key": "k", '
            '"artifact": {"type": "TextArtifact", "name": "n", "value": "\\udfff"}}',
        ),
        (
            "prompt_stack",
            "prompt_stack_http.json",
            "/threads/t/prompt-stack",
            "POST",
            {"thread_id": "t"},
            '{"input": "\\ud800 hi", "max_tokens": 50}',
        ),
        ("account", "keys_create_http.json", "/keys", "POST", {}, '{"name": "\\ud800"}'),
    ],
)
def test_a_lone_surrogate_anywhere_in_a_body_is_a_400(
    stack: Deployment, function: str, event: str, path: str, method: str, params: dict, raw: str
) -> None:
    token = new_key("acme")
    status, body, _ = call(function, event, token, path=path, method=method, raw_body=raw, **params)
    assert status == 400 and body["code"] == "invalid_input", body
    assert "surrogate" in body["message"], body


def test_a_lone_surrogate_in_a_direct_invocation_is_invalid_input(stack: Deployment) -> None:
    from add_run.handler import lambda_handler

    with pytest.raises(InvalidInput, match="surrogate"):
        lambda_handler({"tenant": "acme", "thread_id": "t", "run": json.loads(LONE_SURROGATE)}, None)
