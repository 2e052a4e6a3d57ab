"""The local substrate's per-request cost against table size, measured A/B so machine noise cancels out.

One durable `AtomicMotoServer` (journal fsync included) holds two tables from template.yaml: `big`, pre-filled
with N items of ~1.5 KB in one partition, and `small` (empty). The requests alternate between the two tables:
an add-run-shaped transaction (conditional Put of a run + `ADD` on the thread's meta item), then a
newest-20 Query. The table's size is the only thing that differs, so each pair of medians should be equal.

    .venv/bin/python bench/bench_substrate_ab.py [--items 10000] [--pairs 400]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--pairs", type=int, default=400)
    args = parser.parse_args(argv)
    os.environ.update(AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1")
    logging.getLogger("werkzeug").setLevel(logging.ERROR)

    import boto3

    from offprompt_local.resources import create_table
    from offprompt_local.substrate import AtomicMotoServer

    data_dir = Path(tempfile.mkdtemp(prefix="offprompt-bench-substrate-"))
    server = AtomicMotoServer(data_dir=data_dir)
    server.start()
    try:
        ddb = boto3.client("dynamodb", endpoint_url=server.url)
        for table in ("big", "small"):
            create_table(ddb, table)
        body = "x" * 1500
        fill = [
            {"PutRequest": {"Item": {"pk": {"S": "thread"}, "sk": {"S": f"run#{i:08d}"}, "body": {"S": body}}}}
            for i in range(args.items)
        ]
        for start in range(0, len(fill), 25):
            ddb.batch_write_item(RequestItems={"big": fill[start : start + 25]})

        def transaction(table: str, n: int) -> None:
            run = {"pk": {"S": "thread"}, "sk": {"S": f"run#{10**7 + n:08d}"}, "body": {"S": body}}
            ddb.transact_write_items(
                TransactItems=[
                    {"Put": {"TableName": table, "Item": run, "ConditionExpression": "attribute_not_exists(pk)"}},
                    {
                        "Update": {
                            "TableName": table,
                            "Key": {"pk": {"S": "thread"}, "sk": {"S": "meta"}},
                            "UpdateExpression": "ADD run_count :one",
                            "ExpressionAttributeValues": {":one": {"N": "1"}},
                        }
                    },
                ]
            )

        def newest(table: str, n: int) -> None:
            ddb.query(
                TableName=table,
                KeyConditionExpression="pk = :pk AND begins_with(sk, :run)",
                ExpressionAttributeValues={":pk": {"S": "thread"}, ":run": {"S": "run#"}},
                ScanIndexForward=False,
                Limit=20,
            )

        result: dict[str, Any] = {"items_in_big": args.items, "pairs": args.pairs}
        for name, call in (("transaction", transaction), ("query_newest_20", newest)):
            timings: dict[str, list[float]] = {"big": [], "small": []}
            for n in range(args.pairs):
                for table in ("big", "small"):
                    started = time.perf_counter()
                    call(table, n)
                    timings[table].append(time.perf_counter() - started)
            big, small = (statistics.median(timings[t]) * 1000 for t in ("big", "small"))
            result[name] = {
                "big_p50_ms": round(big, 2),
                "small_p50_ms": round(small, 2),
                "ratio": round(big / small, 2),
            }
        print(json.dumps(result, indent=2))
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
