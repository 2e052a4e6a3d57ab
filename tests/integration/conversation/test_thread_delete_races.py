"""A thread delete racing an add wins entirely or loses entirely (issue 11, finding 9).

The race is driven deterministically: the delete runs inside the add, after its sequence number was taken
and (for big runs) its S3 body written, before its commit — the window a concurrent delete can hit.
"""

from __future__ import annotations

from typing import Any

import pytest
from conversation_api import Api, all_items, all_objects, text_run

from offprompt.composition.conversation import default_service


class DeleteBeforeCommit:
    """Wraps the service's RunStore: runs `during` once, right before the next put_run."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.during: Any = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def put_run(self, *args: Any, **kwargs: Any) -> Any:
        if self.during is not None:
            during, self.during = self.during, None
            during()
        return self.inner.put_run(*args, **kwargs)


@pytest.fixture
def racing(api: Api) -> DeleteBeforeCommit:
    service = default_service()
    wrapper = DeleteBeforeCommit(service.runs)
    service.runs = wrapper  # type: ignore[assignment]
    return wrapper


@pytest.mark.parametrize("size", ["inline", "s3"])
def test_a_delete_racing_an_add_wins_entirely(
    api: Api, aws: dict[str, Any], racing: DeleteBeforeCommit, size: str
) -> None:
    assert api.post_run("t", text_run("r1", "q1", "a1"))[0] == 201
    racing.during = lambda: default_service().delete_thread("tenant-a", "t")
    answer = "a2" if size == "inline" else "é" * 400_000  # past the inline limit: the body goes to S3 first
    status, body = api.post_run("t", text_run("r2", "q2", answer))
    assert (status, body["code"]) == (409, "thread_deleted"), body
    # Nothing of the thread is left: no dangling run, no orphan body, no 404 naming an internal key.
    assert all_items(aws["dynamodb"]) == [] and all_objects(aws["s3"]) == []
    assert api.thread("GET", "t")[0] == 404
    assert api.runs("t") == (200, {"runs": [], "next_cursor": None})
    status, stack = api.prompt_stack("t", {"input": "hi"})
    assert status == 200 and len(stack["messages"]) == 1
    # The id is free again: a retry starts the thread anew.
    assert api.post_run("t", text_run("r2", "q2", "a2"))[0] == 201
    assert [r["run"]["id"] for r in api.runs("t")[1]["runs"]] == ["r2"]


def test_a_straggling_add_cannot_commit_into_the_next_incarnation(
    api: Api, aws: dict[str, Any], racing: DeleteBeforeCommit
) -> None:
    def delete_then_add_anew() -> None:
        default_service().delete_thread("tenant-a", "t")
        assert api.post_run("t", text_run("new", "q", "new incarnation"))[0] == 201

    api.post_run("t", text_run("old", "q", "old incarnation"))
    racing.during = delete_then_add_anew
    status, body = api.post_run("t", text_run("straggler", "q", "x" * 400_000))
    assert (status, body["code"]) == (409, "thread_deleted"), body
    runs = api.runs("t")[1]["runs"]
    assert [(r["seq"], r["run"]["id"]) for r in runs] == [(1, "new")]
    assert all_objects(aws["s3"]) == []  # the straggler's body is gone, the new thread's inline run intact


def test_an_add_while_a_delete_is_unfinished_is_refused_and_a_retried_delete_finishes(
    api: Api, aws: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    api.post_run("t", text_run("r1", "q", "y" * 400_000))
    service = default_service()

    def broken(*args: Any) -> None:
        from offprompt.errors import DependencyUnavailable

        raise DependencyUnavailable("S3 delete failed: injected")

    with monkeypatch.context() as patch:
        patch.setattr(service.blobs, "delete_prefix", broken)
        assert api.thread("DELETE", "t")[0] == 503
    assert api.thread("GET", "t")[0] == 404  # readers already see no thread
    status, body = api.post_run("t", text_run("r2", "q", "a"))
    assert (status, body["code"]) == (409, "thread_deleted")
    assert api.thread("PUT", "t", {"max_runs": 3})[0] == 409
    assert api.thread("DELETE", "t")[0] == 204  # the retried delete finishes
    assert all_items(aws["dynamodb"]) == [] and all_objects(aws["s3"]) == []
    assert api.post_run("t", text_run("r2", "q", "a"))[0] == 201
