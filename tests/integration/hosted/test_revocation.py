"""A revoked key is gone: key management and tenant data re-check the calling key (outsider finding 2: `POST /keys`
trusted the authorizer's cached context, so a stolen key kept minting keys for the 300 s cache window), and an
unknown key id costs what a wrong secret costs (finding 12)."""

from __future__ import annotations

from typing import Any

import pytest
from hosted_support import Deployment, authorized, call, new_key

TENANT = "acme"


def mint(token: str, cached: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
    return call("account", "keys_create_http.json", token, path="/keys", method="POST", body={}, cached=cached)


def revoke(token: str, key_id: str) -> int:
    status, _, _ = call(
        "account", "keys_revoke_http.json", token, path=f"/keys/{key_id}", method="DELETE", key_id=key_id
    )
    return status


def test_a_revoked_key_cannot_mint_keys_through_the_authorizers_cache(stack: Deployment) -> None:
    stolen = new_key(TENANT, max_keys=10)
    cached = authorized(stolen)  # API Gateway cached this answer for 300 s
    status, fresh, _ = mint(stolen, cached)
    assert status == 201, fresh
    assert revoke(fresh["key"], cached["key_id"]) == 204  # the owner revokes the stolen key with a new one
    status, body, _ = mint(stolen, cached)  # the cache still admits it
    assert status == 401 and body["code"] == "unauthenticated", body
    status, listed, _ = call("account", "keys_list_http.json", fresh["key"], path="/keys", method="GET")
    assert [k["key_id"] for k in listed["keys"]] == [fresh["key_id"]]


@pytest.mark.parametrize(
    ("function", "event", "path", "method", "body", "params"),
    [
        ("account", "keys_list_http.json", "/keys", "GET", None, {}),
        ("account", "keys_revoke_http.json", "/keys/0123456789abcdef", "DELETE", None, {"key_id": "0123456789abcdef"}),
        ("account", "usage_http.json", "/usage", "GET", None, {}),
        ("tenant_data", "tenant_export_http.json", "/export", "POST", None, {}),
        ("tenant_data", "tenant_erase_http.json", "/tenant", "DELETE", {"confirm": TENANT}, {}),
        ("threads", "thread_get_http.json", "/threads/t", "GET", None, {"thread_id": "t"}),
    ],
)
def test_a_revoked_key_reaches_nothing_through_the_authorizers_cache(
    stack: Deployment, function: str, event: str, path: str, method: str, body: Any, params: dict[str, str]
) -> None:
    stolen = new_key(TENANT, max_keys=10)
    cached = authorized(stolen)
    from offprompt.composition.account import default_account

    assert default_account().revoke_key(TENANT, cached["key_id"]) is True
    status, answer, _ = call(function, event, stolen, path=path, method=method, body=body, cached=cached, **params)
    assert status == 401 and answer["code"] == "unauthenticated", answer
    # the refused request changed nothing: the tenant's one other key is still there, no export was made
    assert stack.raw_traces(TENANT)["s3"] == 0


def test_an_unknown_key_id_does_the_work_of_a_wrong_secret(stack: Deployment, monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 12: the time of a refusal must not tell which key ids exist. Both refusals read the key item, parse a
    record of a key's shape and compare a secret's hash with a stored-length hash (the medians are in
    bench/bench_key_check.py; a timed assertion here would only be noise)."""
    from offprompt.adapters import dynamodb_account
    from offprompt.composition.account import default_account
    from offprompt.services.account import api_keys, keys

    token = new_key(TENANT)
    parts = keys.parse_key(token)
    assert parts is not None
    work: list[str] = []
    parse, verify = dynamodb_account._key_record, api_keys.apikeys.verify_secret
    monkeypatch.setattr(dynamodb_account, "_key_record", lambda item: (work.append("parse"), parse(item))[1])

    def counted_verify(secret: str, stored_hash: str) -> bool:
        work.append(f"verify:{len(stored_hash)}")
        return verify(secret, stored_hash)

    monkeypatch.setattr(api_keys.apikeys, "verify_secret", counted_verify)
    account = default_account()
    wrong_secret = f"{keys.PREFIX}_{parts.key_id}_{'x' * len(parts.secret)}"
    unknown_id = f"{keys.PREFIX}_{'f' * len(parts.key_id)}_{parts.secret}"
    assert account.authenticate(wrong_secret) is None
    known_work, work[:] = list(work), []
    assert account.authenticate(unknown_id) is None
    assert work == known_work == ["parse", "verify:64"]
