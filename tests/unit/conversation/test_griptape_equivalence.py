"""Property: our history selection equals Griptape 1.13's ConversationMemory autoprune, message for message."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from offprompt.adapters.tokenizer import TiktokenTokenizer
from offprompt.artifacts import TextArtifact
from offprompt.memory.conversation import HistoryRun, select_history
from offprompt.memory.run import Run
from offprompt.prompt import PromptStack

CL100K_SHA1 = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"
TOKENIZER = TiktokenTokenizer()


@pytest.fixture(scope="module", autouse=True)
def offline_tiktoken(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Griptape's OpenAiTokenizer goes through tiktoken's cache: seed it with the bundled BPE file."""
    cache = Path(tmp_path_factory.mktemp("tiktoken"))
    source = resources.files("tiktoken_ext").joinpath("data").joinpath("cl100k_base.tiktoken")
    with resources.as_file(source) as path:
        shutil.copyfile(path, cache / CL100K_SHA1)
    old = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    yield
    if old is None:
        os.environ.pop("TIKTOKEN_CACHE_DIR", None)
    else:
        os.environ["TIKTOKEN_CACHE_DIR"] = old


def griptape_driver(budget: int):  # type: ignore[no-untyped-def]
    from griptape.drivers.prompt.openai import OpenAiChatPromptDriver
    from griptape.tokenizers import OpenAiTokenizer

    return OpenAiChatPromptDriver(
        model="gpt-4", api_key="unused", tokenizer=OpenAiTokenizer(model="gpt-4", max_input_tokens=budget)
    )


WORDS = st.sampled_from(["hello", "world", " ", "  ", "\n", "\n\n", "Paris", "?", "é", "😀", "123", "User:", "\t"])
TEXT = st.one_of(
    st.lists(WORDS, max_size=12).map("".join),
    st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=30),
)
# Griptape's tokenizer raises on special-token strings (ours counts them as text): keep them out.
TEXT = TEXT.filter(lambda s: "<|" not in s)
HISTORY = st.lists(st.tuples(TEXT, TEXT), max_size=14)


def build(
    history: list[tuple[str, str]], system: str | None, user_input: str | None
) -> tuple[list, list[Run], PromptStack, object, int]:  # type: ignore[type-arg]
    from griptape.artifacts import TextArtifact as GText
    from griptape.common import PromptStack as GStack
    from griptape.memory.structure import Run as GRun

    g_runs = [
        GRun(id=f"r{i}", input=GText(q, id=f"i{i}"), output=GText(a, id=f"o{i}")) for i, (q, a) in enumerate(history)
    ]
    ours = [Run.from_dict(r.to_dict()) for r in g_runs]
    g_stack, stack = GStack(), PromptStack()
    if system is not None:
        g_stack.add_system_message(GText(system, id="sys"))
        stack.add_system_message(TextArtifact(system, id="sys"))
    if user_input is not None:
        g_stack.add_user_message(GText(user_input, id="inp"))
        stack.add_user_message(TextArtifact(user_input, id="inp"))
    index = 1 if system is not None else 0
    return g_runs, ours, stack, g_stack, index


def newest_first(runs: list[Run]) -> Iterator[HistoryRun]:
    for seq in range(len(runs), 0, -1):
        yield HistoryRun.of(seq, runs[seq - 1], TOKENIZER)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HISTORY, st.one_of(st.none(), TEXT), st.one_of(st.none(), TEXT), st.integers(min_value=1, max_value=220))
def test_buffer_memory_equals_griptape_autoprune(
    history: list[tuple[str, str]], system: str | None, user_input: str | None, budget: int
) -> None:
    from griptape.memory.structure import ConversationMemory

    g_runs, ours, stack, g_stack, index = build(history, system, user_input)
    memory = ConversationMemory(autoload=False)
    for r in g_runs:
        memory.add_run(r)
    memory.add_to_prompt_stack(griptape_driver(budget), g_stack, index=index)  # type: ignore[arg-type]

    plan = select_history(list(stack.messages), newest_first(ours), TOKENIZER, max_tokens=budget)
    stack.messages[index:index] = plan.messages
    assert stack.to_dict()["messages"] == g_stack.to_dict()["messages"]  # type: ignore[attr-defined]
    # Bounded work: at most one run read beyond those returned; a couple of exact counts.
    assert plan.candidates_read <= len(plan.runs) + 1
    assert plan.exact_counts <= 3 + max(0, len(plan.runs) - 1) // 4


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HISTORY, st.integers(min_value=0, max_value=14), TEXT.filter(bool), st.integers(min_value=1, max_value=220))
def test_summary_memory_equals_griptape_autoprune(
    history: list[tuple[str, str]], summarized: int, summary: str, budget: int
) -> None:
    from griptape.memory.structure import SummaryConversationMemory

    summarized = min(summarized, len(history))
    g_runs, ours, stack, g_stack, index = build(history, "SYS", "now")
    memory = SummaryConversationMemory(
        autoload=False, summary=summary, summary_index=summarized, offset=100, prompt_driver=griptape_driver(budget)
    )
    memory.runs.extend(g_runs)
    memory.add_to_prompt_stack(griptape_driver(budget), g_stack, index=index)  # type: ignore[arg-type]

    unsummarized = ours[summarized:]
    if not g_runs:
        return  # Griptape inserts nothing without runs; our threads always have runs when they have a summary
    plan = select_history(
        list(stack.messages), newest_first(unsummarized), TOKENIZER, summary=summary, max_tokens=budget
    )
    stack.messages[index:index] = plan.messages
    ours_dump = stack.to_dict()["messages"]
    theirs = g_stack.to_dict()["messages"]  # type: ignore[attr-defined]
    # The summary message is a new TextArtifact on both sides (different ids): compare it by role and text.
    strip = lambda ms: [  # noqa: E731
        {**m, "content": [{**c, "artifact": {**c["artifact"], "id": "-", "name": "-"}} for c in m["content"]]}
        for m in ms
    ]
    assert strip(ours_dump) == strip(theirs)
