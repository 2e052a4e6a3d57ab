"""Which tokenizer Griptape would count a prompt with, by model or by explicit name (pure; no tiktoken here).

Griptape counts OpenAI models with `OpenAiTokenizer` (tiktoken's `encoding_for_model`, falling back to
cl100k_base for names tiktoken does not know) and Bedrock models with `AmazonBedrockTokenizer`, i.e.
ceil(characters / 4). `tokenizer_name(model=..., tokenizer=...)` returns `cl100k_base`, `o200k_base` or
`chars_per_token:N`; the adapters build the tiktoken encodings, `CharsTokenizer` is here.
See docs/adr/0013-tokenizers.md.
"""

from __future__ import annotations

from offprompt.errors import InvalidInput

DEFAULT_ENCODING = "cl100k_base"
TIKTOKEN_ENCODINGS = ("cl100k_base", "o200k_base")
CHARS_PREFIX = "chars_per_token:"
BEDROCK_CHARS_PER_TOKEN = 4  # AmazonBedrockTokenizer.characters_per_token
# Bedrock model ids are "<provider>.<model>", optionally behind a cross-region inference profile prefix.
BEDROCK_PROVIDERS = ("anthropic.", "amazon.", "meta.", "mistral.", "cohere.", "ai21.", "deepseek.", "writer.")
BEDROCK_REGION_PREFIXES = ("us.", "eu.", "apac.", "us-gov.", "global.")

# tiktoken.model.MODEL_TO_ENCODING / MODEL_PREFIX_TO_ENCODING (tiktoken 0.12), the entries of current and
# recent models; tests/unit/test_model_tokenizers.py checks each against tiktoken itself.
MODEL_TO_ENCODING: dict[str, str] = {
    "o1": "o200k_base",
    "o3": "o200k_base",
    "o4-mini": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4o": "o200k_base",
    "gpt-4": "cl100k_base",
    "gpt-3.5-turbo": "cl100k_base",
    "gpt-3.5": "cl100k_base",
    "gpt-35-turbo": "cl100k_base",
    "davinci-002": "cl100k_base",
    "babbage-002": "cl100k_base",
    "text-embedding-ada-002": "cl100k_base",
    "text-embedding-3-small": "cl100k_base",
    "text-embedding-3-large": "cl100k_base",
}
MODEL_PREFIX_TO_ENCODING: dict[str, str] = {
    "o1-": "o200k_base",
    "o3-": "o200k_base",
    "o4-mini-": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.5-": "o200k_base",
    "gpt-4.1-": "o200k_base",
    "chatgpt-4o-": "o200k_base",
    "gpt-4o-": "o200k_base",
    "gpt-4-": "cl100k_base",
    "gpt-3.5-turbo-": "cl100k_base",
    "gpt-35-turbo-": "cl100k_base",
    "gpt-oss-": "o200k_harmony",
    "ft:gpt-4o": "o200k_base",
    "ft:gpt-4": "cl100k_base",
    "ft:gpt-3.5-turbo": "cl100k_base",
    "ft:davinci-002": "cl100k_base",
    "ft:babbage-002": "cl100k_base",
}
# Older tiktoken encodings (text-davinci-*, code-*, davinci, ...): Griptape would use them; offprompt does not
# count them, so such a model is refused rather than silently counted with another encoding.
LEGACY_MODEL_PREFIXES = ("text-davinci", "text-curie", "text-babbage", "text-ada", "code-", "davinci", "curie")


def is_bedrock_model(model: str) -> bool:
    name = model
    for region in BEDROCK_REGION_PREFIXES:
        if name.startswith(region):
            name = name[len(region) :]
            break
    return name.startswith(BEDROCK_PROVIDERS)


def encoding_for_model(model: str) -> str:
    """tiktoken's encoding_name_for_model for the models it maps, else cl100k_base (OpenAiTokenizer's fallback)."""
    encoding = MODEL_TO_ENCODING.get(model)
    if encoding is None:
        encoding = next((e for p, e in MODEL_PREFIX_TO_ENCODING.items() if model.startswith(p)), None)
    if encoding is None and model.startswith(LEGACY_MODEL_PREFIXES):
        encoding = "legacy"
    if encoding is None:
        return DEFAULT_ENCODING
    if encoding not in TIKTOKEN_ENCODINGS:
        raise InvalidInput(f'model "{model[:100]}" is counted with {encoding}, which offprompt does not support')
    return encoding


def tokenizer_name(*, model: str | None = None, tokenizer: str | None = None) -> str | None:
    """The tokenizer for a request: explicit `tokenizer`, or the one Griptape uses for `model`; None: default."""
    if model is not None and tokenizer is not None:
        raise InvalidInput("give model or tokenizer, not both")
    if tokenizer is not None:
        if tokenizer in TIKTOKEN_ENCODINGS:
            return tokenizer
        CharsTokenizer.parse(tokenizer)
        return tokenizer
    if model is None:
        return None
    if not model or len(model) > 256:
        raise InvalidInput("model must be 1-256 characters")
    if is_bedrock_model(model):
        return f"{CHARS_PREFIX}{BEDROCK_CHARS_PER_TOKEN}"
    return encoding_for_model(model)


class CharsTokenizer:
    """Griptape's SimpleTokenizer / AmazonBedrockTokenizer: ceil(len(text) / characters_per_token)."""

    __slots__ = ("characters_per_token", "encoding_name")

    def __init__(self, characters_per_token: int) -> None:
        self.characters_per_token = characters_per_token
        self.encoding_name = f"{CHARS_PREFIX}{characters_per_token}"

    @classmethod
    def parse(cls, name: str) -> CharsTokenizer:
        supported = f"cl100k_base, o200k_base or {CHARS_PREFIX}N (N from 1 to 100)"
        if not name.startswith(CHARS_PREFIX):
            raise InvalidInput(f'unknown tokenizer "{name[:100]}"; use {supported}')
        digits = name[len(CHARS_PREFIX) :]
        if not digits.isdigit() or not 1 <= int(digits) <= 100:
            raise InvalidInput(f'unknown tokenizer "{name[:100]}"; use {supported}')
        return cls(int(digits))

    def count_tokens(self, text: str) -> int:
        return (len(text) + self.characters_per_token - 1) // self.characters_per_token

    def encode(self, text: str) -> list[int]:
        raise NotImplementedError("character counting has no token ids")

    def decode(self, tokens: list[int]) -> str:
        raise NotImplementedError("character counting has no token ids")
