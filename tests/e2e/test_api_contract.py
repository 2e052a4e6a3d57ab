"""The API contract against a running local stack (issue 11): a client generated from docs/openapi.json by a
standard generator calls it; schemathesis fuzzes every operation from the document (0 responses >= 500, every
response conforming to the document); a raw-bytes fuzz sends what no generator would (non-UTF-8, UTF-16,
unicode digits, huge numbers, deep nesting) in bodies, headers and query strings. Loopback only, bounded.
"""

from __future__ import annotations

import http.client
import importlib
import importlib.util
import re
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from test_local_stack import RunningStack, stack  # noqa: F401  (the same stack subprocess, one per module)

from offprompt_local.docs import DOCUMENT
from offprompt_local.routes import ROUTES

BIN = Path(sys.executable).parent
TENANT_HEADER = "X-Offprompt-Tenant"
#: Examples per operation: 14 operations x this stays under ~2 minutes on 2 cores.
MAX_EXAMPLES = 60


def address(stack: RunningStack) -> tuple[str, int]:  # noqa: F811
    parts = urlsplit(stack.url)
    return str(parts.hostname), int(parts.port or 80)


@pytest.fixture(scope="module")
def generated_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    out = tmp_path_factory.mktemp("client") / "offprompt_generated"
    done = subprocess.run(
        [
            str(BIN / "openapi-python-client"),
            "generate",
            "--path",
            str(DOCUMENT),
            "--output-path",
            str(out),
            "--meta",
            "none",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=out.parent,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # Loaded from its directory as a package (its submodules resolve through the package's __path__), without
    # putting a temporary directory on sys.path.
    spec = importlib.util.spec_from_file_location(out.name, out / "__init__.py", submodule_search_locations=[str(out)])
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules[out.name] = package
    try:
        spec.loader.exec_module(package)
        yield package
    finally:
        for name in [m for m in sys.modules if m == out.name or m.startswith(out.name + ".")]:
            del sys.modules[name]


def test_a_client_generated_from_the_document_adds_a_run_and_builds_a_prompt_stack(
    stack: RunningStack,  # noqa: F811
    generated_client: Any,
) -> None:
    from griptape.common import PromptStack

    pkg = generated_client.__name__
    models = importlib.import_module(f"{pkg}.models")
    add_run = importlib.import_module(f"{pkg}.api.conversation.post_run_threads_thread_id_runs_post")
    prompt_stack = importlib.import_module(
        f"{pkg}.api.conversation.post_prompt_stack_threads_thread_id_prompt_stack_post"
    )
    client = generated_client.Client(base_url=stack.url, headers={TENANT_HEADER: "generated"}, timeout=60)
    thread = f"generated-{uuid.uuid4().hex[:8]}"

    run = models.RunIn.from_dict(
        {"input": {"type": "TextArtifact", "value": "hi"}, "output": {"type": "TextArtifact", "value": "hello"}}
    )
    response = add_run.sync_detailed(thread, client=client, body=run)
    assert response.status_code == 201, response.content
    assert isinstance(response.parsed, models.AddRunResponse) and response.parsed.seq == 1

    request = models.PromptStackRequest.from_dict({"system": "be brief", "input": "again?", "max_tokens": 4000})
    response = prompt_stack.sync_detailed(thread, client=client, body=request)
    assert response.status_code == 200, response.content
    assert isinstance(response.parsed, models.PromptStackJSON)
    stack_json = response.parsed.to_dict()
    assert [m["role"] for m in stack_json["messages"]] == ["system", "user", "assistant", "user"]
    PromptStack.from_dict(stack_json)
    assert int(response.headers["x-offprompt-prompt-tokens"]) > 0
    assert response.headers["x-offprompt-over-budget"] == "false"

    bad = prompt_stack.sync_detailed(thread, client=client, body=models.PromptStackRequest.from_dict({"last_n": 0}))
    assert bad.status_code == 422 and isinstance(bad.parsed, models.Error) and bad.parsed.code == "schema_invalid"


def test_schemathesis_finds_no_server_error_and_no_nonconforming_response(stack: RunningStack) -> None:  # noqa: F811
    checks = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"
    done = subprocess.run(
        [
            *(str(BIN / "st"), "run", str(DOCUMENT), "--url", stack.url, "--checks", checks),
            *("--max-examples", str(MAX_EXAMPLES), "--seed", "11", "--phases", "examples,coverage,fuzzing"),
            *("--header", f"{TENANT_HEADER}: fuzz", "--workers", "1", "--no-color"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = done.stdout + done.stderr
    tested = re.search(r"Tested:\s*(\d+)", out)
    generated = re.search(r"(\d+) generated", out)
    server_errors = re.search(r"Server error: (\d+)", out)
    summary = (
        f"schemathesis: {tested.group(1) if tested else '?'} operations, "
        f"{generated.group(1) if generated else '?'} examples, "
        f"{server_errors.group(1) if server_errors else 0} server errors"
    )
    print("\n" + summary)
    assert done.returncode == 0, out[-20_000:]
    assert tested and int(tested.group(1)) == len(ROUTES), out[-5000:]
    assert server_errors is None


# ---- raw bytes: what a generator from the schema never sends

PATHS = {
    "POST": [
        "/threads/t/runs",
        "/threads/t/prompt-stack",
        "/memories/m/outputs",
        "/memories/m/uploads",
        "/memories/m/namespaces/n/search",
    ],
    "PUT": ["/threads/t"],
}
BODIES: list[bytes] = [
    b"\xff\xfe\x00{",
    '{"query": "x"}'.encode("utf-16"),
    '{"query": "x"}'.encode("utf-32"),
    b'{"top_k": \xd9\xa3, "query": "x"}',  # an Arabic-Indic digit, raw
    '{"top_k": "٣", "query": "x", "max_tokens": "²"}'.encode(),
    b'{"top_k": 1' + b"0" * 5000 + b', "query": "x", "max_tokens": 1' + b"0" * 5000 + b"}",
    b'{"top_k": 1e999, "max_tokens": -1e999, "last_n": NaN, "query": "x"}',
    b"[" * 50_000 + b"]" * 50_000,
    b'{"a":' * 20_000 + b"1" + b"}" * 20_000,
    b'{"input": ' + b'{"type": "ListArtifact", "value": [' * 3000 + b"]}" * 3000 + b"}",
    b'{"query": "\\ud800", "input": "\\udfff"}',
    b"\x00" * 1000,
    b'{"query": "x"}\x00garbage',
    b"null",
    b"1" * 100_000,
]
QUERIES = [
    "limit=%C2%B2",
    "limit=%D9%A3",
    "limit=%FF%FE",
    "limit=" + "9" * 400,
    "limit=-0",
    "limit=1&limit=2",
    "cursor=%00%FF",
    "cursor=" + "A" * 5000,
    "order=%E2%80%AE",
    "%FF=%FF&&&=",
]
HEADERS: list[tuple[bytes, bytes]] = [
    (b"Content-Type", b"text/plain; charset=utf-16"),
    (b"Content-Type", b"application/x-www-form-urlencoded"),
    (b"Content-Type", b"multipart/form-data; boundary=x"),
    (b"Content-Type", b"\xff\xfe"),
    (b"X-Offprompt-Tenant", b"\xc3\xa9\xff"),
    (b"X-Offprompt-Tenant", b"a" * 5000),
    (b"Content-Encoding", b"gzip"),
]


def raw_request(host: str, port: int, method: str, target: str, headers: list[tuple[bytes, bytes]], body: bytes) -> int:
    """One HTTP/1.1 request written byte for byte; the response status."""
    lines = [f"{method} {target} HTTP/1.1".encode(), f"Host: {host}:{port}".encode()]
    lines += [name + b": " + value for name, value in headers]
    lines += [f"Content-Length: {len(body)}".encode(), b"Connection: close", b"", b""]
    with socket.create_connection((host, port), timeout=60) as sock:
        sock.sendall(b"\r\n".join(lines) + body)
        response = http.client.HTTPResponse(sock)
        response.begin()
        response.read()
        return response.status


def test_raw_bytes_in_bodies_headers_and_queries_never_get_a_5xx(stack: RunningStack) -> None:  # noqa: F811
    host, port = address(stack)
    tenant = (b"X-Offprompt-Tenant", b"raw-fuzz")
    seen: dict[tuple[str, str, str], int] = {}
    for method, paths in PATHS.items():
        for path in paths:
            for n, body in enumerate(BODIES):
                seen[(method, path, f"body {n}")] = raw_request(
                    host, port, method, path, [tenant, (b"Content-Type", b"application/json")], body
                )
            for header in HEADERS:
                seen[(method, path, repr(header))] = raw_request(
                    host, port, method, path, [tenant, header], b'{"query": "x"}'
                )
    for path in ("/threads/t/runs", "/memories/m/namespaces", "/memories/m/meta"):
        for query in QUERIES:
            seen[("GET", path, query)] = raw_request(host, port, "GET", f"{path}?{query}", [tenant], b"")
    for path in ("/threads/%FF%FE/runs", "/threads/%C0%AF", "/memories/%00/meta", "/threads/" + "%F0%9F" * 200):
        seen[("GET", path, "path")] = raw_request(host, port, "GET", path, [tenant], b"")
    server_errors = {k: v for k, v in seen.items() if v >= 500}
    print(f"\nraw-bytes fuzz: {len(seen)} requests, {len(server_errors)} server errors")
    assert not server_errors, server_errors
    assert all(400 <= v < 500 or v in (200, 201, 204) for v in seen.values()), seen
