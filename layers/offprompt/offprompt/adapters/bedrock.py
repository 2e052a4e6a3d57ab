"""Amazon Bedrock adapters (Converse API). The client is injected (botocore Stubber in tests) or built lazily."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from offprompt.errors import DependencyUnavailable

from .aws_errors import failure_reason
from .clients import aws_client


class BedrockSummarizer:
    """The `Summarizer` port: one Converse call with Griptape's rendered summarize-conversation prompt.

    The prompt is sent as a single user message, as Griptape's SummaryConversationMemory does
    (`prompt_driver.run(PromptStack([Message(text, role="user")]))`); the reply's text blocks are joined.
    """

    def __init__(self, model_id: str, client: Any | None = None, *, max_tokens: int = 1024) -> None:
        self.model_id = model_id
        self.max_tokens = max_tokens
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = aws_client("bedrock-runtime")
        return self._client

    def summarize(self, prompt: str) -> str:
        try:
            out = self.client.converse(
                modelId=self.model_id,
                messages=[{"role": "user", "content": [{"text": prompt}]}],
                inferenceConfig={"maxTokens": self.max_tokens, "temperature": 0.0},
            )
        except (ClientError, BotoCoreError) as exc:
            raise DependencyUnavailable(f"Bedrock converse failed: {failure_reason(exc)}") from exc
        content = ((out.get("output") or {}).get("message") or {}).get("content") or []
        text = "".join(block["text"] for block in content if isinstance(block, dict) and "text" in block)
        if not text.strip():
            raise DependencyUnavailable("Bedrock converse returned no text")
        return text
