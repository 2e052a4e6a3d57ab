"""The smoke's HTTP client: `offprompt_client.OffpromptClient` that records which route each request reached, retries
a `429 rate_limited` (the plan's requests per second, never a quota) after a short pause, and names the request a
failure came from. Standard library only."""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from offprompt_client import OffpromptClient, OffpromptClientError, Response

#: Every route of the HTTP API (docs/openapi.json; tests/unit/test_smoke_tool.py keeps the two equal).
ROUTES: tuple[str, ...] = (
    "POST /threads/{thread_id}/runs",
    "GET /threads/{thread_id}/runs",
    "POST /threads/{thread_id}/prompt-stack",
    "GET /threads/{thread_id}",
    "PUT /threads/{thread_id}",
    "DELETE /threads/{thread_id}",
    "POST /threads/{thread_id}/fork",
    "POST /threads/search",
    "POST /api/threads",
    "GET /api/threads",
    "GET /api/threads/{thread_id}",
    "PATCH /api/threads/{thread_id}",
    "DELETE /api/threads/{thread_id}",
    "GET /api/threads/{thread_id}/messages",
    "POST /memories/{memory_name}/outputs",
    "POST /memories/{memory_name}/uploads",
    "GET /memories/{memory_name}/namespaces/{namespace}/artifacts",
    "GET /memories/{memory_name}/namespaces",
    "GET /memories/{memory_name}/namespaces/{namespace}",
    "DELETE /memories/{memory_name}/namespaces/{namespace}",
    "GET /memories/{memory_name}/meta",
    "POST /memories/{memory_name}/namespaces/{namespace}/search",
    "POST /keys",
    "GET /keys",
    "DELETE /keys/{key_id}",
    "GET /usage",
    "GET /audit",
    "POST /export",
    "DELETE /tenant",
    "PUT /records/{namespace}/{key}",
    "GET /records/{namespace}/{key}",
    "DELETE /records/{namespace}/{key}",
    "GET /records/{namespace}/{key}/history",
    "POST /records/search",
    "POST /records/namespaces",
    "PUT /extraction/strategies/{name}",
    "GET /extraction/strategies",
    "GET /extraction/strategies/{name}",
    "DELETE /extraction/strategies/{name}",
    "GET /threads/{thread_id}/extraction",
    "PUT /record-namespaces/{namespace}",
    "PUT /checkpoint-threads/{thread_id}/checkpoints/{checkpoint_id}",
    "PUT /checkpoint-threads/{thread_id}/checkpoints/{checkpoint_id}/writes",
    "GET /checkpoint-threads/{thread_id}/checkpoint",
    "POST /checkpoint-threads/{thread_id}/checkpoints/list",
    "DELETE /checkpoint-threads/{thread_id}",
    "POST /checkpoint-threads/{thread_id}/copy",
    "POST /checkpoint-threads/{thread_id}/prune",
    # The framework doors (ADR 0032, 0033): no smoke check drives them yet, so the summary names them as not exercised.
    "POST /threads/{thread_id}/items",
    "GET /threads/{thread_id}/items",
    "POST /threads/{thread_id}/items/pop",
    "POST /mcp",
    "GET /mcp",
    # The memory console (ADR 0038): GET /threads lists a tenant's threads; its static files need no credentials.
    "GET /threads",
    "GET /console",
    "GET /console/{asset}",
)
#: How often one request is retried after `429 rate_limited`, and the pause before each retry.
RATE_RETRIES = 8
RATE_PAUSE_S = 1.0
#: Error codes of answers no route gave: the route table's, admission's, API Gateway's own (no `code`: `http_<status>`).
UNROUTED = (
    "route_not_found",
    "method_not_allowed",
    "unauthenticated",
    "rate_limited",
    "http_401",
    "http_403",
    "http_404",
    "http_413",
)


def route_of(method: str, path: str) -> str | None:
    """The route (`METHOD /template`) an encoded request path reaches, or None when no route matches."""
    parts = urllib.parse.urlsplit(path).path.strip("/").split("/")
    for route in ROUTES:
        route_method, template = route.split(" ", 1)
        segments = template.strip("/").split("/")
        if route_method != method or len(segments) != len(parts):
            continue
        if all(s == p or (s.startswith("{") and p) for s, p in zip(segments, parts, strict=True)):
            return route
    return None


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    route: str | None
    status: int
    code: str = ""


class SmokeClient(OffpromptClient):
    """OffpromptClient recording `calls` (one per answer, retries included) and `rate_limited` retries."""

    def __init__(self, base_url: str, **options: Any) -> None:
        super().__init__(base_url, **options)
        self.calls: list[Call] = []
        self.rate_limited = 0
        self.last = ""

    def request(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        query: Mapping[str, Any] | None = None,
        data: bytes | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        self.last = f"{method} {urllib.parse.unquote(path)}"
        attempt = 0
        while True:
            try:
                response = super().request(method, path, json_body=json_body, query=query, data=data, headers=headers)
            except OffpromptClientError as error:
                self.calls.append(Call(method, path, route_of(method, path), error.status, error.code))
                if error.status == 429 and error.code == "rate_limited" and attempt < RATE_RETRIES:
                    attempt += 1
                    self.rate_limited += 1
                    time.sleep(RATE_PAUSE_S)
                    continue
                raise
            self.calls.append(Call(method, path, route_of(method, path), response.status))
            return response

    def routes_reached(self) -> set[str]:
        """The routes a request was answered by: a success, or an error of the route's own (not the route table's
        404 `route_not_found` / 405, nor an API Gateway answer without a code)."""
        return {
            call.route
            for call in self.calls
            if call.route is not None and (call.status < 400 or call.code not in UNROUTED)
        }
