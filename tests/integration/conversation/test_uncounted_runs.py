"""add-run without the tokenizer (docs/adr/0040): a fresh environment stores a run uncounted, its readers count it.

A process that has not built the tokenizer yet stands in for a fresh Lambda environment: the process's built
encodings (tiktoken's `_ENCODINGS`, bpe-openai's `_ENCODERS`: the service counts with either, ADR 0069) are emptied
for the test. The same runs stored counted give the same answers.
"""

from __future__ import annotations

from typing import Any

import pytest
from conversation_api import Api, all_items, text_run

from offprompt.adapters import bpe_tokenizer
from offprompt.adapters import tokenizer as tokenizer_adapter
from offprompt.composition.conversation import tokenizer_class

RUNS = [text_run(f"r{i}", f"question {i} " * (i + 3), f"answer number {i} " * (i + 5)) for i in range(6)]
BUDGETS = [None, 120, 200, 300, 100_000]
INPUT = {"type": "TextArtifact", "id": "in", "name": "in", "value": "next?"}


def run_items(ddb: Any, thread: str) -> list[dict[str, Any]]:
    return [i for i in all_items(ddb) if i["sk"]["S"].startswith("RUN#") and i["thread_id"]["S"] == thread]


class Built:
    """The encodings either tokenizer has built in this process since the fixture emptied them."""

    def __init__(self, tiktoken: dict[str, Any], bpe: dict[str, Any]) -> None:
        self.tiktoken, self.bpe = tiktoken, bpe

    def names(self) -> set[str]:
        return set(self.tiktoken) | set(self.bpe)


@pytest.fixture
def fresh_process(monkeypatch: pytest.MonkeyPatch) -> Built:
    """No encoding built in this process yet, as in a new Lambda environment without SnapStart."""
    built = Built({}, {})
    monkeypatch.setattr(tokenizer_adapter, "_ENCODINGS", built.tiktoken)
    monkeypatch.setattr(bpe_tokenizer, "_ENCODERS", built.bpe)
    return built


def test_add_run_in_a_fresh_process_stores_the_run_uncounted_without_building_the_tokenizer(
    api: Api, aws: dict[str, Any], fresh_process: Built
) -> None:
    status, body = api.post_run("fresh", RUNS[0])
    assert status == 201 and body["seq"] == 1
    assert fresh_process.names() == set()  # the tokenizer was not built
    (item,) = run_items(aws["dynamodb"], "fresh")
    assert "input_tokens" not in item and "output_tokens" not in item
    thread = next(i for i in all_items(aws["dynamodb"]) if i["sk"]["S"] == "#THREAD")
    assert int(thread["run_tokens"]["N"]) > 0  # an estimate, for prompt-stack's first page


def test_readers_of_uncounted_runs_answer_as_for_counted_ones(
    api: Api, aws: dict[str, Any], fresh_process: Built
) -> None:
    for run in RUNS:
        assert api.post_run("uncounted", run)[0] == 201
    assert fresh_process.names() == set()
    tokenizer_class()().count_tokens("")  # the service's tokenizer loaded now: add-run counts from here on
    for run in RUNS:
        assert api.post_run("counted", run)[0] == 201
    assert all("input_tokens" in i for i in run_items(aws["dynamodb"], "counted"))
    assert not any("input_tokens" in i for i in run_items(aws["dynamodb"], "uncounted"))

    _, uncounted = api.runs("uncounted", limit="10")
    _, counted = api.runs("counted", limit="10")
    assert [(r["input_tokens"], r["output_tokens"]) for r in uncounted["runs"]] == [
        (r["input_tokens"], r["output_tokens"]) for r in counted["runs"]
    ]
    assert all(r["input_tokens"] > 0 for r in counted["runs"])
    sizes = []
    for budget in BUDGETS:
        request = {"input": INPUT, **({"max_tokens": budget} if budget is not None else {})}
        status_u, stack_u = api.prompt_stack("uncounted", request)
        status_c, stack_c = api.prompt_stack("counted", request)
        assert status_u == status_c == 200
        assert stack_u == stack_c, budget
        sizes.append(len(stack_u["messages"]))
    assert len(set(sizes)) >= 3, sizes  # the budgets cut the history in different places


def test_a_metered_add_run_counts_even_in_a_fresh_process(aws: dict[str, Any], fresh_process: Built) -> None:
    """Hosted mode charges `tokens_stored` with the run: those are counted, never estimated."""
    from offprompt.composition.conversation import default_service
    from offprompt.memory.run import Run
    from offprompt.metering import Meter
    from offprompt.services.conversation.add_run import add_counts

    conv = default_service()
    run = Run.from_dict(RUNS[1])
    assert add_counts(conv, run, None) == (0, 0, False)
    meter = Meter.__new__(Meter)  # any meter: add_counts only asks whether there is one
    counted = add_counts(conv, run, meter)
    assert counted[2] and counted[0] > 0 and counted[1] > 0
    assert "cl100k_base" in fresh_process.names()
    assert add_counts(conv, run, None) == counted  # loaded now: counted without a meter too
