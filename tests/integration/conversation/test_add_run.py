"""add-run through the handler: HTTP and direct events, idempotency, concurrency, S3 offload, bad input."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from conversation_api import Api, all_items, all_objects, load_event, text_run
from griptape.memory.structure import Run as GriptapeRun

from offprompt.errors import Conflict, InvalidInput


def test_http_sample_event_adds_a_run(api: Api) -> None:
    out = api.add_run(load_event("add_run_http.json"), None)
    assert out["statusCode"] == 201
    body = json.loads(out["body"])
    assert body["seq"] == 1
    sent = json.loads(load_event("add_run_http.json")["body"])
    assert body["run"] == sent
    loaded = GriptapeRun.from_dict(body["run"])  # Griptape parses what we return
    assert loaded.id == "run-1" and loaded.output.value == "Paris."


def test_direct_sample_event_adds_a_run(api: Api) -> None:
    out = api.add_run(load_event("add_run_direct.json"), None)
    assert out["seq"] == 1 and out["run"]["id"] == "run-1"


def test_run_without_id_gets_one_and_seqs_are_ordered(api: Api) -> None:
    seqs = []
    for i in range(3):
        status, body = api.post_run("t", text_run(None, f"q{i}", f"a{i}"))
        assert status == 201
        assert len(body["run"]["id"]) == 32
        seqs.append(body["seq"])
    assert seqs == [1, 2, 3]


def test_retry_same_id_same_content_is_idempotent(api: Api, aws: dict[str, Any]) -> None:
    run = text_run("r1", "q", "a")
    first = api.post_run("t", run)
    items_before = all_items(aws["dynamodb"])
    second = api.post_run("t", run)
    assert first == second
    runs_after = [i for i in all_items(aws["dynamodb"]) if i["sk"]["S"].startswith("RUN#")]
    assert len(runs_after) == 1
    assert len(all_items(aws["dynamodb"])) == len(items_before)
    _status, listed = api.runs("t")
    assert [r["run"]["id"] for r in listed["runs"]] == ["r1"]


def test_retry_same_id_different_content_is_409(api: Api) -> None:
    api.post_run("t", text_run("r1", "q", "a"))
    status, body = api.post_run("t", text_run("r1", "q", "DIFFERENT"))
    assert status == 409 and body["code"] == "conflict"
    with pytest.raises(Conflict):
        api.add_run({"tenant": "tenant-a", "thread_id": "t", "run": text_run("r1", "x", "y")}, None)
    _, listed = api.runs("t")
    assert [r["run"]["output"]["value"] for r in listed["runs"]] == ["a"]


def test_same_run_id_in_two_threads_is_independent(api: Api) -> None:
    assert api.post_run("t1", text_run("r1", "q", "a"))[0] == 201
    assert api.post_run("t2", text_run("r1", "q", "b"))[0] == 201


def test_concurrent_appends_are_all_stored_once_in_a_total_order(aws_over_http: dict[str, Any]) -> None:
    """Over HTTP to the local substrate, where each DynamoDB request is atomic as in DynamoDB; the steps of one
    add (allocate seq, transaction, lookups) interleave freely across threads."""
    api = Api()
    n = 24
    results: list[Any] = [None] * n
    errors: list[BaseException] = []
    barrier = threading.Barrier(n)

    def worker(i: int) -> None:
        try:
            barrier.wait()
            results[i] = api.post_run("busy", text_run(f"run-{i}", f"q{i}", f"a{i}"))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(status == 201 for status, _ in results)
    seqs = sorted(body["seq"] for _, body in results)
    assert len(set(seqs)) == n
    listed: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = {"limit": "7"} | ({"cursor": cursor} if cursor else {})
        _, page = api.runs("busy", **query)
        listed.extend(page["runs"])
        cursor = page["next_cursor"]
        if not cursor:
            break
    ids = [r["run"]["id"] for r in listed]
    assert sorted(ids) == sorted(f"run-{i}" for i in range(n))
    assert [r["seq"] for r in listed] == sorted(r["seq"] for r in listed)
    by_id = {body["run"]["id"]: body["seq"] for _, body in results}
    assert all(by_id[r["run"]["id"]] == r["seq"] for r in listed)


def test_big_run_goes_to_s3_and_round_trips_byte_exact(api: Api, aws: dict[str, Any]) -> None:
    big = "é€ lorem ipsum 😀 " * 150_000  # ~3 MB of JSON with escapes
    run = text_run("big", "summarize this", big)
    status, body = api.post_run("t", run)
    assert status == 201
    sent = json.dumps(run)
    assert len(sent) > 2_000_000
    run_items = [i for i in all_items(aws["dynamodb"]) if i["sk"]["S"].startswith("RUN#")]
    assert "blob_key" in run_items[0] and "run" not in run_items[0]
    assert len(all_objects(aws["s3"])) == 1
    _, listed = api.runs("t")
    assert json.dumps(listed["runs"][0]["run"]) == sent
    # Retrying the big run is idempotent and leaves one object.
    assert api.post_run("t", run) == (status, body)
    assert len(all_objects(aws["s3"])) == 1
    # A conflicting big run leaves no orphaned object behind.
    assert api.post_run("t", text_run("big", "other", big))[0] == 409
    assert len(all_objects(aws["s3"])) == 1


BAD_RUNS = [
    ("not json {", 400, "invalid_input"),
    ("[]", 422, "schema_invalid"),
    ('"a string"', 422, "schema_invalid"),
    ("{}", 422, "schema_invalid"),
    (json.dumps({"input": {"type": "TextArtifact", "value": "x"}}), 422, "schema_invalid"),
    (
        json.dumps({"input": {"type": "Nope", "value": 1}, "output": {"type": "TextArtifact", "value": "x"}}),
        400,
        "invalid_artifact",
    ),
    (
        json.dumps(
            {"id": 5, "input": {"type": "TextArtifact", "value": "x"}, "output": {"type": "TextArtifact", "value": "y"}}
        ),
        422,
        "schema_invalid",
    ),
    (
        json.dumps(
            {
                "id": "x" * 10_000,
                "input": {"type": "TextArtifact", "value": "x"},
                "output": {"type": "TextArtifact", "value": "y"},
            }
        ),
        400,
        "invalid_input",
    ),
    (
        json.dumps(
            {
                "type": "Run",
                "input": {"type": "TextArtifact", "value": "x"},
                "output": {"type": "TextArtifact", "value": "y"},
                "extra": 1,
            }
        ),
        422,
        "schema_invalid",
    ),
    ("", 400, "invalid_input"),
]


@pytest.mark.parametrize(("raw", "status", "code"), BAD_RUNS)
def test_bad_runs_are_rejected_and_nothing_is_written(
    api: Api, aws: dict[str, Any], raw: str, status: int, code: str
) -> None:
    got, body = api.post_run("t", None, raw=raw)
    assert (got, body["code"]) == (status, code)
    assert all_items(aws["dynamodb"]) == []


@pytest.mark.parametrize("thread_id", ["x" * 10_000, "a\x00b", "bad\ud800"])
def test_hostile_thread_ids_are_rejected(api: Api, aws: dict[str, Any], thread_id: str) -> None:
    event = {"tenant": "tenant-a", "thread_id": thread_id, "run": text_run("r", "q", "a")}
    with pytest.raises(InvalidInput):
        api.add_run(event, None)
    assert all_items(aws["dynamodb"]) == []


@pytest.mark.parametrize("thread_id", ["..\\..\\etc", "ünïcødé 😀", "a#b%23c", "RUN#000000000001"])
def test_odd_but_valid_thread_ids_are_isolated(api: Api, thread_id: str) -> None:
    assert api.post_run(thread_id, text_run("r", "q", thread_id))[0] == 201
    _, listed = api.runs(thread_id)
    assert [r["run"]["output"]["value"] for r in listed["runs"]] == [thread_id]
    _, other = api.runs("a")
    assert other["runs"] == []


def test_direct_event_errors(api: Api) -> None:
    with pytest.raises(InvalidInput):
        api.add_run({"thread_id": "t", "run": text_run("r", "q", "a")}, None)  # no tenant
    with pytest.raises(InvalidInput):
        api.add_run({"tenant": "tenant-a", "run": text_run("r", "q", "a")}, None)  # no thread
    with pytest.raises(InvalidInput):
        api.add_run({"tenant": "tenant-a", "thread_id": "t", "run": "nope"}, None)


def test_http_without_identity_is_401(api: Api) -> None:
    event = load_event("add_run_http.json")
    event["requestContext"].pop("authorizer")
    assert api.add_run(event, None)["statusCode"] == 401


def test_retry_of_a_run_whose_artifacts_have_no_ids_is_idempotent(api: Api, aws: dict[str, Any]) -> None:
    # The README's own example: an id on the run, none on its artifacts (the server generates them).
    raw = json.dumps(
        {
            "id": "readme-1",
            "input": {"type": "TextArtifact", "value": "What is the capital of France?"},
            "output": {"type": "TextArtifact", "value": "Paris."},
        }
    )
    first = api.post_run("t", None, raw=raw)
    second = api.post_run("t", None, raw=raw)
    assert first[0] == 201 and second[0] in (200, 201), second
    assert second[1] == first[1]  # the first result, with the ids generated the first time
    assert len([i for i in all_items(aws["dynamodb"]) if i["sk"]["S"].startswith("RUN#")]) == 1
    other = api.post_run("t", None, raw=raw.replace("Paris.", "Rome."))
    assert other[0] == 409


def test_parallel_copies_of_one_retry_all_get_the_first_result(aws_over_http: dict[str, Any]) -> None:
    api = Api()
    raw = json.dumps(
        {"id": "dup", "input": {"type": "TextArtifact", "value": "q"}, "output": {"type": "TextArtifact", "value": "a"}}
    )
    n = 20
    results: list[Any] = [None] * n
    barrier = threading.Barrier(n)

    def worker(i: int) -> None:
        barrier.wait()
        results[i] = api.post_run("para", None, raw=raw)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {status for status, _ in results} <= {200, 201}, results
    assert len({json.dumps(body, sort_keys=True) for _, body in results}) == 1
    assert len([i for i in all_items(aws_over_http["dynamodb"]) if i["sk"]["S"].startswith("RUN#")]) == 1


def test_reposting_the_run_the_server_returned_is_a_retry(api: Api, aws: dict[str, Any]) -> None:
    raw = json.dumps(
        {
            "id": "echo",
            "input": {"type": "TextArtifact", "value": "q"},
            "output": {"type": "TextArtifact", "value": "a" * 400_000},
        }
    )
    status, first = api.post_run("t", None, raw=raw)
    assert status == 201
    assert api.post_run("t", first["run"]) == (status, first)  # what the server stored, posted back
    assert api.post_run("t", None, raw=raw) == (status, first)  # the request as first sent
    assert len(all_objects(aws["s3"])) == 1  # one body: the retries left no orphan and kept the first's
    _, listed = api.runs("t")
    assert [r["run"] for r in listed["runs"]] == [first["run"]]
