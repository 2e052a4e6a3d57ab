"""What each route costs on AWS, per million requests, from the AWS calls it makes (docs/cost.md).

Every route's Lambda handler is called in-process with an API Gateway v2 event, as Lambda calls it, against the
local stack's parts: moto (in-process) for DynamoDB and S3 and the real local OpenSearch node for text (started
here, or OPENSEARCH_URL). boto3 event hooks on the functions' own clients (`offprompt.adapters.clients`) count,
per request:

- calls per operation (DynamoDB, S3), and request/response bytes (`before-send` body, `after-call` response);
- DynamoDB read/write request units, computed from the items as DynamoDB bills them (moto reports no real
  consumed capacity): reads round the bytes read up to 4 KB (x0.5 eventually consistent), writes round each
  item up to 1 KB, transactions count twice; an item is sized by DynamoDB's rule (attribute names + values);
- OpenSearch HTTP requests (opensearch-py transport), which cost nothing per request on a provisioned domain;
- Lambda duration: the handler's own time (wall time minus time inside AWS/OpenSearch calls, measured here)
  plus an assumed in-region latency per call (LATENCY_MS below), billed at the function's MemorySize from
  template.yaml.

Prices (PRICES, us-east-1, list prices; sources in docs/cost.md) turn that into dollars per million requests.

    PYTHONPATH=functions:layers/offprompt:infra/local .venv/bin/python bench/bench_cost.py [--reps 30] [--json]
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import math
import os
import statistics
import sys
import time
import uuid
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

#: us-east-1 list prices in dollars, seen 2026-12-01 (sources in docs/cost.md).
PRICES = {
    "apigw_http_per_million": 1.00,  # first 300M requests/month, per 512 KB
    "lambda_request_per_million": 0.20,
    "lambda_gb_second_arm": 0.0000133334,
    "ddb_rru_per_million": 0.125,  # on-demand, after the Nov 2024 cut
    "ddb_wru_per_million": 0.625,
    "s3_put_per_thousand": 0.005,  # PUT, COPY, POST, LIST
    "s3_get_per_thousand": 0.0004,  # GET, HEAD and the rest
    "agentcore_event_per_thousand": 0.25,
    "agentcore_retrieval_per_thousand": 0.50,
}
#: Assumed in-region round trips added to the measured handler time (Lambda bills wall time).
LATENCY_MS = {"dynamodb": 6.0, "s3": 15.0, "opensearch": 8.0}
S3_PUT_CLASS = {"PutObject", "CopyObject", "ListObjectsV2", "ListObjects", "CreateMultipartUpload", "UploadPart"}
S3_FREE = {"DeleteObject", "DeleteObjects"}


# ---- DynamoDB item sizes and request units -----------------------------------------------------------------
def value_size(value: dict[str, Any]) -> int:
    ((kind, v),) = value.items()
    if kind == "S":
        return len(v.encode("utf-8"))
    if kind == "N":
        digits = v.lstrip("-").replace(".", "").lstrip("0") or "0"
        return math.ceil(len(digits) / 2) + 1
    if kind == "B":
        return len(v)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "L":
        return 3 + sum(1 + value_size(x) for x in v)
    if kind == "M":
        return 3 + sum(len(k.encode()) + 1 + value_size(x) for k, x in v.items())
    if kind in ("SS", "NS", "BS"):
        return sum(value_size({kind[0]: x}) for x in v)
    return 0


def item_size(item: dict[str, Any] | None) -> int:
    return sum(len(k.encode("utf-8")) + value_size(v) for k, v in (item or {}).items())


class Meter:
    """Counts what the functions' boto3 clients (and the OpenSearch transport) do while `route` is set."""

    def __init__(self, raw_ddb: Any, table: str) -> None:
        self.raw = raw_ddb  # an unhooked client: looks up full items to size them
        self.table = table
        self.route: str | None = None
        self.calls: dict[str, Counter[str]] = defaultdict(Counter)
        self.units: dict[str, Counter[str]] = defaultdict(Counter)
        self.bytes: dict[str, Counter[str]] = defaultdict(Counter)
        self.aws_seconds: dict[str, float] = defaultdict(float)
        self._start: dict[int, float] = {}

    def attach(self, service: str, client: Any) -> None:
        events = client.meta.events
        events.register(f"provide-client-params.{service}", self._params)
        events.register("before-call", self._before(service))
        events.register("before-send", self._send)
        events.register("after-call", self._after(service))

    def _before(self, service: str) -> Any:
        def hook(model: Any, context: dict[str, Any], **_: Any) -> None:
            context["bench_t0"] = time.perf_counter()

        return hook

    @staticmethod
    def _params(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        context["bench_params"] = dict(params)  # the API parameters, as the caller gave them

    def _send(self, request: Any, **_: Any) -> None:
        if self.route is not None:
            body = request.body
            size = len(body) if isinstance(body, bytes | str) else int(request.headers.get("Content-Length") or 0)
            self.bytes[self.route]["sent"] += size

    def _after(self, service: str) -> Any:
        def hook(http_response: Any, parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
            route = self.route
            if route is None:
                return
            try:
                self._count(route, service, http_response, parsed, model, context)
            finally:  # the call and this hook's own lookups: neither is the handler's time
                self.aws_seconds[route] += time.perf_counter() - context.get("bench_t0", time.perf_counter())

        return hook

    def _count(
        self, route: str, service: str, http_response: Any, parsed: dict[str, Any], model: Any, context: dict[str, Any]
    ) -> None:
        op = model.name
        self.calls[route][f"{service}:{op}"] += 1
        length = http_response.headers.get("Content-Length")
        self.bytes[route]["received"] += int(length) if length else len(getattr(http_response, "content", b""))
        if service == "dynamodb":
            rru, wru = self._units(op, context.get("bench_params", {}), parsed)
            self.units[route]["rru"] += rru
            self.units[route]["wru"] += wru
        elif service == "s3":
            kind = "free" if op in S3_FREE else "put_class" if op in S3_PUT_CLASS else "get_class"
            self.units[route][f"s3_{kind}"] += 1

    def _full(self, key: dict[str, Any]) -> dict[str, Any] | None:
        item: dict[str, Any] | None = self.raw.get_item(TableName=self.table, Key=key).get("Item")
        return item

    def _units(self, op: str, params: dict[str, Any], parsed: dict[str, Any]) -> tuple[float, float]:
        def read(size: int, consistent: bool) -> float:
            return max(1, math.ceil(size / 4096)) * (1.0 if consistent else 0.5)

        def write(size: int) -> float:
            return float(max(1, math.ceil(size / 1024)))

        if op == "GetItem":
            return read(item_size(parsed.get("Item")), bool(params.get("ConsistentRead"))), 0.0
        if op in ("Query", "Scan"):
            items = parsed.get("Items", [])
            # A projection returns less than DynamoDB reads (and bills): size the whole items.
            total = sum(item_size(self._full({"pk": i["pk"], "sk": i["sk"]}) or i) for i in items)
            return read(total, bool(params.get("ConsistentRead"))), 0.0
        if op == "PutItem":
            return 0.0, write(item_size(params.get("Item")))
        if op in ("UpdateItem", "DeleteItem"):
            return 0.0, write(item_size(self._full(params["Key"])))
        if op == "BatchWriteItem":
            w = 0.0
            for requests in params.get("RequestItems", {}).values():
                for r in requests:
                    w += write(item_size(r["PutRequest"]["Item"])) if "PutRequest" in r else 1.0
            return 0.0, w
        if op == "TransactWriteItems":
            w = 0.0
            for t in params.get("TransactItems", []):
                if "Put" in t:
                    w += 2 * write(item_size(t["Put"]["Item"]))
                else:
                    ((_kind, body),) = t.items()
                    w += 2 * write(item_size(self._full(body["Key"])))
            return 0.0, w
        return 0.0, 0.0


def _patch_opensearch(meter: Meter) -> None:
    from opensearchpy.transport import Transport

    original = Transport.perform_request

    def perform_request(self: Any, method: str, url: str, *args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return original(self, method, url, *args, **kwargs)
        finally:
            if meter.route is not None:
                meter.aws_seconds[meter.route] += time.perf_counter() - t0
                meter.calls[meter.route][f"opensearch:{method} {url.split('?')[0].rsplit('/', 1)[-1]}"] += 1
                meter.units[meter.route]["opensearch_requests"] += 1

    Transport.perform_request = perform_request  # type: ignore[method-assign]


def event(method: str, path: str, params: dict[str, str], body: Any = None, query: str = "") -> dict[str, Any]:
    e: dict[str, Any] = json.loads((ROOT / "events" / "thread_get_http.json").read_text())
    e["routeKey"] = e["requestContext"]["routeKey"] = f"{method} {path}"
    e["rawPath"] = e["requestContext"]["http"]["path"] = path
    e["requestContext"]["http"]["method"] = method
    e["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = "bench-tenant"
    e["pathParameters"] = params
    e["rawQueryString"] = query
    if query:
        e["queryStringParameters"] = dict(kv.split("=", 1) for kv in query.split("&"))
    e.pop("body", None)
    if body is not None:
        e["body"] = json.dumps(body)
    return e


def memory_mb(function: str) -> int:
    from offprompt_local.resources import template_resource

    return int(template_resource(function).get("MemorySize") or 512)  # Globals: 512


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=30, help="requests per route (medians over them)")
    parser.add_argument("--runs", type=int, default=200, help="runs in the thread prompt-stack and list read")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quick", action="store_true", help="5 requests per route, a 60-run thread")
    args = parser.parse_args()
    if args.quick:
        args.reps, args.runs = 5, 60

    from _conv_common import BUCKET, TABLE, create_resources, fake_aws_env, run_dicts

    fake_aws_env()
    from offprompt_local.opensearch import LocalOpenSearch

    with contextlib.ExitStack() as stack:
        os_url = os.environ.get("OPENSEARCH_URL") or stack.enter_context(LocalOpenSearch())
        index = f"offprompt-bench-cost-{uuid.uuid4().hex[:8]}"
        os.environ.update(
            OFFPROMPT_TABLE=TABLE,
            OFFPROMPT_BUCKET=BUCKET,
            OFFPROMPT_OPENSEARCH_URL=os_url,
            OFFPROMPT_OPENSEARCH_INDEX=index,
            OFFPROMPT_SUMMARIZE_MODE="off",
            POWERTOOLS_SERVICE_NAME="offprompt",
            POWERTOOLS_METRICS_NAMESPACE="offprompt",
            POWERTOOLS_LOG_LEVEL="WARNING",
        )
        import boto3
        from moto import mock_aws

        stack.enter_context(mock_aws())
        from offprompt.adapters.clients import aws_client

        ddb, s3 = aws_client("dynamodb"), aws_client("s3")
        create_resources(ddb, s3)
        meter = Meter(boto3.client("dynamodb"), TABLE)
        meter.attach("dynamodb", ddb)
        meter.attach("s3", s3)
        _patch_opensearch(meter)
        results = measure(meter, args.reps, run_dicts(args.runs, lo=30, hi=120))
        stack.callback(_drop_index, os_url, index)
    report(results, args.json)


def _drop_index(url: str, index: str) -> None:
    from offprompt.adapters.opensearch_client import build_opensearch_client

    build_opensearch_client(url).indices.delete(index=index, ignore_unavailable=True)


def measure(meter: Meter, reps: int, runs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    from add_run import handler as add_run
    from load_artifacts import handler as load_artifacts
    from mcp_server import handler as mcp
    from memories import handler as memories
    from process_output import handler as process_output
    from prompt_stack import handler as prompt_stack
    from threads import handler as threads

    thread = "bench-thread"
    devnull = open(os.devnull, "w")  # noqa: SIM115 - Powertools metrics print to stdout, as in Lambda
    with contextlib.redirect_stdout(devnull):
        for r in runs:  # the thread prompt-stack and list-runs read
            out = add_run.lambda_handler(event("POST", f"/threads/{thread}/runs", {"thread_id": thread}, r), None)
            assert out["statusCode"] == 201, out
        # a thread that keeps its 10 newest runs: once past max_runs + PRUNE_SLACK, every add prunes one run
        out = threads.lambda_handler(event("PUT", "/threads/pruned", {"thread_id": "pruned"}, {"max_runs": 10}), None)
        assert out["statusCode"] == 200, out
        for i, r in enumerate(runs[:30]):
            body = {**r, "id": f"pruned-{i}"}
            out = add_run.lambda_handler(event("POST", "/threads/pruned/runs", {"thread_id": "pruned"}, body), None)
            assert out["statusCode"] == 201, out
        text = " ".join(f"word{i} about memory and agents" for i in range(300))  # ~2 KB, a few chunks
        for _name, artifact in (
            ("blob-ns", {"type": "BlobArtifact", "name": "blob-ns", "value": base64.b64encode(b"b" * 1024).decode()}),
            ("text-ns", {"type": "TextArtifact", "name": "text-ns", "value": text}),
        ):
            body = {"tool": "BenchTool", "activity": "fetch", "artifact": {**artifact, "id": uuid.uuid4().hex}}
            out = process_output.lambda_handler(
                event("POST", "/memories/TaskMemory/outputs", {"memory_name": "TaskMemory"}, body), None
            )
            assert out["statusCode"] == 200, out

    def new_run(i: int) -> dict[str, Any]:
        return {**runs[i % len(runs)], "id": f"bench-{uuid.uuid4().hex}"}

    def store(kind: str) -> Any:
        value = base64.b64encode(os.urandom(1024)).decode() if kind == "blob" else text
        name = uuid.uuid4().hex
        artifact = {"type": "BlobArtifact" if kind == "blob" else "TextArtifact", "id": name, "name": name}
        body = {"tool": "BenchTool", "activity": "fetch", "artifact": {**artifact, "value": value}}
        return event("POST", "/memories/TaskMemory/outputs", {"memory_name": "TaskMemory"}, body)

    def mcp_call(name: str, **arguments: Any) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}
        return event("POST", "/mcp", {}, body)

    mem = {"memory_name": "TaskMemory"}
    ns_path = "/memories/TaskMemory/namespaces"
    routes: dict[str, tuple[str, Any, Any]] = {
        # route: (template function, handler, event factory)
        "POST /threads/{id}/runs (add-run)": (
            "AddRunFunction",
            add_run.lambda_handler,
            lambda i: event("POST", f"/threads/t{i}/runs", {"thread_id": f"t{i}"}, new_run(i)),
        ),
        "POST /threads/{id}/runs (200-run thread)": (
            "AddRunFunction",
            add_run.lambda_handler,
            lambda i: event("POST", f"/threads/{thread}/runs", {"thread_id": thread}, new_run(i)),
        ),
        "POST /threads/{id}/runs (max_runs 10, prune)": (
            "AddRunFunction",
            add_run.lambda_handler,
            lambda i: event("POST", "/threads/pruned/runs", {"thread_id": "pruned"}, new_run(i)),
        ),
        "POST /threads/{id}/prompt-stack (4k tokens)": (
            "PromptStackFunction",
            prompt_stack.lambda_handler,
            lambda i: event(
                "POST",
                f"/threads/{thread}/prompt-stack",
                {"thread_id": thread},
                {"system": "You are helpful.", "input": "And Italy?", "max_tokens": 4000},
            ),
        ),
        "GET /threads/{id}/runs (20)": (
            "ThreadsFunction",
            threads.lambda_handler,
            lambda i: event("GET", f"/threads/{thread}/runs", {"thread_id": thread}, query="limit=20&order=desc"),
        ),
        "GET /threads/{id}": (
            "ThreadsFunction",
            threads.lambda_handler,
            lambda i: event("GET", f"/threads/{thread}", {"thread_id": thread}),
        ),
        "POST /memories/{m}/outputs (1 KB blob)": (
            "ProcessOutputFunction",
            process_output.lambda_handler,
            lambda i: store("blob"),
        ),
        "POST /memories/{m}/outputs (2 KB text)": (
            "ProcessOutputFunction",
            process_output.lambda_handler,
            lambda i: store("text"),
        ),
        "GET .../namespaces/{ns}/artifacts (blob)": (
            "LoadArtifactsFunction",
            load_artifacts.lambda_handler,
            lambda i: event("GET", f"{ns_path}/blob-ns/artifacts", {**mem, "namespace": "blob-ns"}),
        ),
        "GET .../namespaces/{ns}/artifacts (text)": (
            "LoadArtifactsFunction",
            load_artifacts.lambda_handler,
            lambda i: event("GET", f"{ns_path}/text-ns/artifacts", {**mem, "namespace": "text-ns"}),
        ),
        "POST .../namespaces/{ns}/search": (
            "MemoriesFunction",
            memories.lambda_handler,
            lambda i: event(
                "POST",
                "/memories/TaskMemory/namespaces/text-ns/search",
                {**mem, "namespace": "text-ns"},
                {"query": "memory agents", "top_k": 5},
            ),
        ),
        "GET /memories/{m}/namespaces": (
            "MemoriesFunction",
            memories.lambda_handler,
            lambda i: event("GET", "/memories/TaskMemory/namespaces", mem),
        ),
        "GET /memories/{m}/meta": (
            "MemoriesFunction",
            memories.lambda_handler,
            lambda i: event("GET", "/memories/TaskMemory/meta", mem),
        ),
        # the MCP endpoint's tools over the same data as the routes they wrap (tools/call, one per request)
        "POST /mcp append_turn (200-run thread)": (
            "McpFunction",
            mcp.lambda_handler,
            lambda i: mcp_call(
                "append_turn", thread_id=thread, input="q", output="a " * 60, run_id=f"mcp-{uuid.uuid4().hex}"
            ),
        ),
        "POST /mcp get_context (4k tokens)": (
            "McpFunction",
            mcp.lambda_handler,
            lambda i: mcp_call(
                "get_context", thread_id=thread, system="You are helpful.", input="And Italy?", max_tokens=4000
            ),
        ),
        "POST /mcp search_memory": (
            "McpFunction",
            mcp.lambda_handler,
            lambda i: mcp_call("search_memory", namespace="text-ns", query="memory agents", top_k=5),
        ),
    }
    results: dict[str, dict[str, Any]] = {}
    with contextlib.redirect_stdout(devnull):
        for route, (function, handler, make) in routes.items():
            handler(make(10_000), None)  # warm: imports and cached clients are not per-request work
            own_ms: list[float] = []
            for i in range(reps):
                ev = make(i)
                meter.route = route
                before = meter.aws_seconds[route]
                t0 = time.perf_counter()
                out = handler(ev, None)
                wall = time.perf_counter() - t0
                meter.route = None
                assert out["statusCode"] < 300, (route, out)
                assert not route.startswith("POST /mcp") or '"isError": false' in out["body"], (route, out)
                own_ms.append((wall - (meter.aws_seconds[route] - before)) * 1000)
            n = reps
            calls = {k: v / n for k, v in sorted(meter.calls[route].items())}
            per = {k: v / n for k, v in meter.units[route].items()}
            latency = sum(LATENCY_MS[k.split(":")[0]] * v for k, v in calls.items())
            results[route] = {
                "function": function,
                "memory_mb": memory_mb(function),
                "calls": calls,
                "rru": per.get("rru", 0.0),
                "wru": per.get("wru", 0.0),
                "s3_put_class": per.get("s3_put_class", 0.0),
                "s3_get_class": per.get("s3_get_class", 0.0),
                "opensearch_requests": per.get("opensearch_requests", 0.0),
                "bytes_sent": meter.bytes[route]["sent"] / n,
                "bytes_received": meter.bytes[route]["received"] / n,
                "handler_ms": statistics.median(own_ms),
                "billed_ms": statistics.median(own_ms) + latency,
            }
    return results


def dollars(r: dict[str, Any]) -> dict[str, float]:
    """Dollars per million requests, by service."""
    gb_s = r["memory_mb"] / 1024 * r["billed_ms"] / 1000
    return {
        "apigw": PRICES["apigw_http_per_million"],
        "lambda": PRICES["lambda_request_per_million"] + gb_s * PRICES["lambda_gb_second_arm"] * 1e6,
        "dynamodb": r["rru"] * PRICES["ddb_rru_per_million"] + r["wru"] * PRICES["ddb_wru_per_million"],
        "s3": (r["s3_put_class"] * PRICES["s3_put_per_thousand"] + r["s3_get_class"] * PRICES["s3_get_per_thousand"])
        * 1000,
    }


def report(results: dict[str, dict[str, Any]], as_json: bool) -> None:
    for r in results.values():
        r["usd_per_million"] = dollars(r)
        r["usd_per_million"]["total"] = sum(r["usd_per_million"].values())
    add = results["POST /threads/{id}/runs (200-run thread)"]
    stack = results["POST /threads/{id}/prompt-stack (4k tokens)"]
    workload = add["usd_per_million"]["total"] + stack["usd_per_million"]["total"]
    agentcore_short = 1000 * PRICES["agentcore_event_per_thousand"]
    agentcore_long = agentcore_short + 1000 * PRICES["agentcore_retrieval_per_thousand"]
    summary = {
        "offprompt_1M_runs_plus_1M_prompt_stacks": workload,
        "agentcore_events_only": agentcore_short,
        "agentcore_events_plus_retrievals": agentcore_long,
    }
    if as_json:
        out = {"routes": results, "workload": summary, "prices": PRICES, "latency_ms": LATENCY_MS}
        print(json.dumps(out, indent=1))
        return
    head = (
        f"{'route':44} {'MB':>5} {'ms':>6} {'ddb calls':>9} {'RRU':>6} {'WRU':>6} {'S3 put/get':>10} {'OS':>4} "
        f"{'KB out/in':>11} | {'APIGW':>6} {'Lambda':>7} {'DDB':>6} {'S3':>6} {'$/M':>7}"
    )
    print(head)
    print("-" * len(head))
    for route, r in results.items():
        d = r["usd_per_million"]
        ddb_calls = sum(v for k, v in r["calls"].items() if k.startswith("dynamodb:"))
        kb = f"{r['bytes_sent'] / 1024:>5.1f}/{r['bytes_received'] / 1024:<5.1f}"
        print(
            f"{route:44} {r['memory_mb']:>5} {r['billed_ms']:>6.1f} {ddb_calls:>9.2f} {r['rru']:>6.2f} "
            f"{r['wru']:>6.2f} {r['s3_put_class']:>4.1f}/{r['s3_get_class']:<5.1f} {r['opensearch_requests']:>4.1f} "
            f"{kb} | {d['apigw']:>6.2f} {d['lambda']:>7.2f} {d['dynamodb']:>6.2f} {d['s3']:>6.2f} {d['total']:>7.2f}"
        )
    print()
    print("Workload: 1M runs added (to a 200-run thread) + 1M prompt-stacks (4,000 tokens) per month")
    print(f"  offprompt, per-request AWS charges:               ${workload:,.2f}  (+ fixed floors, docs/cost.md)")
    print(f"  AgentCore Memory, 1M events (1 per run):          ${agentcore_short:,.2f}")
    print(f"  AgentCore Memory, + 1M long-term retrievals:      ${agentcore_long:,.2f}")
    print(
        "  ms = handler time measured here + assumed in-region latency per call "
        f"({', '.join(f'{k} {v:g} ms' for k, v in LATENCY_MS.items())})"
    )


if __name__ == "__main__":
    main()
