"""The extraction model port's adapters (docs/adr/0051): `OFFPROMPT_EXTRACTION_MODEL` =

- `openai:<model>`: any OpenAI-compatible Chat Completions endpoint (`OFFPROMPT_EXTRACTION_BASE_URL`: OpenAI, Ollama's
  `/v1`, vLLM), key `OFFPROMPT_EXTRACTION_API_KEY`; standard-library HTTP; structured output (`response_format`
  `json_schema`, name `memory_operations`); a timeout per attempt, retries with exponential backoff on timeouts,
  refused connections, 408/429/5xx;
- `bedrock:<model id>`: Bedrock Converse (boto3; its endpoint from `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` when set);
- `rules`: the LOCAL RULE-BASED STAND-IN (not a model), labelled as such in every record's provenance: a few sentence
  shapes ("my name is X", "I like Y", "I live in Z", "I work on W") made into operations, consolidated with what the
  namespace holds (same words: noop; other words: update).
Every one answers the same contract (`memory.extraction.parse_operations` checks it); none interprets it.
"""

from __future__ import annotations

import json
import re
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from offprompt.memory.extraction import OPERATIONS_SCHEMA
from offprompt.ports import ModelAnswer, ModelRequest, ModelUnavailable

from .aws_errors import failure_reason
from .bedrock import BedrockModel, reply_text

#: Status codes worth another attempt (the rest are the request's or the key's fault: retrying changes nothing).
RETRIED_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_TOKENS = 2048


class OpenAIChatModel:
    """Chat Completions over HTTP (urllib), one POST per attempt."""

    def __init__(
        self,
        model: str,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float = 30.0,
        attempts: int = 3,
        backoff: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.model = model
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.api_key = api_key
        self.timeout = timeout
        self.attempts = attempts
        self.backoff = backoff
        self.sleep = sleep
        self.label = f"openai:{model}"

    def complete(self, request: ModelRequest) -> ModelAnswer:
        body = json.dumps(
            {
                "model": self.model,
                "temperature": 0,
                "max_tokens": MAX_TOKENS,
                "messages": [
                    {"role": "system", "content": request.system},
                    {"role": "user", "content": request.user},
                ],
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "memory_operations", "strict": True, "schema": OPERATIONS_SCHEMA},
                },
            }
        ).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        failure = "no attempt"
        for attempt in range(self.attempts):
            if attempt:
                self.sleep(self.backoff * 2 ** (attempt - 1))
            try:
                post = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
                with urllib.request.urlopen(post, timeout=self.timeout) as answer:
                    return _chat_answer(answer.read())
            except urllib.error.HTTPError as exc:
                failure = f"HTTP {exc.code}"
                if exc.code not in RETRIED_STATUS:
                    break
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                failure = "timed out" if isinstance(reason, TimeoutError | socket.timeout) else type(reason).__name__
        raise ModelUnavailable(f"{self.label} did not answer after {self.attempts} attempts ({failure})")


def _chat_answer(raw: bytes) -> ModelAnswer:
    """A Chat Completions answer's message text and token counts; an answer of another shape is its raw text (the
    caller's validation reports it as malformed: nothing is written)."""
    try:
        parsed = json.loads(raw)
        text = parsed["choices"][0]["message"]["content"] or ""
        usage = parsed.get("usage") or {}
        return ModelAnswer(str(text), int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0)))
    except (ValueError, KeyError, IndexError, TypeError):
        return ModelAnswer(raw.decode("utf-8", "replace")[:2000])


class BedrockConverseModel(BedrockModel):
    """Bedrock Converse: the system prompt, one user message, the reply's text blocks joined."""

    def __init__(self, model_id: str, client: Any | None = None) -> None:
        super().__init__(model_id, client)
        self.label = f"bedrock:{model_id}"

    def complete(self, request: ModelRequest) -> ModelAnswer:
        try:
            out = self.client.converse(
                modelId=self.model_id,
                system=[{"text": request.system}],
                messages=[{"role": "user", "content": [{"text": request.user}]}],
                inferenceConfig={"maxTokens": MAX_TOKENS, "temperature": 0.0},
            )
        except (ClientError, BotoCoreError) as exc:
            raise ModelUnavailable(f"{self.label} did not answer ({failure_reason(exc)})") from exc
        usage = out.get("usage") or {}
        return ModelAnswer(reply_text(out), int(usage.get("inputTokens", 0)), int(usage.get("outputTokens", 0)))


#: The rule-based stand-in's label: in every record it writes (provenance `model`).
RULES_LABEL = "rules: local rule-based stand-in (not a model)"
_END = r"(?P<what>[^.!?\n,;]{1,80})"
RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("name", re.compile(r"\bmy name is " + _END, re.IGNORECASE)),
    ("likes", re.compile(r"\bi (?:really )?(?:like|love|prefer|enjoy) " + _END, re.IGNORECASE)),
    ("lives-in", re.compile(r"\bi live in " + _END, re.IGNORECASE)),
    ("works-on", re.compile(r"\bi work (?:on|at|for) " + _END, re.IGNORECASE)),
)
_SLUG = re.compile(r"[^a-z0-9]+")


def rule_facts(text: str) -> dict[str, tuple[str, str]]:
    """The facts the rules find in `text`: key → (kind, what). One per name / place; one per liked thing."""
    facts: dict[str, tuple[str, str]] = {}
    for kind, pattern in RULES:
        for match in pattern.finditer(text):
            what = match.group("what").strip()
            if what:
                key = kind if kind != "likes" else f"likes-{_SLUG.sub('-', what.lower()).strip('-')[:48]}"
                facts[key] = (kind, what)
    return facts


class RulesModel:
    """LOCAL ONLY: the rule-based stand-in for a model (`OFFPROMPT_EXTRACTION_MODEL=rules`, `make dev`'s default)."""

    label = RULES_LABEL

    def complete(self, request: ModelRequest) -> ModelAnswer:
        known = dict(request.known)
        operations: dict[str, dict[str, Any]] = {}
        for run_id, text in request.turns:
            user = "\n".join(line[6:] for line in text.splitlines() if line.startswith("User: "))
            for key, (_kind, what) in rule_facts(user).items():
                op = "noop" if known.get(key) == what else ("update" if key in known else "add")
                operations[key] = {"op": op, "key": key, "text": what, "source_run_ids": [run_id]}
        return ModelAnswer(json.dumps({"operations": list(operations.values())}))
