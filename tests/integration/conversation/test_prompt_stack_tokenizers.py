"""prompt-stack with `model` / `tokenizer` on moto: the budget is counted as Griptape counts for that model."""

from __future__ import annotations

from typing import Any

import pytest
from conversation_api import Api, text_run


def history(api: Api, thread: str, n: int) -> None:
    for i in range(1, n + 1):
        # CJK text: cl100k_base, o200k_base and chars/4 count it very differently
        status, _ = api.post_run(thread, text_run(f"r{i}", f"質問 {i}: 今日は良い天気ですね。" * 3, f"答え {i}" * 5))
        assert status == 201


def runs_in(stack: dict[str, Any]) -> int:
    return sum(1 for m in stack["messages"] if m["role"] == "assistant")


def test_model_and_tokenizer_choose_the_count(api: Api) -> None:
    history(api, "t", 12)
    kept = {}
    hints: list[dict[str, str]] = [
        {},
        {"model": "gpt-4"},
        {"model": "gpt-4o"},
        {"tokenizer": "o200k_base"},
        {"model": "anthropic.claude-3-5-sonnet-20240620-v1:0"},
        {"tokenizer": "chars_per_token:4"},
    ]
    for hint in hints:
        status, stack = api.prompt_stack("t", {"input": "now?", "max_tokens": 300, **hint})
        assert status == 200, stack
        kept[str(hint)] = runs_in(stack)
    assert kept["{}"] == kept["{'model': 'gpt-4'}"]  # gpt-4 is cl100k_base, the default
    assert kept["{'model': 'gpt-4o'}"] == kept["{'tokenizer': 'o200k_base'}"]
    assert kept["{'model': 'anthropic.claude-3-5-sonnet-20240620-v1:0'}"] == kept["{'tokenizer': 'chars_per_token:4'}"]
    # CJK: chars/4 counts far fewer tokens than the BPEs, so more runs fit the same budget
    assert kept["{'tokenizer': 'chars_per_token:4'}"] > kept["{}"]
    assert len(set(kept.values())) >= 2


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"tokenizer": "p50k_base"}, "invalid_input"),
        ({"model": "gpt-4o", "tokenizer": "o200k_base"}, "invalid_input"),
        ({"model": "text-davinci-003"}, "invalid_input"),
        ({"model": ""}, "schema_invalid"),
        ({"tokenizer": 4}, "schema_invalid"),
    ],
)
def test_bad_tokenizer_hints_are_client_errors(api: Api, body: dict[str, Any], code: str) -> None:
    history(api, "t", 1)
    status, error = api.prompt_stack("t", {"max_tokens": 100, **body})
    assert status in (400, 422) and error["code"] == code, error
