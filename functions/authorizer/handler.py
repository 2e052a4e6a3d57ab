"""The HTTP API's Lambda REQUEST authorizer (AuthMode=apikey): `Authorization: Bearer op_<key_id>_<secret>`, or a
short-lived token `opt_...` checked by its signature alone, with no read (services/account/tokens.py; ADR 0055).

Payload format 2.0 with simple responses: `{"isAuthorized": true, "context": {tenant, key_id, plan...}}` for a
valid, unrevoked key (one DynamoDB GetItem on the key's item; the secret's SHA-256 compared in constant time),
`{"isAuthorized": false}` for anything else. API Gateway caches the answer per Authorization header for
`AuthorizerResultTtlInSeconds` (300 s in template.yaml); the functions read the key again on every request
(`services/account/admission`), so a revoked key is refused at once all the same (401; docs/adr/0028). The key itself
is never logged; its prefix may be.

A refusal of a well-formed key is answered no sooner than `REFUSAL_FLOOR_S` after the request arrived: an unknown
key id reads no item and a known one with a wrong secret does, and without the floor the difference in time would
tell which key ids exist (bench/bench_key_check.py measures both). Answers to malformed tokens are immediate
(their shape is public); valid keys are never delayed.

The local dev server runs this same handler for every request carrying `Bearer op_...` (no cache there).
"""

from __future__ import annotations

import functools
import time
from typing import Any

from offprompt.composition.account import default_account, default_token_secret
from offprompt.deadline import deadline_after, invocation_budget
from offprompt.errors import OffpromptError
from offprompt.services.account import bearer_token, parse_key

#: The least time a refused well-formed key takes (well above a key check's time: a DynamoDB GetItem, a hash).
REFUSAL_FLOOR_S = 0.025


@functools.cache
def logger() -> Any:
    """Built on first use. The authorizer does not import api_common (Powertools' HTTP resolver): every cache
    miss waits for it, so its cold start is kept to what a key check needs."""
    from aws_lambda_powertools import Logger

    return Logger()


def _remaining_ms(context: Any) -> float | None:
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    value = remaining() if callable(remaining) else None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _header(event: dict[str, Any], name: str) -> str | None:
    for key, value in (event.get("headers") or {}).items():
        if isinstance(key, str) and key.lower() == name:
            return str(value)
    identity = event.get("identitySource") or []
    return str(identity[0]) if identity and name == "authorization" else None


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    started = time.monotonic()
    token = bearer_token(_header(event if isinstance(event, dict) else {}, "authorization"))
    try:
        with deadline_after(invocation_budget(_remaining_ms(context), http=True)):
            principal = default_account().authenticate(token, default_token_secret)
    except OffpromptError as exc:  # DynamoDB failed: deny (API Gateway answers 403; the client retries)
        logger().warning("key check failed", extra={"code": exc.code})
        return {"isAuthorized": False}
    if principal is None:
        if token is not None and parse_key(token) is not None:  # a key's shape: its refusal takes the floor
            time.sleep(max(0.0, REFUSAL_FLOOR_S - (time.monotonic() - started)))
        return {"isAuthorized": False}
    return {"isAuthorized": True, "context": principal.to_context()}
