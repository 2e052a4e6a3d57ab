"""The Griptape Cloud-compatible Threads API (`/api/threads`, functions/cloud_threads) on moto.

Messages are runs: a PATCH appends the runs it has not seen and deletes the ones the list dropped, without
rewriting the others, and costs the same number of DynamoDB calls however long the thread is.
"""

from __future__ import annotations

import copy
import json
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from conversation_api import Api, load_event
from griptape.artifacts import BaseArtifact, TextArtifact

from offprompt.adapters.clients import aws_client


class Cloud:
    def __init__(self) -> None:
        from cloud_threads import handler

        self.fn = handler.lambda_handler

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        raw: str | None = None,
        query: dict[str, str] | None = None,
        tenant: str = "tenant-a",
        thread_id: str | None = None,
    ) -> tuple[int, Any]:
        event = copy.deepcopy(load_event("thread_get_http.json"))
        event["rawPath"] = path
        event["routeKey"] = event["requestContext"]["routeKey"] = f"{method} {path}"
        event["requestContext"]["http"]["method"] = method
        event["requestContext"]["http"]["path"] = path
        event["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = tenant
        event["headers"]["authorization"] = "Bearer some-key"
        event["pathParameters"] = {"thread_id": thread_id} if thread_id else {}
        if raw is not None:
            event["body"] = raw
        elif body is not None:
            event["body"] = json.dumps(body)
        event["rawQueryString"] = urlencode(query or {})
        if query:
            event["queryStringParameters"] = query
        out = self.fn(event, None)
        text = out.get("body") or ""
        return out["statusCode"], (json.loads(text) if text else None)

    def create(self, body: dict[str, Any], **kw: Any) -> tuple[int, Any]:
        return self.call("POST", "/api/threads", body, **kw)

    def get(self, thread_id: str, **kw: Any) -> tuple[int, Any]:
        return self.call("GET", f"/api/threads/{quote(thread_id)}", thread_id=thread_id, **kw)

    def patch(self, thread_id: str, body: Any, **kw: Any) -> tuple[int, Any]:
        return self.call("PATCH", f"/api/threads/{quote(thread_id)}", body, thread_id=thread_id, **kw)

    def messages(self, thread_id: str, **kw: Any) -> tuple[int, Any]:
        return self.call("GET", f"/api/threads/{quote(thread_id)}/messages", thread_id=thread_id, **kw)


@pytest.fixture
def cloud(aws: dict[str, Any]) -> Cloud:
    return Cloud()


def message(n: int, **meta: Any) -> dict[str, Any]:
    """One message exactly as GriptapeCloudConversationMemoryDriver.store builds it."""
    return {
        "input": TextArtifact(f"question {n}", id=f"in-{n}").to_json(),
        "output": TextArtifact(f"answer {n}", id=f"out-{n}").to_json(),
        "metadata": {"run_id": f"run-{n}"},
        **meta,
    }


def new_thread(cloud: Cloud, **body: Any) -> str:
    status, thread = cloud.create({"name": "t", **body})
    assert status == 201, thread
    return str(thread["thread_id"])


def stored_seqs(cloud: Cloud, thread_id: str) -> list[tuple[str, str]]:
    _, page = cloud.messages(thread_id)
    return [(m["metadata"]["run_id"], m["created_at"]) for m in page["messages"]]


def test_create_get_and_find_by_alias(cloud: Cloud) -> None:
    status, created = cloud.create({"name": "support", "alias": "support-bot", "metadata": {"k": 1}})
    assert status == 201
    assert created["name"] == "support" and created["alias"] == "support-bot" and created["metadata"] == {"k": 1}
    status, got = cloud.get(created["thread_id"])
    assert status == 200 and got == created
    status, found = cloud.call("GET", "/api/threads", query={"alias": "support-bot"})
    assert status == 200 and [t["thread_id"] for t in found["threads"]] == [created["thread_id"]]
    assert found["pagination"]["total_count"] == 1
    status, none = cloud.call("GET", "/api/threads", query={"alias": "nobody"})
    assert status == 200 and none["threads"] == []
    # aliases are unique per tenant, not across tenants
    status, taken = cloud.create({"name": "again", "alias": "support-bot"})
    assert status == 409 and taken["code"] == "conflict"
    status, other = cloud.create({"name": "bob's", "alias": "support-bot"}, tenant="tenant-b")
    assert status == 201 and other["thread_id"] != created["thread_id"]
    status, _ = cloud.get(created["thread_id"], tenant="tenant-b")
    assert status == 404


def test_alias_of_a_deleted_thread_can_be_reused(cloud: Cloud, api: Api) -> None:
    first = new_thread(cloud, alias="reuse")
    assert api.thread("DELETE", first)[0] == 204
    status, found = cloud.call("GET", "/api/threads", query={"alias": "reuse"})
    assert status == 200 and found["threads"] == []
    second = new_thread(cloud, alias="reuse")
    _, found = cloud.call("GET", "/api/threads", query={"alias": "reuse"})
    assert [t["thread_id"] for t in found["threads"]] == [second]


def test_patch_appends_trims_and_keeps_meta(cloud: Cloud, api: Api) -> None:
    thread = new_thread(cloud)
    status, out = cloud.patch(
        thread, {"messages": [message(1), message(2), message(3)], "summary": "S", "summary_index": 1}
    )
    assert status == 200 and out["metadata"] == {"summary": "S", "summary_index": 1}
    status, page = cloud.messages(thread)
    assert status == 200
    assert [m["index"] for m in page["messages"]] == [0, 1, 2]
    assert [m["metadata"] for m in page["messages"]] == [{"run_id": f"run-{n}"} for n in (1, 2, 3)]
    assert all(m["thread_id"] == thread and m["message_id"] and m["created_at"] for m in page["messages"])
    artifact = BaseArtifact.from_json(page["messages"][0]["input"])  # Griptape loads what we return
    assert isinstance(artifact, TextArtifact) and artifact.value == "question 1" and artifact.id == "in-1"
    before = dict(stored_seqs(cloud, thread))

    # Griptape trimmed to max_runs=3: run-1 dropped, run-4 added; run-2 and run-3 are not rewritten
    status, _ = cloud.patch(
        thread, {"messages": [message(2), message(3), message(4)], "summary": "S2", "summary_index": 2}
    )
    assert status == 200
    after = dict(stored_seqs(cloud, thread))
    assert list(after) == ["run-2", "run-3", "run-4"]
    assert after["run-2"] == before["run-2"] and after["run-3"] == before["run-3"]
    assert cloud.get(thread)[1]["metadata"] == {"summary": "S2", "summary_index": 2}
    # the runs are offprompt's own: the native routes see them
    status, runs = api.runs(thread)
    assert status == 200 and [r["run"]["id"] for r in runs["runs"]] == ["run-2", "run-3", "run-4"]
    # resending the same list changes nothing; a list without the newest stored run replaces everything
    assert cloud.patch(thread, {"messages": [message(2), message(3), message(4)]})[0] == 200
    assert list(dict(stored_seqs(cloud, thread))) == ["run-2", "run-3", "run-4"]
    assert cloud.patch(thread, {"messages": [message(9)]})[0] == 200
    assert list(dict(stored_seqs(cloud, thread))) == ["run-9"]
    assert cloud.patch(thread, {"messages": []})[0] == 200
    assert stored_seqs(cloud, thread) == []
    # meta PATCHed before stays when a PATCH names none
    assert cloud.get(thread)[1]["metadata"] == {"summary": "S2", "summary_index": 2}


def test_run_meta_round_trips(cloud: Cloud) -> None:
    thread = new_thread(cloud)
    # Griptape's driver merges run.meta into the message's top level; it reads it back from `metadata`
    assert cloud.patch(thread, {"messages": [message(1, tokens=7)]})[0] == 200
    _, page = cloud.messages(thread)
    assert page["messages"][0]["metadata"] == {"tokens": 7, "run_id": "run-1"}


def test_messages_pagination(cloud: Cloud) -> None:
    thread = new_thread(cloud)
    cloud.patch(thread, {"messages": [message(n) for n in range(1, 8)]})
    status, page = cloud.messages(thread, query={"page": "2", "page_size": "3"})
    assert status == 200
    assert [m["metadata"]["run_id"] for m in page["messages"]] == ["run-4", "run-5", "run-6"]
    assert [m["index"] for m in page["messages"]] == [3, 4, 5]
    assert page["pagination"] == {"page": 2, "page_size": 3, "total_count": 7, "total_pages": 3}


def _calls_for_one_more_run(cloud: Cloud, length: int) -> int:
    thread = new_thread(cloud)
    runs = [message(n) for n in range(1, length + 1)]
    assert cloud.patch(thread, {"messages": runs})[0] == 200
    calls: list[str] = []
    client = aws_client("dynamodb")
    handler = client.meta.events.register("before-call.dynamodb", lambda model, **_: calls.append(model.name))
    try:
        # Griptape's max_runs trim: the oldest run dropped, one added
        assert cloud.patch(thread, {"messages": [*runs[1:], message(length + 1)]})[0] == 200
    finally:
        client.meta.events.unregister("before-call.dynamodb", handler)
    return len(calls)


def test_patch_cost_is_flat_in_thread_length(cloud: Cloud) -> None:
    assert _calls_for_one_more_run(cloud, 3) == _calls_for_one_more_run(cloud, 60)


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        # what does not fit the body's schema: 422, as on every other route (ADR 0017)
        ({"messages": {"not": "a list"}}, 422, "schema_invalid"),
        ({"messages": ["text"]}, 422, "schema_invalid"),
        ({"messages": [message(1), message(1)]}, 400, "invalid_input"),
        ({"messages": [{"input": 1, "output": "x", "metadata": {"run_id": "r"}}]}, 400, "invalid_input"),
        ({"metadata": "not an object"}, 422, "schema_invalid"),
        ({"alias": "another"}, 400, "invalid_input"),
        ([1, 2], 422, "schema_invalid"),
    ],
)
def test_patch_rejects_bad_input(cloud: Cloud, body: Any, status: int, code: str) -> None:
    thread = new_thread(cloud)
    got, error = cloud.patch(thread, body)
    assert (got, error["code"]) == (status, code), error
    assert set(error) >= {"code", "message"}


def test_errors(cloud: Cloud) -> None:
    assert cloud.patch("no-such-thread", {"messages": []})[0] == 404
    assert cloud.messages("no-such-thread")[0] == 404
    assert cloud.get("no-such-thread")[0] == 404
    status, error = cloud.call("GET", "/api/threads")  # ?alias= is required
    assert status == 422 and error["code"] == "schema_invalid"
    status, error = cloud.create({}, raw="{not json")
    assert status == 400 and error["code"] == "invalid_input"
    status, error = cloud.create({"name": 5})
    assert status == 422 and error["code"] == "schema_invalid"
    thread = new_thread(cloud)
    for query in ({"page_size": "0"}, {"page": "x"}, {"page_size": "1001"}):
        status, error = cloud.messages(thread, query=query)
        assert status == 422 and error["code"] == "schema_invalid", query


def test_delete_releases_the_alias_and_is_idempotent(cloud: Cloud, api: Api) -> None:
    thread = new_thread(cloud, alias="gone-soon")
    cloud.patch(thread, {"messages": [message(1), message(2)]})
    other = new_thread(cloud, alias="stays")
    assert cloud.call("DELETE", f"/api/threads/{thread}", thread_id=thread)[0] == 204
    assert cloud.get(thread)[0] == 404
    assert api.runs(thread)[1]["runs"] == []
    assert cloud.call("DELETE", f"/api/threads/{thread}", thread_id=thread)[0] == 204  # idempotent
    _, found = cloud.call("GET", "/api/threads", query={"alias": "gone-soon"})
    assert found["threads"] == []
    assert new_thread(cloud, alias="gone-soon") != thread  # the alias is free again
    _, kept = cloud.call("GET", "/api/threads", query={"alias": "stays"})
    assert [t["thread_id"] for t in kept["threads"]] == [other]
