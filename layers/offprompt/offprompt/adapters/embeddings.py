"""The `Embedder` port over Amazon Titan Text Embeddings V2 (bedrock-runtime `invoke_model`).

Titan V2 embeds one text per call, so `embed(texts)` makes one call per text, `max_workers` at a time
(boto3 clients are thread-safe). Vectors are normalized by the model (`"normalize": true`), which is what
the index's cosine space expects anyway. Any Bedrock failure (throttling, timeouts, access, a bad model id)
is a `DependencyUnavailable`: the text store writes nothing for a batch whose embeddings failed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from offprompt import deadline
from offprompt.config import ConfigurationError
from offprompt.errors import DependencyUnavailable, InvalidInput

TITAN_V2 = "amazon.titan-embed-text-v2:0"
TITAN_V2_DIMENSIONS = (256, 512, 1024)
#: Titan V2 accepts at most 50,000 characters (and 8,192 tokens) per input.
MAX_INPUT_CHARS = 50_000


def refuse_unembeddable(texts: Sequence[str]) -> None:
    """Titan's input rule, which every `Embedder` keeps (the local stand-ins too, so a text the deployed stack would
    refuse is refused locally): a non-empty text of at most MAX_INPUT_CHARS characters."""
    for text in texts:
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("cannot embed an empty text")
        if len(text) > MAX_INPUT_CHARS:
            raise InvalidInput(f"cannot embed a text longer than {MAX_INPUT_CHARS} characters")


class BedrockTitanEmbedder:
    def __init__(
        self,
        model_id: str = TITAN_V2,
        dimensions: int = 1024,
        client: Any | None = None,
        *,
        max_workers: int = 8,
    ) -> None:
        if model_id.startswith("amazon.titan-embed-text-v2") and dimensions not in TITAN_V2_DIMENSIONS:
            raise ConfigurationError(f"{model_id} supports dimensions {TITAN_V2_DIMENSIONS}, not {dimensions}")
        if max_workers < 1:
            raise ConfigurationError("max_workers must be at least 1")
        self.model_id = model_id
        self.dimensions = dimensions
        self.max_workers = max_workers
        self._client = client

    def __repr__(self) -> str:
        return f"BedrockTitanEmbedder(model_id={self.model_id!r}, dimensions={self.dimensions})"

    @property
    def client(self) -> Any:
        if self._client is None:
            from offprompt.adapters.clients import aws_client

            self._client = aws_client("bedrock-runtime")
        return self._client

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        refuse_unembeddable(texts)
        if len(texts) <= 1 or self.max_workers == 1:
            return [self._embed_one(text) for text in texts]
        with ThreadPoolExecutor(max_workers=min(self.max_workers, len(texts))) as pool:
            return list(pool.map(deadline.bind(self._embed_one), texts))

    def _embed_one(self, text: str) -> list[float]:
        from botocore.exceptions import BotoCoreError, ClientError

        body = json.dumps({"inputText": text, "dimensions": self.dimensions, "normalize": True})
        try:
            response = self.client.invoke_model(
                modelId=self.model_id, body=body, contentType="application/json", accept="application/json"
            )
            payload = json.loads(response["body"].read())
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "ClientError")
            raise DependencyUnavailable(
                f"Bedrock embedding ({self.model_id}) failed: {code}", details={"error": code}
            ) from exc
        except (BotoCoreError, ValueError, KeyError) as exc:
            raise DependencyUnavailable(f"Bedrock embedding ({self.model_id}) failed: {type(exc).__name__}") from exc
        vector = payload.get("embedding") if isinstance(payload, dict) else None
        if (
            not isinstance(vector, list)
            or len(vector) != self.dimensions
            or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in vector)
        ):
            raise DependencyUnavailable(
                f"Bedrock embedding ({self.model_id}) returned no {self.dimensions}-dimensional vector"
            )
        return [float(x) for x in vector]
