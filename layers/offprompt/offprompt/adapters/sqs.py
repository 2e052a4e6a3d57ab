"""The extraction queue (SQS): the runner's delayed checks (docs/adr/0051). A message is `{"tenant", "thread_id"}`;
its delay is at most SQS's 15 minutes (a longer wait is asked again on arrival)."""

from __future__ import annotations

import json
from typing import Any

from .aws_errors import aws_call
from .clients import aws_client

MAX_DELAY_SECONDS = 900


class SqsDeferrer:
    def __init__(self, queue_url: str, client: Any | None = None) -> None:
        self.queue_url = queue_url
        self._client = client

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = aws_client("sqs")
        return self._client

    def defer(self, message: dict[str, Any], seconds: float) -> None:
        delay = max(0, min(MAX_DELAY_SECONDS, round(seconds)))
        with aws_call("SQS send_message"):
            self.client.send_message(QueueUrl=self.queue_url, MessageBody=json.dumps(message), DelaySeconds=delay)
