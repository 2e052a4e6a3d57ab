"""Scoped keys and short-lived tokens, adversarially (issue 36; docs/keys.md, docs/adr/0055): prefix tricks, encoded
separators, look-alike characters, a token after its key's revocation, a scoped key or a token trying to mint
something wider, expired keys and tokens, forged tokens, and the reads each costs."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from hosted_support import Deployment, authorized
from scope_support import TENANT, THREAD, U42, request, scoped_key, seed

SECRET = "test-token-secret"


@pytest.fixture
def tokens_on(stack: Deployment, monkeypatch: pytest.MonkeyPatch) -> Deployment:
    from offprompt.composition.account import default_token_secret
    from offprompt.config import get_settings

    monkeypatch.setenv("OFFPROMPT_TOKEN_SECRET", SECRET)
    get_settings.cache_clear()
    default_token_secret.cache_clear()
    return stack


def mint(token: str, key_id: str, body: dict[str, Any], cached: dict[str, Any] | None = None) -> tuple[int, Any]:
    return request("POST /keys/{key_id}/tokens", token, params={"key_id": key_id}, body=body, cached=cached)


def key_id_of(token: str) -> str:
    return token.split("_")[1]


def get_thread(token: str, thread: str, **kw: Any) -> tuple[int, Any]:
    return request("GET /threads/{thread_id}", token, params={"thread_id": thread}, **kw)


# ---- prefix tricks ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "thread",
    [
        "u-42-t",  # u-4-'s prefix is not u-42-'s
        "u\u20104-t",  # a hyphen look-alike (U+2010)
        "\uff55-4-t",  # a fullwidth u
        "u-4\u2010t",
    ],
)
def test_a_thread_prefix_is_matched_code_point_by_code_point(stack: Deployment, thread: str) -> None:
    seed(stack)
    stack.add_run(TENANT, thread, "r9", "theirs")
    token = scoped_key({"actions": ["read"], "threads": {"prefix": "u-4-"}})
    status, body = get_thread(token, thread)
    assert (status, body["code"]) == (403, "scope_denied"), body


def test_a_record_prefix_is_matched_label_by_label(stack: Deployment) -> None:
    seed(stack)
    token = scoped_key({"actions": ["read"], "records": {"namespace_prefix": ["users", "u-4"]}})
    for path in ("users.u-42", "users.u-4x", "users"):
        status, body = request(
            "GET /records/{namespace}/{key}", token, params={"namespace": path, "key": "k"}, query={}
        )
        assert (status, body["code"]) == (403, "scope_denied"), (path, body)
    status, found = request("POST /records/search", token, body={"namespace_prefix": ["users"]})
    assert status == 200 and found["items"] == [], found


def test_an_encoded_separator_is_judged_as_the_use_case_reads_it(stack: Deployment) -> None:
    """API Gateway hands the function the decoded path parameter; the scope is checked on that same value (never on
    the raw path), so `users%2Eu-42` under a `u-43` scope is `users.u-42`: refused."""
    seed(stack)
    token = scoped_key({"actions": ["read"], "records": {"namespace_prefix": ["users", "u-43"]}})
    status, body = request(
        "GET /records/{namespace}/{key}",
        token,
        params={"namespace": "users.u-42", "key": "k"},
        raw_path="/records/users%2Eu-42/k",
        query={},
    )
    assert (status, body["code"]) == (403, "scope_denied"), body
    token = scoped_key({"actions": ["read"], "threads": {"prefix": "u-43-"}})
    status, body = get_thread(token, "u-42-t", raw_path="/threads/u%2D42-t")
    assert (status, body["code"]) == (403, "scope_denied"), body


def test_a_read_only_key_writes_nothing(stack: Deployment) -> None:
    seed(stack)
    token = scoped_key({**U42, "actions": ["read"]})
    status, body = request("DELETE /threads/{thread_id}", token, params={"thread_id": THREAD})
    assert (status, body["code"]) == (403, "scope_denied"), body
    assert get_thread(token, THREAD)[0] == 200


# ---- key management -----------------------------------------------------------------------------------------------
def test_a_scoped_key_cannot_create_or_list_or_revoke_keys(stack: Deployment) -> None:
    token = scoped_key(U42)
    wider = {"name": "wider", "scopes": {"actions": ["read", "write"], "threads": {"prefix": ""}}}
    for route_key, params, body in (
        ("POST /keys", {}, wider),
        ("POST /keys", {}, {"name": "same", "scopes": U42}),
        ("GET /keys", {}, None),
        ("DELETE /keys/{key_id}", {"key_id": key_id_of(token)}, None),
        ("GET /usage", {}, None),
    ):
        status, answer = request(route_key, token, params=params, body=body, query={})
        assert (status, answer["code"]) == (403, "scope_denied"), (route_key, answer)
    from offprompt.composition.account import default_account

    assert len(default_account().list_keys(TENANT)["keys"]) == 1


@pytest.mark.parametrize(
    "body",
    [
        {"scopes": {"actions": ["admin"]}},
        {"scopes": {"actions": []}},
        {"scopes": {"actions": ["read"], "threads": {"prefix": "u-"}, "users": {}}},
        {"scopes": {"actions": ["read"], "records": {"namespace_prefix": ["a.b"]}}},
        {"scopes": {"actions": ["read"], "memories": {"names": []}}},
        {"scopes": "read"},
        {"expires_at": "yesterday"},
        {"expires_at": "2020-01-01T00:00:00Z"},
        {"expires_at": "2099-01-01T00:00:00"},
    ],
)
def test_a_malformed_scope_or_expiry_is_a_422(stack: Deployment, body: dict[str, Any]) -> None:
    token = scoped_key(None)
    status, answer = request("POST /keys", token, body={"name": "x", **body})
    assert (status, answer["code"]) == (422, "schema_invalid"), answer


def test_the_listing_shows_each_keys_scope_and_expiry(stack: Deployment) -> None:
    admin = scoped_key(None)
    status, created = request(
        "POST /keys", admin, body={"name": "u42", "scopes": U42, "expires_at": "2099-01-01T00:00:00+00:00"}
    )
    assert status == 201 and created["scopes"] == U42 and created["expires_at"] == "2099-01-01T00:00:00Z", created
    status, listed = request("GET /keys", admin)
    shown = {k["name"]: k for k in listed["keys"]}
    assert shown["u42"]["scopes"] == U42 and "scopes" not in shown["k"], shown


def test_an_expired_key_is_refused_even_through_the_authorizers_cache(
    stack: Deployment, monkeypatch: pytest.MonkeyPatch
) -> None:
    from offprompt.composition.account import default_account

    seed(stack)
    token = scoped_key(U42, expires_at="2099-01-01T00:00:00Z")
    cached = authorized(token)
    account = default_account()
    monkeypatch.setattr(account, "clock", lambda: 4102444800.0 + 1)  # 2100-01-01
    from authorizer.handler import lambda_handler as authorize

    event = {"headers": {"authorization": f"Bearer {token}"}}
    assert authorize(event, None) == {"isAuthorized": False}
    import offprompt.metering as metering

    monkeypatch.setattr(metering.time, "time", lambda: 4102444800.0 + 1)
    status, body = get_thread(token, THREAD, cached=cached)
    assert (status, body["code"]) == (401, "unauthenticated"), body


# ---- short-lived tokens -------------------------------------------------------------------------------------------
def test_a_token_reaches_its_scope_and_is_checked_without_a_read(
    tokens_on: Deployment, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(tokens_on)
    admin = scoped_key(None)
    status, minted = mint(admin, key_id_of(admin), {"ttl_seconds": 600, "scopes": {**U42, "actions": ["read"]}})
    assert status == 201, minted
    token = minted["token"]
    from offprompt.adapters.dynamodb_account import DynamoDbAccountStore

    reads: list[str] = []
    real = DynamoDbAccountStore.get_key
    monkeypatch.setattr(DynamoDbAccountStore, "get_key", lambda self, k: (reads.append(k), real(self, k))[1])
    cached = authorized(token)
    assert reads == [], "the authorizer read the table for a token"
    assert cached["token_id"] == minted["token_id"] and json.loads(cached["scope"])["actions"] == ["read"]
    assert get_thread(token, THREAD, cached=cached)[0] == 200
    assert reads == [key_id_of(admin)], "a token's request reads its key once, as a key's does"
    status, body = get_thread(token, "u-43-t", cached=cached)
    assert (status, body["code"]) == (403, "scope_denied"), body
    status, body = request("DELETE /threads/{thread_id}", token, params={"thread_id": THREAD}, cached=cached)
    assert (status, body["code"]) == (403, "scope_denied"), body


def test_a_token_ends_with_its_keys_revocation_through_the_authorizers_cache(tokens_on: Deployment) -> None:
    from offprompt.composition.account import default_account

    seed(tokens_on)
    parent = scoped_key(U42)
    admin = scoped_key(None)
    status, minted = mint(admin, key_id_of(parent), {"ttl_seconds": 3600})
    assert status == 201 and minted["scopes"] == U42, minted
    cached = authorized(minted["token"])
    assert get_thread(minted["token"], THREAD, cached=cached)[0] == 200
    assert default_account().revoke_key(TENANT, key_id_of(parent)) is True
    status, body = get_thread(minted["token"], THREAD, cached=cached)
    assert (status, body["code"]) == (401, "unauthenticated"), body


def test_an_expired_token_is_refused(tokens_on: Deployment, monkeypatch: pytest.MonkeyPatch) -> None:
    from authorizer.handler import lambda_handler as authorize

    from offprompt.composition.account import default_account

    admin = scoped_key(None)
    status, minted = mint(admin, key_id_of(admin), {"ttl_seconds": 60})
    assert status == 201, minted
    event = {"headers": {"authorization": f"Bearer {minted['token']}"}}
    assert authorize(event, None)["isAuthorized"] is True
    account = default_account()
    later = account.clock() + 61
    monkeypatch.setattr(account, "clock", lambda: later)
    assert authorize(event, None) == {"isAuthorized": False}


@pytest.mark.parametrize(
    ("parent", "asked", "own"),
    [
        (U42, {**U42, "threads": {"prefix": "u-4"}}, True),  # a shorter prefix is wider
        (U42, {**U42, "records": {"namespace_prefix": ["users"]}}, True),
        (U42, {**U42, "memories": {"names": ["TaskMemory", "Other"]}}, True),
        ({**U42, "actions": ["read"]}, U42, True),  # write was not the key's
        (U42, {"actions": ["read"], "checkpoints": {"prefix": "u-42-"}, "users": 1}, True),
        (U42, {"actions": ["read"], "threads": {"prefix": "u-42-"}}, False),  # another key's token
    ],
)
def test_a_scoped_key_cannot_mint_a_wider_token(
    tokens_on: Deployment, parent: dict[str, Any], asked: dict[str, Any], own: bool
) -> None:
    token = scoped_key(parent)
    other = scoped_key(U42)
    status, body = mint(token, key_id_of(token if own else other), {"ttl_seconds": 60, "scopes": asked})
    assert status in (403, 422) and body["code"] in ("scope_denied", "schema_invalid"), body
    if "users" not in asked:
        assert (status, body["code"]) == (403, "scope_denied"), body


def test_a_token_mints_nothing_and_ttl_is_bounded(tokens_on: Deployment) -> None:
    admin = scoped_key(None)
    status, body = mint(admin, key_id_of(admin), {"ttl_seconds": 3601})
    assert (status, body["code"]) == (422, "schema_invalid"), body
    status, minted = mint(admin, key_id_of(admin), {"ttl_seconds": 60})
    status, body = mint(minted["token"], key_id_of(admin), {"ttl_seconds": 60})
    assert (status, body["code"]) == (403, "scope_denied"), body
    for route_key, body in (("POST /keys", {"name": "from a token"}), ("GET /keys", None), ("POST /export", {})):
        status, answer = request(route_key, minted["token"], body=body)  # even an unscoped key's token
        assert (status, answer["code"]) == (403, "scope_denied"), (route_key, answer)


def test_a_forged_token_is_refused(tokens_on: Deployment) -> None:
    from authorizer.handler import lambda_handler as authorize

    admin = scoped_key(None)
    narrow = {"actions": ["read"], "threads": {"prefix": "u-42-"}}
    _, minted = mint(admin, key_id_of(admin), {"ttl_seconds": 60, "scopes": narrow})
    payload, _, signature = minted["token"].rpartition(".")
    claims = json.loads(base64.urlsafe_b64decode(payload[4:] + "=" * (-len(payload[4:]) % 4)))
    claims["scope"] = {"actions": ["read", "write"], "threads": {"prefix": ""}}
    forged = "opt_" + base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode() + "." + signature
    for token in (forged, minted["token"] + "x", minted["token"].replace(".", ".A", 1), "opt_.", "opt_x"):
        assert authorize({"headers": {"authorization": f"Bearer {token}"}}, None) == {"isAuthorized": False}
