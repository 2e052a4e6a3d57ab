"""console: the memory console's static files (docs/adr/0038-memory-console.md).

- `GET /console` → the page (HTML)
- `GET /console/{asset}` → one of its files (`app.js`, `app.css`); any other name is a 404 `not_found`

No credentials on these routes: the page holds no data. It signs in with an API key (or, on the local stack, a
tenant name sent as the local tenant header), keeps it in memory only and calls the existing API routes with it.
Every answer carries a strict Content-Security-Policy (no inline script or style, same-origin connections only),
`X-Content-Type-Options: nosniff` and a Cache-Control: the page is revalidated on every load and names its files
with a version (a digest of their bytes), so the files may be cached. HTTP only (no direct invocation).
"""

from __future__ import annotations

import functools
import hashlib
from http import HTTPStatus
from pathlib import Path as FilePath
from typing import Annotated, Any

from api_common.coldstart import release
from api_common.entry import is_http_event, routable
from api_common.errors import error_responses
from api_common.powertools import Path, Response
from api_common.routes import FunctionRoutes
from api_common.scope_rules import PUBLIC
from offprompt.errors import InvalidInput, NotFound

ASSETS = FilePath(__file__).resolve().parent / "assets"
#: The files the page loads, and their media types; nothing else under assets/ is served.
FILES = {"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"}
PAGE = "index.html"
#: Replaced in index.html by the files' version, so a deploy's new files are never read from a stale cache.
VERSION_MARK = "__VERSION__"
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob: https:",  # stored images inline (data:), big ones through presigned links
        "media-src 'self' data: blob: https:",
        "connect-src 'self'",  # the API this page is served by, nothing else
        "form-action 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
        "object-src 'none'",
    )
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
}
PAGE_CACHE = "no-cache"
FILE_CACHE = "public, max-age=86400"

routes = FunctionRoutes("console")


@functools.cache
def _read(name: str) -> bytes:
    return (ASSETS / name).read_bytes()


def version() -> str:
    """A digest of the files the page loads (the `?v=` of their URLs)."""
    return hashlib.sha256(b"".join(_read(name) for name in sorted(FILES))).hexdigest()[:16]


def _answer(body: str, content_type: str, cache: str) -> Response[Any]:
    headers = {**SECURITY_HEADERS, "Cache-Control": cache}
    return Response(status_code=HTTPStatus.OK, content_type=content_type, body=body, headers=headers)


@routes.get(
    "/console",
    scope=PUBLIC,
    summary="The memory console (HTML; no credentials: it signs in with an API key and calls this API)",
    responses={200: {"description": "The console's page", "content": {"text/html": {}}}, **error_responses()},
)
def get_page() -> Response[Any]:
    page = _read(PAGE).decode("utf-8").replace(VERSION_MARK, version())
    return _answer(page, "text/html; charset=utf-8", PAGE_CACHE)


@routes.get(
    "/console/{asset}",
    scope=PUBLIC,
    summary="One of the console's files (app.js, app.css)",
    responses={
        200: {"description": "The file", "content": {"text/javascript": {}, "text/css": {}}},
        **error_responses(404),
    },
)
def get_asset(asset: Annotated[str, Path()]) -> Response[Any]:
    name = routes.param("asset", asset)
    if name not in FILES:
        raise NotFound(f"the console has no file {name[:100]!r}")
    return _answer(_read(name).decode("utf-8"), FILES[name], FILE_CACHE)


def lambda_handler(event: dict[str, Any], context: Any) -> Any:
    """The routes above and nothing else: no credentials reach this function (its routes have no authorizer), so
    it never takes the hosted path (admission, usage) the data routes take, and needs no AWS permission."""
    try:
        if not is_http_event(event):
            raise InvalidInput("this function only serves HTTP events")
        return routes.app().resolve(routable(event), context)
    finally:
        release()  # the first invocation ends the cold start's hold on the collector (docs/adr/0065)


register = routes.register
