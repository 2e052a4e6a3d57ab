"""A checkpoint tuple always fits an answer (issue 30 item 3, ADR 0042): a put or pending writes that would take a
tuple (its checkpoint's blob and its current pending writes' blobs) past MAX_CHECKPOINT_TUPLE_BYTES are refused with
413 `checkpoint_too_large` and the limit, the same over HTTP and direct invocation, and nothing is stored. What is
accepted is readable: the serialized tuple at the limit fits Lambda's answer."""

from __future__ import annotations

import json
from typing import Any

import pytest
from checkpoints_support import blob, table_items
from test_checkpoints_api import Api, put_body

from offprompt.limits import MAX_CHECKPOINT_TUPLE_BYTES
from offprompt.services.checkpoints.context import Checkpoints

MiB = 1024 * 1024
#: Lambda's synchronous answer limit, "6 MB", read the strict way (10^6): the whole Lambda answer must fit it.
LAMBDA_ANSWER_BYTES = 6_000_000
CID = "1ef-1"
P = {"thread_id": "g", "checkpoint_id": CID}


@pytest.fixture
def api(ck: Checkpoints, monkeypatch: pytest.MonkeyPatch) -> Api:
    from checkpoints import handler

    monkeypatch.setattr(handler, "checkpoints", lambda: ck)
    return Api()


def writes(size: int, idx: int = 0, task: str = "t") -> dict[str, Any]:
    return {"task_id": task, "writes": [{"idx": idx, "channel": "c", "value": blob(b"w" * size)}]}


def put_http(api: Api, size: int) -> tuple[int, Any]:
    return api.http("PUT", T + "/checkpoints/{checkpoint_id}", P, body=put_body(b"c" * size))


def writes_http(api: Api, body: dict[str, Any]) -> tuple[int, Any]:
    return api.http("PUT", T + "/checkpoints/{checkpoint_id}/writes", P, body=body)


T = "/checkpoint-threads/{thread_id}"


def get_http(api: Api) -> tuple[int, Any]:
    return api.http("GET", T + "/checkpoint", {"thread_id": "g"})


def test_a_write_that_would_make_the_tuple_unreadable_is_refused(api: Api, aws: dict[str, Any]) -> None:
    assert put_http(api, 4 * MiB)[0] == 200
    before = table_items(aws["dynamodb"])
    status, error = writes_http(api, writes(MiB))  # was 200, then every read of the thread 502
    assert (status, error["code"]) == (413, "checkpoint_too_large"), error
    assert str(MAX_CHECKPOINT_TUPLE_BYTES) in error["message"]
    assert api.direct_error(action="put_checkpoint_writes", **P, **writes(MiB)) == "checkpoint_too_large"
    assert table_items(aws["dynamodb"]) == before  # nothing stored
    status, got = get_http(api)
    assert status == 200 and got["pending_writes"] == []


def test_a_checkpoint_that_would_not_fit_beside_its_writes_is_refused(api: Api, aws: dict[str, Any]) -> None:
    """Writes may arrive before their checkpoint (LangGraph saves it in the background)."""
    for task in ("a", "b", "c"):
        assert writes_http(api, writes(MiB, task=task))[0] == 200
    status, error = put_http(api, 2 * MiB)
    assert (status, error["code"]) == (413, "checkpoint_too_large"), error
    assert api.direct_error(action="put_checkpoint", **P, **put_body(b"c" * 2 * MiB)) == "checkpoint_too_large"
    assert put_http(api, MiB - 100)[0] == 200
    assert get_http(api)[0] == 200


def test_a_replacing_special_write_counts_once(api: Api) -> None:
    assert put_http(api, 3 * MiB)[0] == 200
    assert writes_http(api, writes(MiB - 10, idx=-1))[0] == 200
    assert writes_http(api, writes(MiB - 10, idx=-1))[0] == 200  # replaces: the tuple does not grow
    assert writes_http(api, writes(10, idx=0))[0] == 200
    assert writes_http(api, writes(1, idx=1))[0] == 413


def test_a_tuple_at_the_limit_fits_the_answer(api: Api) -> None:
    metadata = {"m": "x" * (64 * 1024 - 16)}  # metadata at its own limit too
    body = {**put_body(b"c" * (MAX_CHECKPOINT_TUPLE_BYTES - MiB)), "metadata": metadata}
    assert api.http("PUT", T + "/checkpoints/{checkpoint_id}", P, body=body)[0] == 200
    assert writes_http(api, writes(MiB, idx=-1))[0] == 200
    out = api.handler.lambda_handler(api_event(api), None)
    assert out["statusCode"] == 200
    assert len(json.dumps(out).encode()) <= LAMBDA_ANSWER_BYTES
    status, listed = api.http("POST", T + "/checkpoints/list", {"thread_id": "g"}, body={})
    assert status == 200 and len(listed["checkpoints"]) == 1


def api_event(api: Api) -> dict[str, Any]:
    """The GET event as API Gateway sends it (the whole Lambda answer is what must fit)."""
    captured: dict[str, Any] = {}
    original = api.handler.lambda_handler

    def capture(event: dict[str, Any], context: Any) -> Any:
        captured.update(event)
        return original(event, context)

    api.handler.lambda_handler = capture
    try:
        get_http(api)
    finally:
        api.handler.lambda_handler = original
    return captured
