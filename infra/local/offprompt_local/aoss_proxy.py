"""OpenSearch Serverless, faithfully enough for offprompt: the REAL local node behind a proxy that refuses what an
Amazon OpenSearch Serverless vector search collection refuses and delays search visibility as Serverless does.

`make dev OPENSEARCH_MODE=serverless` runs the local stack through it, and the text-store contract suite and an
e2e module run against it, so the text store's Serverless path (docs/adr/0030-opensearch-serverless.md) is tested
against a real engine that cannot do what Serverless cannot. Each rule names the constraint (C1..) of ADR 0030's
table, where its AWS source is.

What it does:
- only the operations of AWS's "Supported operations and plugins in Amazon OpenSearch Serverless" list pass
  (index create/describe/delete, mappings and settings, `_bulk`, `_doc` without id, delete/update by id, `_mget`,
  `_search`, `_msearch`, `_count`, point in time, `_cat/indices`, aliases); everything else, `_delete_by_query`,
  `_refresh`, `_update_by_query`, `_reindex`, `_cluster`, `_nodes`, `_tasks`, the root endpoint..., is a 404 (C4, C5);
- a `refresh` parameter on any request is a 400 (C5);
- a custom document id on an index/create action is refused: `PUT <index>/_doc/<id>`, `_create/<id>` are a 400,
  a `_bulk` index/create item carrying `_id` fails alone with the 400 item Serverless answers (C1); update and
  delete by id pass (C2);
- index settings `number_of_shards`, `number_of_replicas` and `refresh_interval` are a 400 (C7), a `knn_vector`
  on the Lucene engine is a 400 (C8);
- search visibility: every index it creates gets `index.refresh_interval` = OFFPROMPT_AOSS_REFRESH_INTERVAL (10 s by
  default, the low end of the documented 10-60 s; C6), and since nothing can force or wait for a refresh, a new
  document reaches search only when that interval passes; `GET _doc` and `_mget` are forwarded with
  `realtime=false`, i.e. they too see only refreshed documents (Serverless documents no real-time read; C3).

What it does not emulate: SigV4 and data access policies (plain HTTP on 127.0.0.1), OCU scaling, throttling
(429), request size limits, the exact body of Serverless's 404s (the status is what clients act on), and the
Faiss engine itself: the local k-NN plugin has no native libraries, so a `faiss` knn_vector is created on Lucene
(same HNSW parameters and cosine space; filtered k-NN works on both).
"""

from __future__ import annotations

import argparse
import copy
import http.client
import json
import os
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

REFRESH_INTERVAL_ENV = "OFFPROMPT_AOSS_REFRESH_INTERVAL"
DEFAULT_REFRESH_INTERVAL = "10s"
#: The item error a vector search collection answers for a bulk index/create action with an `_id` (C1).
CUSTOM_ID_REASON = "Document ID is not supported in create/index operation request"
REFUSED_SETTINGS = ("number_of_shards", "number_of_replicas", "refresh_interval")
#: Global endpoints Serverless serves: (first path segment, methods).
_GLOBAL = {
    "_bulk": {"POST", "PUT"},
    "_mget": {"GET", "POST"},
    "_msearch": {"GET", "POST"},
    "_search": {"GET", "POST"},
    "_count": {"GET", "POST"},
    "_mapping": {"GET"},
    "_mappings": {"GET"},
    "_aliases": {"POST"},
    "_alias": {"GET"},
    "_index_template": {"GET", "PUT", "POST", "DELETE"},
    "_resolve": {"GET"},
}
_HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


@dataclass
class Answer:
    status: int
    body: bytes
    content_type: str = "application/json; charset=UTF-8"


@dataclass
class Forward:
    path: str
    params: list[tuple[str, str]]
    body: bytes
    #: For a bulk request with refused items: (item position, refused item), spliced into the node's answer.
    refused_items: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    #: How many items the client sent (refused ones included).
    items: int = 0


def _error(status: int, kind: str, reason: str) -> Answer:
    cause = {"type": kind, "reason": reason}
    body = {"error": {"root_cause": [cause], **cause}, "status": status}
    return Answer(status, json.dumps(body).encode("utf-8"))


def _not_served(method: str, path: str) -> Answer:
    return _error(404, "unsupported_operation", f"{method} {path} is not an OpenSearch Serverless operation")


def decide(
    method: str, path: str, params: list[tuple[str, str]], body: bytes, refresh_interval: str
) -> Answer | Forward:
    """What Serverless would do with the request: refuse it (an Answer) or serve it (what to send the node)."""
    segments = [unquote(s) for s in path.split("?")[0].strip("/").split("/") if s]
    if any(name == "refresh" for name, _ in params):
        return _error(400, "illegal_argument_exception", "the refresh parameter is not supported (C5)")
    if not segments:
        return _not_served(method, path)
    first = segments[0]
    if first.startswith("_"):
        return _decide_global(method, path, segments, params, body)
    index = first
    rest = segments[1:]
    if not rest:
        if method == "PUT":
            return _create_index(path, params, body, refresh_interval)
        if method in ("GET", "HEAD", "DELETE"):
            return Forward(path, params, body)
        return _not_served(method, path)
    op = rest[0]
    if op in ("_mapping", "_mappings") and len(rest) == 1:
        if method == "GET":
            return Forward(path, params, body)
        if method in ("PUT", "POST"):
            refused = _refused_mapping(_json(body).get("properties", {}))
            return refused or Forward(path, params, _mapping_for_node(body))
    if op == "_settings":
        if method == "GET":
            return Forward(path, params, body)
        if method == "PUT":
            refused = _refused_settings(_json(body))
            return refused or Forward(path, params, body)
    if op == "_bulk" and len(rest) == 1 and method in ("POST", "PUT"):
        return _bulk(path, params, body, index)
    if op == "_doc":
        if len(rest) == 1:
            return Forward(path, params, body) if method == "POST" else _not_served(method, path)
        if method in ("PUT", "POST"):
            return _error(400, "illegal_argument_exception", CUSTOM_ID_REASON)
        if method in ("GET", "HEAD"):
            return Forward(path, _not_realtime(params), body)
        if method == "DELETE":
            return Forward(path, params, body)
    if op == "_create":
        return _error(400, "illegal_argument_exception", CUSTOM_ID_REASON)
    if op == "_update" and len(rest) == 2 and method == "POST":
        return Forward(path, params, body)
    if op == "_source" and len(rest) == 2 and method in ("GET", "HEAD"):
        return Forward(path, _not_realtime(params), body)
    if op == "_mget" and len(rest) == 1 and method in ("GET", "POST"):
        return Forward(path, _not_realtime(params), body)
    if op in ("_search", "_msearch", "_count") and len(rest) == 1 and method in ("GET", "POST"):
        return Forward(path, params, body)
    if op == "_search" and rest[1:] == ["point_in_time"] and method == "POST":
        return Forward(path, params, body)
    return _not_served(method, path)


def _decide_global(
    method: str, path: str, segments: list[str], params: list[tuple[str, str]], body: bytes
) -> Answer | Forward:
    first = segments[0]
    if first == "_search" and segments[1:2] == ["point_in_time"]:
        if method == "DELETE" or (method == "GET" and segments[2:] == ["_all"]):
            return Forward(path, params, body)
        return _not_served(method, path)
    if first == "_cat" and segments[1:2] == ["indices"] and method == "GET":
        return Forward(path, params, body)
    if method not in _GLOBAL.get(first, set()):
        return _not_served(method, path)
    if first == "_bulk":
        return _bulk(path, params, body, None)
    if first == "_mget":
        return Forward(path, _not_realtime(params), body)
    if len(segments) > 1 and first in ("_search", "_msearch", "_count", "_bulk", "_mget"):
        return _not_served(method, path)
    return Forward(path, params, body)


def _json(body: bytes) -> dict[str, Any]:
    try:
        value = json.loads(body or b"{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _flat(settings: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in settings.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flat(value, f"{name}."))
        else:
            out[name] = value
    return out


def _refused_settings(settings: dict[str, Any]) -> Answer | None:
    for name in _flat(settings):
        bare = name.removeprefix("settings.").removeprefix("index.")
        if bare in REFUSED_SETTINGS:
            return _error(
                400, "illegal_argument_exception", f"setting [index.{bare}] is managed by OpenSearch Serverless (C7)"
            )
    return None


def _knn_fields(properties: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for spec in properties.values():
        if not isinstance(spec, dict):
            continue
        if spec.get("type") == "knn_vector":
            found.append(spec)
        if isinstance(spec.get("properties"), dict):
            found.extend(_knn_fields(spec["properties"]))
    return found


def _refused_mapping(properties: Any) -> Answer | None:
    if not isinstance(properties, dict):
        return None
    for spec in _knn_fields(properties):
        method = spec.get("method")
        if isinstance(method, dict) and method.get("engine") == "lucene":
            return _error(
                400, "mapper_parsing_exception", "vector search collections do not support the Lucene engine (C8)"
            )
    return None


def _lucene_for_node(properties: dict[str, Any]) -> None:
    """The local k-NN plugin has no Faiss natives: the same HNSW graph, on Lucene (not emulated, see the module)."""
    for spec in _knn_fields(properties):
        method = _dict(spec.get("method"))
        parameters = _dict(method.get("parameters"))
        spec["method"] = {
            "name": "hnsw",
            "engine": "lucene",
            "space_type": method.get("space_type", "l2"),
            "parameters": {k: v for k, v in parameters.items() if k in ("m", "ef_construction")},
        }


def _mapping_for_node(body: bytes) -> bytes:
    mapping = _json(body)
    if isinstance(mapping.get("properties"), dict):
        _lucene_for_node(mapping["properties"])
    return json.dumps(mapping).encode("utf-8")


def _create_index(path: str, params: list[tuple[str, str]], body: bytes, refresh_interval: str) -> Answer | Forward:
    definition = _json(body)
    settings = _dict(definition.get("settings"))
    refused = _refused_settings(settings)
    properties = _dict(_dict(definition.get("mappings")).get("properties"))
    refused = refused or _refused_mapping(properties)
    if refused is not None:
        return refused
    node = copy.deepcopy(definition)
    node_settings = node.setdefault("settings", {})
    node_settings.setdefault("index", {})["refresh_interval"] = refresh_interval  # C6: the collection's own pace
    if isinstance(node.get("mappings", {}).get("properties"), dict):
        _lucene_for_node(node["mappings"]["properties"])
    return Forward(path, params, json.dumps(node).encode("utf-8"))


def _not_realtime(params: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(k, v) for k, v in params if k != "realtime"] + [("realtime", "false")]


def _bulk(path: str, params: list[tuple[str, str]], body: bytes, index: str | None) -> Answer | Forward:
    """Serve the bulk request without the index/create items that carry an `_id` (each refused alone, C1)."""
    lines = body.split(b"\n")
    kept: list[bytes] = []
    refused: list[tuple[int, dict[str, Any]]] = []
    item = 0
    i = 0
    while i < len(lines):
        raw = lines[i]
        i += 1
        if not raw.strip():
            continue
        try:
            action = json.loads(raw)
        except ValueError:
            action = None
        if not isinstance(action, dict) or len(action) != 1:
            return _error(400, "illegal_argument_exception", "Malformed action/metadata line")
        kind, meta = next(iter(action.items()))
        has_source = kind != "delete"
        source = lines[i] if has_source and i < len(lines) else None
        if has_source:
            i += 1
        if kind in ("index", "create") and isinstance(meta, dict) and "_id" in meta:
            refused.append(
                (
                    item,
                    {
                        kind: {
                            "_index": meta.get("_index", index),
                            "_id": meta["_id"],
                            "status": 400,
                            "error": {"type": "illegal_argument_exception", "reason": CUSTOM_ID_REASON},
                        }
                    },
                )
            )
        else:
            kept.append(raw)
            if source is not None:
                kept.append(source)
        item += 1
    if refused and len(refused) == item:
        answer = {"took": 0, "errors": True, "items": [r for _, r in refused]}
        return Answer(200, json.dumps(answer).encode("utf-8"))
    return Forward(path, params, b"\n".join(kept) + b"\n", refused_items=refused, items=item)


def _merge_bulk(node_answer: bytes, forward: Forward) -> bytes:
    answer = json.loads(node_answer)
    served = iter(answer.get("items", []))
    refused = dict(forward.refused_items)
    answer["items"] = [refused[n] if n in refused else next(served) for n in range(forward.items)]
    answer["errors"] = True
    return json.dumps(answer).encode("utf-8")


class ServerlessProxy:
    """The faithful layer on 127.0.0.1 in front of `upstream` (the local node's URL). `refusals` lists every request
    it refused as (method, path, status), so a test can check that a client stayed inside Serverless's API; `log`
    (if given) gets a line for each."""

    def __init__(
        self,
        upstream: str,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        refresh_interval: str | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        parts = urlsplit(upstream)
        if parts.scheme != "http" or not parts.hostname or not parts.port:
            raise ValueError(f"the upstream must be the local node's http://host:port URL, got {upstream!r}")
        self.upstream = (parts.hostname, parts.port)
        self.refresh_interval = refresh_interval or os.environ.get(REFRESH_INTERVAL_ENV) or DEFAULT_REFRESH_INTERVAL
        self.refusals: list[tuple[str, str, int]] = []
        self._log = log
        self._host, self._port = host, port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._local = threading.local()
        self.url: str | None = None

    def start(self) -> str:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                proxy._handle(self)

            do_POST = do_PUT = do_DELETE = do_HEAD = do_GET

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer((self._host, self._port), Handler)
        self._server.daemon_threads = True
        port = self._server.server_address[1]
        self.url = f"http://{self._host}:{port}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="aoss-proxy", daemon=True)
        self._thread.start()
        return self.url

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    # ------------------------------------------------------------------------------------------ plumbing

    def _handle(self, request: BaseHTTPRequestHandler) -> None:
        length = int(request.headers.get("Content-Length") or 0)
        body = request.rfile.read(length) if length else b""
        parts = urlsplit(request.path)
        params = parse_qsl(parts.query, keep_blank_values=True)
        decision = decide(request.command, parts.path, params, body, self.refresh_interval)
        if isinstance(decision, Answer):
            self._refused(request.command, parts.path, decision.status)
            self._reply(request, decision.status, decision.body, decision.content_type)
            return
        status, content_type, answer = self._send(request, decision)
        if decision.refused_items and status == 200:
            self._refused(request.command, parts.path, 400)
            answer = _merge_bulk(answer, decision)
        self._reply(request, status, answer, content_type)

    def _refused(self, method: str, path: str, status: int) -> None:
        self.refusals.append((method, path, status))
        if self._log is not None:
            self._log(f"OpenSearch Serverless refuses {method} {path} ({status})")

    def _send(self, request: BaseHTTPRequestHandler, forward: Forward) -> tuple[int, str, bytes]:
        target = quote(forward.path, safe="/,*_-.:%")
        if forward.params:
            target += "?" + urlencode(forward.params)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_HEADERS}
        headers["Content-Length"] = str(len(forward.body))
        for attempt in (1, 2):
            connection = getattr(self._local, "connection", None)
            if connection is None:
                connection = http.client.HTTPConnection(*self.upstream, timeout=120)
                self._local.connection = connection
            try:
                connection.request(request.command, target, body=forward.body, headers=headers)
                response = connection.getresponse()
                data = response.read()
                return response.status, response.getheader("Content-Type") or "application/json", data
            except (OSError, http.client.HTTPException):
                connection.close()
                self._local.connection = None
                if attempt == 2:
                    return 502, "application/json", json.dumps({"error": "the local node is unreachable"}).encode()
        raise AssertionError("unreachable")

    @staticmethod
    def _reply(request: BaseHTTPRequestHandler, status: int, body: bytes, content_type: str) -> None:
        request.send_response(status)
        request.send_header("Content-Type", content_type)
        request.send_header("Content-Length", str(len(body)))
        request.end_headers()
        if request.command != "HEAD":
            request.wfile.write(body)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m offprompt_local.aoss_proxy", description=__doc__.split("\n")[0])
    parser.add_argument("upstream", help="the local node's URL, e.g. http://127.0.0.1:9200")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    proxy = ServerlessProxy(args.upstream, port=args.port)
    print(proxy.start(), flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        proxy.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
