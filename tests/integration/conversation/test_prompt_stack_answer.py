"""prompt-stack's HTTP answer is built without a whole-stack count or a whole-stack `to_dict`: its body must still
be byte for byte `json.dumps` of the stack the direct invocation returns, and its token header a full count."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from conversation_api import Api, load_event, text_run

from offprompt.adapters.tokenizer import TiktokenTokenizer
from offprompt.prompt import PromptStack, render_messages

BODIES: list[dict[str, Any]] = [
    {"system": "You are a helpful assistant.", "input": "And of Italy?", "max_tokens": 120},
    {"system": "S", "input": "now", "max_tokens": 4000},
    {"input": "now", "max_tokens": 60, "memory_index": 1},
    {"system": " starts with a space", "input": "x", "max_tokens": 90, "memory_index": 0},  # the fallback path
    {"system": "no budget", "input": "x"},
    {"system": "S", "input": "x", "last_n": 2},
    {"input": "x", "max_tokens": 3},  # over budget: no memory
    {"system": "S", "input": "x", "max_tokens": 200, "tokenizer": "o200k_base"},  # another encoding: bisection
]


def with_ids(body: dict[str, Any]) -> dict[str, Any]:
    """System and input as TextArtifact JSON with fixed ids (a string gets a new random id per request)."""
    out = dict(body)
    for key in ("system", "input"):
        if key in out:
            out[key] = {"type": "TextArtifact", "id": key, "name": key, "meta": {}, "value": out[key]}
    return out


@pytest.mark.parametrize("body", BODIES)
def test_http_body_is_the_direct_stack_and_tokens_a_full_count(api: Api, body: dict[str, Any]) -> None:
    body = with_ids(body)
    for i in range(1, 13):
        answer = "answer ending in punctuation." if i % 3 else "an answer\n\nwith  trailing space "
        status, _ = api.post_run("t", text_run(f"r{i}", f"question {i} é 😀?", f"{answer} {i}" * (i % 4 + 1)))
        assert status == 201
    for _ in range(2):  # the second time every run comes from the process' prepared-run cache
        event = copy.deepcopy(load_event("prompt_stack_http.json"))
        event["body"] = json.dumps(body)
        event["pathParameters"] = {"thread_id": "t"}
        event["rawPath"] = event["requestContext"]["http"]["path"] = "/threads/t/prompt-stack"
        event["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = "tenant-a"
        out = api.prompt_stack_fn(event, None)
        assert out["statusCode"] == 200, out
        direct = api.prompt_stack_fn({"tenant": "tenant-a", "thread_id": "t", **body}, None)
        assert out["body"] == json.dumps(direct)
        stack = PromptStack.from_dict(json.loads(out["body"]))
        tokenizer = TiktokenTokenizer(body.get("tokenizer", "cl100k_base"))
        assert int(out["headers"]["X-Offprompt-Prompt-Tokens"]) == tokenizer.count_tokens(
            render_messages(stack.messages)
        )


def test_missing_thread_answers_the_base_stack(api: Api) -> None:
    status, stack = api.prompt_stack("none", {"system": "S", "input": "x"})
    assert status == 200 and len(stack["messages"]) == 2
