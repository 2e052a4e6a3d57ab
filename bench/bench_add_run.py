"""add-run cost vs history length (1, 100, 1,000): bytes sent to DynamoDB/S3 and AWS calls per add.

Ours (ConversationService on moto) vs Griptape's AmazonDynamoDbConversationMemoryDriver + ConversationMemory
(also on moto). Requests are counted with botocore's `before-send` event (one per HTTP request, retries
included); bytes = request body length.

    .venv/bin/python bench/bench_add_run.py [--points 1,100,1000]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any

from _conv_common import BUCKET, TABLE, create_resources, fake_aws_env, offline_tiktoken, run_dicts


class Meter:
    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.bytes: Counter[str] = Counter()

    def __call__(self, request: Any, **kwargs: Any) -> None:
        service = "s3" if ".s3." in request.url or "s3.amazonaws" in request.url else "dynamodb"
        body = request.body or b""
        self.calls[service] += 1
        self.bytes[service] += len(body) if isinstance(body, bytes | str) else 0

    def reset(self) -> None:
        self.calls.clear()
        self.bytes.clear()

    def snapshot(self) -> dict[str, int]:
        return {
            "dynamodb_calls": self.calls["dynamodb"],
            "dynamodb_bytes": self.bytes["dynamodb"],
            "s3_calls": self.calls["s3"],
            "s3_bytes": self.bytes["s3"],
        }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--points", default="1,100,1000")
    parser.add_argument("--quick", action="store_true", help="history lengths 1 and 100")
    args = parser.parse_args()
    if args.quick:
        args.points = "1,100"
    points = [int(p) for p in args.points.split(",")]
    fake_aws_env()
    offline_tiktoken()

    import boto3
    from griptape.drivers.memory.conversation.amazon_dynamodb import AmazonDynamoDbConversationMemoryDriver
    from griptape.memory.structure import ConversationMemory
    from griptape.memory.structure import Run as GRun
    from moto import mock_aws

    from offprompt.adapters.dynamodb_runs import DynamoDbRunStore
    from offprompt.adapters.s3 import S3RunBodies
    from offprompt.adapters.tokenizer import TiktokenTokenizer
    from offprompt.services.conversation import ConversationService

    data = run_dicts(max(points))
    results: dict[str, Any] = {"ours": {}, "griptape": {}}
    with mock_aws():
        meter = Meter()
        ddb, s3 = boto3.client("dynamodb"), boto3.client("s3")
        create_resources(ddb, s3)
        for client in (ddb, s3):
            client.meta.events.register("before-send", meter)
        service = ConversationService(DynamoDbRunStore(TABLE, ddb), TiktokenTokenizer(), blobs=S3RunBodies(BUCKET, s3))
        for i, d in enumerate(data, start=1):
            meter.reset()
            service.add_run("bench", "thread", d)
            if i in points:
                results["ours"][i] = meter.snapshot()

        session = boto3.Session()
        g_meter = Meter()
        session.events.register("before-send", g_meter)
        driver = AmazonDynamoDbConversationMemoryDriver(
            session=session,
            table_name=TABLE,
            partition_key="pk",
            sort_key="sk",
            value_attribute_key="memory",
            partition_key_value="griptape",
            sort_key_value="thread",
        )
        memory = ConversationMemory(conversation_memory_driver=driver, autoload=False)
        for i, d in enumerate(data, start=1):
            run = GRun.from_dict(d)
            if i not in points:
                memory.runs.append(run)  # build the history without paying for its writes
                continue
            g_meter.reset()
            try:
                memory.add_run(run)
                outcome = "ok"
            except Exception as exc:  # DynamoDB's 400 KB item limit
                memory.runs.append(run) if run not in memory.runs else None
                outcome = f"failed: {type(exc).__name__}: {str(exc)[:80]}"
            results["griptape"][i] = g_meter.snapshot() | {"outcome": outcome}
    for i in points:
        o, g = results["ours"][i], results["griptape"][i]
        results.setdefault("ratio_griptape_over_ours_bytes", {})[i] = round(
            g["dynamodb_bytes"] / max(1, o["dynamodb_bytes"] + o["s3_bytes"]), 1
        )
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
