"""The token arithmetic select_history relies on: a rendered stack's count is the sum of its messages' costs.

`message_cost(m)` = count(render(m) + "\\n\\n"), computed from the stored count of render(m) plus the tokens of
the separator after the message's last pre-token. If the sum ever differed from the whole-stack count, the
prompt-stack would pick a different number of runs than Griptape's autoprune.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from offprompt.adapters.tokenizer import TiktokenTokenizer
from offprompt.memory.conversation import message_cost, separator_tokens, starts_fresh
from offprompt.prompt import Message, render_messages
from offprompt.prompt.render import SEPARATOR, TRAILER

TOKENIZERS = [TiktokenTokenizer("cl100k_base")]  # the only encoding shipped
PIECES = st.sampled_from(
    [
        "hello",
        "Hello",
        " world",
        ".",
        "?",
        "!!",
        "...",
        " ",
        "  ",
        "\n",
        "\n\n",
        "\t",
        "'s",
        "'",
        "é",
        "e\u0301",
        "😀",
        "123",
        "4567",
        "—",
        "«",
        "»",
        ")",
        "(",
        '"',
        ":",
        "User:",
        "Assistant:",
        "日本語",
        "ß",
        "İ",
        "x" * 80,
        "!" * 70,
        " " * 70,
        ",",
        ";",
        "-",
        "_",
        "/",
        "\r\n",
        "ǅ",
        "\uff21\uff22",
    ]
)
TEXT = st.one_of(
    st.lists(PIECES, max_size=10).map("".join),
    st.text(max_size=40),
)


@pytest.mark.parametrize("tokenizer", TOKENIZERS, ids=lambda t: t.encoding_name)
@settings(max_examples=400, deadline=None)
@given(texts=st.lists(st.tuples(st.booleans(), TEXT), max_size=8), first=st.one_of(st.none(), TEXT))
def test_stack_count_is_the_sum_of_message_costs(
    tokenizer: TiktokenTokenizer, texts: list[tuple[bool, str]], first: str | None
) -> None:
    messages = [] if first is None else [Message(first, role=Message.SYSTEM_ROLE)]
    messages += [Message(t, role=Message.USER_ROLE if user else Message.ASSISTANT_ROLE) for user, t in texts]
    assert all(starts_fresh(m) for m in messages[1:])
    expected = tokenizer.count_tokens(render_messages(messages))
    assert sum(message_cost(m, tokenizer) for m in messages) + tokenizer.count_tokens(TRAILER) == expected


@pytest.mark.parametrize("tokenizer", TOKENIZERS, ids=lambda t: t.encoding_name)
@settings(max_examples=400, deadline=None)
@given(text=TEXT)
def test_separator_tokens_counts_only_the_tail_but_equals_the_difference(
    tokenizer: TiktokenTokenizer, text: str
) -> None:
    expected = tokenizer.count_tokens(text + SEPARATOR) - tokenizer.count_tokens(text)
    assert separator_tokens(text, tokenizer) == expected


def test_a_system_message_starting_with_whitespace_is_not_fresh() -> None:
    assert not starts_fresh(Message(" indented", role=Message.SYSTEM_ROLE))
    assert not starts_fresh(Message("", role=Message.SYSTEM_ROLE))
    assert starts_fresh(Message(" x", role=Message.USER_ROLE))
