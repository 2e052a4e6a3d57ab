"""A tenant with data under one end user's names (`u-42`) and keys scoped to it or elsewhere, and a request to any
declared route through the real handlers (the authorizer's answer in the event, as API Gateway hands it over)."""

from __future__ import annotations

import copy
import importlib
import json
import re
from pathlib import Path
from typing import Any

import boto3
from hosted_support import Deployment, authorized

ROOT = Path(__file__).resolve().parents[1]
TENANT = "acme"
THREAD, CHECKPOINT_THREAD, MEMORY, NAMESPACE = "u-42-t", "u-42-c", "TaskMemory", ["users", "u-42"]
#: What "u-42"'s key may reach; `ELSEWHERE` names only another user's resources, read and write.
U42 = {
    "actions": ["read", "write"],
    "threads": {"prefix": "u-42-"},
    "records": {"namespace_prefix": NAMESPACE},
    "memories": {"names": [MEMORY]},
    "checkpoints": {"prefix": "u-42-"},
}
ELSEWHERE = {
    "actions": ["read", "write"],
    "threads": {"prefix": "u-43-"},
    "records": {"namespace_prefix": ["users", "u-43"]},
    "memories": {"names": ["Elsewhere"]},
    "checkpoints": {"prefix": "u-43-"},
}
#: What the victim's names look like in any answer: an answer to a key scoped elsewhere must hold none of them.
VICTIM_MARKS = ("u-42",)


def scoped_key(scope: dict[str, Any] | None, *, expires_at: str | None = None) -> str:
    from offprompt.composition.account import default_account
    from offprompt.services.account.scopes import parse_scope

    created = default_account().create_key(TENANT, "k", scope=parse_scope(scope), expires_at=expires_at)
    return str(created["key"])


def sample_events() -> dict[str, dict[str, Any]]:
    """The sample HTTP event of each route key (events/*_http.json: one per route, test_routes_match checks)."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted((ROOT / "events").glob("*_http.json")):
        event = json.loads(path.read_text())
        out.setdefault(event["routeKey"], event)
    return out


def victim_params(function: str, path: str, sample: dict[str, str]) -> dict[str, str]:
    """The route's path parameters naming the victim's resources (the sample's where they name nothing of it)."""
    params = dict(sample)
    for name in re.findall(r"\{(\w+)\}", path):
        if name == "thread_id":
            params[name] = CHECKPOINT_THREAD if function == "checkpoints" else THREAD
        elif name == "memory_name":
            params[name] = MEMORY
        elif name == "namespace" and function == "records":
            params[name] = ".".join(NAMESPACE)
        elif name == "key" and function == "records":
            params[name] = "k"
        params.setdefault(name, "x")
    return params


def victim_body(body: Any) -> Any:
    """The sample body with every field that names a resource pointed at the victim's."""
    if not isinstance(body, dict):
        return body
    out = dict(body)
    for field, value in (
        ("thread_id", "u-42-fork"),
        ("target_thread_id", "u-42-copy"),
        ("thread_prefix", "u-42-"),
        ("namespace_prefix", NAMESPACE),
        ("prefix", NAMESPACE),
    ):
        if field in out:
            out[field] = value
    return out


def request(
    route_key: str,
    token: str,
    *,
    params: dict[str, str] | None = None,
    body: Any = None,
    query: dict[str, str] | None = None,
    raw_path: str | None = None,
    cached: dict[str, Any] | None = None,
) -> tuple[int, Any]:
    """`route_key` called with `token` (the authorizer's answer, or what API Gateway `cached`) through its handler."""
    from offprompt_local.routes import ROUTES

    route = next(r for r in ROUTES if r.route_key == route_key)
    event = copy.deepcopy(sample_events()[route_key])
    params = params if params is not None else dict(event.get("pathParameters") or {})
    path = raw_path or re.sub(r"\{(\w+)\}", lambda m: params[m.group(1)], route.path)
    event["rawPath"] = path
    event["requestContext"]["http"]["path"] = path
    event["requestContext"]["authorizer"] = {"lambda": cached if cached is not None else authorized(token)}
    event["headers"] = {**event.get("headers", {}), "authorization": f"Bearer {token}"}
    event["pathParameters"] = params
    if query is not None:
        from urllib.parse import urlencode

        event["queryStringParameters"] = query
        event["rawQueryString"] = urlencode(query)
    if body is not None:
        event["body"] = json.dumps(body)
        event["isBase64Encoded"] = False
    out = importlib.import_module(route.module).lambda_handler(event, None)
    text = out.get("body")
    try:
        answer = json.loads(text) if text else None
    except ValueError:
        answer = text
    return int(out["statusCode"]), answer


def seed(stack: Deployment) -> None:
    """The victim's data in every family, written by direct invocation (unscoped, as a trusted backend would)."""
    from checkpoints.handler import lambda_handler as checkpoints
    from cloud_threads.handler import lambda_handler as _  # noqa: F401 (imported: the route table's module)
    from records.handler import lambda_handler as records

    stack.add_run(TENANT, THREAD, "r1", "the victim said something")
    stack.store(TENANT, {"type": "TextArtifact", "id": "a1", "name": "ns1", "meta": {}, "value": "victim output"})
    records({"tenant": TENANT, "action": "put_record", "namespace": NAMESPACE, "key": "k", "value": {"v": 1}}, None)
    put = json.loads((ROOT / "events" / "checkpoint_put_direct.json").read_text())
    checkpoints({**put, "tenant": TENANT, "thread_id": CHECKPOINT_THREAD}, None)


def data_items(table: str) -> list[str]:
    """The tenant's stored data (every item but the account's own: keys, usage counters, rate windows, and the audit
    log, which records a refused request too: docs/adr/0056)."""
    items = boto3.client("dynamodb").get_paginator("scan").paginate(TableName=table)
    kept = []
    for page in items:
        for item in page["Items"]:
            pk = item["pk"]["S"]
            if pk.startswith(("APIKEY#", "TENANT#", "U#", "RATE#", "AUDIT#")):
                continue
            kept.append(json.dumps(item, sort_keys=True, default=repr))
    return sorted(kept)
