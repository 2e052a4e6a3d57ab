"""API keys: format, parsing, hashing and the constant-time check (docs/adr/0022-api-keys.md)."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from offprompt.services.account import keys


def test_a_new_key_has_the_documented_shape_and_parses_back() -> None:
    made = keys.new_key()
    token = made.token
    assert token.startswith("op_") and token.count("_") >= 2
    assert len(made.key_id) == 16 and int(made.key_id, 16) >= 0
    assert len(made.secret) == 43  # 32 random bytes, unpadded base64url
    assert made.prefix == f"op_{made.key_id}" and made.prefix in token
    assert keys.parse_key(token) == made


def test_secrets_are_random_and_never_repeat() -> None:
    made = [keys.new_key() for _ in range(200)]
    assert len({m.secret for m in made}) == 200 and len({m.key_id for m in made}) == 200


def test_a_secret_may_contain_underscores_and_dashes() -> None:
    token = "op_0123456789abcdef_" + "_-" * 21 + "A"
    parts = keys.parse_key(token)
    assert parts is not None and parts.key_id == "0123456789abcdef" and parts.secret == "_-" * 21 + "A"


@pytest.mark.parametrize(
    "token",
    [
        "",
        "local",
        "op_",
        "op_0123456789abcdef",
        "op_0123456789abcdef_",
        "op_0123456789ABCDEF_" + "a" * 43,  # the id is lowercase hex
        "op_0123456789abcde_" + "a" * 43,  # 15 hex
        "op_0123456789abcdef_" + "a" * 42,  # short secret
        "op_0123456789abcdef_" + "a" * 44,  # long secret
        "op_0123456789abcdef_" + "a" * 42 + "=",  # not base64url
        "xx_0123456789abcdef_" + "a" * 43,
        "op_0123456789abcdef_" + "a" * 43 + "\n" + "junk",
        "op_" + "0" * 5000,
    ],
)
def test_malformed_keys_do_not_parse(token: str) -> None:
    assert keys.parse_key(token) is None


def test_only_the_hash_is_derived_from_the_secret_and_it_is_sha256() -> None:
    made = keys.new_key()
    stored = keys.hash_secret(made.secret)
    assert stored == hashlib.sha256(made.secret.encode()).hexdigest()
    assert made.secret not in stored
    assert keys.verify_secret(made.secret, stored)
    assert not keys.verify_secret(keys.new_key().secret, stored)
    assert not keys.verify_secret(made.secret[:-1] + ("A" if made.secret[-1] != "A" else "B"), stored)


def test_verification_compares_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(keys.hmac, "compare_digest", spy)
    made = keys.new_key()
    assert keys.verify_secret(made.secret, keys.hash_secret(made.secret))
    assert not keys.verify_secret("wrong", keys.hash_secret(made.secret))
    assert len(calls) == 2  # both the match and the mismatch went through hmac.compare_digest


def test_the_secret_never_appears_in_a_repr() -> None:
    made = keys.new_key()
    assert made.secret not in repr(made) and made.key_id in repr(made)


@pytest.mark.parametrize(
    ("header", "token"),
    [
        ("Bearer op_x", "op_x"),
        ("bearer  op_x ", "op_x"),
        ("BEARER op_x", "op_x"),
        ("Basic dXNlcjpwYXNz", None),
        ("Bearer", None),
        ("Bearer    ", None),
        ("", None),
        (None, None),
    ],
)
def test_bearer_tokens(header: str | None, token: str | None) -> None:
    assert keys.bearer_token(header) == token
