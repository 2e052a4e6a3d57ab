"""Shared by the extraction tests (tests/integration/extraction): a scripted OpenAI-compatible Chat Completions
server (a real HTTP server on a free port: each request is answered by the test's script), a delayed-check recorder,
and the conversation the tests feed. A module of its own, not the conftest (see records_support)."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from fakes.record_index import InMemoryRecordIndex
from records_support import Clock

from offprompt.adapters.dynamodb_account import DynamoDbAccountStore
from offprompt.adapters.dynamodb_extraction import DynamoDbExtractionStore
from offprompt.adapters.dynamodb_records import DynamoDbRecordStore
from offprompt.adapters.dynamodb_runs import DynamoDbRunStore
from offprompt.adapters.s3 import S3RecordBodies, S3RunBodies
from offprompt.ports import ExtractionModel
from offprompt.services.extraction.context import Extractions
from offprompt.services.records.context import Records

TABLE = "offprompt-extraction-test"
BUCKET = "offprompt-extraction-bucket"

#: A script: the request's JSON → (status, body); a body that is a dict is sent as JSON, a str as it is.
Script = Callable[[dict[str, Any]], tuple[int, Any]]


class ScriptedModel:
    """An OpenAI-compatible `/v1/chat/completions` on 127.0.0.1 whose answers the test scripts."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.delay = 0.0  # seconds each answer waits (a model slower than the client's timeout)
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                model.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
                if model.delay:
                    time.sleep(model.delay)
                status, answer = model.script(body)
                data = (json.dumps(answer) if not isinstance(answer, str) else answer).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout)
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def completion(content: str, prompt_tokens: int = 100, completion_tokens: int = 20) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
    }


def operations(*ops: dict[str, Any]) -> str:
    return json.dumps({"operations": list(ops)})


def known_of(request: dict[str, Any]) -> dict[str, str]:
    """What the prompt says the namespace already holds: key → text."""
    user = request["messages"][-1]["content"]
    section = user.split("Already known:\n", 1)[1].split("\n\nNew conversation:", 1)[0]
    return dict(re.findall(r"^- ([^:]+): (.*)$", section, re.MULTILINE))


def turns_of(request: dict[str, Any]) -> list[tuple[str, str]]:
    """The new runs of the prompt: (run id, text)."""
    user = request["messages"][-1]["content"]
    section = user.split("\n\nNew conversation:\n", 1)[1]
    return re.findall(r"^\[run ([^\]]+)\] (.*)$", section, re.MULTILINE)


class Deferred:
    """The delayed checks the runner asked for."""

    def __init__(self) -> None:
        self.messages: list[tuple[dict[str, Any], float]] = []

    def defer(self, message: dict[str, Any], seconds: float) -> None:
        self.messages.append((message, seconds))


def run_payload(run_id: str, said: str, answer: str = "Noted.") -> dict[str, Any]:
    def text(name: str, value: str) -> dict[str, Any]:
        return {"type": "TextArtifact", "id": name, "reference": None, "meta": {}, "name": name, "value": value}

    return {"type": "Run", "id": run_id, "meta": None, "input": text(f"in-{run_id}", said),
            "output": text(f"out-{run_id}", answer)}  # fmt: skip


def extractions(model: Callable[[], ExtractionModel], clock: Clock, deferred: Deferred) -> Extractions:
    """The runner's context on the real DynamoDB and S3 adapters, the in-memory record index and `model`."""
    records = Records(DynamoDbRecordStore(TABLE), S3RecordBodies(BUCKET), InMemoryRecordIndex(), clock=clock)
    return Extractions(
        DynamoDbExtractionStore(TABLE),
        DynamoDbRunStore(TABLE),
        S3RunBodies(BUCKET),
        records,
        model=model,
        account=DynamoDbAccountStore(TABLE),
        deferrer=deferred,
        clock=clock,
    )
