"""tokenizer_name: the tokenizer Griptape 1.13 counts a model's prompts with (tiktoken's table, Bedrock's chars/4)."""

from __future__ import annotations

import pytest
import tiktoken.model
from griptape.tokenizers import AmazonBedrockTokenizer, SimpleTokenizer

from offprompt.errors import InvalidInput
from offprompt.memory.tokenizers import (
    MODEL_PREFIX_TO_ENCODING,
    MODEL_TO_ENCODING,
    CharsTokenizer,
    tokenizer_name,
)

OPENAI_MODELS = [
    "gpt-4o", "gpt-4o-mini", "gpt-4o-2024-08-06", "chatgpt-4o-latest", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano",
    "gpt-4.5-preview", "gpt-5", "gpt-5-mini", "o1", "o1-mini", "o3", "o3-mini", "o4-mini", "o4-mini-2025-04-16",
    "gpt-4", "gpt-4-turbo", "gpt-4-0613", "gpt-4-32k", "gpt-3.5-turbo", "gpt-3.5-turbo-0125", "gpt-35-turbo",
    "ft:gpt-4o-mini:org::abc", "text-embedding-3-small", "davinci-002",
]  # fmt: skip


@pytest.mark.parametrize("model", OPENAI_MODELS)
def test_openai_models_use_tiktokens_encoding(model: str) -> None:
    # What Griptape's OpenAiTokenizer.encoding resolves to (tiktoken.encoding_for_model, by name).
    assert tokenizer_name(model=model) == tiktoken.model.encoding_name_for_model(model)


def test_our_tables_are_tiktokens() -> None:
    for model, encoding in MODEL_TO_ENCODING.items():
        assert tiktoken.model.MODEL_TO_ENCODING[model] == encoding, model
    for prefix, encoding in MODEL_PREFIX_TO_ENCODING.items():
        assert tiktoken.model.MODEL_PREFIX_TO_ENCODING[prefix] == encoding, prefix


@pytest.mark.parametrize("model", ["my-local-llama", "claude-3-5-sonnet-latest", "mystery"])
def test_unknown_models_fall_back_to_cl100k_as_openai_tokenizer_does(model: str) -> None:
    with pytest.raises(KeyError):
        tiktoken.model.encoding_name_for_model(model)
    assert tokenizer_name(model=model) == "cl100k_base"


@pytest.mark.parametrize(
    "model",
    [
        "anthropic.claude-3-5-sonnet-20240620-v1:0",
        "us.anthropic.claude-sonnet-4-20250514-v1:0",
        "amazon.nova-pro-v1:0",
        "meta.llama3-70b-instruct-v1:0",
        "mistral.mistral-large-2407-v1:0",
        "cohere.command-r-plus-v1:0",
    ],
)
def test_bedrock_models_count_characters_like_amazon_bedrock_tokenizer(model: str) -> None:
    name = tokenizer_name(model=model)
    assert name == "chars_per_token:4"
    ours = CharsTokenizer.parse(name)
    theirs = AmazonBedrockTokenizer(model=model)
    for text in ["", "a", "abcd", "abcde", "naïve 🙂 データ" * 7]:
        assert ours.count_tokens(text) == theirs.count_tokens(text)


@pytest.mark.parametrize("n", [1, 3, 4, 7])
def test_chars_tokenizer_equals_simple_tokenizer(n: int) -> None:
    theirs = SimpleTokenizer(characters_per_token=n)
    for text in ["", "x", "hello world", "\n\n" * 9, "🙂" * 5]:
        assert CharsTokenizer.parse(f"chars_per_token:{n}").count_tokens(text) == theirs.count_tokens(text)


def test_explicit_tokenizers_and_errors() -> None:
    assert tokenizer_name() is None
    assert tokenizer_name(tokenizer="o200k_base") == "o200k_base"
    assert tokenizer_name(tokenizer="cl100k_base") == "cl100k_base"
    assert tokenizer_name(tokenizer="chars_per_token:4") == "chars_per_token:4"
    for bad in ["p50k_base", "chars_per_token:0", "chars_per_token:x", "chars_per_token:101", ""]:
        with pytest.raises(InvalidInput):
            tokenizer_name(tokenizer=bad)
    with pytest.raises(InvalidInput, match="not both"):
        tokenizer_name(model="gpt-4o", tokenizer="o200k_base")
    for legacy in ["text-davinci-003", "code-davinci-002", "gpt-oss-120b"]:
        with pytest.raises(InvalidInput, match="does not support"):
            tokenizer_name(model=legacy)
