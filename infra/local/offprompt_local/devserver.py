"""A local stand-in for API Gateway's HTTP API: HTTP request → payload v2 event → the real Lambda handler.

Nothing else serves `HttpApi` (payload format 2.0) locally without Docker, so this is ~300 lines of stdlib:
`ThreadingHTTPServer` on 127.0.0.1, the route table from `routes.py`, and for every request the event API
Gateway would send (`version` "2.0", `routeKey`, decoded `rawPath` and `pathParameters`, lower-cased headers,
`cookies`, `queryStringParameters`, `requestContext`, base64 for non-text bodies) passed to the same
`<function>.handler.lambda_handler` Lambda runs, with a minimal Lambda context. The handler's result
(`statusCode`, `headers`, `cookies`, `body`, `isBase64Encoded`, or any plain JSON value) becomes the response.

What API Gateway and Lambda enforce, this enforces too: unknown route → 404, a body over 10 MB → 413, an event
over Lambda's 6 MB invocation limit → 413, a response over Lambda's 6 MB → 502, an exception → 500. Like Lambda,
an execution environment serves one request at a time and a concurrent request gets another environment: here an
environment is an instance of the handler module (its own resolver and module state), made on first need and
reused, so concurrent requests to one function overlap as they do deployed. Powertools keeps the event it
resolves on a class, one slot per process (a Lambda environment is a process); the dev server makes that slot
per thread (`isolate_powertools_requests`), so requests in flight at once never read each other's event or
tenant; its Metrics keep one set of metrics per process too, made per thread as well (`isolate_powertools_metrics`:
a request's flush neither takes nor races a stream poller's). One log line per request.

Clients that misbehave are cut off, as a gateway cuts them off (the values are `DevServer` attributes):
- a request's line and headers must arrive within 10 s (from the accept, or from the first byte of a request on
  a kept-alive connection), its body within 20 s of its headers: else 408 and the connection is closed;
- a kept-alive connection idle for 15 s is closed; sending a response gives up after 30 s;
- at most 256 connections are served at once (a thread each); the next one gets a 503 (`Retry-After: 1`);
- malformed framing is a 400 that closes the connection without running the function: a Content-Length that is
  not a plain decimal number or conflicts with another, Transfer-Encoding other than `chunked` or together with
  a Content-Length, a bad chunk size or chunk end, a body shorter than its length;
- a client that disconnects early is one log line ("client disconnected"), never a traceback.

Only the developer's own programs and pages may use it (docs/adr/0044-front-door.md): a request whose `Host` is not
the server's own (127.0.0.1, localhost, [::1] or the host it was told to bind, with its port) is a 421
`host_refused` (DNS rebinding: a foreign name resolved to 127.0.0.1), and one whose `Origin` is present and not one
of the server's own origins (`http://` + those hosts + the port; the console is served from them) is a 403
`origin_refused` (a web page the developer visits); neither runs a function. Non-browser clients send no Origin.

The process must have `functions/` and `layers/offprompt` on `sys.path` (the Makefile's PYTHONPATH; `stack.main` adds
them), as Lambda has `/var/task` and `/opt/python`.
"""

from __future__ import annotations

import base64
import contextlib
import importlib
import importlib.util
import io
import json
import os
import re
import secrets
import socket
import sys
import threading
import time
import traceback
import urllib.parse
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from typing import Any

from . import guard
from .lambda_isolation import isolate_lambda_environments
from .routes import AUTHORIZER_FUNCTION, Route, allowed_methods, declared_routes

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 3000
PORT_ENV = "OFFPROMPT_PORT"

MAX_REQUEST_BODY = 10 * 1024 * 1024  # API Gateway HTTP API's payload limit
MAX_INVOKE_PAYLOAD = 6 * 1024 * 1024  # Lambda's synchronous invocation payload limit (request and response)
MAX_DRAIN = 64 * 1024 * 1024  # an oversized body up to this size is read and dropped, so the 413 arrives
#: The listen backlog (see DevServer.request_queue_size); at least what a burst of concurrent clients needs.
LISTEN_BACKLOG = 1024
FUNCTION_TIMEOUT_MS = 29_000  # HTTP API's maximum integration timeout; functions never get longer behind it
#: A request's line and headers must arrive within this (from the accept, or from its first byte on a kept
#: connection); else 408 and the connection is closed.
HEADER_TIMEOUT_S = 10.0
#: A request's whole body must arrive within this, from the end of its headers; else 408 and close.
BODY_TIMEOUT_S = 20.0
#: A kept-alive connection with no request for this long is closed.
IDLE_TIMEOUT_S = 15.0
#: Sending a response to a client that does not read it gives up after this.
SEND_TIMEOUT_S = 30.0
#: Connections served at once (one thread each); the next one gets a 503 and is closed.
MAX_CONNECTIONS = 256
#: After refusing a request, how long the unread rest of it is read and dropped before the socket closes.
LINGER_S = 1.0
MAX_CHUNK_LINE = 4096
MAX_TRAILERS = 100
_DIGITS = re.compile(r"[0-9]+")
_HEX = re.compile(rb"[0-9A-Fa-f]{1,16}")

ACCOUNT_ID = "123456789012"
API_ID = "offprompt1"
REGION_ENV = ("AWS_REGION", "AWS_DEFAULT_REGION")

#: The API-key authorizer, run as API Gateway runs a Lambda REQUEST authorizer (AuthMode=apikey).
AUTHORIZER_ROUTE = Route("AUTHORIZE", "/", AUTHORIZER_FUNCTION)
API_KEY_PREFIX = "op_"

# API Gateway passes these content types as text; everything else (and anything that is not UTF-8) is base64.
_TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "application/x-www-form-urlencoded")

LambdaHandler = Callable[[dict[str, Any], Any], Any]


def _region() -> str:
    return next((os.environ[name] for name in REGION_ENV if os.environ.get(name)), "us-east-1")


# ----------------------------------------------------------------------------------------- Lambda context


@dataclass
class LambdaContext:
    """The attributes of Lambda's context object that handlers and Powertools read."""

    function_name: str
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    memory_limit_in_mb: int = 512
    function_version: str = "$LATEST"
    timeout_ms: int = FUNCTION_TIMEOUT_MS
    _deadline: float = field(default=0.0, repr=False)

    def __post_init__(self) -> None:
        self._deadline = time.monotonic() + self.timeout_ms / 1000

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:{_region()}:{ACCOUNT_ID}:function:{self.function_name}"

    @property
    def log_group_name(self) -> str:
        return f"/aws/lambda/{self.function_name}"

    @property
    def log_stream_name(self) -> str:
        return f"{datetime.now(UTC):%Y/%m/%d}/[$LATEST]local"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def function_name(route: Route) -> str:
    return f"offprompt-local-{route.function.replace('_', '-')}"


# ----------------------------------------------------------------------------------------------- events


def is_text_content_type(content_type: str | None) -> bool:
    if not content_type:
        return False
    media = content_type.split(";", 1)[0].strip().lower()
    return media.startswith("text/") or media in _TEXT_TYPES or media.endswith(("+json", "+xml"))


def encode_body(body: bytes, content_type: str | None) -> tuple[str, bool]:
    """The event's (body, isBase64Encoded) as API Gateway builds them."""
    if is_text_content_type(content_type):
        try:
            return body.decode("utf-8"), False
        except UnicodeDecodeError:
            pass
    return base64.b64encode(body).decode("ascii"), True


def query_parameters(raw_query: str) -> dict[str, str] | None:
    """API Gateway v2: decoded values, repeated keys joined with commas; absent when there is no query."""
    if not raw_query:
        return None
    params: dict[str, list[str]] = {}
    for key, value in urllib.parse.parse_qsl(raw_query, keep_blank_values=True):
        params.setdefault(key, []).append(value)
    return {key: ",".join(values) for key, values in params.items()} or None


def build_event(
    *,
    method: str,
    target: str,
    headers: list[tuple[str, str]],
    body: bytes | None,
    route: Route,
    path_parameters: Mapping[str, str],
    source_ip: str,
    protocol: str = "HTTP/1.1",
    now: datetime | None = None,
) -> dict[str, Any]:
    """The API Gateway HTTP API payload v2 event for one request.

    `target` is the request line's still-encoded path and query. Like the deployed HTTP API, `rawPath` and
    `requestContext.http.path` are URL-decoded; `rawQueryString` stays encoded.
    """
    now = now or datetime.now(UTC)
    raw_path_encoded, _, raw_query = target.partition("?")
    raw_path = urllib.parse.unquote(raw_path_encoded)
    merged: dict[str, str] = {}
    cookies: list[str] = []
    for name, value in headers:
        lower = name.lower()
        if lower == "cookie":  # v2 moves cookies out of the headers into their own list
            cookies.extend(part.strip() for part in value.split(";") if part.strip())
            continue
        merged[lower] = f"{merged[lower]},{value}" if lower in merged else value
    host = merged.get("host", f"{DEFAULT_HOST}:{DEFAULT_PORT}")
    merged.setdefault("x-forwarded-for", source_ip)
    merged.setdefault("x-forwarded-proto", "http")
    merged.setdefault("x-forwarded-port", host.rpartition(":")[2] if ":" in host else "80")
    merged.setdefault("x-amzn-trace-id", f"Root=1-{int(now.timestamp()):08x}-{secrets.token_hex(12)}")
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": route.route_key,
        "rawPath": raw_path,
        "rawQueryString": raw_query,
    }
    if cookies:
        event["cookies"] = cookies
    event["headers"] = merged
    query = query_parameters(raw_query)
    if query is not None:
        event["queryStringParameters"] = query
    event["requestContext"] = {
        "accountId": ACCOUNT_ID,
        "apiId": API_ID,
        "domainName": host,
        "domainPrefix": host.split(".", 1)[0].split(":", 1)[0],
        "http": {
            "method": method,
            "path": raw_path,
            "protocol": protocol,
            "sourceIp": source_ip,
            "userAgent": merged.get("user-agent", ""),
        },
        "requestId": base64.b64encode(secrets.token_bytes(10)).decode("ascii"),
        "routeKey": route.route_key,
        "stage": "$default",
        "time": now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
        "timeEpoch": int(now.timestamp() * 1000),
    }
    if path_parameters:
        event["pathParameters"] = dict(path_parameters)
    if body:
        event["body"], event["isBase64Encoded"] = encode_body(body, merged.get("content-type"))
    else:
        event["isBase64Encoded"] = False
    return event


def authorizer_event(event: dict[str, Any]) -> dict[str, Any]:
    """The payload v2 REQUEST authorizer event API Gateway sends for a route's event (identity: Authorization)."""
    headers = event.get("headers") or {}
    context = event["requestContext"]
    route = event["routeKey"].replace(" ", "")
    return {
        "version": "2.0",
        "type": "REQUEST",
        "routeArn": f"arn:aws:execute-api:{_region()}:{ACCOUNT_ID}:{API_ID}/$default/{route}",
        "identitySource": [headers.get("authorization", "")],
        "routeKey": event["routeKey"],
        "rawPath": event["rawPath"],
        "rawQueryString": event["rawQueryString"],
        "headers": headers,
        "queryStringParameters": event.get("queryStringParameters"),
        "requestContext": context,
        "pathParameters": event.get("pathParameters"),
    }


def api_key_bearer(event: dict[str, Any]) -> bool:
    """Whether the request carries `Authorization: Bearer op_...` (an offprompt API key, right or wrong).

    Only those go to the authorizer locally: any other Bearer value (Griptape's drivers need *some* key) keeps
    the local tenant header, as before API keys existed. Deployed with AuthMode=apikey, every request goes
    through the authorizer.
    """
    value = str((event.get("headers") or {}).get("authorization") or "").strip()
    scheme, _, token = value.partition(" ")
    return scheme.lower() == "bearer" and token.strip().startswith(API_KEY_PREFIX)


@dataclass
class HttpResult:
    status: int
    headers: list[tuple[str, str]]
    body: bytes


def map_result(result: Any) -> HttpResult:
    """API Gateway's mapping of a payload v2 Lambda result to an HTTP response."""
    if not (isinstance(result, dict) and "statusCode" in result):
        # "Inferred" format: any other JSON value is a 200 with that value as the JSON body.
        body = json.dumps(result).encode()
        return HttpResult(200, [("Content-Type", "application/json")], body)
    headers = [(str(k), str(v)) for k, v in (result.get("headers") or {}).items()]
    for name, values in (result.get("multiValueHeaders") or {}).items():  # tolerated by API Gateway v2
        headers.extend((str(name), str(v)) for v in values)
    headers.extend(("Set-Cookie", str(cookie)) for cookie in result.get("cookies") or [])
    raw = result.get("body")
    if raw is None:
        body = b""
    elif result.get("isBase64Encoded"):
        body = base64.b64decode(raw)
    else:
        body = str(raw).encode("utf-8")
    if not any(name.lower() == "content-type" for name, _ in headers) and body:
        headers.append(("Content-Type", "text/plain; charset=utf-8"))
    return HttpResult(int(result["statusCode"]), headers, body)


#: The names a request to the dev server may carry in its Host (and its Origin's host), besides the bound host.
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def own_hosts(host: str, port: int) -> frozenset[str]:
    """The `Host` values that name a server bound to `host:port`: the loopback names and `host`, each with the
    port (and without it on port 80), lower-case."""
    bound = f"[{host}]" if ":" in host and not host.startswith("[") else host
    names = {name.lower() for name in (*LOOPBACK_NAMES, bound) if name not in ("0.0.0.0", "[::]")}
    hosts = {f"{name}:{port}" for name in names}
    if port == 80:
        hosts |= names
    return frozenset(hosts)


def front_door_refusal(headers: Mapping[str, str], hosts: frozenset[str]) -> HttpResult | None:
    """421 when `Host` is present and not one of `hosts`, 403 when `Origin` is present and not `http://` one of
    them (lower-case header names); None when the request may go on."""
    host = headers.get("host")
    if host is not None and host.strip().lower() not in hosts:
        return error_result(421, "host_refused", "this server answers only requests addressed to its own host")
    origin = headers.get("origin")
    if origin is not None:
        scheme, _, rest = origin.strip().lower().partition("://")
        if scheme != "http" or rest not in hosts:
            return error_result(403, "origin_refused", "requests from other web origins are refused")
    return None


def error_result(status: int, code: str, message: str) -> HttpResult:
    body = json.dumps({"code": code, "message": message}).encode()
    return HttpResult(status, [("Content-Type", "application/json")], body)


def api_documents() -> dict[str, Callable[[], HttpResult]]:
    """`/openapi.json` (docs/openapi.json as checked in) and `/docs` (Swagger UI with Powertools' bundled assets)."""
    from . import docs

    def openapi() -> HttpResult:
        return HttpResult(200, [("Content-Type", "application/json")], docs.openapi_bytes())

    def swagger() -> HttpResult:
        return HttpResult(200, [("Content-Type", "text/html; charset=utf-8")], docs.swagger_html().encode())

    return {"/openapi.json": openapi, "/docs": swagger}


# -------------------------------------------------------------------------------------------- functions


class FunctionHost:
    """Runs each function's handler in execution environments: one request at a time per environment, and as many
    environments as requests in flight, as Lambda scales a function out.

    The first environment of a function is its handler module imported normally (the cold start: imports only).
    A request arriving while every environment of its function is busy gets a new one: the handler module executed
    again as a separate module object, so it has its own `lambda_handler` and Powertools resolver (the resolver keeps
    the current event on itself: two requests must never share one). Shared below that line, as in one process:
    imported packages, the composition root's clients (thread-safe) and per-process caches. An overriding handler
    (tests) is a single callable, so it keeps one environment and serves one request at a time.
    """

    def __init__(self, overrides: Mapping[str, LambdaHandler] | None = None) -> None:
        self._overrides = dict(overrides or {})
        self._idle: dict[str, list[LambdaHandler]] = {}
        self._created: dict[str, int] = {}
        self._override_locks = {name: threading.Lock() for name in self._overrides}
        self._guard = threading.Lock()

    def environments(self, function: str) -> int:
        """How many environments `function` has had so far (its peak concurrency)."""
        with self._guard:
            return self._created.get(function, 0)

    def _new_environment(self, route: Route) -> LambdaHandler:
        isolate_lambda_environments()
        with self._guard:
            first = self._created.get(route.function, 0) == 0
            self._created[route.function] = self._created.get(route.function, 0) + 1
        attribute = route.handler.rsplit(".", 1)[1]
        module = importlib.import_module(route.module) if first else _fresh_module(route.module)
        handler: LambdaHandler = getattr(module, attribute)
        return handler

    def handler(self, route: Route) -> LambdaHandler:
        """An idle environment of the route's function (a new one if none is idle); give it back with `release`."""
        if route.function in self._overrides:
            return self._overrides[route.function]
        with self._guard:
            idle = self._idle.setdefault(route.function, [])
            if idle:
                return idle.pop()
        return self._new_environment(route)

    def release(self, route: Route, handler: LambdaHandler) -> None:
        if route.function not in self._overrides:
            with self._guard:
                self._idle[route.function].append(handler)

    def invoke(self, route: Route, event: dict[str, Any]) -> Any:
        if route.function in self._overrides:
            with self._override_locks[route.function]:
                return self._overrides[route.function](event, LambdaContext(function_name=function_name(route)))
        handler = self.handler(route)
        try:
            return handler(event, LambdaContext(function_name=function_name(route)))
        finally:
            self.release(route, handler)


def _fresh_module(name: str) -> ModuleType:
    """Another instance of module `name`, executed from its file and not registered in `sys.modules` (its package,
    imported already, is shared): what a second Lambda execution environment of the same function would load."""
    importlib.import_module(name)  # the package and the module itself, for relative imports and the spec
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.origin is None:
        raise ImportError(f"cannot load another instance of {name}")
    copy_spec = importlib.util.spec_from_file_location(name, spec.origin)
    assert copy_spec is not None and copy_spec.loader is not None
    module = importlib.util.module_from_spec(copy_spec)
    copy_spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------------------------------ server


class _Refused(Exception):
    """A request the server answers itself and then closes the connection on (bad framing, too large, too slow)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.result = error_result(status, code, message)


class _DeadlineReader(io.RawIOBase):
    """The connection's socket as a raw stream whose reads stop at `deadline` (time.monotonic()): a budget for a
    whole phase (the headers, the body, an idle wait), which a client sending a byte now and then cannot extend
    as it would a per-read socket timeout."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self.deadline: float | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.deadline is None:
            self._sock.settimeout(None)
        else:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the read deadline passed")
            self._sock.settimeout(left)
        return self._sock.recv_into(buffer)


class _RequestHandler(BaseHTTPRequestHandler):
    server: DevServer
    protocol_version = "HTTP/1.1"  # keep-alive, as API Gateway does
    server_version = "offprompt-devserver"

    def do_GET(self) -> None:
        self._handle()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_GET

    def setup(self) -> None:
        super().setup()
        self._accepted = time.monotonic()
        self._requests = 0
        self._linger = False
        self._reader = _DeadlineReader(self.connection)
        self._buffered = io.BufferedReader(self._reader, 65536)
        self.rfile = self._buffered
        # A response goes out as two writes (headers, then body). With Nagle's algorithm on, the body waits for the
        # client to ACK the headers, and a keep-alive client delays that ACK by ~40 ms: every response would
        # carry a 40 ms stall that API Gateway does not have (bench/bench_load.py saw p50s of 56-92 ms).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def __getattr__(self, name: str) -> Any:
        # Any other method (TRACE, CONNECT, a made-up one) gets the route table's answer too (405 on a known
        # path, else 404), as from API Gateway, instead of http.server's HTML 501.
        if name.startswith("do_") and name[3:].isalpha():
            return self._handle
        raise AttributeError(name)

    def log_message(self, format: str, *args: Any) -> None:  # http.server's own (noisy) lines
        pass

    def handle_one_request(self) -> None:
        """http.server's loop step, with deadlines: the first byte of a request must come within the idle timeout
        (the header timeout for a connection's first request, counted from the accept), the rest of the request
        line and headers within the header timeout from there. An idle connection is closed without a word; a
        request cut off in its headers gets a 408."""
        server = self.server
        if self._requests == 0:
            self._reader.deadline = self._accepted + server.header_timeout
        else:
            self._reader.deadline = time.monotonic() + server.idle_timeout
        try:
            if not self._buffered.peek(1):
                self.close_connection = True  # the client closed it
                return
        except (TimeoutError, ConnectionError):
            self.close_connection = True
            return
        if self._requests > 0:
            self._reader.deadline = time.monotonic() + server.header_timeout
        # What a response needs when the request line itself never completes (parse_request sets them all).
        self.command, self.requestline, self.request_version = "", "", "HTTP/1.1"
        try:
            self.raw_requestline = self.rfile.readline(65537)
            if len(self.raw_requestline) > 65536:
                self.requestline, self.request_version, self.command = "", "", ""
                self.send_error(414)
                return
            if not self.raw_requestline:
                self.close_connection = True
                return
            if not self.parse_request():
                return
        except TimeoutError:
            self._refuse(
                _Refused(408, "request_timeout", f"the request's headers took over {server.header_timeout:g} s")
            )
            return
        self._reader.deadline = None
        self._requests += 1
        method = getattr(self, "do_" + self.command, None)
        if method is None:  # not a token __getattr__ routes (M-SEARCH...): http.server's answer
            self.send_error(501, f"Unsupported method ({self.command!r})")
            return
        method()
        self.wfile.flush()

    def _refuse(self, refusal: _Refused) -> None:
        """Answer a request the server refuses itself, then close the connection (lingering: see `finish`)."""
        self.close_connection = True
        self._linger = True
        with contextlib.suppress(ConnectionError, TimeoutError):
            self._send(refusal.result)

    def finish(self) -> None:
        try:
            super().finish()
        except (ConnectionError, TimeoutError):
            return
        if self._linger:
            # Closing a socket that still has unread request bytes makes the kernel send a reset, and a reset can
            # destroy the response the client has not read yet: send our FIN, then read and drop for a moment.
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_WR)
                deadline = time.monotonic() + LINGER_S
                while (left := deadline - time.monotonic()) > 0:
                    self.connection.settimeout(left)
                    if not self.connection.recv(65536):
                        break

    # --- the body

    def _framing(self) -> int | None:
        """The body's Content-Length, or None when it is chunked; anything ambiguous is refused (request smuggling
        lives in the gap between two readings of the same framing)."""
        codings = [c.strip().lower() for v in self.headers.get_all("Transfer-Encoding") or [] for c in v.split(",")]
        lengths = [part.strip() for v in self.headers.get_all("Content-Length") or [] for part in v.split(",")]
        if codings:
            if lengths:
                raise _Refused(400, "bad_request", "Transfer-Encoding and Content-Length together")
            if codings != ["chunked"]:
                raise _Refused(
                    400, "bad_request", f"unsupported Transfer-Encoding {', '.join(codings)!r} (only chunked)"
                )
            return None
        if not lengths:
            return 0
        if not all(_DIGITS.fullmatch(part) for part in lengths):
            raise _Refused(400, "bad_request", "Content-Length must be a non-negative decimal number")
        values = {int(part) if len(part) <= 18 else MAX_DRAIN + 1 for part in lengths}
        if len(values) > 1:
            raise _Refused(400, "bad_request", "conflicting Content-Length values")
        return values.pop()

    def _read_body(self) -> bytes:
        """The body, read within the body timeout; raises `_Refused` (400 malformed or short, 408 too slow, 413
        too large: then read up to MAX_DRAIN and discarded, so the client sees the 413)."""
        length = self._framing()
        self._reader.deadline = time.monotonic() + self.server.body_timeout
        try:
            return self._read_chunked() if length is None else self._read_length(length)
        except TimeoutError:
            raise _Refused(
                408, "request_timeout", f"the request's body took over {self.server.body_timeout:g} s"
            ) from None
        finally:
            self._reader.deadline = None

    def _read_length(self, length: int) -> bytes:
        if length > MAX_REQUEST_BODY:
            remaining = length if length <= MAX_DRAIN else 0
            while remaining > 0:
                read = len(self.rfile.read(min(remaining, 1 << 20)) or b"")
                if not read:
                    break
                remaining -= read
            raise _Refused(
                413, "payload_too_large", f"request body is larger than API Gateway's {MAX_REQUEST_BODY} bytes"
            )
        return self._read_exactly(length)

    def _read_exactly(self, length: int) -> bytes:
        data = self.rfile.read(length) if length else b""
        if len(data) < length:
            raise _Refused(400, "bad_request", f"the body ended {length - len(data)} byte(s) short of its length")
        return data

    def _read_line(self, what: str) -> bytes:
        line = self.rfile.readline(MAX_CHUNK_LINE + 1)
        if not line.endswith(b"\n"):
            problem = "is too long" if len(line) > MAX_CHUNK_LINE else "was cut off"
            raise _Refused(400, "bad_request", f"malformed chunked body: a {what} line {problem}")
        return line

    def _read_chunked(self) -> bytes:
        chunks: list[bytes] = []
        size = 0
        while True:
            digits = self._read_line("chunk size").split(b";", 1)[0].strip()
            if not _HEX.fullmatch(digits):
                raise _Refused(400, "bad_request", "malformed chunked body: a chunk size is not a hex number")
            length = int(digits, 16)
            if length == 0:
                break
            size += length
            if size > MAX_DRAIN:
                raise _Refused(
                    413, "payload_too_large", f"request body is larger than API Gateway's {MAX_REQUEST_BODY} bytes"
                )
            chunk = self._read_exactly(length)
            if size <= MAX_REQUEST_BODY:
                chunks.append(chunk)
            if self.rfile.readline(3) not in (b"\r\n", b"\n"):
                raise _Refused(400, "bad_request", "malformed chunked body: a chunk does not end with CRLF")
        for _ in range(MAX_TRAILERS + 1):  # trailer fields, ignored, up to the blank line
            if self._read_line("trailer") in (b"\r\n", b"\n"):
                break
        else:
            raise _Refused(400, "bad_request", "malformed chunked body: too many trailer fields")
        if size > MAX_REQUEST_BODY:
            raise _Refused(
                413, "payload_too_large", f"request body is larger than API Gateway's {MAX_REQUEST_BODY} bytes"
            )
        return b"".join(chunks)

    def _handle(self) -> None:
        started = time.perf_counter()
        label = "-"
        try:
            result, label = self._dispatch()
        except _Refused as refusal:
            self._refuse(refusal)
            result = refusal.result
        except (ConnectionError, TimeoutError):
            self.close_connection = True  # the client went away while sending its request: nobody to answer
            self.server.log_request_line(f"{self.command} {self.path} -> client disconnected")
            return
        except Exception:
            traceback.print_exc()
            result = HttpResult(500, [("Content-Type", "application/json")], b'{"message":"Internal Server Error"}')
        if not self._linger:
            try:
                self._send(result)
            except (ConnectionError, TimeoutError):  # the client gave up waiting: the log says so, no traceback
                self.close_connection = True
                label += " (client disconnected before the response)"
        self.server.log_request_line(
            f"{self.command} {self.path} -> {label} {result.status} "
            f"{(time.perf_counter() - started) * 1000:.1f} ms {len(result.body)} B"
        )

    def _dispatch(self) -> tuple[HttpResult, str]:
        body = self._read_body()
        fields = {
            name: ",".join(self.headers.get_all(name) or []) for name in ("Host", "Origin") if name in self.headers
        }
        refused = front_door_refusal({k.lower(): v for k, v in fields.items()}, self.server.own_hosts)
        if refused is not None:
            return refused, "-"
        raw_path = self.path.partition("?")[0]
        if self.command == "GET" and raw_path in self.server.documents:
            return self.server.documents[raw_path](), "docs"
        found = self.server.find_route(self.command, raw_path)
        if found is None:
            methods = allowed_methods(raw_path, self.server.routes)
            if methods:
                result = error_result(405, "method_not_allowed", f"{self.command} is not allowed here")
                result.headers.append(("Allow", ", ".join(methods)))
                return result, "-"
            message = f"no route for {self.command} {urllib.parse.unquote(raw_path)}"
            return error_result(404, "route_not_found", message), "-"
        route, params = found
        event = build_event(
            method=self.command,
            target=self.path,
            headers=list(self.headers.items()),
            body=body,
            route=route,
            path_parameters=params,
            source_ip=self.client_address[0],
            protocol=self.request_version,
        )
        if len(json.dumps(event)) > MAX_INVOKE_PAYLOAD:
            message = f"the request is larger than Lambda's {MAX_INVOKE_PAYLOAD} byte invocation payload"
            return error_result(413, "payload_too_large", message), route.function
        if api_key_bearer(event):
            denied = self._authorize(event)
            if denied is not None:
                return denied, AUTHORIZER_FUNCTION
        self.server.record_event(event)
        try:
            result = self.server.functions.invoke(route, event)
        except Exception:
            print(f"[devserver] {route.function} raised:", file=sys.stderr)
            traceback.print_exc()
            return HttpResult(500, [("Content-Type", "application/json")], b'{"message":"Internal Server Error"}'), (
                route.function
            )
        if len(json.dumps(result)) > MAX_INVOKE_PAYLOAD:
            print(
                f"[devserver] {route.function} returned more than Lambda's {MAX_INVOKE_PAYLOAD} byte response limit",
                file=sys.stderr,
            )
            return HttpResult(502, [("Content-Type", "application/json")], b'{"message":"Internal Server Error"}'), (
                route.function
            )
        return map_result(result), route.function

    def _authorize(self, event: dict[str, Any]) -> HttpResult | None:
        """Run the API-key authorizer (no cache: a revoked key fails at once); None when it admits the request,
        whose event then carries the authorizer's context at `requestContext.authorizer.lambda`."""
        try:
            answer = self.server.functions.invoke(AUTHORIZER_ROUTE, authorizer_event(event))
        except Exception:
            print("[devserver] the authorizer raised:", file=sys.stderr)
            traceback.print_exc()
            return HttpResult(500, [("Content-Type", "application/json")], b'{"message":"Internal Server Error"}')
        if not (isinstance(answer, dict) and answer.get("isAuthorized") is True):
            return error_result(401, "unauthenticated", "the API key is unknown or revoked")
        event["requestContext"]["authorizer"] = {"lambda": dict(answer.get("context") or {})}
        return None

    def _send(self, result: HttpResult) -> None:
        self.connection.settimeout(self.server.send_timeout)
        self.send_response(result.status)
        for name, value in result.headers:
            if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(result.body)))
        self.send_header("Apigw-Requestid", base64.b64encode(secrets.token_bytes(10)).decode("ascii"))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(result.body)


class DevServer(ThreadingHTTPServer):
    """The local HTTP API. `DevServer(port=0)` binds a free port; `start()` serves in a background thread."""

    daemon_threads = True
    allow_reuse_address = True
    #: The listen backlog: connections the kernel completes while the accept loop is behind. http.server's default
    #: of 5 dropped the SYNs of a burst (94 of 100 simultaneous connects timed out); a gateway queues them.
    #: Linux caps it at net.core.somaxconn (4096 by default).
    request_queue_size = LISTEN_BACKLOG
    header_timeout = HEADER_TIMEOUT_S
    body_timeout = BODY_TIMEOUT_S
    idle_timeout = IDLE_TIMEOUT_S
    send_timeout = SEND_TIMEOUT_S
    max_connections = MAX_CONNECTIONS

    def __init__(
        self,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        *,
        routes: tuple[Route, ...] | None = None,
        handlers: Mapping[str, LambdaHandler] | None = None,
        log: Callable[[str], None] | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        listen: bool = True,
    ) -> None:
        """Bind `host:port` (a taken port raises OSError here). With `listen=False` nothing is accepted (a connect
        is refused) until `activate()`: the local stack binds first and listens once it can answer. Under test
        the developer's port is refused before anything is bound (`guard.py`)."""
        guard.check_port(port, DEFAULT_PORT)
        super().__init__((host, port), _RequestHandler, bind_and_activate=False)
        try:
            self.server_bind()
            if listen:
                self.server_activate()
        except BaseException:
            self.server_close()
            raise
        self.listening = listen
        #: The `Host` values this server answers (front_door_refusal): its loopback names and `host`, with its port.
        self.own_hosts = own_hosts(host, int(self.server_address[1]))
        self.routes = routes if routes is not None else declared_routes()
        self.functions = FunctionHost(handlers)
        #: Paths the dev server answers itself (GET): the OpenAPI document and Swagger UI (docs.py).
        self.documents: dict[str, Callable[[], HttpResult]] = api_documents()
        self._log = log if log is not None else _default_log
        self._on_event = on_event
        self._thread: threading.Thread | None = None
        self._connections = 0
        self._connections_lock = threading.Lock()

    # --- connections

    def process_request(self, request: Any, client_address: Any) -> None:
        """One thread per connection, up to `max_connections`; past that a 503 (on the accept thread) and close."""
        with self._connections_lock:
            admitted = self._connections < self.max_connections
            self._connections += admitted
        if admitted:
            super().process_request(request, client_address)
        else:
            _turn_away(request, self.max_connections)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._connections_lock:
                self._connections -= 1

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that disconnects or stalls is not an error of ours: no traceback for it."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def own_origins(self) -> list[str]:
        """The web origins of this server's pages (its console), sorted: `http://` + each of `own_hosts`."""
        return sorted(f"http://{host}" for host in self.own_hosts)

    def find_route(self, method: str, raw_path: str) -> tuple[Route, dict[str, str]] | None:
        for route in self.routes:
            params = route.match(method, raw_path)
            if params is not None:
                return route, params
        return None

    def record_event(self, event: dict[str, Any]) -> None:
        if self._on_event is not None:
            self._on_event(event)

    def log_request_line(self, line: str) -> None:
        self._log(line)

    def activate(self) -> None:
        """Start listening: connections are queued and served from now on (OSError if another socket listens on
        the port meanwhile: SO_REUSEADDR lets two sockets bind one port until one of them listens)."""
        if not self.listening:
            self.server_activate()
            self.listening = True

    def start(self) -> str:
        """Listen (if not yet) and serve in a daemon thread; returns the base URL."""
        self.activate()
        self._thread = threading.Thread(target=self.serve_forever, name="offprompt-devserver", daemon=True)
        self._thread.start()
        return self.url

    def stop(self) -> None:
        if self._thread is not None:
            self.shutdown()
            self._thread.join(timeout=10)
            self._thread = None
        self.server_close()


def _turn_away(request: socket.socket, limit: int) -> None:
    body = json.dumps({"code": "too_many_connections", "message": f"the dev server serves {limit} connections at once"})
    response = (
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
        f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n{body}"
    )
    with contextlib.suppress(OSError):
        request.settimeout(1.0)
        request.sendall(response.encode())
        request.setblocking(False)
        with contextlib.suppress(BlockingIOError):  # what the client sent already: a reset would eat the 503
            while request.recv(65536):
                pass
        request.shutdown(socket.SHUT_WR)
    request.close()


def _default_log(line: str) -> None:
    print(f"[api] {datetime.now():%H:%M:%S} {line}", flush=True)


def port_from_env() -> int:
    raw = os.environ.get(PORT_ENV)
    if not raw:
        return DEFAULT_PORT
    try:
        port = int(raw)
    except ValueError:
        raise SystemExit(f"{PORT_ENV} must be a port number, not {raw!r}") from None
    if not 0 <= port <= 65535:
        raise SystemExit(f"{PORT_ENV} must be between 0 and 65535, not {port}")
    return port
