"""Property: with another tokenizer than the stored counts' (o200k_base for gpt-4o, ceil(chars/4) for Bedrock),
history selection still equals Griptape 1.13's autoprune with the tokenizer Griptape uses for that model."""

from __future__ import annotations

import gzip
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_griptape_equivalence import CL100K_SHA1, HISTORY, TEXT, build, newest_first

from offprompt.adapters.tokenizer import O200K_BASE, TiktokenTokenizer
from offprompt.memory.conversation import select_history
from offprompt.memory.tokenizers import CharsTokenizer, tokenizer_name

O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"


@pytest.fixture(scope="module", autouse=True)
def offline_tiktoken(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Griptape's OpenAiTokenizer goes through tiktoken's cache (which checks the pinned hashes): seed it."""
    from offprompt.adapters.tokenizer import CL100K_BASE

    cache = Path(tmp_path_factory.mktemp("tiktoken"))
    (cache / CL100K_SHA1).write_bytes(Path(str(CL100K_BASE.bpe_file)).read_bytes())
    o200k = gzip.decompress(Path(str(O200K_BASE.bpe_file)).read_bytes())
    (cache / hashlib.sha1(O200K_URL.encode()).hexdigest()).write_bytes(o200k)
    old = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    yield
    if old is None:
        os.environ.pop("TIKTOKEN_CACHE_DIR", None)
    else:
        os.environ["TIKTOKEN_CACHE_DIR"] = old


def openai_driver(model: str, budget: int) -> Any:
    from griptape.drivers.prompt.openai import OpenAiChatPromptDriver
    from griptape.tokenizers import OpenAiTokenizer

    return OpenAiChatPromptDriver(
        model=model, api_key="unused", tokenizer=OpenAiTokenizer(model=model, max_input_tokens=budget)
    )


def bedrock_driver(model: str, budget: int) -> Any:
    from griptape.drivers.prompt.amazon_bedrock import AmazonBedrockPromptDriver
    from griptape.tokenizers import AmazonBedrockTokenizer

    class NoSession:  # Griptape builds its boto3 client lazily; nothing here calls Bedrock
        pass

    return AmazonBedrockPromptDriver(
        model=model, session=NoSession(), tokenizer=AmazonBedrockTokenizer(model=model, max_input_tokens=budget)
    )


CASES = [
    ("gpt-4o", openai_driver),
    ("gpt-4.1-mini", openai_driver),
    ("anthropic.claude-3-5-sonnet-20240620-v1:0", bedrock_driver),
    ("amazon.nova-pro-v1:0", bedrock_driver),
]


def ours_for(model: str) -> Any:
    name = tokenizer_name(model=model)
    assert name is not None
    return CharsTokenizer.parse(name) if name.startswith("chars") else TiktokenTokenizer(name)


@pytest.mark.parametrize(("model", "driver"), CASES)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    history=HISTORY,
    system=st.one_of(st.none(), TEXT),
    user_input=st.one_of(st.none(), TEXT),
    budget=st.integers(1, 260),
)
def test_other_tokenizers_equal_griptape_autoprune(
    model: str, driver: Any, history: list[tuple[str, str]], system: str | None, user_input: str | None, budget: int
) -> None:
    from griptape.memory.structure import ConversationMemory

    g_runs, ours, stack, g_stack, index = build(history, system, user_input)
    memory = ConversationMemory(autoload=False)
    for r in g_runs:
        memory.add_run(r)
    memory.add_to_prompt_stack(driver(model, budget), g_stack, index=index)

    tokenizer = ours_for(model)
    assert tokenizer.encoding_name != "cl100k_base"  # the stored (cl100k) counts are only estimates here
    plan = select_history(list(stack.messages), newest_first(ours), tokenizer, max_tokens=budget, estimates_exact=False)
    stack.messages[index:index] = plan.messages
    assert stack.to_dict()["messages"] == g_stack.to_dict()["messages"]
    # Bounded work: a binary search, not a count per run.
    assert plan.exact_counts <= 2 * (len(history) + 1).bit_length() + 3
