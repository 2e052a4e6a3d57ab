"""The example extractor (docs/adr/0036): a run.added event → the run read on moto → its facts (the local
rule-based stand-in, or Bedrock's reply through botocore's Stubber) → records written by the records' put use case."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from example_extractor import handler
from fakes.record_index import InMemoryRecordIndex

from offprompt.adapters.bedrock import BedrockFactExtractor, parse_facts
from offprompt.adapters.clients import reset_clients
from offprompt.adapters.dynamodb_runs import DynamoDbRunStore
from offprompt.composition import events as composition
from offprompt.composition import records as records_composition
from offprompt.composition.records import default_records
from offprompt.config import get_settings
from offprompt.errors import InvalidInput
from offprompt.ports import StoredRun
from offprompt_local.extractor import LABEL, RuleBasedFactExtractor
from offprompt_local.resources import create_table

TABLE = "memory"
NOW = "2026-12-02T16:00:00.000Z"


def test_the_rule_based_stand_in_finds_its_sentence_shapes_and_says_what_it_is() -> None:
    facts = RuleBasedFactExtractor().extract("Hi! My name is Ada Lovelace. I like green tea, and I live in Lyon.")
    assert [(f.key, f.value["text"]) for f in facts] == [
        ("name", "Ada Lovelace"),
        ("likes-green-tea", "green tea"),
        ("lives-in", "Lyon"),
    ]
    assert {f.value["extractor"] for f in facts} == {LABEL} and "not a model" in LABEL
    assert RuleBasedFactExtractor().extract("What is the weather like?") == []


def test_bedrock_extractor_reads_the_models_json_array() -> None:
    client = boto3.client("bedrock-runtime", region_name="us-east-1")
    reply = 'Here you go: [{"key": "Favourite Drink", "text": "green tea"}, {"key": "", "text": "x"}, "junk"]'
    with Stubber(client) as stub:
        stub.add_response(
            "converse",
            {
                "output": {"message": {"role": "assistant", "content": [{"text": reply}]}},
                "stopReason": "end_turn",
                "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
                "metrics": {"latencyMs": 1},
            },
        )
        facts = BedrockFactExtractor("amazon.nova-micro-v1:0", client).extract("I love green tea")
    assert [(f.key, f.value) for f in facts] == [
        (
            "favourite-drink",
            {"fact": "favourite-drink", "text": "green tea", "extractor": "bedrock:amazon.nova-micro-v1:0"},
        )
    ]
    assert parse_facts("no facts here", "m") == [] and parse_facts("[not json", "m") == []


@pytest.fixture
def wired(moto_aws: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemoryRecordIndex]:
    monkeypatch.setenv("OFFPROMPT_TABLE", TABLE)
    monkeypatch.delenv("OFFPROMPT_BUCKET", raising=False)
    get_settings.cache_clear()
    reset_clients()
    create_table(boto3.client("dynamodb", region_name="us-east-1"), TABLE)
    index = InMemoryRecordIndex()
    records_composition.set_record_index_override(index)
    composition.set_fact_extractor_override(RuleBasedFactExtractor())
    yield index
    composition.set_fact_extractor_override(None)
    records_composition.set_record_index_override(None)
    get_settings.cache_clear()
    reset_clients()


def run_added(tenant: str, thread_id: str, seq: int) -> dict[str, Any]:
    detail = {"thread_id": thread_id, "run_id": "r", "seq": seq, "bytes": 1, "input_tokens": 1, "output_tokens": 1}
    memory_event = {"id": "e1", "type": "run.added", "time": "2026-12-02T16:00:00Z", "tenant": tenant, "detail": detail}
    return {"version": "0", "detail-type": "run.added", "source": "offprompt", "detail": memory_event}


def test_a_run_added_becomes_fact_records_of_its_tenant(wired: InMemoryRecordIndex) -> None:
    store = DynamoDbRunStore(TABLE)
    state = store.allocate_seq("acme", "chat.1", NOW)
    body = json.dumps(
        {
            "type": "Run",
            "id": "run-7",
            "meta": None,
            "input": {"type": "TextArtifact", "value": "my name is Ada. I like green tea"},
            "output": {"type": "TextArtifact", "value": "I like answering questions"},  # the assistant's: ignored
        }
    )
    stored = StoredRun(state.next_seq, "run-7", "h", size=len(body), run_json=body)
    store.put_run("acme", "chat.1", stored, state.generation or "")
    result = handler.lambda_handler(run_added("acme", "chat.1", state.next_seq), None)
    assert result == {"run_id": "run-7", "records": ["name", "likes-green-tea"], "extractor": LABEL}
    name = default_records().store.current("acme", handler.NAMESPACE, "name")
    assert name is not None and name.version == 1 and not name.deleted
    assert json.loads(name.value_json or "{}") == {
        "fact": "name",
        "text": "Ada",
        "extractor": LABEL,
        "source": {"thread_id": "chat.1", "run_id": "run-7", "seq": 1},
    }
    assert default_records().store.current("other", handler.NAMESPACE, "name") is None  # the event's tenant only
    assert any(call[0] == "index" for call in wired.calls)  # the fact's text is indexed


def test_a_run_that_is_gone_has_no_facts_and_a_foreign_event_is_refused(wired: InMemoryRecordIndex) -> None:
    assert handler.lambda_handler(run_added("acme", "nothing-here", 1), None)["records"] == []
    with pytest.raises(InvalidInput):
        handler.lambda_handler({"detail-type": "record.put", "detail": {}}, None)
    with pytest.raises(InvalidInput):
        handler.lambda_handler({"detail-type": "run.added", "detail": {"tenant": "a", "detail": {"seq": "1"}}}, None)
