"""Framework session items on a thread (docs/adr/0033): `/threads/{thread_id}/items` through the threads handler.

The claims: items come back in order, newest `limit` with reads bounded by `limit`; a pop is atomic (concurrent pops
never return the same item, over HTTP to the local substrate where each request is atomic as in DynamoDB); a
thread's kind is fixed at creation (409 `thread_kind_mismatch`, nothing written); tenants are isolated; a retried
append converges; big items go to S3 as big runs do and leave with a pop or a clear.
"""

from __future__ import annotations

import json
import threading
from typing import Any
from urllib.parse import quote

import pytest
from conversation_api import Api, all_items, all_objects, text_run


def _add(api: Api, thread: str, items: list[Any], *, tenant: str = "tenant-a", request_id: str | None = None) -> Any:
    body: dict[str, Any] = {"items": items}
    if request_id is not None:
        body["request_id"] = request_id
    path = f"/threads/{quote(thread, safe='')}/items"
    return api.http(api.threads, "thread_items_add_http.json", "POST", path, body=body, tenant=tenant, thread_id=thread)


def _get(api: Api, thread: str, *, tenant: str = "tenant-a", **query: str) -> Any:
    path = f"/threads/{quote(thread, safe='')}/items"
    return api.http(
        api.threads, "thread_items_get_http.json", "GET", path, query=query, tenant=tenant, thread_id=thread
    )


def _pop(api: Api, thread: str, *, tenant: str = "tenant-a") -> Any:
    path = f"/threads/{quote(thread, safe='')}/items/pop"
    return api.http(api.threads, "thread_items_pop_http.json", "POST", path, tenant=tenant, thread_id=thread)


def _msg(i: int, text: str = "") -> dict[str, Any]:
    return {"role": "user" if i % 2 == 0 else "assistant", "content": text or f"message {i}"}


def _entries(ddb: Any) -> list[dict[str, Any]]:
    return [i for i in all_items(ddb) if i["sk"]["S"].startswith(("RUN#", "RUNID#"))]


def test_items_come_back_in_order_newest_limit_and_paged(api: Api) -> None:
    status, body = _add(api, "s", [_msg(i) for i in range(5)])
    assert status == 201 and body["seqs"] == [1, 2, 3, 4, 5] and body["replayed"] == 0
    assert _add(api, "s", [_msg(5), _msg(6)])[1]["seqs"] == [6, 7]
    _, page = _get(api, "s", limit="3")
    assert page["items"] == [_msg(4), _msg(5), _msg(6)] and page["seqs"] == [5, 6, 7]
    _, older = _get(api, "s", limit="3", before=str(page["next_before"]))
    assert older["items"] == [_msg(1), _msg(2), _msg(3)]
    _, oldest = _get(api, "s", limit="3", before=str(older["next_before"]))
    assert oldest["items"] == [_msg(0)] and oldest["next_before"] is None
    _, everything = _get(api, "s", limit="100")
    assert everything["items"] == [_msg(i) for i in range(7)] and everything["next_before"] is None


def test_get_reads_are_bounded_by_limit_not_the_session_size(
    aws_over_http: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from offprompt.adapters.dynamodb_runs import DynamoDbRunStore
    from offprompt.composition.conversation import default_service
    from offprompt.services.conversation.items import append_items
    from offprompt.services.conversation.requests import ItemsIn

    api = Api()  # on the substrate: in-process moto deep-copies the table for each transaction (ADR 0061)

    for start in range(0, 320, 32):  # seeded through the use case: no request's time budget
        append_items(default_service(), "tenant-a", "big", ItemsIn(items=[_msg(i) for i in range(start, start + 32)]))
    assert _add(api, "small", [_msg(i) for i in range(20)])[0] == 201

    calls: list[tuple[str, int]] = []
    original = DynamoDbRunStore._call

    def counting(self: Any, operation: str, **params: Any) -> Any:
        out = original(self, operation, **params)
        calls.append((operation, len(out.get("Items", [])) if operation == "query" else 1))
        return out

    monkeypatch.setattr(DynamoDbRunStore, "_call", counting)
    _, big = _get(api, "big", limit="20")
    big_calls, calls[:] = list(calls), []
    _, small = _get(api, "small", limit="20")
    assert big["items"] == [_msg(i) for i in range(300, 320)] and small["items"] == [_msg(i) for i in range(20)]
    assert big_calls == calls == [("get_item", 1), ("query", 20)]


def test_concurrent_pops_never_return_the_same_item(aws_over_http: dict[str, Any]) -> None:
    api = Api()
    n = 12
    assert _add(api, "race", [_msg(i) for i in range(8)])[0] == 201
    results: list[Any] = [None] * n
    barrier = threading.Barrier(n)

    def worker(i: int) -> None:
        barrier.wait()
        results[i] = _pop(api, "race")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(status == 200 for status, _ in results), results
    popped = [body["item"] for _, body in results if body["item"] is not None]
    assert sorted(popped, key=lambda m: m["content"]) == [_msg(i) for i in range(8)]  # each exactly once
    assert [body["item"] for _, body in results].count(None) == n - 8
    assert _get(api, "race")[1]["items"] == []
    left = _entries(aws_over_http["dynamodb"])  # no item; each popped item's id stays taken (a retry replays)
    assert len(left) == 8 and all(i["sk"]["S"].startswith("RUNID#") and i["popped"]["BOOL"] for i in left)
    _, thread = api.thread("GET", "race")
    assert thread["stored_runs"] == 0 and thread["kind"] == "items"


def test_pop_returns_the_newest_then_the_next(api: Api) -> None:
    _add(api, "p", [_msg(0), _msg(1), _msg(2)])
    assert _pop(api, "p")[1] == {"item": _msg(2), "seq": 3}
    assert _pop(api, "p")[1]["item"] == _msg(1)
    assert _get(api, "p")[1]["items"] == [_msg(0)]
    assert _pop(api, "never-made")[1] == {"item": None, "seq": None}


def test_a_thread_kind_is_fixed_and_a_wrong_kind_request_is_a_409_that_writes_nothing(
    api: Api, aws: dict[str, Any]
) -> None:
    assert api.post_run("runs-thread", text_run("r1", "q", "a"))[0] == 201
    _add(api, "items-thread", [_msg(0)])
    before = all_items(aws["dynamodb"])
    refused = [
        _add(api, "runs-thread", [_msg(0)]),
        _get(api, "runs-thread"),
        _pop(api, "runs-thread"),
        api.post_run("items-thread", text_run("r2", "q", "a")),
        api.prompt_stack("items-thread", {"input": "hi"}),
        api.runs("items-thread"),
    ]
    for status, body in refused:
        assert status == 409 and body["code"] == "thread_kind_mismatch", body
    assert refused[0][1]["details"]["kind"] == "runs" and refused[3][1]["details"]["kind"] == "items"
    assert all_items(aws["dynamodb"]) == before  # not even a seq was taken
    # A thread made by PUT (configured, never written) takes the kind of its first entry; a cleared thread anew.
    assert api.thread("PUT", "configured", {"retention_days": 3})[0] == 200
    assert _add(api, "configured", [_msg(0)])[0] == 201
    assert api.post_run("configured", text_run("r3", "q", "a"))[0] == 409
    assert api.thread("DELETE", "items-thread")[0] == 204
    assert api.post_run("items-thread", text_run("r4", "q", "a"))[0] == 201


def test_a_foreign_tenant_sees_and_pops_nothing(api: Api) -> None:
    _add(api, "mine", [_msg(0), _msg(1)], tenant="tenant-a")
    assert _get(api, "mine", tenant="tenant-b")[1]["items"] == []
    assert _pop(api, "mine", tenant="tenant-b")[1]["item"] is None
    assert _add(api, "mine", [_msg(9)], tenant="tenant-b")[0] == 201  # its own thread of the same id
    assert _get(api, "mine", tenant="tenant-a")[1]["items"] == [_msg(0), _msg(1)]
    assert _get(api, "mine", tenant="tenant-b")[1]["items"] == [_msg(9)]


def test_refused_requests_write_nothing(api: Api, aws: dict[str, Any]) -> None:
    _add(api, "s", [_msg(0)])
    before = all_items(aws["dynamodb"])
    for body in ({"items": []}, {"items": ["not an object"]}, {"items": [_msg(1)], "extra": 1}, {}):
        path = "/threads/s/items"
        status, answer = api.http(api.threads, "thread_items_add_http.json", "POST", path, body=body, thread_id="s")
        assert status == 422, answer
    assert _add(api, "s", [_msg(1)] * 33)[0] == 422  # more than one transaction holds
    assert all_items(aws["dynamodb"]) == before


def test_a_retried_append_converges(api: Api, aws: dict[str, Any]) -> None:
    first = _add(api, "r", [_msg(0), _msg(1)], request_id="req-1")
    again = _add(api, "r", [_msg(0), _msg(1)], request_id="req-1")
    assert first[0] == again[0] == 201
    assert again[1] == {"seqs": first[1]["seqs"], "replayed": 2}
    assert _get(api, "r")[1]["items"] == [_msg(0), _msg(1)]
    assert len(_entries(aws["dynamodb"])) == 4  # two items, two ids
    other = _add(api, "r", [_msg(7), _msg(8)], request_id="req-1")
    assert other[0] == 409 and other[1]["code"] == "conflict"
    assert _get(api, "r")[1]["items"] == [_msg(0), _msg(1)]


def test_a_replay_after_a_pop_answers_the_first_seqs_and_never_brings_the_item_back(api: Api) -> None:
    """Issue 30 item 7: the popped item's id stays taken, so a retry of its append (same `request_id`) converges to
    the first answer instead of storing the item again at a new seq; over HTTP and invoked directly alike."""
    first = _add(api, "rp", [_msg(0), _msg(1)], request_id="req-p")
    assert first == (201, {"seqs": [1, 2], "replayed": 0})
    assert _pop(api, "rp")[1] == {"item": _msg(1), "seq": 2}
    again = _add(api, "rp", [_msg(0), _msg(1)], request_id="req-p")
    assert again == (201, {"seqs": [1, 2], "replayed": 2})
    assert _get(api, "rp")[1]["items"] == [_msg(0)]
    assert _pop(api, "rp")[1] == {"item": _msg(0), "seq": 1}
    assert _add(api, "rp", [_msg(0), _msg(1)], request_id="req-p")[1] == {"seqs": [1, 2], "replayed": 2}
    assert _get(api, "rp")[1]["items"] == []
    changed = _add(api, "rp", [_msg(5)], request_id="req-p")  # other content under a popped id: still a conflict
    assert (changed[0], changed[1]["code"]) == (409, "conflict")
    stored = _add(api, "rp", [_msg(2)], request_id="req-q")[1]  # a new request still stores (after burned seqs)
    assert stored["replayed"] == 0 and stored["seqs"][0] > 2 and _get(api, "rp")[1]["items"] == [_msg(2)]

    def direct(action: str, **fields: Any) -> Any:
        return api.threads({"tenant": "tenant-a", "thread_id": "rd", "action": action, **fields}, None)

    assert direct("add_items", items=[_msg(0)], request_id="req-d") == {"seqs": [1], "replayed": 0}
    assert direct("pop_item")["seq"] == 1
    assert direct("add_items", items=[_msg(0)], request_id="req-d") == {"seqs": [1], "replayed": 1}
    assert direct("get_items")["items"] == []


def test_a_retry_of_a_partly_committed_long_append_stores_the_rest_in_order(api: Api) -> None:
    """An append whose inline bodies pass a transaction's size commits batch by batch: a retry replays the
    committed batch and stores the rest, in order."""
    from offprompt.services.conversation import items

    many = [{"role": "user", "content": f"{i}" + "x" * 200_000} for i in range(20)]  # 4 MB inline: two batches
    first = len(items._batches([(str(i), json.dumps(m), "") for i, m in enumerate(many)])[0])
    assert 0 < first < 20
    assert _add(api, "long", many[:first], request_id="req-long")[0] == 201  # as if the second batch had failed
    status, body = _add(api, "long", many, request_id="req-long")
    assert status == 201 and body["replayed"] == first and body["seqs"][:first] == list(range(1, first + 1))
    assert len(body["seqs"]) == 20 and body["seqs"] == sorted(set(body["seqs"]))  # the rest after, in order
    assert _get(api, "long", limit="100")[1]["items"] == many


def test_big_items_go_to_s3_and_leave_with_a_pop_and_a_clear(api: Api, aws: dict[str, Any]) -> None:
    big = {"role": "user", "content": "x" * 400_000}
    _add(api, "b", [_msg(0), big, big | {"content": "y" * 400_000}])
    assert len(all_objects(aws["s3"])) == 2
    assert _get(api, "b")[1]["items"] == [_msg(0), big, big | {"content": "y" * 400_000}]
    assert _pop(api, "b")[1]["item"]["content"][0] == "y"
    assert len(all_objects(aws["s3"])) == 1
    assert api.thread("DELETE", "b")[0] == 204
    assert all_objects(aws["s3"]) == [] and _get(api, "b")[1]["items"] == []


def test_items_are_what_the_layout_knows_and_keep_the_threads_retention(api: Api, aws: dict[str, Any]) -> None:
    """Export and erase enumerate a tenant by the layout: an items thread's entries are its thread and run kinds
    (the S3 bodies under the thread's objects prefix), and a thread's `retention_days` makes them expire."""
    from offprompt.adapters import layout

    assert api.thread("PUT", "kept", {"retention_days": 2})[0] == 200
    _add(api, "kept", [_msg(0), {"role": "user", "content": "z" * 400_000}])
    table = all_items(aws["dynamodb"])
    kinds = sorted(found[1].name for i in table if (found := layout.classify(i, "tenant-a")) is not None)
    assert kinds == ["run", "run", "run_id", "run_id", "thread"] and len(table) == 5
    assert all(k.startswith(layout.thread_objects_prefix("tenant-a", "kept")) for k in all_objects(aws["s3"]))
    runs = [i for i in table if i["sk"]["S"].startswith("RUN#")]
    assert all("expires_at" in i for i in runs)
    thread = next(i for i in table if i["sk"]["S"] == "#THREAD")
    assert thread["kind"]["S"] == "items"


def test_a_retried_append_of_a_big_item_keeps_its_body(api: Api, aws: dict[str, Any]) -> None:
    """The retry's upload has the first one's key (id, bytes, generation): the replay must not drop it."""
    big = {"role": "user", "content": "x" * 400_000}
    for _ in range(2):
        assert _add(api, "rb", [_msg(0), big], request_id="same")[0] == 201
    assert _add(api, "rb", [big], request_id="one")[0] == 201
    assert _add(api, "rb", [big], request_id="one")[1]["replayed"] == 1
    assert _get(api, "rb")[1]["items"] == [_msg(0), big, big]
    assert len(all_objects(aws["s3"])) == 2


def test_the_cloud_threads_api_refuses_an_items_thread(api: Api) -> None:
    """A thread made by POST /api/threads (no entry yet) can become an items thread; its Griptape Cloud message
    views then answer the kind's 409, never a 500 from decoding items as runs."""
    from cloud_threads import handler as cloud_threads

    status, made = api.http(
        cloud_threads.lambda_handler, "cloud_threads_create_http.json", "POST", "/api/threads", body={"name": "n"}
    )
    assert status == 201, made
    thread = made["thread_id"]
    assert _add(api, thread, [_msg(0)])[0] == 201
    path = f"/api/threads/{thread}/messages"
    status, body = api.http(
        cloud_threads.lambda_handler, "cloud_threads_messages_http.json", "GET", path, thread_id=thread
    )
    assert status == 409 and body["code"] == "thread_kind_mismatch", body


@pytest.mark.parametrize(
    "settings", [{"max_runs": 2}, {"memory_type": "summary"}, {"memory_type": "summary", "offset": 1}, {"offset": 3}]
)
def test_a_setting_an_items_thread_does_not_do_is_refused_before_or_after_its_first_append(
    api: Api, aws: dict[str, Any], settings: dict[str, Any]
) -> None:
    """Issue 33, friction 8: max_runs and summary memory (offset) were accepted on an items thread (200) and did
    nothing. Now a 409 naming the setting, nothing changed: set on an items thread, or set first and then an
    append of items (the thread was configured for runs)."""
    _add(api, "it", [_msg(0)])
    before = all_items(aws["dynamodb"])
    status, body = api.thread("PUT", "it", settings)
    assert status == 409 and body["code"] == "setting_not_for_items", body
    assert sorted(settings) == body["details"]["settings"]
    assert all_items(aws["dynamodb"]) == before
    assert api.thread("PUT", "it", {"retention_days": 3, "memory_type": "buffer"})[0] == 200  # what items do
    assert api.thread("PUT", "configured", settings)[0] == 200
    status, body = _add(api, "configured", [_msg(0)])
    assert status == 409 and body["code"] == "thread_kind_mismatch", body
    assert api.summarizer({"tenant": "tenant-a", "thread_id": "it"}, None)["status"] == "not_summary_memory"


def test_a_token_budgeted_read_keeps_the_newest_that_fit_and_never_an_orphan_tool_result(api: Api) -> None:
    call = {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": "{}"}
    output = {"type": "function_call_output", "call_id": "c1", "output": "forty-two " * 30}
    answer = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "It is 42."}]}
    _add(api, "budget", [_msg(0, "word " * 200), call, output, answer])
    _, everything = _get(api, "budget", limit="10")
    assert everything["tokens"] > 200
    _, page = _get(api, "budget", max_tokens=str(everything["tokens"] - 150))  # the long first message cannot fit
    assert page["items"] == [call, output, answer] and page["next_before"] is None
    _, tight = _get(api, "budget", max_tokens=str(page["tokens"] - 5))  # the call cannot fit: neither may its output
    assert tight["items"] == [answer], tight
    assert _get(api, "budget", max_tokens="1")[1]["items"] == []


def test_a_page_stops_before_lambdas_response_limit_and_next_before_continues(api: Api) -> None:
    big = [{"role": "user", "content": f"{i}" + "x" * 340_000} for i in range(20)]  # 6.8 MB in all, inline each
    for k in range(0, 20, 5):
        assert _add(api, "wide", big[k : k + 5])[0] == 201
    _, newest = _get(api, "wide", limit="20")
    assert 0 < len(newest["items"]) < 20 and newest["items"] == big[-len(newest["items"]) :]
    _, older = _get(api, "wide", limit=str(20 - len(newest["items"])), before=str(newest["next_before"]))
    assert older["items"] + newest["items"] == big and older["next_before"] is None
