"""Hosted mode against the local stack (`python -m offprompt_local.stack`), as an operator and tenants use it:
the admin CLI creates tenants and keys, clients use `Authorization: Bearer op_...` without the tenant header, the
dev server runs the same authorizer Lambda code, and Griptape's own Cloud driver works with a key.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import pytest
from griptape.drivers.memory.conversation.griptape_cloud import GriptapeCloudConversationMemoryDriver
from griptape.memory.structure import ConversationMemory
from griptape.structures import Agent
from griptape_support import CannedPromptDriver, EchoTool, echo_call
from stack_support import local_admin
from test_local_stack import E2E_DATA_DIR, ROOT, RunningStack, raises, search_until_found, stack, uid  # noqa: F401  (stack: fixture)

from offprompt.services.account.keys import parse_key
from offprompt_client import OffpromptClient, OffpromptClientError

pytestmark = pytest.mark.slow


def admin(*args: str) -> Any:
    """`python -m offprompt_admin --local ...` against the running e2e stack (its data directory's stack.json)."""
    return local_admin(E2E_DATA_DIR, *args)


def keyed(running: RunningStack, key: str) -> OffpromptClient:
    return OffpromptClient(running.url, headers={"Authorization": f"Bearer {key}"}, timeout=120)


def test_a_key_is_a_tenant_from_creation_to_revocation(stack: RunningStack) -> None:  # noqa: F811
    tenant, other = uid("acme"), uid("globex")
    first = admin("tenant", "create", tenant, "--plan", "pro")
    assert first["tenant"] == tenant and first["key"].startswith(f"op_{first['key_id']}_")
    theirs = admin("tenant", "create", other)["key"]
    api, rival = keyed(stack, first["key"]), keyed(stack, theirs)

    # the key is the tenant: no tenant header, and the data is invisible to another key and to other tenants
    thread = uid("support")
    assert api.add_run(thread, input="I am Ada", output="Hello Ada", id="r-1")["seq"] == 1
    assert [r["run"]["id"] for r in api.list_runs(thread)["runs"]] == ["r-1"]
    assert rival.list_runs(thread)["runs"] == []
    with raises(404, "not_found"):
        rival.get_thread(thread)
    assert OffpromptClient(stack.url, tenant="local").list_runs(thread)["runs"] == []
    assert OffpromptClient(stack.url, tenant=tenant).list_runs(thread)["runs"] != []  # (the local header's tenant)

    # self-service keys: created with the key's tenant, listed without secrets
    made = api.request("POST", "/keys", json_body={"name": "ci"})
    assert made.status == 201
    second = made.json()
    assert set(second) == {"key_id", "key", "prefix", "name", "created_at"} and second["name"] == "ci"
    listed = api.request("GET", "/keys")
    keys = listed.json()["keys"]
    assert {k["key_id"] for k in keys} == {first["key_id"], second["key_id"]}
    for secret in (first["key"], second["key"], parse_key(first["key"]).secret, parse_key(second["key"]).secret):
        assert secret.encode() not in listed.body
    assert all(set(k) == {"key_id", "prefix", "name", "created_at"} for k in keys)
    assert admin("key", "list", tenant) == listed.json()
    assert keyed(stack, second["key"]).list_runs(thread)["runs"] != []  # the new key is the same tenant
    assert rival.request("GET", "/keys").json()["keys"][0]["key_id"] not in {first["key_id"], second["key_id"]}

    # usage counts what was done
    report = api.request("GET", "/usage").json()
    assert report["tenant"] == tenant
    totals = report["totals"]
    assert totals["runs_added"] == 1
    assert totals["requests"] >= 4 and totals["requests_by_route"]["POST /threads/{thread_id}/runs"] == 1
    assert totals["bytes_stored"] > 0 and totals["tokens_stored"] > 0 and report["stored_bytes"] > 0
    shown = admin("usage", "show", tenant)
    assert shown["totals"]["runs_added"] == 1 and shown["totals"]["requests"] >= totals["requests"]
    assert rival.request("GET", "/usage").json()["totals"]["runs_added"] == 0

    # revoke: the key stops working at once (401 JSON), the others keep working
    assert api.request("DELETE", f"/keys/{second['key_id']}").status == 204
    with raises(401, "unauthenticated"):
        keyed(stack, second["key"]).list_runs(thread)
    assert api.list_runs(thread)["runs"] != []
    assert admin("key", "revoke", tenant, first["key_id"])["revoked"] is True
    with raises(401, "unauthenticated"):
        api.list_runs(thread)
    with raises(401, "unauthenticated"):
        keyed(stack, "op_0123456789abcdef_" + "A" * 43).list_runs(thread)


def test_a_tiny_plan_answers_429_and_writes_nothing(stack: RunningStack) -> None:  # noqa: F811
    tenant = uid("tiny")
    key = admin("tenant", "create", tenant, "--plan", "tiny", "--runs-per-day", "1")["key"]
    api = keyed(stack, key)
    thread = uid("t")
    api.add_run(thread, input="one", output="1", id="r-1")
    fresh = uid("fresh")
    with raises(429, "quota_exceeded") as caught:
        api.add_run(fresh, input="two", output="2", id="r-2")
    body = caught.value.body
    assert isinstance(body, dict) and body["details"]["quota"] == "runs_per_day"
    with raises(429, "quota_exceeded"):
        api.add_run(thread, input="two", output="2", id="r-2")
    # nothing written: no new thread, no second run, no run counted
    with raises(404, "not_found"):
        api.get_thread(fresh)
    assert [r["run"]["id"] for r in api.list_runs(thread)["runs"]] == ["r-1"]
    assert api.request("GET", "/usage").json()["totals"]["runs_added"] == 1

    request = urllib.request.Request(
        f"{stack.url}/threads/{thread}/runs",
        data=b'{"input": {"type": "TextArtifact", "value": "x"}, "output": {"type": "TextArtifact", "value": "y"}}',
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        method="POST",
    )
    with pytest.raises(urllib.error.HTTPError) as answer:
        urllib.request.urlopen(request, timeout=60)
    assert answer.value.code == 429 and 1 <= int(answer.value.headers["Retry-After"]) <= 86_400
    assert json.loads(answer.value.read())["code"] == "quota_exceeded"

    # a rate of 1 request per second: a burst gets rate_limited with Retry-After: 1
    admin("plan", "set", tenant, "tiny", "--rate-per-second", "1", "--runs-per-day", "1")
    statuses = []
    for _ in range(4):
        try:
            api.list_runs(thread)
            statuses.append(200)
        except OffpromptClientError as exc:
            statuses.append((exc.status, exc.code))
    assert (429, "rate_limited") in statuses and 200 in statuses


def test_griptapes_cloud_driver_works_with_a_key(stack: RunningStack) -> None:  # noqa: F811
    tenant = uid("gt")
    # pro: an agent turn makes a burst of requests (find, messages, patch, ...) that the free plan's 10 requests per
    # second may refuse with a 429 on a fast machine; this test is about the driver, test_rate_limit about limits
    key = admin("tenant", "create", tenant, "--plan", "pro")["key"]
    alias = uid("support")
    driver = GriptapeCloudConversationMemoryDriver(base_url=stack.url, api_key=key, alias=alias)
    prompt_driver = CannedPromptDriver(tool_call=echo_call)
    agent = Agent(
        prompt_driver=prompt_driver,
        tools=[EchoTool()],
        conversation_memory=ConversationMemory(conversation_memory_driver=driver),
    )
    agent.run("What is 6 times 7?")
    agent.run("And again?")
    api = keyed(stack, key)
    runs = api.list_runs(driver.thread_id)["runs"]
    assert len(runs) == 2 and runs[0]["run"]["input"]["value"] == "What is 6 times 7?"
    # the thread is the key's tenant's, invisible to the local header's tenants
    assert OffpromptClient(stack.url, tenant="local").list_runs(driver.thread_id)["runs"] == []
    reloaded = ConversationMemory(
        conversation_memory_driver=GriptapeCloudConversationMemoryDriver(base_url=stack.url, api_key=key, alias=alias)
    )
    assert [r.input.value for r in reloaded.runs] == ["What is 6 times 7?", "And again?"]
    assert api.request("GET", "/usage").json()["totals"]["runs_added"] == 2
    # a revoked key: Griptape's driver gets the 401
    admin("key", "revoke", tenant, key.split("_")[1])
    with pytest.raises(Exception, match="401"):
        GriptapeCloudConversationMemoryDriver(base_url=stack.url, api_key=key, alias=alias).load()


def test_task_memory_is_metered_and_stored_bytes_are_a_quota(stack: RunningStack) -> None:  # noqa: F811
    tenant = uid("tm")
    key = admin("tenant", "create", tenant, "--plan", "small", "--stored-bytes", "4000")["key"]
    api = keyed(stack, key)
    page = "Paris is the capital of France. " * 40  # 1,280 bytes of text
    api.process_output("TaskMemory", "WebScraper", "get_content", {"type": "TextArtifact", "name": "p1", "value": page})
    blob = {"type": "BlobArtifact", "name": "b1", "value": "aGVsbG8gd29ybGQ="}  # 11 bytes
    api.process_output("TaskMemory", "Files", "read", blob)
    assert api.load_artifacts("TaskMemory", "p1", raw=True)["type"] == "ListArtifact"
    search_until_found(api, "TaskMemory", "p1", "Paris")
    totals = api.request("GET", "/usage").json()["totals"]
    assert totals["artifacts_stored"] == 2
    assert totals["bytes_stored_opensearch"] == len(page) and totals["bytes_stored_s3"] == 11
    assert totals["loads"] == 1 and totals["searches"] >= 1 and totals["bytes_served"] > len(page)
    stored = api.request("GET", "/usage").json()["stored_bytes"]
    assert stored >= len(page) + 11

    # past the plan's stored bytes: refused before anything is written
    bigger = {"type": "TextArtifact", "name": "p2", "value": "x" * 4000}
    with raises(429, "quota_exceeded"):
        api.process_output("TaskMemory", "WebScraper", "get_content", bigger)
    with raises(404, "not_found"):
        api.get_namespace("TaskMemory", "p2")
    assert api.request("GET", "/usage").json()["totals"]["artifacts_stored"] == 2
    # deleting a namespace takes exactly its bytes off the gauge (ADR 0021): the quota frees up
    api.delete_namespace("TaskMemory", "p1")
    assert api.request("GET", "/usage").json()["stored_bytes"] == stored - len(page)


def test_swagger_ui_authorized_with_a_key_sends_it_as_a_bearer_token(stack: RunningStack) -> None:  # noqa: F811
    """What "Authorize" and then "Try it out" in `/docs` do, at the HTTP level (a browser test comes later): the page
    inlines the document the stack serves and keeps the authorization (persistAuthorization); Swagger UI sends the
    value of an http bearer scheme as `Authorization: Bearer <value>`, to the document's server resolved against the
    page, i.e. the dev server itself. That request is answered for the key's tenant."""
    with urllib.request.urlopen(f"{stack.url}/docs", timeout=60) as answer:
        assert answer.status == 200 and answer.headers["Content-Type"].startswith("text/html")
        page = answer.read().decode("utf-8")
    with urllib.request.urlopen(f"{stack.url}/openapi.json", timeout=60) as answer:
        document = json.loads(answer.read())
    assert "persistAuthorization: true" in page
    assert json.loads(page.split("spec: ", 1)[1].split(",\n    presets:", 1)[0]) == document
    # the served bundle's own rule (swagger-client's request builder) for an http scheme named bearer
    assert re.search(r"/\^bearer\$/i\.test\(\w+\.scheme\)&&\(\w+\.headers\.Authorization=`Bearer \$\{\w+\}`\)", page)
    server = urllib.parse.urljoin(f"{stack.url}/docs", document["servers"][0]["url"]).rstrip("/")
    assert server == stack.url  # "Try it out" goes to the page's own origin

    scheme = document["components"]["securitySchemes"]["apiKey"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    operation = document["paths"]["/usage"]["get"]
    assert {"apiKey": []} in operation["security"] and operation["tags"] == ["keys and usage"]
    tenant = uid("swagger")
    key = admin("tenant", "create", tenant)["key"]

    def try_it_out(authorization: str | None) -> tuple[int, Any]:
        headers = {"accept": "application/json"}  # what Swagger UI sends besides the authorization
        if authorization is not None:
            headers["Authorization"] = authorization
        request = urllib.request.Request(f"{server}/usage", headers=headers, method="GET")
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    status, body = try_it_out(f"Bearer {key}")  # Swagger UI's header for an http bearer scheme
    assert status == 200 and body["tenant"] == tenant, body
    status, body = try_it_out(None)  # not authorized: make dev's default tenant, not the key's
    assert status == 200 and body["tenant"] == "local"
    admin("key", "revoke", tenant, key.split("_")[1])
    status, body = try_it_out(f"Bearer {key}")
    assert status == 401 and body["code"] == "unauthenticated"
