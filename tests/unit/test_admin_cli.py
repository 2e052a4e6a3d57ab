"""The operator CLI (`python -m offprompt_admin`) on moto: the same Settings and boto3 configuration as the
functions (OFFPROMPT_TABLE / --table, AWS_* from the environment)."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from offprompt.adapters.clients import reset_clients
from offprompt_admin.__main__ import COMMANDS, main
from offprompt_local import resources

TABLE = "admin-cli-test"


@pytest.fixture
def table(moto_aws: None, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.delenv("OFFPROMPT_TABLE", raising=False)
    reset_clients()
    ddb = boto3.client("dynamodb")
    resources.create_table(ddb, TABLE)
    yield ddb
    reset_clients()


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    status = main(list(args))
    out = capsys.readouterr().out
    return status, (json.loads(out) if out.strip() else None)


def test_the_command_table() -> None:
    assert set(COMMANDS) >= {"tenant", "key", "plan", "usage"}
    assert all(hasattr(m, "register") and hasattr(m, "run") for m in COMMANDS.values())


def test_without_a_table_it_says_what_to_set(table: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["key", "list", "acme"]) == 2
    assert "OFFPROMPT_TABLE" in capsys.readouterr().err


def test_tenant_key_plan_usage(table: Any, capsys: pytest.CaptureFixture[str]) -> None:
    status, created = run(capsys, "--table", TABLE, "tenant", "create", "acme", "--plan", "pro", "--max-keys", "2")
    assert status == 0 and created["plan"]["plan"] == "pro" and created["plan"]["max_keys"] == 2
    key, key_id = created["key"], created["key_id"]
    status, listed = run(capsys, "--table", TABLE, "key", "list", "acme")
    assert [k["key_id"] for k in listed["keys"]] == [key_id] and key not in json.dumps(listed)
    status, second = run(capsys, "--table", TABLE, "key", "create", "acme", "--name", "ci")
    assert status == 0 and second["name"] == "ci"
    assert main(["--table", TABLE, "key", "create", "acme"]) == 1  # the plan's max keys
    assert "quota_exceeded" in capsys.readouterr().err
    status, plan = run(capsys, "--table", TABLE, "plan", "set", "acme", "free")
    assert status == 0 and plan["plan"] == "free" and plan["max_keys"] == 5
    status, shown = run(capsys, "--table", TABLE, "tenant", "show", "acme")
    assert shown["keys"] == 2 and shown["plan"]["plan"] == "free"
    status, revoked = run(capsys, "--table", TABLE, "key", "revoke", "acme", key_id)
    assert revoked["revoked"] is True
    status, report = run(
        capsys, "--table", TABLE, "usage", "show", "acme", "--from", "2026-01-01", "--to", "2026-01-02"
    )
    assert status == 0 and report["tenant"] == "acme" and report["days"] == []
    status, week = run(capsys, "--table", TABLE, "usage", "show", "acme", "--days", "7", "--to", "2026-01-07")
    assert status == 0 and week["from"] == "2026-01-01" and week["to"] == "2026-01-07", week
    status, recent = run(capsys, "--table", TABLE, "usage", "show", "acme", "--days", "30")  # as README shows it
    assert status == 0 and recent["tenant"] == "acme"
    assert main(["--table", TABLE, "plan", "set", "acme", "no-such-plan"]) == 1
    assert "invalid_input" in capsys.readouterr().err


def test_creating_an_existing_tenant_is_refused_and_changes_nothing(
    table: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    status, created = run(capsys, "--table", TABLE, "tenant", "create", "acme", "--plan", "pro")
    assert status == 0 and created["plan"]["plan"] == "pro"
    assert main(["--table", TABLE, "tenant", "create", "acme"]) == 1  # --plan free by default
    err = capsys.readouterr().err
    assert "already exists" in err and "nothing was changed" in err
    assert "'pro' -> 'free'" in err  # what it would have changed
    assert f"offprompt-admin --table {TABLE} plan set acme free" in err  # and the explicit ways
    assert f"offprompt-admin --table {TABLE} key create acme" in err
    status, shown = run(capsys, "--table", TABLE, "tenant", "show", "acme")
    assert shown["plan"]["plan"] == "pro" and shown["keys"] == 1


def test_the_account_service_refuses_to_create_an_existing_tenant(table: Any) -> None:
    """The rule is the use case's, so every caller of the service has it (the CLI, deployed or local, and others)."""
    from offprompt.adapters.dynamodb_account import DynamoDbAccountStore
    from offprompt.errors import Conflict
    from offprompt.metering import PLANS
    from offprompt.services.account import AccountService

    account = AccountService(DynamoDbAccountStore(TABLE))
    account.create_tenant("acme", PLANS["pro"])
    with pytest.raises(Conflict, match="already exists") as refused:
        account.create_tenant("acme", PLANS["free"])
    assert refused.value.details["plan"]["plan"] == "pro"
    assert account.tenant_plan("acme").name == "pro"
    assert account.set_plan("acme", PLANS["free"]).plan["plan"] == "free"  # the explicit way still re-plans
    # a first self-service key of a tenant created meanwhile keeps the operator's plan
    account.create_tenant("globex", PLANS["pro"])
    account.create_key("globex")
    assert account.tenant_plan("globex").name == "pro"
