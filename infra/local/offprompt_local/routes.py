"""The HTTP API's route table as the dev server serves it: derived from the routes the functions declare
(`api_common.routes.FunctionRoutes`, on each handler's route functions), never written down a second time.

Each route is (method, path template with `{param}` segments, function). `function` is the directory under
`functions/`; its handler is `<function>.handler.lambda_handler`, exactly what template.yaml's `Handler:` names
(with `CodeUri: functions/`). `make routes` (`routegen.py`) writes template.yaml's `HttpApi` events and the sample
events under `events/` from the same declarations; `tests/infrastructure/test_routes_match.py` checks them.

Importing this module does nothing: `ROUTES` imports the handler modules the first time it is read.
"""

from __future__ import annotations

import functools
import importlib
import re
import urllib.parse
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

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
        """Path parameters when `method` and the still-encoded `raw_path` match, else None.

        Like API Gateway's HTTP API, the path is percent-decoded once before it is matched, so `%2F` is a separator:
        `/threads/a%2Fb` is `/threads/a/b`, which no route matches (a 404; ADR 0014), and `/threads/%2F` is not
        `/threads` (the listing): only the request's own leading and trailing "/" are dropped. A `{param}` matches
        exactly one non-empty segment and takes its decoded value; literal segments match exactly.
        """
        if method != self.method:
            return None
        raw = raw_path.removeprefix("/")
        raw = raw.removesuffix("/")  # one trailing "/" of the request is ignored; one that "%2F" decodes to is not
        decoded = urllib.parse.unquote(raw)
        parts = decoded.split("/") if decoded else []
        if len(parts) != len(self.segments):
            return None
        params: dict[str, str] = {}
        for template, part in zip(self.segments, parts, strict=True):
            param = _PARAM.match(template)
            if param:
                if not part:
                    return None
                params[param.group(1)] = part
            elif part != template:
                return None
        return params


#: Functions with a `handler.py` that serve no HTTP route (invoked by DynamoDB Streams, the API Gateway authorizer
#: or Step Functions only).
FUNCTIONS_DIR = Path(__file__).resolve().parents[3] / "functions"


@functools.cache
def declared_routes() -> tuple[Route, ...]:
    """Every route the functions declare, in the order of their directories and declarations."""
    found: list[Route] = []
    for handler in sorted(FUNCTIONS_DIR.glob("*/handler.py")):
        module = importlib.import_module(f"{handler.parent.name}.handler")
        declared = getattr(module, "routes", None)
        for spec in getattr(declared, "specs", ()):
            found.append(Route(spec.method, spec.path, spec.function))
    return tuple(found)


def __getattr__(name: str) -> Any:
    if name == "ROUTES":
        return declared_routes()
    raise AttributeError(name)


#: Functions that serve no HTTP route (invoked by DynamoDB Streams, the async path or Step Functions only).
NON_HTTP_FUNCTIONS: tuple[str, ...] = ("summarizer", "memory_events", "example_extractor", "conversation_index")

#: Functions whose routes need no credentials: the console's static files (the page holds no data; docs/adr/0038).
#: template.yaml gives their paths `security: []`; the dev server serves them to anyone, as API Gateway does.
PUBLIC_FUNCTIONS: tuple[str, ...] = ("console",)

#: The HTTP API's Lambda REQUEST authorizer (AuthMode=apikey); the dev server runs it for `Bearer op_...`.
AUTHORIZER_FUNCTION = "authorizer"


def functions() -> tuple[str, ...]:
    """Every function that serves HTTP routes, in table order, without duplicates."""
    return tuple(dict.fromkeys(route.function for route in declared_routes()))


def routes_by_function() -> dict[str, tuple[Route, ...]]:
    return {name: tuple(r for r in declared_routes() if r.function == name) for name in functions()}


def allowed_methods(raw_path: str, routes: tuple[Route, ...] | None = None) -> tuple[str, ...]:
    """Every method some route serves at `raw_path` (a 405's `Allow`); empty for an unknown path."""
    table = declared_routes() if routes is None else routes
    return tuple(sorted({r.method for r in table if r.match(r.method, raw_path) is not None}))


def find_route(method: str, raw_path: str) -> tuple[Route, dict[str, str]] | None:
    """The route serving `method raw_path` and its decoded path parameters, or None (API Gateway's 404)."""
    for route in declared_routes():
        params = route.match(method, raw_path)
        if params is not None:
            return route, params
    return None
