"""CPU per request of each route beyond its AWS calls: AWS answers recorded once from moto, replayed with Stubber.

Each route's Lambda handler is called with an API Gateway v2 event, as Lambda calls it. Its AWS answers are
recorded once against moto (in-process), then replayed with botocore's Stubber, which answers at `before-call`:
request validation and serialization are timed, the emulator, HTTP and response parsing are not. CPU time
(time.process_time) per call, single thread, GC on; p50/p99 over --reps calls after --warmup calls.

Long-term records: a put that replaces a record (not text-indexed) and a get of it.
Data: a 200-run thread (runs of 30-120 tokens, ~75 on average) and prompt-stack with max_tokens 4,000 (returns
~51 runs); add-run of a small run; list runs (20, newest first); task memory: process-output and load of a 1 KB
BlobArtifact (S3 + DynamoDB only: OpenSearch calls are not botocore calls and cannot be replayed here).
The MCP endpoint's tools that wrap those routes (`POST /mcp` tools/call: append_turn, get_context, get_recent_turns,
load_artifacts) are measured in the same run with the same data; the text output names the overhead of each tool
call over its route (issue 21: at most 2 ms).

    PYTHONPATH=functions:layers/offprompt .venv/bin/python bench/bench_route_cpu.py [--reps 400] [--quick]
    [--code DIR]   # measure another checkout's functions/ and layers/ (e.g. a `git archive` of the old commit)
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import copy
import io
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BUDGET = 4000
TARGET_MS = 2.0


def _paths(code: Path) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    import _conv_common  # noqa: F401 - puts this checkout's paths first: the measured code goes before them

    for p in (code / "layers" / "offprompt", code / "functions"):
        sys.path.insert(0, str(p))


def event(template: str, method: str, path: str, params: dict[str, str], body: Any = None, query: str = "") -> dict:
    e = json.loads((ROOT / "events" / template).read_text())
    e["rawPath"] = e["requestContext"]["http"]["path"] = path
    e["requestContext"]["http"]["method"] = method
    e["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = "bench-tenant"
    e["pathParameters"] = params
    e["rawQueryString"] = query
    e.pop("queryStringParameters", None)
    if query:
        e["queryStringParameters"] = dict(kv.split("=", 1) for kv in query.split("&"))
    e.pop("body", None)
    if body is not None:
        e["body"] = json.dumps(body)
    return e


class Recorder:
    """Parsed answers of every botocore call made through the given clients, in order."""

    def __init__(self, clients: dict[str, Any]) -> None:
        self.calls: list[tuple[str, str, dict[str, Any]]] = []
        for service, client in clients.items():
            client.meta.events.register("after-call", self._hook(service, client))

    def _hook(self, service: str, client: Any) -> Any:
        to_method = {v: k for k, v in client.meta.method_to_api_mapping.items()}

        def after_call(parsed: dict[str, Any], model: Any, **_: Any) -> None:
            if not self.active:
                return
            body = parsed.get("Body")
            if body is not None and hasattr(body, "read"):
                data = body.read()
                parsed["Body"] = _stream(data)
                saved = {**parsed, "Body": data}
            else:
                saved = copy.deepcopy(parsed)
            self.calls.append((service, to_method[model.name], saved))

        return after_call

    active = False


def _stream(data: bytes) -> Any:
    from botocore.response import StreamingBody

    return StreamingBody(io.BytesIO(data), len(data))


def _answer(saved: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy({k: v for k, v in saved.items() if k != "Body"})
    if "Body" in saved:
        out["Body"] = _stream(saved["Body"])
    return out


def _size(saved: dict[str, Any]) -> int:
    """Approximate bytes of an answer: its JSON, with a body counted by its length."""
    return len(json.dumps(saved, default=lambda o: "." * len(o) if isinstance(o, bytes) else str(o)))


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="100 calls per route")
    parser.add_argument("--code", type=Path, default=ROOT)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON (for make bench)")
    parser.add_argument("--profile", help="cProfile this route's timed calls; print the top functions")
    args = parser.parse_args()
    if args.quick:
        args.reps, args.warmup = 100, 15
    _paths(args.code.resolve())
    from _conv_common import BUCKET, TABLE, create_resources, fake_aws_env, run_dicts

    fake_aws_env()
    os.environ.update(
        OFFPROMPT_TABLE=TABLE,
        OFFPROMPT_BUCKET=BUCKET,
        OFFPROMPT_SUMMARIZE_MODE="off",
        POWERTOOLS_SERVICE_NAME="offprompt",
        POWERTOOLS_METRICS_NAMESPACE="offprompt",
        POWERTOOLS_LOG_LEVEL="WARNING",
    )
    from add_run import handler as add_run
    from botocore.stub import Stubber
    from load_artifacts import handler as load_artifacts
    from mcp_server import handler as mcp
    from moto import mock_aws
    from process_output import handler as process_output
    from prompt_stack import handler as prompt_stack
    from records import handler as records
    from threads import handler as threads

    from offprompt.adapters.clients import aws_client
    from offprompt.adapters.tokenizer import get_encoding
    from offprompt.composition.conversation import default_service

    def uncounted(handler: Any) -> Any:
        """`handler` with add-run's tokenizer check answering "not loaded" (code before ADR 0040: no effect)."""

        def call(e: dict[str, Any], context: Any) -> Any:
            service = default_service()
            saved = getattr(service, "count_on_add", None)
            service.count_on_add = lambda: False  # type: ignore[method-assign,assignment,unused-ignore]
            try:
                return handler(e, context)
            finally:
                service.count_on_add = saved  # type: ignore[method-assign,assignment,unused-ignore]

        return call

    thread = "bench-thread"
    counted_thread = "bench-thread-counted"  # seeded once the tokenizer is loaded: its runs carry their counts
    runs = run_dicts(200, lo=30, hi=120)
    blob = base64.b64encode(os.urandom(1024)).decode()
    artifact = {"type": "BlobArtifact", "id": "b" * 32, "name": "blob", "meta": {}, "reference": None, "value": blob}
    routes: dict[str, tuple[Any, dict[str, Any]]] = {
        "add-run": (
            add_run.lambda_handler,
            event("add_run_http.json", "POST", f"/threads/{thread}/runs", {"thread_id": thread}, runs[0] | {"id": "x"}),
        ),
        "prompt-stack": (
            prompt_stack.lambda_handler,
            event(
                "prompt_stack_http.json",
                "POST",
                f"/threads/{thread}/prompt-stack",
                {"thread_id": thread},
                {"system": "You are a helpful assistant.", "input": "And of Italy?", "max_tokens": BUDGET},
            ),
        ),
        # the same thread's runs stored with their counts (a warm add-run's, ADR 0040); the route above reads runs
        # a fresh add-run environment stored uncounted (this process seeds before anything loads the tokenizer)
        "prompt-stack-counted": (
            prompt_stack.lambda_handler,
            event(
                "prompt_stack_http.json",
                "POST",
                f"/threads/{counted_thread}/prompt-stack",
                {"thread_id": counted_thread},
                {"system": "You are a helpful assistant.", "input": "And of Italy?", "max_tokens": BUDGET},
            ),
        ),
        # add-run as a fresh environment runs it (tokenizer not loaded: the run is stored uncounted, ADR 0040)
        "add-run-uncounted": (
            uncounted(add_run.lambda_handler),
            event("add_run_http.json", "POST", f"/threads/{thread}/runs", {"thread_id": thread}, runs[1] | {"id": "u"}),
        ),
        "list-runs": (
            threads.lambda_handler,
            event(
                "thread_runs_http.json",
                "GET",
                f"/threads/{thread}/runs",
                {"thread_id": thread},
                query="limit=20&order=desc",
            ),
        ),
        "process-output-small": (
            process_output.lambda_handler,
            event(
                "process_output_http.json",
                "POST",
                "/memories/TaskMemory/outputs",
                {"memory_name": "TaskMemory"},
                {"tool": "BenchTool", "activity": "fetch", "artifact": artifact},
            ),
        ),
        "load-small": (
            load_artifacts.lambda_handler,
            event(
                "load_artifacts_http.json",
                "GET",
                "/memories/TaskMemory/namespaces/blob/artifacts",
                {"memory_name": "TaskMemory", "namespace": "blob"},  # the namespace is the artifact's name
            ),
        ),
    }

    # Long-term records (issue 22): a put that replaces the current version (one TransactWriteItems) and a get, of a
    # value that is not text-indexed (OpenSearch calls are not botocore calls and cannot be replayed here).
    fact = {"value": {"text": "prefers window seats", "kind": "preference"}, "index": False}
    record_path = {"namespace": "users.u1.facts", "key": "seat"}
    routes |= {
        "record-put": (
            records.lambda_handler,
            event("record_put_http.json", "PUT", "/records/users.u1.facts/seat", record_path, fact),
        ),
        "record-get": (
            records.lambda_handler,
            event(
                "record_get_http.json", "GET", "/records/users.u1.facts/seat", record_path, query="refresh_ttl=false"
            ),
        ),
    }

    def tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        return event("mcp_call_http.json", "POST", "/mcp", {}, body)

    turn = {"input": runs[0]["input"]["value"], "output": runs[0]["output"]["value"]}
    routes |= {
        "mcp:append_turn": (mcp.lambda_handler, tool("append_turn", {"thread_id": thread, **turn, "run_id": "y"})),
        "mcp:get_context": (
            mcp.lambda_handler,
            tool(
                "get_context",
                {
                    "thread_id": thread,
                    "system": "You are a helpful assistant.",
                    "input": "And of Italy?",
                    "max_tokens": BUDGET,
                },
            ),
        ),
        "mcp:get_recent_turns": (mcp.lambda_handler, tool("get_recent_turns", {"thread_id": thread, "limit": 20})),
        "mcp:load_artifacts": (mcp.lambda_handler, tool("load_artifacts", {"namespace": "blob"})),
    }
    #: each MCP tool and the route it wraps
    pairs = {
        "mcp:append_turn": "add-run",
        "mcp:get_context": "prompt-stack",
        "mcp:get_recent_turns": "list-runs",
        "mcp:load_artifacts": "load-small",
    }
    devnull = open(os.devnull, "w")  # noqa: SIM115 - Powertools metrics are printed to stdout, as in Lambda
    recorded: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    with mock_aws():
        clients = {"dynamodb": aws_client("dynamodb"), "s3": aws_client("s3")}
        create_resources(clients["dynamodb"], clients["s3"])
        seed = event("add_run_http.json", "POST", f"/threads/{thread}/runs", {"thread_id": thread})
        with contextlib.redirect_stdout(devnull):
            for r in runs:
                out = add_run.lambda_handler({**seed, "body": json.dumps(r)}, None)
                assert out["statusCode"] in (200, 201), out
            get_encoding("cl100k_base")  # loaded: add-run counts from here on
            counted_path = f"/threads/{counted_thread}/runs"
            counted_seed = event("add_run_http.json", "POST", counted_path, {"thread_id": counted_thread})
            for r in runs:
                out = add_run.lambda_handler({**counted_seed, "body": json.dumps(r)}, None)
                assert out["statusCode"] in (200, 201), out
            out = records.lambda_handler(copy.deepcopy(routes["record-put"][1]), None)  # so the timed put replaces
            assert out["statusCode"] == 200, out
            recorder = Recorder(clients)
            for name, (fn, ev) in routes.items():
                recorder.active, recorder.calls = True, []
                out = fn(copy.deepcopy(ev), None)
                recorder.active = False
                assert out["statusCode"] < 300, (name, out)
                recorded[name] = recorder.calls

    stubbers = {service: Stubber(client) for service, client in clients.items()}
    for s in stubbers.values():
        s.activate()
    results: dict[str, dict[str, Any]] = {}
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
    for name, (fn, ev) in routes.items():
        samples: list[float] = []
        prof = profiler if name == args.profile else None
        calls = recorded[name]
        for i in range(args.warmup + args.reps):
            for service, method, saved in calls:
                stubbers[service].add_response(method, _answer(saved))
            e = copy.deepcopy(ev)
            with contextlib.redirect_stdout(devnull):
                if prof is not None and i >= args.warmup:
                    prof.enable()
                t0 = time.process_time()
                out = fn(e, None)
                dt = time.process_time() - t0
                if prof is not None:
                    prof.disable()
            assert out["statusCode"] < 300, (name, out)
            assert name not in pairs or '"isError": false' in out["body"], (name, out)
            for s in stubbers.values():
                s.assert_no_pending_responses()
            if i >= args.warmup:
                samples.append(dt * 1000)
        items = sum(len(saved.get("Items", [])) for _, _, saved in calls)
        results[name] = {
            "p50_ms": percentile(samples, 0.5),
            "p99_ms": percentile(samples, 0.99),
            "calls": ", ".join(f"{s}.{m}" for s, m, _ in calls),
            "items_read": items,
            "bytes_read": sum(_size(saved) for _, _, saved in calls),
        }
    if profiler is not None:
        import pstats

        if os.environ.get("BENCH_PROFILE_OUT"):
            profiler.dump_stats(os.environ["BENCH_PROFILE_OUT"])
        pstats.Stats(profiler, stream=sys.stderr).sort_stats(os.environ.get("BENCH_SORT", "cumulative")).print_stats(
            int(os.environ.get("BENCH_TOP", "40"))
        )
    if args.json:
        print(json.dumps(results))
        return
    print(
        f"CPU ms per call beyond AWS calls (Stubber replay), {args.reps} calls after {args.warmup} warm-up;"
        f" code: {args.code}"
    )
    print(f"{'route':<22} {'p50':>7} {'p99':>7}  {'items':>5} {'answer KB':>9}  calls")
    for name, r in results.items():
        flag = "" if r["p50_ms"] <= TARGET_MS else "  (> 2 ms)"
        kb = r["bytes_read"] / 1024
        print(f"{name:<22} {r['p50_ms']:7.2f} {r['p99_ms']:7.2f}  {r['items_read']:>5} {kb:9.1f}  {r['calls']}{flag}")
    print("\nMCP tool call vs the route it wraps (p50, same run; issue 21: at most +2 ms)")
    for name, route in pairs.items():
        ours, theirs = results[name]["p50_ms"], results[route]["p50_ms"]
        same = "same AWS calls" if results[name]["calls"] == results[route]["calls"] else "other AWS calls"
        print(
            f"{name:<22} {ours:7.2f} vs {route:<13} {theirs:7.2f} {ours - theirs:+.2f} ms {ours / theirs:.2f}x  {same}"
        )


if __name__ == "__main__":
    main()
