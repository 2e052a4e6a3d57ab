"""Does the time of a refused key tell an attacker which key ids exist? (outsider finding 12)

The authorizer function (its `lambda_handler`, with the refusal floor) and the key check alone
(`AccountService.authenticate`, no floor) for three tokens of one well-formed shape, interleaved, through the local
substrate's moto server (a real HTTP round trip per GetItem): a valid key, a known key id with a wrong secret, and an
unknown key id. Wall time per call, median and p90 over --reps rounds; the result is the ratio unknown /
wrong-secret (1.00 = indistinguishable at this resolution). Before the fix the outsider measured 2.72 vs 3.41 ms
(0.80) through the dev server.

    PYTHONPATH=functions:layers/offprompt:infra/local .venv/bin/python bench/bench_key_check.py [--reps 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--quick", action="store_true", help="300 rounds")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    reps = 200 if args.quick else args.reps

    import boto3

    from offprompt_local.resources import create_table
    from offprompt_local.substrate import AtomicMotoServer

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        os.environ.setdefault(name, "bench")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    server = AtomicMotoServer(port=0)
    server.start()
    try:
        os.environ["AWS_ENDPOINT_URL"] = server.url
        create_table(boto3.client("dynamodb"), "bench-keys")
        os.environ["OFFPROMPT_TABLE"] = "bench-keys"  # the authorizer function's own settings
        from offprompt.adapters.dynamodb_account import DynamoDbAccountStore
        from offprompt.metering import PLANS
        from offprompt.services.account import AccountService, keys

        account = AccountService(DynamoDbAccountStore("bench-keys"))
        account.create_tenant("bench", PLANS["pro"])
        valid = account.create_key("bench")["key"]
        parts = keys.parse_key(valid)
        assert parts is not None
        tokens = {
            "valid key": valid,
            "known id, wrong secret": f"{keys.PREFIX}_{parts.key_id}_{'x' * len(parts.secret)}",
            "unknown id": f"{keys.PREFIX}_{'f' * len(parts.key_id)}_{parts.secret}",
        }
        from authorizer.handler import lambda_handler as authorizer

        def request(token: str) -> dict[str, object]:
            return {"headers": {"authorization": f"Bearer {token}"}, "identitySource": [f"Bearer {token}"]}

        calls = {
            **{f"authorizer: {n}": (lambda t=t: authorizer(request(t), None)) for n, t in tokens.items()},
            **{f"check only: {n}": (lambda t=t: account.authenticate(t)) for n, t in tokens.items()},
        }
        times: dict[str, list[float]] = {name: [] for name in calls}
        for _ in range(20):  # warm up clients and connections
            for call in calls.values():
                call()
        for _ in range(reps):
            for name, call in calls.items():
                t0 = time.perf_counter()
                call()
                times[name].append((time.perf_counter() - t0) * 1000)
    finally:
        server.stop()
    rows = {
        name: {"p50_ms": statistics.median(v), "p90_ms": statistics.quantiles(v, n=10)[-1]} for name, v in times.items()
    }
    ratios = {
        side: rows[f"{side}: unknown id"]["p50_ms"] / rows[f"{side}: known id, wrong secret"]["p50_ms"]
        for side in ("authorizer", "check only")
    }
    if args.json:
        print(json.dumps({"rows": rows, "unknown_over_wrong_secret": ratios}))
        return
    print(f"key check, {reps} interleaved rounds on the local substrate (wall ms per call)")
    for name, row in rows.items():
        print(f"  {name:<38} p50 {row['p50_ms']:6.3f}  p90 {row['p90_ms']:6.3f}")
    for side, ratio in ratios.items():
        print(f"  {side}: unknown id / wrong secret (p50): {ratio:.3f}")


if __name__ == "__main__":
    main()
