"""Amazon Bedrock adapters (Converse API). The client is injected (botocore Stubber in tests) or built lazily."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from offprompt.errors import DependencyUnavailable
from offprompt.ports import ExtractedFact

from .aws_errors import aws_call
from .clients import aws_client


def reply_text(out: dict[str, Any]) -> str:
    """A Converse answer's text blocks, joined."""
    content = ((out.get("output") or {}).get("message") or {}).get("content") or []
    return "".join(block["text"] for block in content if isinstance(block, dict) and "text" in block)


class BedrockModel:
    """What every Bedrock Converse adapter shares: the model id and the bedrock-runtime client, built on first use."""

    def __init__(self, model_id: str, client: Any | None = None) -> None:
        self.model_id = model_id
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = aws_client("bedrock-runtime")
        return self._client


class BedrockSummarizer(BedrockModel):
    """The `Summarizer` port: one Converse call with Griptape's rendered summarize-conversation prompt.

    The prompt is sent as a single user message, as Griptape's SummaryConversationMemory does
    (`prompt_driver.run(PromptStack([Message(text, role="user")]))`); the reply's text blocks are joined.
    """

    def __init__(self, model_id: str, client: Any | None = None, *, max_tokens: int = 1024) -> None:
        super().__init__(model_id, client)
        self.max_tokens = max_tokens

    def summarize(self, prompt: str) -> str:
        with aws_call("Bedrock converse"):
            out = self.client.converse(
                modelId=self.model_id,
                messages=[{"role": "user", "content": [{"text": prompt}]}],
                inferenceConfig={"maxTokens": self.max_tokens, "temperature": 0.0},
            )
        text = reply_text(out)
        if not text.strip():
            raise DependencyUnavailable("Bedrock converse returned no text")
        return text


logger = logging.getLogger("offprompt.adapters.bedrock")

EXTRACTION_PROMPT = (
    "Extract durable facts about the user from the message below: their name, preferences, where they live, what "
    "they work on. Answer with a JSON array only, one object per fact: "
    '{"key": "<short-lowercase-id-with-dashes>", "text": "<the fact in a few words>"}. '
    "Answer [] when the message states no such fact.\n\nMessage:\n"
)
_KEY = re.compile(r"[^a-z0-9-]+")


class BedrockFactExtractor(BedrockModel):
    """The `FactExtractor` port on a Bedrock model (Converse): the turn's text in, a JSON array of facts out.
    A reply that is not such an array means no facts (logged), never an error: extraction is best effort."""

    label = "bedrock"

    def __init__(self, model_id: str, client: Any | None = None, *, max_tokens: int = 512) -> None:
        super().__init__(model_id, client)
        self.max_tokens = max_tokens
        self.label = f"bedrock:{model_id}"

    def extract(self, text: str) -> list[ExtractedFact]:
        with aws_call("Bedrock converse"):
            out = self.client.converse(
                modelId=self.model_id,
                messages=[{"role": "user", "content": [{"text": EXTRACTION_PROMPT + text}]}],
                inferenceConfig={"maxTokens": self.max_tokens, "temperature": 0.0},
            )
        return parse_facts(reply_text(out), self.label)


def parse_facts(reply: str, label: str) -> list[ExtractedFact]:
    """The facts of a model's reply: the first JSON array in it, each `{key, text}` with a usable key."""
    start, end = reply.find("["), reply.rfind("]")
    try:
        items = json.loads(reply[start : end + 1]) if 0 <= start < end else []
    except ValueError:
        items = []
    if not isinstance(items, list):
        items = []
    facts: list[ExtractedFact] = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            continue
        key = _KEY.sub("-", str(item.get("key", "")).lower()).strip("-")[:64]
        if key and item["text"].strip():
            facts.append(ExtractedFact(key, {"fact": key, "text": item["text"].strip()[:1000], "extractor": label}))
    if not facts and reply.strip() not in ("", "[]"):
        logger.info("the model's reply held no facts")
    return facts
