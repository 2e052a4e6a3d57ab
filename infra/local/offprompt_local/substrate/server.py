"""`AtomicMotoServer`: moto's HTTP server with atomic DynamoDB requests and, optionally, durable state.

`SubstrateApp` wraps moto's WSGI application:

- every DynamoDB (and DynamoDB Streams) request runs under one lock, so each request — a conditional write,
  an `ADD`, a transaction — is atomic and the order of requests is a valid linearization. moto's threaded
  server otherwise runs them interleaved (20 racing conditional puts on one key: 37 "successes" measured).
  Every other request (S3, moto's own API) runs under a second lock;
- it marks the request (`moto_patches.context`) so the tables it creates are managed by the substrate
  (sorted partitions, O(touched) transactions, bounded streams);
- with a `Store`, it journals each write before the response leaves (see `store.py`).
"""

from __future__ import annotations

import contextlib
import io
import json
import socket
import threading
import urllib.parse
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from . import moto_patches
from .store import LoadReport, Store, item_record

_DYNAMODB_TARGETS = ("DynamoDB_20120810.", "DynamoDBStreams_20120810.")
#: DynamoDB operations that change nothing.
READ_ONLY = frozenset(
    {
        "GetItem",
        "BatchGetItem",
        "Query",
        "Scan",
        "TransactGetItems",
        "DescribeTable",
        "ListTables",
        "DescribeTimeToLive",
        "DescribeContinuousBackups",
        "ListTagsOfResource",
        "DescribeEndpoints",
        "DescribeLimits",
        "DescribeStream",
        "ListStreams",
        "GetShardIterator",
        "GetRecords",
        "DescribeBackup",
        "ListBackups",
        "DescribeExport",
        "ListExports",
        "DescribeImport",
        "GetResourcePolicy",
    }
)
#: DynamoDB operations whose effect is the touched items (journaled item by item).
ITEM_WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"})
#: WSGI keys kept to replay an S3 request.
_REPLAY_KEYS = ("REQUEST_METHOD", "PATH_INFO", "QUERY_STRING", "CONTENT_TYPE", "SERVER_NAME", "SERVER_PORT", "RAW_URI")
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def _read_body(environ: dict[str, Any]) -> bytes:
    stream = environ["wsgi.input"]
    length = environ.get("CONTENT_LENGTH")
    if length:
        body: bytes = stream.read(int(length))
    elif environ.get("wsgi.input_terminated"):
        body = stream.read()
    else:
        body = b""
    return body


def _buffer_body(environ: dict[str, Any]) -> bytes:
    """The request body read whole (by Content-Length, or de-chunked) and put back as a sized buffer."""
    body = _read_body(environ)
    environ["wsgi.input"] = io.BytesIO(body)
    environ["CONTENT_LENGTH"] = str(len(body))
    environ.pop("HTTP_TRANSFER_ENCODING", None)
    environ.pop("wsgi.input_terminated", None)
    return body


def _is_select(operation: str, body: bytes) -> bool:
    """A PartiQL ExecuteStatement that only reads (a write through PartiQL is folded into a snapshot)."""
    if operation != "ExecuteStatement":
        return False
    try:
        request = json.loads(body)
    except ValueError:
        return False
    statement = request.get("Statement") if isinstance(request, dict) else None
    return isinstance(statement, str) and statement.lstrip().upper().startswith("SELECT")


def _needs_snapshot(method: str, path: str, query: str) -> bool:
    """S3 writes replayed from the journal must be deterministic; these are not, or are bucket-level."""
    parameters = urllib.parse.parse_qs(query, keep_blank_values=True)
    if "uploads" in parameters:  # CreateMultipartUpload returns a random UploadId
        return True
    segments = [part for part in path.split("/") if part]
    # Bucket-level writes (CreateBucket, PutBucketEncryption, DeleteBucket...) are rare and small.
    return len(segments) <= 1 and not (method == "POST" and "delete" in parameters)


class SubstrateApp:
    def __init__(self, app: Callable[..., Any], store: Store | None) -> None:
        self.app = app
        self.store = store
        self.dynamodb_lock = threading.Lock()
        self.other_lock = threading.Lock()
        #: Called after every DynamoDB request that may have written (outside the locks): the stack's stream
        #: pollers wake on it instead of asking an idle stream five times a second.
        self.write_listeners: list[Callable[[], None]] = []

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        target = environ.get("HTTP_X_AMZ_TARGET", "")
        dynamodb = target.startswith(_DYNAMODB_TARGETS)
        operation = target.rpartition(".")[2] if dynamodb else ""
        body = _buffer_body(environ)
        status: list[str] = []

        def recording_start_response(code: str, headers: Any, exc_info: Any = None) -> Any:
            status.append(code)
            return start_response(code, headers, exc_info)

        snapshot = False
        lock = self.dynamodb_lock if dynamodb else self.other_lock
        with lock:
            state = moto_patches.RequestState()
            moto_patches.context.state = state
            try:
                response = self.app(environ, recording_start_response)
                try:
                    chunks = list(response)
                finally:
                    close = getattr(response, "close", None)
                    if close is not None:
                        close()
            finally:
                moto_patches.context.state = None
            succeeded = bool(status) and status[0][:1] == "2"
            if self.store is not None:
                if dynamodb:
                    if operation in ITEM_WRITES and state.touched:
                        # One frame per request: a transaction is replayed whole or not at all.
                        items = tuple(item_record(*touched) for touched in state.touched.values())
                        self.store.append(("items", items))
                    elif operation not in READ_ONLY and succeeded and not _is_select(operation, body):
                        snapshot = True
                elif environ["REQUEST_METHOD"] not in _SAFE_METHODS and succeeded:
                    if _needs_snapshot(
                        environ["REQUEST_METHOD"], environ.get("PATH_INFO", ""), environ.get("QUERY_STRING", "")
                    ):
                        snapshot = True
                    else:
                        self.store.append(("request", self._replayable(environ, body)))
                snapshot = snapshot or self.store.wants_compaction()
        if snapshot:
            self.snapshot()  # before the response leaves: a created table or bucket is durable once acknowledged
        if dynamodb and operation not in READ_ONLY:
            for listener in self.write_listeners:
                listener()
        return chunks

    @staticmethod
    def _replayable(environ: dict[str, Any], body: bytes) -> dict[str, Any]:
        kept = {key: environ[key] for key in _REPLAY_KEYS if key in environ}
        kept.update({key: value for key, value in environ.items() if key.startswith("HTTP_")})
        kept["body"] = body
        return kept

    def replay(self, request: dict[str, Any]) -> int:
        """Run a journaled S3 request through moto again (at startup); returns the HTTP status code."""
        from werkzeug.test import EnvironBuilder

        body: bytes = request["body"]
        environ = EnvironBuilder(method=request["REQUEST_METHOD"]).get_environ()
        environ.update({key: value for key, value in request.items() if key != "body"})
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        status: list[str] = []

        def start_response(code: str, headers: Any, exc_info: Any = None) -> Callable[[bytes], None]:
            status.append(code)
            return lambda data: None

        with self.other_lock:
            response = self.app(environ, start_response)
            for _ in response:
                pass
        return int(status[0].split()[0]) if status else 0

    def snapshot(self) -> None:
        if self.store is None:
            return
        with self.dynamodb_lock, self.other_lock:
            self.store.snapshot()


#: How long a kept-alive connection may sit idle before the server closes it (a client's pool reconnects).
KEEP_ALIVE_IDLE_S = 30.0
#: Response headers the handler writes itself.
_FRAMING = frozenset({"content-length", "transfer-encoding", "connection"})


def keep_alive_handler(base: type[Any]) -> type[Any]:
    """moto's request handler (werkzeug's) keeping connections alive between requests, as AWS's endpoints do.

    Werkzeug's development server closes every connection after one response, so each AWS call a function makes
    paid a TCP connect, a new server thread and, on the client, urllib3's "Resetting dropped connection" (~8 % of a
    busy stack's samples). Werkzeug cannot keep a connection: after each response it reads and discards whatever
    the socket holds, which on a kept connection could be the client's next request. This handler reads the whole
    request body first (by Content-Length, or de-chunked), calls the application, and writes the response with its
    Content-Length, so nothing is left to discard and the next request starts where this one ended."""

    class KeepAliveRequestHandler(base):
        protocol_version = "HTTP/1.1"
        timeout = KEEP_ALIVE_IDLE_S

        def setup(self) -> None:
            super().setup()
            # Headers and body are separate writes: with Nagle's algorithm the body would wait ~40 ms for the
            # client's delayed ACK, on every AWS call a handler makes.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            kept = _kept(self.server)
            with kept.lock:
                kept.idle.add(self.connection)

        def finish(self) -> None:
            kept = _kept(self.server)
            with kept.lock:
                kept.idle.discard(self.connection)
            super().finish()

        def run_wsgi(self) -> None:
            kept = _kept(self.server)
            with kept.lock:
                if kept.stopped:  # a request on a kept connection after stop(): closed unanswered, as refused
                    self.close_connection = True
                    return
                kept.idle.discard(self.connection)
            try:
                self._answer()
            finally:
                with kept.lock:
                    if kept.stopped:
                        self.close_connection = True
                    else:
                        kept.idle.add(self.connection)

        def _answer(self) -> None:
            # An `Expect: 100-continue` was answered by http.server's parse_request (handle_expect_100) already.
            environ = self.environ = self.make_environ()
            _buffer_body(environ)
            started: list[Any] = []
            chunks: list[bytes] = []

            def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
                started[:] = [status, headers]
                return chunks.append

            try:
                result = self.server.app(environ, start_response)
                try:
                    chunks.extend(result)
                finally:
                    close = getattr(result, "close", None)
                    if close is not None:
                        close()
            except Exception as exc:  # as werkzeug answers an application's failure: a 500, logged
                self.log_error("Error on request: %s: %s", type(exc).__name__, exc)
                started[:] = ["500 INTERNAL SERVER ERROR", [("Content-Type", "text/plain")]]
                chunks[:] = [b"Internal Server Error"]
            status, headers = started
            code, _, reason = status.partition(" ")
            payload = b"".join(chunks)
            head = self.command == "HEAD"
            self.send_response(int(code), reason)
            for name, value in headers:
                if name.lower() not in _FRAMING or (head and name.lower() == "content-length"):
                    self.send_header(name, value)
            if not head and int(code) not in (204, 304) and not 100 <= int(code) < 200:
                self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if not head and payload:
                self.wfile.write(payload)

    return KeepAliveRequestHandler


class _Kept:
    """A server's kept connections waiting for their next request, and whether it was stopped."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.idle: set[socket.socket] = set()
        self.stopped = False


_KEPT_LOCK = threading.Lock()


def _kept(server: Any) -> _Kept:
    with _KEPT_LOCK:
        kept: _Kept | None = getattr(server, "_offprompt_kept", None)
        if kept is None:
            kept = server._offprompt_kept = _Kept()
        return kept


def end_kept_connections(server: Any) -> None:
    """After stop: each idle kept connection is shut (its handler reads the end and closes it); a request being
    answered is answered, then its connection closes; a request arriving on a kept connection is closed unanswered.
    No client goes on talking to a stopped server's state."""
    kept = _kept(server)
    with kept.lock:
        kept.stopped = True
        idle = list(kept.idle)
    for connection in idle:
        with contextlib.suppress(OSError):
            connection.shutdown(socket.SHUT_RDWR)


class AtomicMotoServer:
    """A moto server (DynamoDB, S3, ...) on `ip_address:port` (0: a free port) with atomic DynamoDB requests.

    `data_dir=None`: in memory, like moto. With a directory: state is loaded from it at `start()`, every write is
    journaled before it is acknowledged, and `stop()` writes a snapshot. Damaged files make `start()` raise
    `DataDamaged` and stay untouched; `salvage=True` keeps a copy of them and loads what is intact (`store.py`).
    """

    def __init__(
        self, ip_address: str = "127.0.0.1", port: int = 0, *, data_dir: Path | None = None, salvage: bool = False
    ) -> None:
        self.ip_address = ip_address
        self.port = port
        self.data_dir = data_dir
        self.salvage = salvage
        self.store = Store(data_dir) if data_dir is not None else None
        self.loaded: LoadReport | None = None
        self.app: SubstrateApp | None = None
        self._server: Any = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
        from werkzeug.serving import make_server

        moto_patches.install()
        app = SubstrateApp(DomainDispatcherApplication(create_backend_app), self.store)
        if self.store is not None:
            self.loaded = self.store.load(app.replay, salvage=self.salvage)
        self.app = app  # only now: a stop() after a failed load must not write a snapshot over the files

        handler = keep_alive_handler(MotoRequestHandler)
        self._server = make_server(self.ip_address, self.port, app, True, request_handler=handler)
        # shutdown() waits for the serving loop's next poll: 0.5 s by default, paid by every test's moto server.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="moto-substrate", daemon=True
        )
        self._thread.start()

    def on_write(self, listener: Callable[[], None]) -> None:
        """`listener()` after each DynamoDB request that may have written (its stream may hold new records)."""
        assert self.app is not None, "call start() first"
        self.app.write_listeners.append(listener)

    def get_host_and_port(self) -> tuple[str, int]:
        assert self._server is not None, "call start() first"
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.get_host_and_port()
        return f"http://{host}:{port}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            end_kept_connections(self._server)
            self._server = None
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        app, self.app = self.app, None  # a second stop() must not snapshot whatever moto holds by then
        if self.store is not None and app is not None:
            with app.dynamodb_lock, app.other_lock:
                self.store.close()
