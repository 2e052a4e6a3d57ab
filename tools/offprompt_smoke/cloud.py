"""Griptape Cloud's Threads API (`/api/threads`) over plain HTTP: create with an alias, find by alias, PATCH message
lists (a diff by run id), the messages view, the same runs on the native routes, delete."""

from __future__ import annotations

import json
from typing import Any

from .runner import Smoke, expect, quoted, refused


def message(n: int) -> dict[str, Any]:
    """A Griptape Cloud message as Griptape's driver sends it: artifacts as JSON strings, the run id in metadata."""
    artifact: dict[str, Any] = {"type": "TextArtifact", "id": f"in{n}", "reference": None, "meta": {}, "name": f"in{n}"}
    return {
        "input": json.dumps({**artifact, "value": f"question {n}"}),
        "output": json.dumps({**artifact, "id": f"out{n}", "name": f"out{n}", "value": f"answer {n}"}),
        "metadata": {"run_id": f"m{n}"},
    }


def check_cloud_threads(smoke: Smoke) -> str:
    api = smoke.api
    alias = smoke.name("alias")
    created = api.request("POST", "/api/threads", json_body={"name": alias, "alias": alias})
    expect(created.status == 201, f"POST /api/threads answered {created.status}")
    thread = created.json()
    thread_id = thread["thread_id"]
    smoke.cleanup.cloud_threads.append(thread_id)
    expect(thread["alias"] == alias and thread["name"] == alias, f"created {thread}")
    path = f"/api/threads/{quoted(thread_id)}"

    found = api.request("GET", "/api/threads", query={"alias": alias}).json()["threads"]
    expect([t["thread_id"] for t in found] == [thread_id], f"?alias= found {found}")
    refused(lambda: api.request("POST", "/api/threads", json_body={"name": "x", "alias": alias}), 409, "conflict")

    patched = api.request("PATCH", path, json_body={"messages": [message(1), message(2), message(3)], "topic": "smoke"})
    expect(patched.json()["metadata"].get("topic") == "smoke", f"PATCH answered {patched.json()}")
    listed = api.request("GET", f"{path}/messages").json()["messages"]
    expect([m["metadata"].get("run_id") for m in listed] == ["m1", "m2", "m3"], f"messages after PATCH: {listed}")
    expect(json.loads(listed[0]["input"])["value"] == "question 1", f"first message {listed[0]}")

    api.request("PATCH", path, json_body={"messages": [message(2), message(3), message(4)], "topic": "smoke"})
    listed = api.request("GET", f"{path}/messages").json()["messages"]
    ids = [m["metadata"].get("run_id") for m in listed]
    expect(ids == ["m2", "m3", "m4"], f"a PATCH dropping m1 and adding m4 left {ids}")
    native = [r["run"]["id"] for r in api.all_runs(thread_id)]
    expect(native == ["m2", "m3", "m4"], f"the native runs route lists {native}")
    got = api.request("GET", path).json()
    expect(got["metadata"] == {"topic": "smoke"} and got["alias"] == alias, f"GET {got}")

    expect(api.request("DELETE", path).status == 204, "DELETE /api/threads/{id} is not 204")
    refused(lambda: api.request("GET", path), 404, "not_found")
    after = api.request("GET", "/api/threads", query={"alias": alias}).json()["threads"]
    expect(after == [], f"the alias still finds {after} after the delete")
    return (
        "created with alias, found by ?alias=, a second alias → 409; PATCH [m1-m3] then [m2-m4]: messages and native "
        "runs m2-m4, metadata kept; DELETE → 204, GET → 404, alias released"
    )
