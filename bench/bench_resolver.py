"""What Powertools' resolver and its OpenAPI request validation cost per request, warm and on the first request.

The prompt-stack route's shape (`Path()` thread id + `Annotated[PromptStackRequest, Body()]`, the real
`responses=`), with a handler that returns a constant 45 KB JSON response, so only the HTTP glue is timed:

- `validated`: `api_common.entry._build_app` as every function builds it (`enable_validation=True`, our body
  reader), the typed route;
- `unvalidated`: a plain `APIGatewayHttpResolver()` whose route reads the body with `json_body` and validates it
  with the library's `parse_model` (the direct-invocation path's validation), same answers for good input;
- `floor`: `json.loads` + `parse_model` of the same body, no resolver.

Warm: CPU ms per call (time.process_time), p50/p99 of --reps after --warmup. First request: a fresh interpreter per
sample imports the module, builds the app and resolves one event (CPU of that step, median of --cold-runs).

    PYTHONPATH=functions:layers/offprompt .venv/bin/python bench/bench_resolver.py [--reps 2000] [--cold-runs 5]
"""

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated, Any

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT / "layers" / "offprompt", ROOT / "functions"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

BODY = {"system": "You are a helpful assistant.", "input": "And of Italy?", "max_tokens": 4000}
ANSWER = json.dumps({"type": "PromptStack", "messages": [{"type": "Message", "text": "x" * 500}] * 90})


def event() -> dict[str, Any]:
    e = json.loads((ROOT / "events" / "prompt_stack_http.json").read_text())
    e["rawPath"] = e["requestContext"]["http"]["path"] = "/threads/bench-thread/prompt-stack"
    e["pathParameters"] = {"thread_id": "bench-thread"}
    e["body"] = json.dumps(BODY)
    return e


def validated_app() -> Any:
    from api_common.entry import _build_app, json_text_response
    from api_common.errors import error_responses
    from api_common.powertools import APIGatewayHttpResolver, Body, Path, Response
    from api_common.routes import json_content
    from offprompt.services.conversation import PromptStackRequest

    def register(app: APIGatewayHttpResolver) -> None:
        @app.post(
            "/threads/<thread_id>/prompt-stack",
            responses={200: json_content("PromptStackJSON", "stack"), **error_responses()},
        )
        def post(thread_id: Annotated[str, Path()], request: Annotated[PromptStackRequest, Body()]) -> Response[Any]:
            assert request.max_tokens == BODY["max_tokens"]
            return json_text_response(ANSWER)

    return _build_app(register)


def unvalidated_app() -> Any:
    from api_common.entry import json_body, json_text_response
    from api_common.powertools import APIGatewayHttpResolver
    from offprompt.services.conversation import PromptStackRequest, parse_model

    app = APIGatewayHttpResolver()

    @app.post("/threads/<thread_id>/prompt-stack")
    def post(thread_id: str) -> Any:
        request = parse_model(PromptStackRequest, json_body(app))
        assert request.max_tokens == BODY["max_tokens"]
        return json_text_response(ANSWER)

    return app


def floor() -> Any:
    from offprompt.services.conversation import PromptStackRequest, parse_model

    class Floor:
        def resolve(self, e: dict[str, Any], _: Any) -> dict[str, Any]:
            request = parse_model(PromptStackRequest, json.loads(e["body"]))
            assert request.max_tokens == BODY["max_tokens"]
            return {"statusCode": 200, "body": ANSWER}

    return Floor()


KINDS = {"validated": validated_app, "unvalidated": unvalidated_app, "floor": floor}


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def cold(kind: str) -> None:
    """Child process: build the app and resolve one event; print the CPU ms of that (imports done before)."""
    import api_common.entry  # noqa: F401 - the imports a handler module makes are not part of this step
    import offprompt.services.conversation  # noqa: F401

    t0 = time.process_time()
    out = KINDS[kind]().resolve(event(), None)
    dt = (time.process_time() - t0) * 1000
    assert out["statusCode"] == 200, out
    print(json.dumps({"ms": dt}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--cold-runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="500 calls, 3 cold runs")
    parser.add_argument("--cold-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.cold_child:
        cold(args.cold_child)
        return
    if args.quick:
        args.reps, args.warmup, args.cold_runs = 500, 100, 3
    print(f"CPU ms per request, {args.reps} after {args.warmup} warm-up; first request: median of {args.cold_runs}")
    print(f"{'kind':<12} {'p50':>7} {'p99':>7} {'first request':>14}")
    for kind, make in KINDS.items():
        app = make()
        samples = []
        for i in range(args.warmup + args.reps):
            e = event()
            t0 = time.process_time()
            out = app.resolve(e, None)
            dt = time.process_time() - t0
            assert out["statusCode"] == 200, out
            if i >= args.warmup:
                samples.append(dt * 1000)
        firsts = []
        for _ in range(args.cold_runs):
            child = subprocess.run(
                [sys.executable, __file__, "--cold-child", kind], capture_output=True, text=True, check=True
            )
            firsts.append(json.loads(child.stdout.strip().splitlines()[-1])["ms"])
        print(
            f"{kind:<12} {percentile(samples, 0.5):7.3f} {percentile(samples, 0.99):7.3f}"
            f" {statistics.median(firsts):14.1f}"
        )


if __name__ == "__main__":
    main()
