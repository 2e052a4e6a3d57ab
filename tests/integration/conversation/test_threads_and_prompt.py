"""prompt-stack and threads handlers on moto: budgets, last_n, max_runs, retention, paging, delete, tenancy."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from conversation_api import Api, all_items, all_objects, load_event, text_run
from griptape.common import PromptStack as GriptapePromptStack

from offprompt.composition.conversation import default_service
from offprompt.errors import InvalidInput
from offprompt.services.conversation import PRUNE_BATCH, PRUNE_SLACK


def texts(stack: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (m["role"], "".join(c["artifact"]["value"] for c in m["content"] if c["type"] == "TextMessageContent"))
        for m in stack["messages"]
    ]


def add_n(api: Api, thread: str, n: int, *, start: int = 1, tenant: str = "tenant-a") -> None:
    for i in range(start, start + n):
        status, _ = api.post_run(thread, text_run(f"r{i}", f"question {i}", f"answer {i}"), tenant=tenant)
        assert status == 201


def test_sample_events(api: Api) -> None:
    add_n(api, "thread-1", 2)
    out = api.prompt_stack_fn(load_event("prompt_stack_http.json"), None)
    assert out["statusCode"] == 200
    stack = json.loads(out["body"])
    GriptapePromptStack.from_dict(stack)  # Griptape loads what we return
    assert texts(stack) == [
        ("system", "You are a helpful assistant."),
        ("user", "question 1"),
        ("assistant", "answer 1"),
        ("user", "question 2"),
        ("assistant", "answer 2"),
        ("user", "And of Italy?"),
    ]
    direct = api.prompt_stack_fn(load_event("prompt_stack_direct.json"), None)
    assert texts(direct) == texts(stack)
    got = api.threads(load_event("thread_get_http.json"), None)
    assert got["statusCode"] == 200 and json.loads(got["body"])["stored_runs"] == 2
    assert api.threads(load_event("thread_direct.json"), None)["visible_runs"] == 2
    listed = api.threads(load_event("thread_runs_http.json"), None)
    assert [r["seq"] for r in json.loads(listed["body"])["runs"]] == [2, 1]
    assert [r["seq"] for r in api.threads(load_event("thread_runs_direct.json"), None)["runs"]] == [1, 2]
    assert api.threads(load_event("thread_put_http.json"), None)["statusCode"] == 200
    assert api.threads(load_event("thread_configure_direct.json"), None)["offset"] == 2
    assert api.threads(load_event("thread_delete_http.json"), None)["statusCode"] == 204


def test_memory_index_last_n_and_budget(api: Api) -> None:
    add_n(api, "t", 5)
    _, stack = api.prompt_stack("t", {"input": "now", "last_n": 2})
    assert texts(stack) == [
        ("user", "question 4"),
        ("assistant", "answer 4"),
        ("user", "question 5"),
        ("assistant", "answer 5"),
        ("user", "now"),
    ]
    _, stack = api.prompt_stack("t", {"system": "S", "input": "now", "last_n": 1, "memory_index": 0})
    assert texts(stack)[:2] == [("user", "question 5"), ("assistant", "answer 5")]
    _, stack = api.prompt_stack("t", {"system": "S", "input": "now", "last_n": 1, "memory_index": 2})
    assert texts(stack)[-2:] == [("user", "question 5"), ("assistant", "answer 5")]
    # "S\n\nUser: now\n\n" + per run ~12 tokens: a small budget keeps only the newest runs, 1 keeps nothing.
    _, small = api.prompt_stack("t", {"system": "S", "input": "now", "max_tokens": 30})
    kept = [t for r, t in texts(small) if r == "assistant"]
    assert 0 < len(kept) < 5 and kept[-1] == "answer 5"
    _, none = api.prompt_stack("t", {"system": "S", "input": "now", "max_tokens": 1})
    assert texts(none) == [("system", "S"), ("user", "now")]


def test_artifact_system_and_input(api: Api) -> None:
    add_n(api, "t", 1)
    info = {"type": "InfoArtifact", "id": "x", "reference": None, "meta": {}, "name": "x", "value": "be brief"}
    text = {"type": "TextArtifact", "id": "in9", "reference": None, "meta": {"k": 1}, "name": "in9", "value": "hi"}
    status, stack = api.prompt_stack("t", {"system": info, "input": text})
    assert status == 200
    assert texts(stack)[0] == ("system", "be brief")
    assert stack["messages"][-1]["content"][0]["artifact"] == text  # a TextArtifact is kept as it is


BAD_BODIES = [
    ({"last_n": 0}, 422),
    ({"max_tokens": 0}, 422),
    ({"max_tokens": "10"}, 422),
    ({"system": 5}, 422),
    ({"memory_index": -1}, 422),
    ({"memory_index": 3, "system": "s"}, 400),
    ({"input": {"type": "Nope"}}, 400),
    ({"unknown": 1}, 422),
    ([], 422),  # valid JSON that is not the schema's object
]


@pytest.mark.parametrize(("body", "status"), BAD_BODIES)
def test_prompt_stack_bad_input(api: Api, body: Any, status: int) -> None:
    got, out = api.prompt_stack("t", body)
    assert got == status, out
    assert isinstance(out["code"], str)


def test_prompt_stack_bad_input_direct(api: Api) -> None:
    with pytest.raises(InvalidInput):
        api.prompt_stack_fn({"tenant": "tenant-a", "thread_id": "t", "last_n": 0}, None)
    with pytest.raises(InvalidInput):
        api.prompt_stack_fn({"tenant": "tenant-a", "thread_id": "t", "max_tokens": True}, None)


def test_malformed_json_is_400(api: Api) -> None:
    status, out = api.http(
        api.prompt_stack_fn,
        "prompt_stack_http.json",
        "POST",
        "/threads/t/prompt-stack",
        raw_body="{nope",
        thread_id="t",
    )
    assert (status, out["code"]) == (400, "invalid_input")


def test_other_tenant_sees_nothing(api: Api, aws: dict[str, Any]) -> None:
    add_n(api, "t", 3)
    assert api.thread("GET", "t", tenant="tenant-b")[0] == 404
    assert api.thread("GET", "never-created")[0] == 404
    _, stack = api.prompt_stack("t", {"input": "x"}, tenant="tenant-b")
    assert texts(stack) == [("user", "x")]
    assert api.runs("t", tenant="tenant-b")[1] == {"runs": [], "next_cursor": None}
    before = all_items(aws["dynamodb"])
    assert api.thread("DELETE", "t", tenant="tenant-b")[0] == 204
    assert all_items(aws["dynamodb"]) == before


def test_cursor_paging_and_binding(api: Api) -> None:
    add_n(api, "t", 5)
    add_n(api, "u", 5)
    _, page1 = api.runs("t", limit="2", order="desc")
    assert [r["seq"] for r in page1["runs"]] == [5, 4]
    _, page2 = api.runs("t", limit="2", order="desc", cursor=page1["next_cursor"])
    assert [r["seq"] for r in page2["runs"]] == [3, 2]
    for thread, tenant, order in (("u", "tenant-a", "desc"), ("t", "tenant-b", "desc"), ("t", "tenant-a", "asc")):
        status, out = api.runs(thread, tenant=tenant, limit="2", order=order, cursor=page1["next_cursor"])
        assert (status, out["code"]) == (400, "invalid_input")
    assert api.runs("t", cursor="garbage!")[0] == 400  # fits the schema, breaks a rule: invalid_input
    for query in ({"limit": "0"}, {"limit": "x"}, {"order": "sideways"}, {"limit": "1000"}):
        assert api.runs("t", **query)[:1] == (422,), query  # does not fit the declared query: schema_invalid


def test_configure_validation(api: Api) -> None:
    for body in ({"memory_type": "vector"}, {"offset": 0}, {"max_runs": 0}, {"max_runs": "3"}, {"extra": 1}):
        status, out = api.thread("PUT", "t", body)
        assert status == 422, (body, out)
    assert api.thread("PUT", "t", {"memory_type": None})[0] == 400
    status, view = api.thread("PUT", "t", {"max_runs": 3, "retention_days": 7})
    assert status == 200 and view["max_runs"] == 3 and view["retention_days"] == 7
    status, view = api.thread("PUT", "t", {"max_runs": None})
    assert view["max_runs"] is None and view["retention_days"] == 7
    with pytest.raises(InvalidInput):
        api.threads({"tenant": "tenant-a", "thread_id": "t", "action": "configure", "offset": -1}, None)
    with pytest.raises(InvalidInput):
        api.threads({"tenant": "tenant-a", "thread_id": "t", "action": "explode"}, None)


def test_max_runs_buffer_keeps_newest_n_and_deletes_the_rest(api: Api, aws: dict[str, Any]) -> None:
    api.thread("PUT", "t", {"max_runs": 3})
    add_n(api, "t", 30)
    _, stack = api.prompt_stack("t", {})
    assert [t for r, t in texts(stack) if r == "user"] == ["question 28", "question 29", "question 30"]
    _, listed = api.runs("t")
    assert [r["seq"] for r in listed["runs"]] == [28, 29, 30]
    _, view = api.thread("GET", "t")
    assert view["visible_runs"] == 3
    assert view["stored_runs"] <= 3 + PRUNE_SLACK + PRUNE_BATCH  # physically pruned, bounded work per add
    items = all_items(aws["dynamodb"])
    runs = [i for i in items if i["sk"]["S"].startswith("RUN#")]
    ids = [i for i in items if i["sk"]["S"].startswith("RUNID#")]
    assert len(runs) == len(ids) == view["stored_runs"]
    assert min(int(i["seq"]["N"]) for i in runs) > 1


def test_retention_hides_expired_runs(api: Api) -> None:
    api.thread("PUT", "t", {"retention_days": 1})
    add_n(api, "t", 2)
    service = default_service()
    service.clock = lambda: time.time() + 2 * 86_400
    _, stack = api.prompt_stack("t", {"input": "x"})
    assert texts(stack) == [("user", "x")]
    assert api.runs("t")[1]["runs"] == []
    service.clock = time.time
    assert len(api.runs("t")[1]["runs"]) == 2


def test_delete_thread_leaves_nothing(api: Api, aws: dict[str, Any]) -> None:
    api.thread("PUT", "t", {"memory_type": "summary", "max_runs": 5})
    add_n(api, "t", 3)
    api.post_run("t", text_run("big", "q", "x" * 500_000))
    add_n(api, "keep", 1)
    add_n(api, "t", 1, tenant="tenant-b")
    assert len(all_objects(aws["s3"])) == 1
    status, body = api.thread("DELETE", "t")
    assert (status, body) == (204, None)
    assert all_objects(aws["s3"]) == []
    remaining = {i["pk"]["S"] for i in all_items(aws["dynamodb"])}
    assert remaining == {"T#tenant-a#TH#keep", "T#tenant-b#TH#t"}
    assert api.thread("GET", "t")[0] == 404
    assert api.thread("DELETE", "t")[0] == 204  # idempotent
