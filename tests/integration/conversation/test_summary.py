"""Summary memory: Bedrock (botocore Stubber) via the inline path and the stream-fed summarizer function."""

from __future__ import annotations

import copy
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from conversation_api import Api, all_items, load_event, text_run

from offprompt.adapters.bedrock import BedrockSummarizer
from offprompt.composition.conversation import default_service
from offprompt.config import get_settings
from offprompt.errors import DependencyUnavailable

MODEL = "amazon.nova-micro-v1:0"


def converse_reply(text: str) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": [{"text": text}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 10, "outputTokens": 2, "totalTokens": 12},
        "metrics": {"latencyMs": 1},
    }


def expect(stub: Stubber, prompt: str, reply: str) -> None:
    stub.add_response(
        "converse",
        converse_reply(reply),
        {
            "modelId": MODEL,
            "messages": [{"role": "user", "content": [{"text": prompt}]}],
            "inferenceConfig": {"maxTokens": 1024, "temperature": 0.0},
        },
    )


@pytest.fixture
def bedrock(api: Api, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("OFFPROMPT_SUMMARIZE_MODE", "inline")
    get_settings.cache_clear()
    default_service.cache_clear()
    client = boto3.client("bedrock-runtime")
    stub = Stubber(client)
    stub.activate()
    default_service().summarizer = BedrockSummarizer(MODEL, client=client)
    yield stub
    stub.deactivate()


def user_texts(stack: dict[str, Any]) -> list[str]:
    return [m["content"][0]["artifact"]["value"] for m in stack["messages"] if m["role"] == "user"]


def test_inline_summary_follows_griptape(api: Api, bedrock: Stubber) -> None:
    api.thread("PUT", "t", {"memory_type": "summary", "offset": 1})
    expect(bedrock, "Summarize the following conversation:\n\nHuman: q1\nAssistant: a1", "S1")
    expect(
        bedrock,
        'Conversation summary:\n"""\nS1\n"""\n\nUpdate the summary with this:\n\nHuman: q2\nAssistant: a2',
        "S2",
    )
    for i in (1, 2, 3):
        assert api.post_run("t", text_run(f"r{i}", f"q{i}", f"a{i}"))[0] == 201
    bedrock.assert_no_pending_responses()
    _, stack = api.prompt_stack("t", {"input": "next"})
    assert user_texts(stack) == ["Summary of the conversation so far: S2", "q3", "next"]
    _, view = api.thread("GET", "t")
    assert view["summary"]["text"] == "S2" and view["summary"]["through_seq"] == 2
    assert view["summary"]["version"] == 2


def test_failing_summarizer_changes_nothing(api: Api, bedrock: Stubber, aws: dict[str, Any]) -> None:
    api.thread("PUT", "t", {"memory_type": "summary", "offset": 1})
    api.post_run("t", text_run("r1", "q1", "a1"))
    bedrock.add_client_error("converse", service_error_code="ThrottlingException", http_status_code=429)
    status, _ = api.post_run("t", text_run("r2", "q2", "a2"))
    assert status == 201  # the add never fails because of the summary
    _, view = api.thread("GET", "t")
    assert view["summary"] is None and view["visible_runs"] == 2
    _, stack = api.prompt_stack("t", {})
    assert user_texts(stack) == ["q1", "q2"]
    # The summarizer function, invoked directly, raises (Step Functions can retry); still nothing changes.
    bedrock.add_client_error("converse", service_error_code="ServiceUnavailableException", http_status_code=503)
    with pytest.raises(DependencyUnavailable):
        api.summarizer(load_event("summarizer_direct.json") | {"thread_id": "t"}, None)
    thread_item = next(i for i in all_items(aws["dynamodb"]) if i["sk"]["S"] == "#THREAD")
    assert "summary" not in thread_item and thread_item["summary_version"]["N"] == "0"


def test_stale_summary_never_overwrites_a_newer_one(api: Api) -> None:
    api.thread("PUT", "t", {"memory_type": "summary", "offset": 1})
    for i in (1, 2, 3):
        api.post_run("t", text_run(f"r{i}", f"q{i}", f"a{i}"))  # async mode: nothing summarized yet
    service = default_service()
    results = []

    class Fresh:
        def summarize(self, prompt: str) -> str:
            return "FRESH"

    class SlowAndStale:
        def summarize(self, prompt: str) -> str:
            # While this (slow) call runs, another summarizer commits a newer summary.
            service.summarizer = Fresh()
            results.append(service.summarize("tenant-a", "t"))
            return "STALE"

    service.summarizer = SlowAndStale()
    outcome = service.summarize("tenant-a", "t")
    assert results[0].status == "committed" and outcome.status == "stale"
    _, view = api.thread("GET", "t")
    assert view["summary"]["text"] == "FRESH" and view["summary"]["version"] == 1
    # A summary that covers no more than the committed one is also refused.
    assert not service.runs.commit_summary(
        "tenant-a", "t", summary="OLD", through_seq=1, expected_version=1, now="2025-01-01T00:00:00Z"
    )
    assert service.summarize("tenant-a", "t").status == "nothing_to_do"


def test_stream_triggered_summarizer(api: Api, bedrock: Stubber) -> None:
    api.thread("PUT", "t", {"memory_type": "summary", "offset": 2})
    default_service().summarize_mode = "async"
    for i in (1, 2, 3):
        api.post_run("t", text_run(f"r{i}", f"q{i}", f"a{i}"))
    event = copy.deepcopy(load_event("summarizer_stream.json"))
    image = event["Records"][0]["dynamodb"]["NewImage"]
    image["thread_id"]["S"] = "t"
    buffer_record = copy.deepcopy(event["Records"][0])
    buffer_record["dynamodb"]["NewImage"]["thread_id"]["S"] = "plain-buffer-thread"
    buffer_record["dynamodb"]["SequenceNumber"] = "222"
    event["Records"].append(buffer_record)
    # A failing Bedrock call reports the thread's records for retry...
    bedrock.add_client_error("converse", service_error_code="ThrottlingException", http_status_code=429)
    assert api.summarizer(event, None) == {"batchItemFailures": [{"itemIdentifier": "111"}]}
    # ...and the retry succeeds.
    expect(bedrock, "Summarize the following conversation:\n\nHuman: q1\nAssistant: a1", "S1")
    assert api.summarizer(event, None) == {"batchItemFailures": []}
    _, stack = api.prompt_stack("t", {})
    assert user_texts(stack) == ["Summary of the conversation so far: S1", "q2", "q3"]
    assert api.summarizer({"tenant": "tenant-a", "thread_id": "t"}, None)["status"] == "nothing_to_do"


def test_summary_max_runs_never_drops_unsummarized_runs(api: Api, bedrock: Stubber, aws: dict[str, Any]) -> None:
    api.thread("PUT", "t", {"memory_type": "summary", "offset": 1, "max_runs": 2})
    default_service().summarize_mode = "async"  # the summarizer is "down": nothing gets summarized
    for i in range(1, 21):
        api.post_run("t", text_run(f"r{i}", f"q{i}", f"a{i}"))
    _, stack = api.prompt_stack("t", {})
    assert user_texts(stack) == [f"q{i}" for i in range(1, 21)]  # Griptape's drift bug would hide them
    assert len([i for i in all_items(aws["dynamodb"]) if i["sk"]["S"].startswith("RUN#")]) == 20
    # Once summarized, the covered runs may be pruned; the prompt is the summary + the newest `offset` runs.
    default_service().summarizer = type("S", (), {"summarize": lambda self, p: "SUM"})()
    assert default_service().summarize("tenant-a", "t").status == "committed"
    api.post_run("t", text_run("r21", "q21", "a21"))
    _, stack = api.prompt_stack("t", {})
    assert user_texts(stack) == ["Summary of the conversation so far: SUM", "q20", "q21"]
