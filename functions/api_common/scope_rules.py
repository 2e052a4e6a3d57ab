"""Each route's scope rule, declared with the route (`routes.get(..., scope=read("threads", path="thread_id"))`),
and the one place a scoped key's or token's request is checked against it (docs/keys.md, docs/adr/0055).

- `ADMIN`: the tenant's own business (keys, usage, export, erase, extraction strategies): an unscoped key only.
- `PUBLIC`: no tenant data (the console's static files, `GET /mcp`'s refusal).
- `read`/`write(family, path=..., body=...)`: the resources the request names, by its decoded path parameters and
  its body's fields, must all be in the scope; a body field left out (the server picks the id) and `write(family)`
  naming none need the whole family.
- `listing(family, items=..., key=...)`: allowed; the answer's `items` keep only what is in the scope (a listing
  or a search is filtered, never refused for the whole call), and the request's own prefix field is narrowed to
  the scope's where it has one.
- `TOOLS`: the MCP endpoint: each tool has its rule (`mcp_server/handler.py` `TOOL_SCOPES`).

A single resource outside the scope answers 403 `scope_denied`, on every route and tool; the decision is made on
the names alone, before anything is read, so it tells nothing about what exists.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from offprompt.errors import ScopeDenied
from offprompt.memory.records import parse_path
from offprompt.services.account.scopes import Action, Family, Scope, require, require_unscoped

Kind = Literal["admin", "public", "resource", "listing", "tools", "token"]


@dataclass(frozen=True)
class ScopeRule:
    kind: Kind
    family: Family | None = None
    action: Action = "read"
    path: tuple[str, ...] = ()  # path parameters naming a resource of `family`
    body: tuple[str, ...] = ()  # body fields naming one (checked when present)
    items: str | None = None  # a listing's list field in the answer
    key: str | None = None  # the field of each listed item naming its resource (None: the item itself)
    narrow: str | None = None  # a listing request's prefix field (body, or query for a GET) narrowed to the scope's

    def check(self, scope: Scope | None, event: dict[str, Any]) -> None:
        """ScopeDenied when the request reaches outside `scope` (None: unscoped, anything goes)."""
        if scope is not None and self.kind == "resource":
            named = [self._resource(_path_parameter(event, name)) for name in self.path]
            require(scope, self._family(), self.action, *named)
        self.check_fields(scope, _body(event) if self.body else {})

    def check_fields(self, scope: Scope | None, fields: dict[str, Any]) -> None:
        """`check` for a request's fields alone (a body, an MCP tool's arguments)."""
        if scope is None or self.kind in ("public", "tools", "token"):
            return  # a token route's use case checks the key named and the scope asked (services/account/tokens.py)
        if self.kind == "admin":
            require_unscoped(scope, "this route")
        elif self.kind == "listing":  # filtered (`filtered`, `keep`), never refused for what it lists
            if not scope.can("read"):
                raise ScopeDenied("this key may not read")
        else:  # a body field that names nothing leaves the server to pick the id: only the whole family may
            for name in self.body or (() if self.path else ("",)):
                value = fields.get(name) if name else None
                require(scope, self._family(), self.action, *([] if value is None else [self._resource(value)]))

    def _family(self) -> Family:
        assert self.family is not None
        return self.family

    def _resource(self, value: Any) -> str | Sequence[str]:
        if self.family == "records":
            if isinstance(value, list):
                return [str(v) for v in value]
            return parse_path(str(value))  # the path form, as the use case parses it
        if not isinstance(value, str):
            raise ScopeDenied(f"outside this key's scope ({self.family})")
        return value

    def narrowed(self, scope: Scope | None, event: dict[str, Any]) -> dict[str, Any]:
        """The event with a listing's prefix narrowed to the scope's (a wider or absent prefix becomes the scope's);
        a prefix outside the scope is left as asked: the filter answers nothing of it."""
        if scope is None or self.kind != "listing" or self.narrow is None:
            return event
        if event.get("requestContext", {}).get("http", {}).get("method") == "GET":
            query = dict(event.get("queryStringParameters") or {})
            narrowed = self.narrow_fields(scope, query)
            if narrowed is query:
                return event
            from urllib.parse import urlencode

            return {**event, "queryStringParameters": narrowed, "rawQueryString": urlencode(narrowed)}
        body = _body(event)
        narrowed = self.narrow_fields(scope, body)
        if narrowed is body:
            return event
        # a request, not an answer: a NaN stays for the route's own validation to refuse (ADR 0044)
        return {**event, "body": json.dumps(narrowed), "isBase64Encoded": False}

    def narrow_fields(self, scope: Scope | None, fields: dict[str, Any]) -> dict[str, Any]:
        """`fields` with the listing's prefix field narrowed to the scope's, else `fields` itself."""
        reach = getattr(scope, self.family or "", None) if scope is not None and self.narrow else None
        if reach is None or self.narrow is None:
            return fields
        asked = fields.get(self.narrow)
        mine: Any = list(reach.namespace_prefix) if self.family == "records" else reach.prefix
        asked = asked if asked is not None else mine[:0]
        if isinstance(asked, type(mine)) and len(asked) < len(mine) and mine[: len(asked)] == asked:
            return {**fields, self.narrow: mine}
        return fields

    def filtered(self, scope: Scope | None, result: Any) -> Any:
        """A listing's answer keeping only what `scope` reaches."""
        if scope is None or self.kind != "listing" or not isinstance(result, dict) or self.family is None:
            return result
        if int(result.get("statusCode") or 0) >= 300 or not result.get("body"):
            return result
        try:
            answer = json.loads(result["body"])
        except ValueError:
            return result
        listed = answer.get(self.items) if isinstance(answer, dict) and self.items else None
        if not isinstance(listed, list):
            return result
        kept = self.keep(scope, listed)
        body = json.dumps({**answer, self.items: kept}, allow_nan=False)  # an answer: valid JSON only
        return {**result, "body": body, "isBase64Encoded": False}

    def keep(self, scope: Scope | None, listed: list[Any]) -> list[Any]:
        """The listed items `scope` reaches (each named by its `key` field, or itself)."""
        if scope is None:
            return listed
        return [item for item in listed if scope.reaches(self._family(), self._listed(item))]

    def _listed(self, item: Any) -> Any:
        value = item.get(self.key) if self.key is not None and isinstance(item, dict) else item
        if self.family == "records":
            return value if isinstance(value, list) else ""
        return value if isinstance(value, str) else [""]


def _path_parameter(event: dict[str, Any], name: str) -> str:
    """The decoded path parameter the handler uses (`routes.param`); without one the request is refused."""
    value = (event.get("pathParameters") or {}).get(name)
    if not isinstance(value, str):
        raise ScopeDenied("outside this key's scope")
    return value


def _body(event: dict[str, Any]) -> dict[str, Any]:
    """The JSON body as an object ({} when it is none: the route's own validation answers that)."""
    raw = event.get("body")
    if not raw:
        return {}
    if event.get("isBase64Encoded"):
        import base64

        try:
            raw = base64.b64decode(raw).decode("utf-8")
        except ValueError:
            return {}
    try:
        body = json.loads(raw)
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


ADMIN = ScopeRule("admin")
PUBLIC = ScopeRule("public")
TOOLS = ScopeRule("tools")
TOKEN = ScopeRule("token")


def read(family: Family, *, path: str | tuple[str, ...] = (), body: str | tuple[str, ...] = ()) -> ScopeRule:
    return ScopeRule("resource", family, "read", _names(path), _names(body))


def write(family: Family, *, path: str | tuple[str, ...] = (), body: str | tuple[str, ...] = ()) -> ScopeRule:
    return ScopeRule("resource", family, "write", _names(path), _names(body))


def listing(family: Family, *, items: str, key: str | None, narrow: str | None = None) -> ScopeRule:
    return ScopeRule("listing", family, "read", items=items, key=key, narrow=narrow)


def _names(value: str | tuple[str, ...]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else value
