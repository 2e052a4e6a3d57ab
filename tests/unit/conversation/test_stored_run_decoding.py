"""The prompt-stack's fast paths decode and wrap stored runs exactly as the validating paths do."""

from __future__ import annotations

from typing import Any

import pytest

from offprompt.memory.conversation import run_messages
from offprompt.memory.run import Run
from offprompt.prompt import PromptStack
from offprompt.services.conversation.run_bodies import decode_stored_run


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"type": "TextArtifact", "id": "a1", "reference": None, "meta": {}, "name": "n", "value": value} | extra


RUNS = [
    {"type": "Run", "id": "r1", "meta": None, "input": text("hi"), "output": text("hello")},
    {"type": "Run", "id": "r2", "meta": {"k": [1, 2.5]}, "input": text("é 😀", meta={"x": 1}), "output": text("")},
    {"type": "Run", "id": "r3", "meta": None, "input": text("q"), "output": {"type": "InfoArtifact", "value": "i"}},
    {
        "type": "Run",
        "id": "r4",
        "meta": None,
        "input": {"type": "ListArtifact", "value": [text("a"), text("b")]},
        "output": text("o"),
    },
    {"type": "Run", "id": "r5", "meta": None, "input": text("q", reference=None), "output": text("o", name="x")},
]


@pytest.mark.parametrize("data", RUNS, ids=lambda d: d["id"])
def test_stored_json_decodes_as_the_validating_decoder(data: dict[str, Any]) -> None:
    stored = Run.from_dict(data).to_json()
    slow, fast = Run.from_json(stored), Run.from_stored_json(stored)
    assert fast.to_dict() == slow.to_dict()
    assert type(fast.input) is type(slow.input) and type(fast.output) is type(slow.output)
    assert decode_stored_run(stored).to_dict() == slow.to_dict()


def fresh_ids(message: dict[str, Any]) -> dict[str, Any]:
    for c in message["content"]:
        if c["artifact"]["id"] != "a1":
            c["artifact"]["id"] = c["artifact"]["name"] = "-"
    return message


@pytest.mark.parametrize("data", RUNS, ids=lambda d: d["id"])
def test_run_messages_equal_griptape_to_prompt_stack(data: dict[str, Any]) -> None:
    run = Run.from_stored_json(Run.from_dict(data).to_json())
    stack = PromptStack()
    stack.add_user_message(run.input)
    stack.add_assistant_message(run.output)
    # Non-text artifacts become a new TextArtifact (a fresh id and name) on both paths: compare without them.
    assert [fresh_ids(m.to_dict()) for m in run_messages(run)] == [fresh_ids(m.to_dict()) for m in stack.messages]
    assert [m.to_text() for m in run_messages(run)] == [m.to_text() for m in stack.messages]


def test_invalid_stored_json_still_fails_like_from_json() -> None:
    with pytest.raises(Exception, match="unexpected key"):
        Run.from_stored_json('{"type": "Run", "id": "r", "meta": null, "input": {}, "output": {}, "x": 1}')
