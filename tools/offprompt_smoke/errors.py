"""Error checks: the documented (status, code) for bad input on a couple of routes each, and that nothing was
written by a refused request. Where API Gateway itself answers deployed (a path no route declares, a method no
route declares: ADR 0017) both documented forms are accepted and the detail says which one was seen."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from functools import partial
from typing import Any

from .runner import Smoke, expect, quoted, refused
from .task_memory import artifact

#: API Gateway's own answer for a path or method no route declares (deployed; the dev server answers our JSON).
GATEWAY_NOT_FOUND = {"message": "Not Found"}
JSON = {"Content-Type": "application/json"}


def check_400(smoke: Smoke) -> str:
    thread = smoke.thread("bad-json")
    path = f"/threads/{quoted(thread)}/runs"
    for body in (b"{not json", b"\xff\xfe{", b""):
        refused(partial(smoke.api.request, "POST", path, data=body, headers=JSON), 400, "invalid_input")
    bad_run = {"input": {"type": "NoSuchArtifact", "value": "x"}, "output": {"type": "TextArtifact", "value": "y"}}
    refused(lambda: smoke.api.add_run(thread, bad_run), 400, "invalid_artifact")
    refused(lambda: smoke.api.get_thread(thread), 404, "not_found")  # nothing was written
    memory = smoke.memory("Bad")
    bad_output = {"type": "NoSuchArtifact", "name": smoke.name("x"), "value": "x"}
    refused(lambda: smoke.api.process_output(memory, "T", "a", bad_output, raw=True), 400, "invalid_artifact")
    outputs = f"/memories/{quoted(memory)}/outputs"
    refused(partial(smoke.api.request, "POST", outputs, data=b"[1,", headers=JSON), 400, "invalid_input")
    expect(smoke.api.list_namespaces(memory)["namespaces"] == [], "a refused output left a namespace")
    return (
        "not JSON / not UTF-8 / empty → 400 invalid_input; an unknown artifact type → 400 invalid_artifact "
        "(runs, outputs); nothing written"
    )


def not_found_answer(call: Callable[[], Any]) -> str:
    """A 404 from our route table (`route_not_found`) or API Gateway's own `{"message": "Not Found"}`."""
    error = refused(call, 404)
    if error.code == "route_not_found":
        return "route_not_found"
    expect(error.body == GATEWAY_NOT_FOUND, f"a 404 that is neither route_not_found nor API Gateway's: {error.body}")
    return "API Gateway's Not Found"


def check_404(smoke: Smoke) -> str:
    api = smoke.api
    refused(lambda: api.get_thread(smoke.name("nobody")), 404, "not_found")
    refused(lambda: api.get_namespace(smoke.name("nomemory"), "nothing"), 404, "not_found")
    refused(lambda: api.request("GET", "/api/threads/00000000-0000-4000-8000-000000000000"), 404, "not_found")
    expect(api.list_runs(smoke.name("nobody"))["runs"] == [], "an unknown thread's runs are not an empty list")
    expect(api.load_artifacts(smoke.name("nomemory"), "nothing", raw=True)["value"] == [], "unknown artifacts not []")
    seen = not_found_answer(lambda: api.request("GET", f"/{smoke.name('no-such-route')}"))
    return f"unknown thread, namespace, /api thread → 404 not_found; their contents empty 200; unknown path → {seen}"


def check_405(smoke: Smoke) -> str:
    seen = []
    for method, path, allow in (
        ("PATCH", f"/threads/{quoted(smoke.name('t'))}", "DELETE, GET, PUT"),
        ("POST", f"/memories/{quoted(smoke.name('m'))}/namespaces", "GET"),
    ):
        status, headers, body = raw(smoke, method, path)
        if status == 405:
            expect(body.get("code") == "method_not_allowed", f"{method} {path}: 405 {body}")
            expect(headers.get("Allow") == allow, f"{method} {path}: Allow {headers.get('Allow')!r}, wanted {allow!r}")
            seen.append(f"{method} → 405 method_not_allowed, Allow: {allow}")
        else:
            expect(status == 404 and body == GATEWAY_NOT_FOUND, f"{method} {path}: {status} {body}")
            seen.append(f"{method} → API Gateway's 404 Not Found")
    return "; ".join(seen)


def raw(smoke: Smoke, method: str, path: str) -> tuple[int, Any, Any]:
    """Status, headers and JSON body of a request the client would turn into an error without its headers."""
    request = urllib.request.Request(smoke.api.base_url + path, method=method, headers=dict(smoke.api.headers))
    try:
        with urllib.request.urlopen(request, timeout=smoke.options.timeout) as answer:
            return answer.status, answer.headers, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        try:
            body = json.loads(error.read() or b"null")
        except ValueError:
            body = None
        return error.code, error.headers, body


def check_413(smoke: Smoke) -> str:
    memory = smoke.memory("TooLarge")
    namespace = smoke.name("big-thought")
    page = artifact("TextArtifact", namespace, "small")
    thought = "x" * 100_001
    refused(lambda: smoke.api.process_output(memory, "T", "a", page, thought=thought), 413, "payload_too_large")
    refused(lambda: smoke.api.get_namespace(memory, namespace), 404, "not_found")  # nothing was written
    return "a thought of 100,001 bytes (the limit is 100,000 with the actions) → 413 payload_too_large; nothing stored"


def check_422(smoke: Smoke) -> str:
    api = smoke.api
    error = refused(lambda: api.search(smoke.name("m"), "n", "q", top_k=0), 422, "schema_invalid")
    details = error.body.get("details") if isinstance(error.body, dict) else None
    expect(
        isinstance(details, list) and details and {"loc", "type", "msg"} <= set(details[0]),
        f"422 details are {details}",
    )
    expect(details and details[0]["loc"][-1] == "top_k", f"the 422 names {details and details[0]['loc']}")
    thread = smoke.thread("bad-config")
    refused(lambda: api.configure_thread(thread, max_runs=0), 422, "schema_invalid")
    refused(lambda: api.get_thread(thread), 404, "not_found")  # the refused PUT created nothing
    refused(lambda: api.list_runs(thread, limit=0), 422, "schema_invalid")
    refused(lambda: api.prompt_stack(thread, last_n=0, raw=True), 422, "schema_invalid")
    return "top_k=0, max_runs=0, limit=0, last_n=0 → 422 schema_invalid, details [{loc, type, msg}] naming the field"


def check_slash_in_id(smoke: Smoke) -> str:
    memory = smoke.memory("Slash")
    for bad in ("a/b", ".", ".."):
        named = artifact("TextArtifact", bad, "x")
        error = refused(partial(smoke.api.process_output, memory, "T", "a", named), 400, "invalid_input")
        expect("namespace" in error.message, f"the 400 for {bad!r} does not say what: {error.message}")
    refused(
        lambda: smoke.api.request("POST", "/api/threads", json_body={"name": "n", "alias": "a/b"}), 400, "invalid_input"
    )
    seen = not_found_answer(lambda: smoke.api.request("GET", f"/threads/{smoke.name('a')}%2Fb"))
    expect(smoke.api.list_namespaces(memory)["namespaces"] == [], "a refused name left a namespace")
    return f'namespace "a/b", ".", ".." and alias "a/b" → 400 invalid_input; /threads/a%2Fb → {seen}'
