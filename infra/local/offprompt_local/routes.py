"""The HTTP API's route table, in one place: the dev server serves it and template.yaml must declare it.

Each route is (method, path template with `{param}` segments, function). `function` is the directory under
`functions/`; its handler is `<function>.handler.lambda_handler`, exactly what template.yaml's
`Handler:` names (with `CodeUri: functions/`). `tests/infrastructure` compares this table with the
template's `HttpApi` events, so neither can drift from the other.

Pure data and pure functions: importing this module does nothing.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from functools import cached_property

HANDLER_ATTRIBUTE = "lambda_handler"
_PARAM = re.compile(r"^\{([A-Za-z_][A-Za-z0-9_]*)\}$")


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    function: str

    @property
    def route_key(self) -> str:
        """API Gateway's routeKey, e.g. "POST /threads/{thread_id}/runs"."""
        return f"{self.method} {self.path}"

    @property
    def module(self) -> str:
        return f"{self.function}.handler"

    @property
    def handler(self) -> str:
        """The `Handler:` value in template.yaml."""
        return f"{self.module}.{HANDLER_ATTRIBUTE}"

    @cached_property
    def segments(self) -> tuple[str, ...]:
        return tuple(self.path.strip("/").split("/"))

    @property
    def parameters(self) -> tuple[str, ...]:
        return tuple(m.group(1) for s in self.segments if (m := _PARAM.match(s)))

    def match(self, method: str, raw_path: str) -> dict[str, str] | None:
        """Path parameters (URL-decoded) when `method` and the still-encoded `raw_path` match, else None.

        Like API Gateway, a `{param}` matches exactly one non-empty segment, literal segments match exactly
        and matching happens before decoding (so `%2F` stays inside its segment).
        """
        if method != self.method:
            return None
        parts = raw_path.strip("/").split("/") if raw_path.strip("/") else []
        if len(parts) != len(self.segments):
            return None
        params: dict[str, str] = {}
        for template, part in zip(self.segments, parts, strict=True):
            param = _PARAM.match(template)
            if param:
                if not part:
                    return None
                params[param.group(1)] = urllib.parse.unquote(part)
            elif urllib.parse.unquote(part) != template:
                return None
        return params


ROUTES: tuple[Route, ...] = (
    # conversation memory
    Route("POST", "/threads/{thread_id}/runs", "add_run"),
    Route("GET", "/threads/{thread_id}/runs", "threads"),
    Route("POST", "/threads/{thread_id}/prompt-stack", "prompt_stack"),
    Route("GET", "/threads/{thread_id}", "threads"),
    Route("PUT", "/threads/{thread_id}", "threads"),
    Route("DELETE", "/threads/{thread_id}", "threads"),
    # Griptape Cloud-compatible Threads API (docs/adr/0012-griptape-threads-api.md)
    Route("POST", "/api/threads", "cloud_threads"),
    Route("GET", "/api/threads", "cloud_threads"),
    Route("GET", "/api/threads/{thread_id}", "cloud_threads"),
    Route("PATCH", "/api/threads/{thread_id}", "cloud_threads"),
    Route("DELETE", "/api/threads/{thread_id}", "cloud_threads"),
    Route("GET", "/api/threads/{thread_id}/messages", "cloud_threads"),
    # task memory
    Route("POST", "/memories/{memory_name}/outputs", "process_output"),
    Route("POST", "/memories/{memory_name}/uploads", "process_output"),
    Route("GET", "/memories/{memory_name}/namespaces/{namespace}/artifacts", "load_artifacts"),
    Route("GET", "/memories/{memory_name}/namespaces", "memories"),
    Route("GET", "/memories/{memory_name}/namespaces/{namespace}", "memories"),
    Route("DELETE", "/memories/{memory_name}/namespaces/{namespace}", "memories"),
    Route("POST", "/memories/{memory_name}/namespaces/{namespace}/search", "memories"),
    Route("GET", "/memories/{memory_name}/meta", "memories"),
    # hosted mode: the caller's own API keys and usage (docs/adr/0022-api-keys.md, 0023)
    Route("POST", "/keys", "account"),
    Route("GET", "/keys", "account"),
    Route("DELETE", "/keys/{key_id}", "account"),
    Route("GET", "/usage", "account"),
    # the tenant's own data: export and erase (docs/adr/0024-tenant-export-erase.md)
    Route("POST", "/export", "tenant_data"),
    Route("DELETE", "/tenant", "tenant_data"),
)

#: Functions that serve no HTTP route (invoked by DynamoDB Streams, the async path or Step Functions only).
NON_HTTP_FUNCTIONS: tuple[str, ...] = ("summarizer",)

#: The HTTP API's Lambda REQUEST authorizer (AuthMode=apikey); the dev server runs it for `Bearer op_...`.
AUTHORIZER_FUNCTION = "authorizer"


def functions() -> tuple[str, ...]:
    """Every function that serves HTTP routes, in table order, without duplicates."""
    return tuple(dict.fromkeys(route.function for route in ROUTES))


def routes_by_function() -> dict[str, tuple[Route, ...]]:
    return {name: tuple(r for r in ROUTES if r.function == name) for name in functions()}


def allowed_methods(raw_path: str, routes: tuple[Route, ...] = ROUTES) -> tuple[str, ...]:
    """Every method some route serves at `raw_path` (a 405's `Allow`); empty for an unknown path."""
    return tuple(sorted({r.method for r in routes if r.match(r.method, raw_path) is not None}))


def find_route(method: str, raw_path: str) -> tuple[Route, dict[str, str]] | None:
    """The route serving `method raw_path` and its decoded path parameters, or None (API Gateway's 404)."""
    for route in ROUTES:
        params = route.match(method, raw_path)
        if params is not None:
            return route, params
    return None
