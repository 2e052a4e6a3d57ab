"""What hosted mode (AuthMode=apikey) adds to a request: the authorizer, the plan's checks and the usage write.

For each route, the same request is made twice through its Lambda handler: as a JWT-authorized request (the
reference: no plan, no metering) and as an API-key request (the authorizer's context in the event, a plan with a
rate limit, runs per day and stored bytes: the `pro` plan). The authorizer itself (a cache miss: API Gateway calls
it at most once per key per 300 s) is measured on its own.

AWS calls and bytes are counted against moto (in-process) with botocore event hooks: request bytes as sent
(`before-send`), answer bytes as the parsed answer's JSON. CPU is the handler's own, beyond its AWS calls: the
recorded answers are replayed with botocore's Stubber (as bench_route_cpu.py does), time.process_time per call,
p50/p99 over --reps calls after --warmup calls. Same run, same machine: the ratios are the result.

    PYTHONPATH=functions:layers/offprompt .venv/bin/python bench/bench_hosted_overhead.py [--reps 300] [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_route_cpu import Recorder, _answer, _paths, _size, event, percentile  # noqa: E402


def hosted(ev: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(ev)
    out["requestContext"]["authorizer"] = {"lambda": context}
    return out


class Bytes:
    """Request bytes of every botocore call while active (the body as sent)."""

    def __init__(self, clients: dict[str, Any]) -> None:
        self.sent = 0
        self.active = False
        for client in clients.values():
            client.meta.events.register("before-send", self._count)

    def _count(self, request: Any, **_: Any) -> None:
        if self.active:
            body = request.body
            self.sent += len(body) if isinstance(body, bytes | bytearray) else len(str(body or "").encode())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="80 calls per variant")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.reps, args.warmup = 80, 15
    _paths(ROOT)
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
    from authorizer import handler as authorizer
    from botocore.stub import Stubber
    from moto import mock_aws
    from prompt_stack import handler as prompt_stack
    from threads import handler as threads

    from offprompt.adapters.clients import aws_client
    from offprompt.composition.account import default_account, default_token_secret
    from offprompt.config import get_settings
    from offprompt.metering import PLANS

    thread = "bench-thread"
    runs = run_dicts(50, lo=30, hi=120)
    routes: dict[str, tuple[Any, dict[str, Any]]] = {
        "add-run": (
            add_run.lambda_handler,
            event("add_run_http.json", "POST", f"/threads/{thread}/runs", {"thread_id": thread}, runs[0] | {"id": "x"}),
        ),
        "list-runs": (
            threads.lambda_handler,
            event("thread_runs_http.json", "GET", f"/threads/{thread}/runs", {"thread_id": thread}, query="limit=20"),
        ),
        "prompt-stack": (
            prompt_stack.lambda_handler,
            event(
                "prompt_stack_http.json",
                "POST",
                f"/threads/{thread}/prompt-stack",
                {"thread_id": thread},
                {"input": "And of Italy?", "max_tokens": 2000},
            ),
        ),
    }
    devnull = open(os.devnull, "w")  # noqa: SIM115 - Powertools metrics go to stdout, as in Lambda
    recorded: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    sent: dict[str, int] = {}
    variants: dict[str, tuple[Any, dict[str, Any]]] = {}
    with mock_aws():
        clients = {"dynamodb": aws_client("dynamodb"), "s3": aws_client("s3")}
        create_resources(clients["dynamodb"], clients["s3"])
        tenancy = default_account()
        tenancy.create_tenant("bench-tenant", PLANS["pro"])
        key = tenancy.create_key("bench-tenant")["key"]
        auth_event = json.loads((ROOT / "events" / "authorizer_request.json").read_text())
        auth_event["headers"]["authorization"] = f"Bearer {key}"
        auth_event["identitySource"] = [f"Bearer {key}"]
        answer = authorizer.lambda_handler(auth_event, None)
        assert answer["isAuthorized"], answer
        # a short-lived token of the same key (ADR 0055): checked by its signature, no read in the authorizer
        token = tenancy.mint_token("bench-tenant", key.split("_")[1], 3600, b"bench-token-secret")["token"]
        token_event = copy.deepcopy(auth_event)
        token_event["headers"]["authorization"] = token_event["identitySource"][0] = f"Bearer {token}"
        default_token_secret.cache_clear()
        os.environ["OFFPROMPT_TOKEN_SECRET"] = "bench-token-secret"
        get_settings.cache_clear()
        token_answer = authorizer.lambda_handler(token_event, None)
        assert token_answer["isAuthorized"], token_answer
        seed = event("add_run_http.json", "POST", f"/threads/{thread}/runs", {"thread_id": thread})
        recorder, counter = Recorder(clients), Bytes(clients)
        with contextlib.redirect_stdout(devnull):
            for r in runs:
                out = add_run.lambda_handler({**seed, "body": json.dumps(r)}, None)
                assert out["statusCode"] in (200, 201), out
            for name, (fn, ev) in routes.items():
                variants[f"{name} (jwt)"] = (fn, ev)
                variants[f"{name} (apikey)"] = (fn, hosted(ev, answer["context"]))
                variants[f"{name} (token)"] = (fn, hosted(ev, token_answer["context"]))
            variants["authorizer (cache miss)"] = (authorizer.lambda_handler, auth_event)
            variants["authorizer (token)"] = (authorizer.lambda_handler, token_event)
            for n, (name, (fn, ev)) in enumerate(variants.items()):
                e = copy.deepcopy(ev)
                if name.startswith("add-run"):  # a new run each time (not a replay)
                    e["body"] = json.dumps(runs[1] | {"id": f"x-{n}"})
                recorder.active, recorder.calls, counter.active, counter.sent = True, [], True, 0
                out = fn(e, None)
                recorder.active = counter.active = False
                ok = out.get("isAuthorized") if "isAuthorized" in out else out["statusCode"] < 300
                assert ok, (name, out)
                recorded[name], sent[name] = recorder.calls, counter.sent

    stubbers = {service: Stubber(client) for service, client in clients.items()}
    for s in stubbers.values():
        s.activate()
    results: dict[str, dict[str, Any]] = {}
    for name, (fn, ev) in variants.items():
        samples: list[float] = []
        calls = recorded[name]
        for i in range(args.warmup + args.reps):
            for service, method, saved in calls:
                stubbers[service].add_response(method, _answer(saved))
            e = copy.deepcopy(ev)
            with contextlib.redirect_stdout(devnull):
                t0 = time.process_time()
                fn(e, None)
                dt = time.process_time() - t0
            for s in stubbers.values():
                s.assert_no_pending_responses()
            if i >= args.warmup:
                samples.append(dt * 1000)
        results[name] = {
            "p50_ms": percentile(samples, 0.5),
            "p99_ms": percentile(samples, 0.99),
            "n_calls": len(calls),
            "calls": ", ".join(f"{m}" for _, m, _ in calls),
            "bytes_sent": sent[name],
            "bytes_read": sum(_size(saved) for _, _, saved in calls),
        }
    if args.json:
        print(json.dumps(results))
        return
    print(f"hosted-mode overhead: CPU ms per call beyond AWS calls (Stubber replay), {args.reps} calls, p50/p99")
    print(f"{'variant':<26} {'p50':>6} {'p99':>6} {'calls':>5} {'sent B':>7} {'read B':>7}  AWS calls")
    for name, r in results.items():
        print(
            f"{name:<26} {r['p50_ms']:6.2f} {r['p99_ms']:6.2f} {r['n_calls']:>5} {r['bytes_sent']:>7} "
            f"{r['bytes_read']:>7}  {r['calls']}"
        )
    print("\nextra per request (apikey - jwt):")
    for route in routes:
        a, j = results[f"{route} (apikey)"], results[f"{route} (jwt)"]
        print(
            f"  {route:<13} +{a['n_calls'] - j['n_calls']} calls, +{a['bytes_sent'] - j['bytes_sent']} B sent, "
            f"+{a['bytes_read'] - j['bytes_read']} B read, CPU p50 +{a['p50_ms'] - j['p50_ms']:.2f} ms "
            f"({a['p50_ms'] / j['p50_ms']:.2f}x)"
        )


if __name__ == "__main__":
    main()
