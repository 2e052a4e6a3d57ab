"""The dev server's API Gateway emulation, in-process with recording handlers (no AWS, no OpenSearch).

Checks that every route's event is a valid HTTP API payload v2 event (Powertools' own model), that paths,
queries, headers, cookies and bodies are carried as API Gateway carries them, and the gateway's own answers
(404 unknown route, 413 too large, 500 on an exception, 502 on an oversized response).
"""

from __future__ import annotations

import base64
import http.client
import json
import re
import socket
import threading
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from aws_lambda_powertools.utilities.parser import parse
from aws_lambda_powertools.utilities.parser.models import APIGatewayProxyEventV2Model

from offprompt_local.devserver import MAX_REQUEST_BODY, DevServer, LambdaContext, build_event, map_result
from offprompt_local.routes import ROUTES, Route, find_route, functions


class Recorder:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.contexts: list[Any] = []
        self.result: Any = None

    def __call__(self, event: dict[str, Any], context: Any) -> Any:
        self.events.append(event)
        self.contexts.append(context)
        if self.result is not None:
            return self.result(event) if callable(self.result) else self.result
        return {"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": json.dumps({"ok": True})}


@pytest.fixture(scope="module")
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture(scope="module")
def server(recorder: Recorder) -> Iterator[DevServer]:
    lines: list[str] = []
    dev = DevServer("127.0.0.1", 0, handlers=dict.fromkeys(functions(), recorder), log=lines.append)
    dev.start()
    dev.log_lines = lines  # type: ignore[attr-defined]
    yield dev
    dev.stop()


@pytest.fixture(autouse=True)
def _reset(recorder: Recorder) -> None:
    recorder.events.clear()
    recorder.contexts.clear()
    recorder.result = None


def call(
    server: DevServer, method: str, target: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    host, port = server.server_address[:2]
    conn = http.client.HTTPConnection(str(host), port, timeout=30)
    try:
        conn.request(method, target, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


#: A value for every path parameter of every route (a record's key too: records, docs/adr/0034).
EXPECTED_PARAMETERS = {
    "thread_id": "thread 1",
    "memory_name": "TaskMemory",
    "namespace": "call_9 output#ü?",
    "key_id": "k 1",
    "key": "fact #1 ü?",
    "asset": "app.js",
    "checkpoint_id": "1ef4f797-8335-6428-8001-8a1503f9b875",
    "name": "facts ü",
}


def example_path(route: Route) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: urllib.parse.quote(EXPECTED_PARAMETERS[m.group(1)], safe=""), route.path)


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.route_key)
def test_every_route_sends_a_valid_v2_event(server: DevServer, recorder: Recorder, route: Route) -> None:
    body = json.dumps({"x": 1}).encode() if route.method in ("POST", "PUT") else None
    status, _, _ = call(
        server, route.method, example_path(route) + "?limit=2", body, {"Content-Type": "application/json"}
    )
    assert status == 200
    (event,) = recorder.events
    model = parse(event=event, model=APIGatewayProxyEventV2Model)
    assert model.version == "2.0"
    assert model.routeKey == route.route_key == model.requestContext.routeKey
    assert model.requestContext.stage == "$default"
    assert model.requestContext.http.method == route.method
    if route.parameters:
        assert event["pathParameters"] == {p: EXPECTED_PARAMETERS[p] for p in route.parameters}
    else:  # like API Gateway, no pathParameters key for a route without parameters (POST /api/threads)
        assert "pathParameters" not in event
    assert event["rawPath"] == urllib.parse.unquote(example_path(route))  # HTTP API delivers it decoded
    assert event["queryStringParameters"] == {"limit": "2"}
    assert event["isBase64Encoded"] is False
    if body is not None:
        assert json.loads(event["body"]) == {"x": 1}
    else:
        assert "body" not in event
    context = recorder.contexts[0]
    assert context.function_name == f"offprompt-local-{route.function.replace('_', '-')}"
    assert context.invoked_function_arn.endswith(f":function:{context.function_name}")
    assert 0 < context.get_remaining_time_in_millis() <= 29_000
    assert context.aws_request_id and context.memory_limit_in_mb > 0


def test_api_keys_go_through_the_authorizer_as_api_gateway_sends_them(recorder: Recorder) -> None:
    """`Bearer op_...` runs the authorizer (a payload 2.0 REQUEST event) before the route: refused → 401 JSON and
    the route never runs; admitted → the route's event carries `requestContext.authorizer.lambda`. Other Bearer
    values (and none) go straight to the route, as before API keys."""
    seen: list[dict[str, Any]] = []

    def authorizer(event: dict[str, Any], context: Any) -> Any:
        seen.append(event)
        token = event["identitySource"][0]
        return (
            {"isAuthorized": True, "context": {"tenant": "acme", "plan": "pro"}}
            if token.endswith("good")
            else {"isAuthorized": False}
        )

    handlers: dict[str, Any] = {**dict.fromkeys(functions(), recorder), "authorizer": authorizer}
    dev = DevServer("127.0.0.1", 0, handlers=handlers, log=lambda line: None)
    dev.start()
    try:
        status, headers, body = call(dev, "GET", "/threads/t1/runs", headers={"Authorization": "Bearer op_x_bad"})
        assert status == 401 and headers["content-type"] == "application/json"
        assert json.loads(body)["code"] == "unauthenticated"
        assert recorder.events == []  # the route never ran
        (auth,) = seen
        assert auth["version"] == "2.0" and auth["type"] == "REQUEST"
        assert auth["routeKey"] == "GET /threads/{thread_id}/runs" and auth["pathParameters"] == {"thread_id": "t1"}
        assert auth["headers"]["authorization"] == "Bearer op_x_bad"

        status, _, _ = call(dev, "GET", "/threads/t1/runs", headers={"Authorization": "bearer op_x_good"})
        assert status == 200
        (event,) = recorder.events
        assert event["requestContext"]["authorizer"] == {"lambda": {"tenant": "acme", "plan": "pro"}}

        seen.clear()
        recorder.events.clear()
        for other in ({"Authorization": "Bearer local"}, {}):
            status, _, _ = call(dev, "GET", "/threads/t1/runs", headers=other)
            assert status == 200
        assert seen == [] and all("authorizer" not in e["requestContext"] for e in recorder.events)
    finally:
        dev.stop()


def test_query_headers_cookies_and_binary_bodies(server: DevServer, recorder: Recorder) -> None:
    blob = bytes(range(256))
    headers = {
        "Content-Type": "application/octet-stream",
        "X-Offprompt-Tenant": "alice",
        "Cookie": "a=1; b=2",
        "User-Agent": "pytest-agent",
    }
    status, _, _ = call(server, "POST", "/memories/m/outputs?tag=a&tag=b&q=x%20y&empty=", blob, headers)
    assert status == 200
    (event,) = recorder.events
    parse(event=event, model=APIGatewayProxyEventV2Model)
    assert event["rawQueryString"] == "tag=a&tag=b&q=x%20y&empty="
    assert event["queryStringParameters"] == {"tag": "a,b", "q": "x y", "empty": ""}
    assert event["cookies"] == ["a=1", "b=2"]
    assert "cookie" not in event["headers"]
    assert event["headers"]["x-offprompt-tenant"] == "alice"  # lower-cased, as API Gateway does
    assert all(name == name.lower() for name in event["headers"])
    assert event["requestContext"]["http"]["userAgent"] == "pytest-agent"
    assert event["requestContext"]["http"]["sourceIp"] == "127.0.0.1"
    assert event["isBase64Encoded"] is True
    assert base64.b64decode(event["body"]) == blob


def test_text_body_that_is_not_utf8_is_base64(server: DevServer, recorder: Recorder) -> None:
    call(server, "POST", "/memories/m/outputs", b"\xff\xfe", {"Content-Type": "application/json"})
    (event,) = recorder.events
    assert event["isBase64Encoded"] is True and base64.b64decode(event["body"]) == b"\xff\xfe"


def test_unknown_route_is_a_json_404(server: DevServer, recorder: Recorder) -> None:
    for method, target in [("GET", "/nope"), ("PATCH", "/nope/t1"), ("GET", "/threads/t1/runs/extra"), ("GET", "/")]:
        status, headers, body = call(server, method, target)
        assert status == 404
        assert headers["content-type"] == "application/json"
        assert json.loads(body)["code"] == "route_not_found"
    assert recorder.events == []


def test_body_over_10_mb_is_413_without_calling_the_function(server: DevServer, recorder: Recorder) -> None:
    status, _, body = call(server, "POST", "/memories/m/outputs", b"x" * (MAX_REQUEST_BODY + 1))
    assert status == 413
    assert json.loads(body)["code"] == "payload_too_large"
    assert recorder.events == []


def test_event_over_lambdas_6_mb_is_413(server: DevServer, recorder: Recorder) -> None:
    status, _, body = call(
        server, "POST", "/memories/m/outputs", b"x" * (7 * 1024 * 1024), {"Content-Type": "text/plain"}
    )
    assert status == 413 and json.loads(body)["code"] == "payload_too_large"
    assert recorder.events == []


def test_handler_results_map_to_http(server: DevServer, recorder: Recorder) -> None:
    recorder.result = {
        "statusCode": 303,
        "headers": {"Location": "http://example/x", "X-A": "1"},
        "cookies": ["s=1; Path=/", "t=2"],
        "body": json.dumps({"download_url": "http://example/x"}),
    }
    status, headers, body = call(server, "GET", "/memories/m/namespaces/n/artifacts")
    assert status == 303 and headers["location"] == "http://example/x" and headers["x-a"] == "1"
    assert json.loads(body) == {"download_url": "http://example/x"}

    recorder.result = {"statusCode": 200, "isBase64Encoded": True, "body": base64.b64encode(b"\x00\x01").decode()}
    assert call(server, "GET", "/memories/m/meta")[2] == b"\x00\x01"

    recorder.result = {"hello": "world"}  # payload v2 "inferred" response
    status, headers, body = call(server, "GET", "/memories/m/meta")
    assert (status, headers["content-type"], json.loads(body)) == (200, "application/json", {"hello": "world"})

    recorder.result = {"statusCode": 204, "body": ""}
    assert call(server, "DELETE", "/threads/t1")[:1] == (204,)


def test_exceptions_and_oversized_responses(server: DevServer, recorder: Recorder) -> None:
    def boom(event: dict[str, Any]) -> Any:
        raise RuntimeError("boom")

    recorder.result = boom
    status, _, body = call(server, "GET", "/threads/t1")
    assert status == 500 and json.loads(body) == {"message": "Internal Server Error"}

    recorder.result = {"statusCode": 200, "body": "x" * (6 * 1024 * 1024 + 10)}
    assert call(server, "GET", "/threads/t1")[0] == 502


def test_one_log_line_per_request(server: DevServer) -> None:
    tag = uuid.uuid4().hex
    call(server, "GET", f"/threads/{tag}")
    call(server, "GET", f"/nope-{tag}")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # the line is written after the response is sent
        lines = [line for line in server.log_lines if tag in line]  # type: ignore[attr-defined]
        if len(lines) >= 2:
            break
        time.sleep(0.01)
    assert len(lines) == 2
    # Each line is written by its request's thread after the response is sent: either may be written first.
    lines.sort(key=lambda line: "/nope-" in line)
    assert lines[0].startswith(f"GET /threads/{tag} -> threads 200")
    assert lines[1].startswith(f"GET /nope-{tag} -> - 404")


def test_route_matching_decodes_the_path_once_then_matches_per_segment() -> None:
    found = find_route("GET", "/memories/a%23b/namespaces/n%20m%3F/artifacts")
    assert found is not None
    route, params = found
    assert route.function == "load_artifacts"
    assert params == {"memory_name": "a#b", "namespace": "n m?"}
    # decoded before matching, as API Gateway does: %2F separates segments, so "a/b" addresses no route
    assert find_route("GET", "/memories/a%2Fb/namespaces/n/artifacts") is None
    assert find_route("GET", "/threads/a%2Fb") is None
    assert find_route("DELETE", "/threads/%2F") is None
    # "%2F" decodes to an empty segment, never to the tenant's listing GET /threads (a trailing "/" of the request is)
    assert find_route("GET", "/threads/%2F") is None and find_route("GET", "/threads/%2F%2F") is None
    assert find_route("GET", "/threads/") == find_route("GET", "/threads")
    # once: %252F is a literal "%2F" inside one segment
    assert find_route("GET", "/threads/a%252Fb") == (find_route("GET", "/threads/x")[0], {"thread_id": "a%2Fb"})  # type: ignore[index]
    assert find_route("GET", "/memories//namespaces") is None
    assert find_route("POST", "/threads/t/prompt-stack")[0].function == "prompt_stack"  # type: ignore[index]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/threads/a%2Fb"),
        ("PUT", "/threads/a%2Fb"),
        ("POST", "/threads/a%2Fb/runs"),
        ("GET", "/api/threads/a%2Fb"),
        ("GET", "/memories/m%2Fx/namespaces"),
        ("DELETE", "/memories/m/namespaces/a%2Fb"),
        ("GET", "/memories/m/namespaces/a%2Fb/artifacts"),
    ],
)
def test_a_slash_percent_encoded_in_a_path_reaches_no_function_a_404(
    server: DevServer, recorder: Recorder, method: str, path: str
) -> None:
    """ADR 0014: "/" cannot be carried by a URL path segment (API Gateway decodes %2F before routing); in a body or
    a direct invocation the same value is a 400 invalid_input (tests/e2e/test_identifier_alphabet.py)."""
    status, _, body = call(server, method, path)
    answer = json.loads(body)
    assert (status, answer["code"]) == (404, "route_not_found"), answer
    assert urllib.parse.unquote(path.partition("?")[0]) in answer["message"]  # the decoded path it looked up
    assert recorder.events == []  # answered by the gateway: no function was invoked


def test_build_event_and_map_result_directly() -> None:
    route = ROUTES[0]
    event = build_event(
        method="POST",
        target="/threads/t1/runs",
        headers=[("Host", "127.0.0.1:3000"), ("X-Dup", "a"), ("x-dup", "b")],
        body=None,
        route=route,
        path_parameters={"thread_id": "t1"},
        source_ip="127.0.0.1",
    )
    parse(event=event, model=APIGatewayProxyEventV2Model)
    assert event["headers"]["x-dup"] == "a,b"
    assert event["requestContext"]["domainName"] == "127.0.0.1:3000"
    assert "queryStringParameters" not in event
    assert map_result({"statusCode": 201, "body": "hi"}).headers[-1] == ("Content-Type", "text/plain; charset=utf-8")
    assert LambdaContext("f", timeout_ms=1000).get_remaining_time_in_millis() <= 1000


# ------------------------------------------------------------------------------------------ concurrency

BURST = 100


def _in_parallel(count: int, work: Any) -> list[Any]:
    """`work(i)` in `count` threads released together; each result or the exception it raised."""
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[i] = work(i)
        except Exception as exc:
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def test_a_burst_of_100_connections_is_queued_not_dropped() -> None:
    # A gateway queues a burst while its workers are busy. The listen backlog is that queue: 100 clients connect
    # while the server accepts nothing (as when its accept loop is behind), then it serves them all. With
    # http.server's default backlog of 5, all but ~6 connects time out: the kernel drops the SYNs of a full queue.
    recorder = Recorder()
    dev = DevServer("127.0.0.1", 0, handlers=dict.fromkeys(functions(), recorder), log=lambda line: None)
    host, port = dev.server_address[:2]
    sockets: list[socket.socket] = []
    try:
        assert dev.request_queue_size >= 128

        def connect(i: int) -> socket.socket:
            sock = socket.create_connection((str(host), port), timeout=3)
            sockets.append(sock)
            return sock

        connected = _in_parallel(BURST, connect)
        failed = [repr(r) for r in connected if not isinstance(r, socket.socket)]
        assert not failed, f"{len(failed)} of {BURST} connects failed: {failed[:3]}"
        dev.start()

        def exchange(i: int) -> bytes:
            sock = connected[i]
            sock.settimeout(30)
            sock.sendall(
                f"GET /threads/t{i}/runs HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode()
            )
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
            return data

        answers = _in_parallel(BURST, exchange)
        bad = [repr(a)[:80] for a in answers if not (isinstance(a, bytes) and a.startswith(b"HTTP/1.1 200 "))]
        assert not bad, f"{len(bad)} of {BURST} requests failed: {bad[:3]}"
        assert len(recorder.events) == BURST

        # And 100 clients at once on a serving server (connect, request, response): no reset, no error.
        def request(i: int) -> int:
            conn = http.client.HTTPConnection(str(host), port, timeout=30)
            try:
                conn.request("GET", f"/threads/u{i}/runs")
                response = conn.getresponse()
                response.read()
                return response.status
            finally:
                conn.close()

        statuses = _in_parallel(BURST, request)
        assert statuses == [200] * BURST, [s for s in statuses if s != 200][:3]
    finally:
        for sock in sockets:
            sock.close()
        dev.stop()


# ---- issue 11, finding 10: a known path with a wrong method is 405 with Allow (was 404 route_not_found)


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("GET", "/threads/t/prompt-stack", "POST"),
        ("POST", "/threads/t", "DELETE, GET, PUT"),
        ("PATCH", "/threads/t/runs", "GET, POST"),
        ("PUT", "/memories/m/namespaces/n", "DELETE, GET"),
    ],
)
def test_a_wrong_method_on_a_known_path_is_405_with_allow(
    server: DevServer, recorder: Recorder, method: str, path: str, allow: str
) -> None:
    status, headers, body = call(server, method, path)
    assert (status, headers.get("allow"), json.loads(body)["code"]) == (405, allow, "method_not_allowed")
    assert recorder.events == []
    assert call(server, "GET", "/threads/t/nope")[0] == 404


def test_the_openapi_document_and_swagger_ui_are_served(server: DevServer) -> None:
    status, headers, body = call(server, "GET", "/openapi.json")
    assert status == 200 and headers["content-type"] == "application/json"
    assert json.loads(body)["openapi"].startswith("3.1")
    status, headers, body = call(server, "GET", "/docs")
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert b"SwaggerUIBundle" in body and b"cdn" not in body.lower()  # assets inline: no network needed


@pytest.mark.parametrize("method", ["TRACE", "CONNECT", "FOO"])
def test_any_other_method_is_a_json_405_or_404_not_a_501(server: DevServer, method: str) -> None:
    status, headers, body = call(server, method, "/threads/t/runs")
    assert (status, headers.get("allow"), json.loads(body)["code"]) == (405, "GET, POST", "method_not_allowed")
    assert call(server, method, "/nope")[0] == 404


def test_responses_are_not_held_back_by_nagle(server: DevServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Headers and body are two writes: without TCP_NODELAY the body waits for the client's delayed ACK (~40 ms)."""
    from offprompt_local import devserver

    seen: list[int] = []
    original = devserver._RequestHandler.setup

    def setup(self: Any) -> None:
        original(self)
        seen.append(self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    monkeypatch.setattr(devserver._RequestHandler, "setup", setup)
    conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
    conn.request("GET", "/threads/t/runs")
    assert conn.getresponse().read()
    conn.close()
    assert seen and all(seen)


PROBE_HANDLER = """
import json
import probe_shared

ENVIRONMENT = object()  # one per execution environment (module instance)


def lambda_handler(event, context):
    probe_shared.BARRIER.wait(timeout=20)  # returns only once two requests are in flight at the same time
    return {"statusCode": 200, "body": json.dumps({"environment": id(ENVIRONMENT)})}
"""


@pytest.fixture
def probe_function(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Route]:
    """A function `probe_fn` whose handler blocks until a second request reaches the same barrier."""
    import sys

    (tmp_path / "probe_fn").mkdir()
    (tmp_path / "probe_fn" / "__init__.py").write_text("")
    (tmp_path / "probe_fn" / "handler.py").write_text(PROBE_HANDLER)
    (tmp_path / "probe_shared.py").write_text("import threading\nBARRIER = threading.Barrier(2)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield Route("POST", "/probe", "probe_fn")
    for name in ["probe_fn", "probe_fn.handler", "probe_shared"]:
        sys.modules.pop(name, None)


def test_concurrent_requests_to_one_function_are_in_flight_at_once(probe_function: Route) -> None:
    """Lambda gives a concurrent request its own execution environment; the dev server did one request at a time
    per function, so every request queued behind the one in flight (process-output's p50 grew to 32 s at 32
    clients in bench_load). Two requests that each wait for the other can only both finish if they overlap."""
    dev = DevServer("127.0.0.1", 0, routes=(probe_function,), log=lambda line: None)
    dev.start()
    try:
        answers: list[tuple[int, bytes]] = []

        def request() -> None:
            status, _, body = call(dev, "POST", "/probe", b"{}")
            answers.append((status, body))

        clients = [threading.Thread(target=request) for _ in range(2)]
        for client in clients:
            client.start()
        for client in clients:
            client.join(timeout=60)
        assert [status for status, _ in answers] == [200, 200], answers
        environments = {json.loads(body)["environment"] for _, body in answers}
        assert len(environments) == 2  # two module instances: no shared resolver or handler state
        assert dev.functions.environments("probe_fn") == 2
        # An idle environment is reused, not a new one made per request.
        import probe_shared  # type: ignore[import-not-found]

        probe_shared.BARRIER = threading.Barrier(1)
        assert call(dev, "POST", "/probe", b"{}")[0] == 200
        assert dev.functions.environments("probe_fn") == 2
    finally:
        dev.stop()


POWERTOOLS_PROBE = """
import probe_shared
from aws_lambda_powertools.event_handler import APIGatewayHttpResolver

app = APIGatewayHttpResolver()


@app.post("/probe/<name>")
def probe(name):
    probe_shared.BARRIER.wait(timeout=20)  # both requests were resolved (their events set) before either reads one
    event = app.current_event
    return {"matched": name, "path": event.path, "tenant": event.headers.get("x-offprompt-tenant"),
            "request": app.lambda_context.aws_request_id}


def lambda_handler(event, context):
    return app.resolve(event, context)
"""


def test_concurrent_requests_each_read_their_own_event_through_powertools(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Powertools keeps the event it resolves on the BaseRouter class: one slot per process. Deployed, each
    execution environment is a process; here they are threads of one, so without the dev server's isolation two
    requests in flight read the same (the later) event: another tenant, another path."""
    import sys

    (tmp_path / "probe_pt").mkdir()
    (tmp_path / "probe_pt" / "__init__.py").write_text("")
    (tmp_path / "probe_pt" / "handler.py").write_text(POWERTOOLS_PROBE)
    (tmp_path / "probe_shared.py").write_text("import threading\nBARRIER = threading.Barrier(2)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    dev = DevServer("127.0.0.1", 0, routes=(Route("POST", "/probe/{name}", "probe_pt"),), log=lambda line: None)
    dev.start()
    try:
        answers: dict[str, Any] = {}

        def request(name: str) -> None:
            status, _, body = call(dev, "POST", f"/probe/{name}", b"{}", {"X-Offprompt-Tenant": f"tenant-{name}"})
            answers[name] = (status, json.loads(body))

        clients = [threading.Thread(target=request, args=(name,)) for name in ("a", "b")]
        for client in clients:
            client.start()
        for client in clients:
            client.join(timeout=60)
        for name in ("a", "b"):
            status, body = answers[name]
            assert status == 200 and body["matched"] == name, answers
            assert body["path"] == f"/probe/{name}" and body["tenant"] == f"tenant-{name}", answers
        assert answers["a"][1]["request"] != answers["b"][1]["request"]
    finally:
        dev.stop()
        for name in ["probe_pt", "probe_pt.handler", "probe_shared"]:
            sys.modules.pop(name, None)


def test_a_second_environment_of_a_real_function_has_its_own_resolver() -> None:
    import sys

    from offprompt_local.devserver import _fresh_module

    first = __import__("threads.handler", fromlist=["lambda_handler"])
    second = _fresh_module("threads.handler")
    assert second is not first and sys.modules["threads.handler"] is first
    assert second.lambda_handler is not first.lambda_handler
