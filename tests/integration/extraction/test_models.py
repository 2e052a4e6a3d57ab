"""The extraction model port's adapters over real HTTP (docs/adr/0051): Bedrock Converse through a scripted endpoint
(`AWS_ENDPOINT_URL_BEDROCK_RUNTIME`), alone and driving the runner on the moto server; the OpenAI-compatible client's
refusals that are not retried and its request without a key; the `rules` stand-in's consolidation; the setting."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from extraction_support import Deferred, ScriptedModel, completion, extractions, operations
from records_support import Clock

from offprompt.adapters.clients import reset_clients
from offprompt.adapters.extraction_models import RULES_LABEL, BedrockConverseModel, OpenAIChatModel, RulesModel
from offprompt.composition.extraction import model_from_settings
from offprompt.config import load_settings
from offprompt.errors import ConfigurationError
from offprompt.memory.extraction import parse_operations
from offprompt.ports import ModelRequest, ModelUnavailable
from offprompt.services.extraction.requests import StrategyPut
from offprompt.services.extraction.run import extract_thread
from offprompt.services.extraction.strategies import put_strategy
from offprompt.services.records.get import get_record
from offprompt.services.records.requests import RecordRead

MODEL_ID = "amazon.nova-micro-v1:0"
REQUEST = ModelRequest("system says", "user says", (("r1", "User: I live in Lisbon"),), ())


def converse_answer(text: str) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": [{"text": text}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 90, "outputTokens": 10, "totalTokens": 100},
        "metrics": {"latencyMs": 5},
    }


@pytest.fixture
def bedrock(model: ScriptedModel, monkeypatch: pytest.MonkeyPatch) -> ScriptedModel:
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", model.base_url.removesuffix("/v1"))
    reset_clients()
    return model


def test_bedrock_converse_through_a_scripted_endpoint(bedrock: ScriptedModel) -> None:
    bedrock.script = lambda request: (200, converse_answer('{"operations": []}'))
    answer = model_from_settings(load_settings({"OFFPROMPT_EXTRACTION_MODEL": f"bedrock:{MODEL_ID}"})).complete(REQUEST)
    assert (answer.text, answer.input_tokens, answer.output_tokens) == ('{"operations": []}', 90, 10)
    sent = bedrock.requests[-1]
    assert sent["path"] == "/model/amazon.nova-micro-v1%3A0/converse"
    assert sent["system"] == [{"text": "system says"}]
    assert sent["messages"] == [{"role": "user", "content": [{"text": "user says"}]}]
    bedrock.script = lambda request: (400, {"message": "ValidationException"})
    with pytest.raises(ModelUnavailable, match=re.escape(f"bedrock:{MODEL_ID}")):
        BedrockConverseModel(MODEL_ID).complete(REQUEST)


def test_the_runner_on_bedrock(
    aws_over_http: dict[str, Any], bedrock: ScriptedModel, chat: Any, clock: Clock, deferred: Deferred
) -> None:
    def add(request: dict[str, Any]) -> tuple[int, Any]:
        said = request["messages"][-1]["content"][0]["text"]
        run_id = said.split("[run ", 1)[1].split("]", 1)[0]
        op = {"op": "add", "key": "home_city", "text": "Lives in Lisbon", "source_run_ids": [run_id]}
        return 200, converse_answer(operations(op))

    bedrock.script = add
    ext = extractions(lambda: BedrockConverseModel(MODEL_ID), clock, deferred)
    put_strategy(ext, "tenant-a", "facts", StrategyPut(type="facts", namespace="threads/{thread_id}"))
    chat.say("tenant-a", "t1", "I live in Lisbon")
    clock.tick()
    assert extract_thread(ext, "tenant-a", "t1")["strategies"]["facts"]["written"] == 1
    record = get_record(ext.records, "tenant-a", ("threads", "t1"), "home_city", RecordRead())
    assert record["value"]["provenance"]["model"] == f"bedrock:{MODEL_ID}"
    assert record["value"]["provenance"]["run_ids"] == ["r1"]


def test_the_openai_client_does_not_retry_a_refusal_and_sends_no_key_it_was_not_given(model: ScriptedModel) -> None:
    model.script = lambda request: (401, {"error": {"message": "bad key"}})
    client = OpenAIChatModel("m", model.base_url, None, timeout=1, attempts=3, backoff=0.01)
    with pytest.raises(ModelUnavailable, match="HTTP 401"):
        client.complete(REQUEST)
    assert len(model.requests) == 1 and model.requests[0]["auth"] is None  # a 401 is not retried
    calls = {"n": 0}

    def flaky(request: dict[str, Any]) -> tuple[int, Any]:
        calls["n"] += 1
        return (429, {}) if calls["n"] == 1 else (200, completion('{"operations": []}', 7, 3))

    model.script = flaky
    answer = client.complete(REQUEST)
    assert (answer.input_tokens, answer.output_tokens, calls["n"]) == (7, 3, 2)
    model.script = lambda request: (200, {"no": "choices"})
    assert json.loads(client.complete(REQUEST).text) == {"no": "choices"}  # for the caller to report as malformed


def test_the_rules_stand_in_consolidates_and_is_labelled() -> None:
    rules = RulesModel()
    assert rules.label == RULES_LABEL and "not a model" in rules.label
    turns = (("r1", "User: I live in Lisbon.\nAssistant: I live in a server."), ("r2", "User: my name is Ada"))
    ops = parse_operations(rules.complete(ModelRequest("", "", turns, ())).text)
    assert [(o.op, o.key, o.text, o.source_run_ids) for o in ops] == [
        ("add", "lives-in", "Lisbon", ["r1"]),
        ("add", "name", "Ada", ["r2"]),
    ]  # the assistant's words are not the user's facts
    known = (("lives-in", "Lisbon"), ("name", "Grace"))
    ops = parse_operations(rules.complete(ModelRequest("", "", turns, known)).text)
    assert [(o.op, o.key) for o in ops] == [("noop", "lives-in"), ("update", "name")]


@pytest.mark.parametrize("spec", ["", "gpt", "openai:", "bedrock:", "ollama:", "vllm:llama3"])
def test_an_unknown_model_setting_is_a_configuration_error(spec: str) -> None:
    with pytest.raises(ConfigurationError, match="OFFPROMPT_EXTRACTION_MODEL"):
        model_from_settings(load_settings({"OFFPROMPT_EXTRACTION_MODEL": spec}))
    assert isinstance(model_from_settings(load_settings({})), RulesModel)  # the default
    openai = model_from_settings(load_settings({"OFFPROMPT_EXTRACTION_MODEL": "openai:llama3.2"}))
    assert isinstance(openai, OpenAIChatModel) and openai.url == "https://api.openai.com/v1/chat/completions"
    ollama = model_from_settings(load_settings({"OFFPROMPT_EXTRACTION_MODEL": "ollama:llama3.2"}))
    assert isinstance(ollama, OpenAIChatModel) and ollama.url == "http://127.0.0.1:11434/v1/chat/completions"
    assert ollama.label == "ollama:llama3.2" and ollama.model == "llama3.2"
