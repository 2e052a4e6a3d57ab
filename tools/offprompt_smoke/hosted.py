"""Reaching the API, and the hosted half: usage (`GET /usage`), self-service keys (create, use, list, revoke: the
revoked key refused at once), and the tenant's own export and erase (each behind its flag). Plan limits are not
exercised: a 429 needs a plan an operator sets."""

from __future__ import annotations

import collections
import hashlib
import json
import time
import urllib.request
from typing import Any

from offprompt_client import OffpromptClientError

from .runner import CheckFailed, Smoke, expect, quoted, refused

#: How often `DELETE /tenant` is repeated while it answers 202 (each after its Retry-After, 30 s deployed).
ERASE_ROUNDS = 5
#: API Gateway's answer for a key its authorizer refuses (deployed, when the key's allow is not cached).
GATEWAY_FORBIDDEN = {"message": "Forbidden"}


def check_reach(smoke: Smoke) -> str:
    """The API answers, and answers as a tenant: an unknown thread is 404 not_found (not 401/403)."""
    probe = smoke.name("probe")
    try:
        smoke.api.get_thread(probe)
    except OffpromptClientError as error:
        if error.status == 404 and error.code == "not_found":
            pass
        elif error.status in (401, 403) and not smoke.options.key:
            raise CheckFailed(
                f"{error.status} {error.code}: the API wants credentials: give KEY=op_… "
                "(the X-Offprompt-Tenant header works only against make dev)"
            ) from None
        elif error.status in (401, 403):
            raise CheckFailed(f"{error.status} {error.code}: the key was refused ({error.message[:100]})") from None
        else:
            raise
    else:
        raise CheckFailed(f"GET /threads/{probe} answered 200: not an offprompt API, or the prefix exists")
    if not smoke.options.key:
        return f'GET /threads/<prefix>-probe → 404 not_found as header tenant "{smoke.options.tenant}"'
    if not smoke.options.key.startswith("op_"):
        return "GET /threads/<prefix>-probe → 404 not_found with the bearer token"
    usage = smoke.api.request("GET", "/usage").json()
    smoke.state["usage"] = usage
    smoke.state["calls_before"] = len(smoke.api.calls)
    return f'GET /threads/<prefix>-probe → 404 not_found; the key is tenant "{usage["tenant"]}"'


#: Routes no key admits nor meters: the console's static files (no authorizer; docs/adr/0038).
UNMETERED = frozenset({"GET /console", "GET /console/{asset}"})


def check_usage(smoke: Smoke) -> str:
    """`GET /usage` counts at least every request the smoke had answered on each route since its first."""
    before = smoke.state.get("usage")
    if before is None:
        raise CheckFailed("no usage baseline (reach did not read /usage)")
    ours = collections.Counter(
        call.route
        for call in smoke.api.calls[smoke.state["calls_before"] :]
        if call.route is not None and call.status < 400 and call.route not in UNMETERED
    )
    now = smoke.api.request("GET", "/usage", query={"from": before["from"]}).json()
    expect(now["tenant"] == before["tenant"], f"usage of tenant {now['tenant']}, the key is {before['tenant']}")
    was, got = before["totals"], now["totals"]
    short = {
        route: (got["requests_by_route"].get(route, 0) - was["requests_by_route"].get(route, 0), count)
        for route, count in ours.items()
        if got["requests_by_route"].get(route, 0) - was["requests_by_route"].get(route, 0) < count
    }
    expect(not short, f"routes counted fewer requests than the smoke made (counted, made): {short}")
    requests = got["requests"] - was["requests"]
    expect(requests >= sum(ours.values()), f"{requests} requests counted, the smoke made {sum(ours.values())}")
    runs = got["runs_added"] - was["runs_added"]
    added = ours.get("POST /threads/{thread_id}/runs", 0)
    expect(runs >= 1 if added else True, f"runs_added +{runs} after {added} added runs")
    expect(got["artifacts_stored"] > was["artifacts_stored"], "no stored artifact was counted")
    return (
        f"+{requests} requests (≥ the smoke's {sum(ours.values())} answered, on {len(ours)} routes each ≥), "
        f"+{runs} runs, +{got['artifacts_stored'] - was['artifacts_stored']} artifacts; "
        f"stored_bytes {now['stored_bytes']}"
    )


def check_keys(smoke: Smoke) -> str:
    api = smoke.api
    made = api.request("POST", "/keys", json_body={"name": smoke.name("key")})
    expect(made.status == 201, f"POST /keys answered {made.status}")
    new = made.json()
    smoke.cleanup.keys.append(new["key_id"])
    expect(new["key"].startswith(f"op_{new['key_id']}_") and new["name"] == smoke.name("key"), f"created {new}")
    listed = api.request("GET", "/keys")
    ids = [k["key_id"] for k in listed.json()["keys"]]
    expect(new["key_id"] in ids, f"GET /keys lists {ids}")
    expect(new["key"].encode() not in listed.body and b'"key":' not in listed.body, "GET /keys shows a secret")

    second = smoke.client(Authorization=f"Bearer {new['key']}")
    refused(lambda: second.get_thread(smoke.name("probe")), 404, "not_found")  # it works ...
    tenant = second.request("GET", "/usage").json()["tenant"]
    expect(tenant == smoke.state["usage"]["tenant"], f"the new key is tenant {tenant}")  # ... as the same tenant

    path = f"/keys/{quoted(new['key_id'])}"
    expect(api.request("DELETE", path).status == 204, "DELETE /keys/{id} is not 204")
    after = revoked(second, smoke)
    expect(api.request("DELETE", path).status == 204, "a second DELETE /keys/{id} is not 204")
    refused(lambda: api.get_thread(smoke.name("probe")), 404, "not_found")  # the smoke's own key still works
    return (
        f"POST /keys → 201 (a working key, same tenant, listed without its secret); DELETE → 204; it then gets {after}"
    )


def revoked(client: Any, smoke: Smoke) -> str:
    """What a revoked key gets on its next request: 401 unauthenticated (every request re-reads its key), or API
    Gateway's 403 when its authorizer is asked again."""
    try:
        client.get_thread(smoke.name("probe"))
    except OffpromptClientError as error:
        if error.status == 401:
            expect(error.code == "unauthenticated", f"401 {error.code}")
            return "401 unauthenticated at once"
        expect(error.status == 403 and error.body == GATEWAY_FORBIDDEN, f"the revoked key got {error}")
        return "API Gateway's 403 Forbidden at once"
    raise CheckFailed("the revoked key still works")


def tenant_of(smoke: Smoke) -> str:
    """The caller's tenant id: an API key's from /usage, else the header's (a JWT's claim is not known here)."""
    if smoke.options.key:
        tenant: str = smoke.api.request("GET", "/usage").json()["tenant"]
        return tenant
    return smoke.options.tenant


def download(url: str, timeout: float) -> bytes:
    """A presigned GET (no API credentials)."""
    with urllib.request.urlopen(urllib.request.Request(url), timeout=timeout) as answer:
        body: bytes = answer.read()
        return body


def check_export(smoke: Smoke) -> str:
    thread = smoke.thread("export")
    smoke.api.add_run(thread, input=f"marker {smoke.prefix}", output="exported", id="run-1")
    answer = smoke.api.request("POST", "/export")
    for _ in range(ERASE_ROUNDS):  # 202: the tenant's data is still being indexed (docs/adr/0043); go on as told
        if answer.status != 202:
            break
        time.sleep(min(float(answer.headers.get("retry-after") or 1), 60.0))
        answer = smoke.api.request("POST", "/export")
    expect(answer.status == 200, f"POST /export answered {answer.status}")
    result = answer.json()
    smoke.cleanup.notes.append("the export's files under exports/ (expire in 7 days)")
    manifest = json.loads(download(result["manifest_url"], smoke.options.timeout))
    expect(manifest["tenant"] == tenant_of(smoke), f"the manifest is tenant {manifest['tenant']}'s")
    files = {f["name"]: f for f in manifest["files"]}
    expect("dynamodb.jsonl" in files and files["dynamodb.jsonl"].get("url"), f"manifest files {sorted(files)}")
    entry = files["dynamodb.jsonl"]
    data = download(entry["url"], smoke.options.timeout)
    expect(len(data) == entry["size"] and hashlib.sha256(data).hexdigest() == entry["sha256"], "size/SHA-256 differ")
    expect(f"marker {smoke.prefix}".encode() in data, "dynamodb.jsonl does not hold the run just added")
    return f"POST /export → manifest of {len(files)} files; dynamodb.jsonl's SHA-256 matches and holds the smoke's run"


def check_erase(smoke: Smoke) -> str:
    tenant = tenant_of(smoke)
    started = time.monotonic()
    for _ in range(ERASE_ROUNDS):
        answer = smoke.api.request("DELETE", "/tenant", json_body={"confirm": tenant})
        if answer.status == 200:
            report = answer.json()
            expect(report["verified"] is True, f"the erase answered {report}")
            remaining = report["remaining"]
            expect(not any(remaining.values()), f"the erase left {remaining}")
            return (
                f'tenant "{tenant}" erased and verified in {time.monotonic() - started:.0f} s (remaining {remaining})'
            )
        expect(answer.status == 202, f"DELETE /tenant answered {answer.status}")
        time.sleep(min(float(answer.headers.get("retry-after") or 30), 60.0))
    raise CheckFailed(f"DELETE /tenant still answers 202 after {ERASE_ROUNDS} rounds")
