"""A scripted server speaking the Bedrock Rerank API's wire format (`POST /rerank`, JSON over HTTP, rest-json errors:
the status and `x-amzn-ErrorType`), for real boto3 pointed at it (`endpoint_url`, or botocore's
AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME). It records every request and answers what the test scripts: by default
each document's score is how many of the query's words its text holds (a model that reads the texts)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: (status, JSON body, headers) the server answers a request's decoded body with.
Answer = tuple[int, Any, dict[str, str]]


def word_overlap(request: dict[str, Any]) -> Answer:
    """Each document scored by the query's words it holds (ties: the order sent), best first."""
    words = set(re.findall(r"\w+", request["queries"][0]["textQuery"]["text"].lower()))
    texts = [s["inlineDocumentSource"]["textDocument"]["text"].lower() for s in request["sources"]]
    scores = [len(words & set(re.findall(r"\w+", t))) / (len(words) or 1) for t in texts]
    order = sorted(range(len(texts)), key=lambda i: (-scores[i], i))
    n = request["rerankingConfiguration"]["bedrockRerankingConfiguration"].get("numberOfResults", len(texts))
    return 200, {"results": [{"index": i, "relevanceScore": scores[i]} for i in order[:n]]}, {}


def aws_error(status: int, code: str, message: str = "scripted") -> Answer:
    return status, {"message": message}, {"x-amzn-ErrorType": f"{code}:http://internal.amazon.com/coral/"}


@dataclass
class RerankServer:
    url: str
    answer: Callable[[dict[str, Any]], Answer] = word_overlap
    requests: list[dict[str, Any]] = field(default_factory=list)  # {"path", "headers", "body"}

    def bodies(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests]


@contextmanager
def rerank_server() -> Iterator[RerankServer]:
    state = RerankServer("")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = json.loads(raw or b"null")
            state.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            status, out, headers = state.answer(body)
            data = out if isinstance(out, bytes) else json.dumps(out).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
