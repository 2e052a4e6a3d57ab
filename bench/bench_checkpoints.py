"""LangGraph checkpoints (issue 23, docs/adr/0039): put and get_tuple of the latest checkpoint, ours vs raw boto3.

For a 10 KB and a 2 MB checkpoint (random bytes, a thread of `--history` earlier checkpoints with 2 writes each):
- ours: the use cases `put_checkpoint` and `get_checkpoint` (latest) over the real adapters (the tuple with its
  writes, base64 as the API answers it);
- raw: what a hand-written saver would do at the least: put = PutItem (the 2 MB one: PutObject + PutItem of its
  key), latest = one Query (newest first, Limit 1) + GetObject for the 2 MB one, no writes, no merge, no base64.
Interleaved reps on one table (both see the same machine load); medians; the DynamoDB and S3 calls our latest
makes (1 Query of one item when the newest checkpoint has no writes, plus 1 GetObject when offloaded). AWS is the
local stack's substrate over HTTP (`--moto substrate`, the default since issue 34: every call a round trip, a Query
reads only the items it returns, as DynamoDB does) or moto in process (`--moto mock`, before issue 34: each Query
sorts and walks the whole partition, whatever it returns).
The code measured is the checkout this file is in (run a copy of it from another checkout to measure that one).

    .venv/bin/python bench/bench_checkpoints.py [--reps 15] [--history 50] [--quick] [--moto substrate|mock]
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import time
from collections import Counter
from typing import Any

from _conv_common import BUCKET, TABLE, create_resources, fake_aws_env, median

SIZES = {"10KB": 10 * 1024, "2MB": 2 * 1024 * 1024}


def calls_of(clients: list[Any], call: Any) -> dict[str, int]:
    seen: Counter[str] = Counter()

    def count(model: Any, **_: Any) -> None:
        seen[f"{model.service_model.service_name}.{model.name}"] += 1

    def items(parsed: dict[str, Any], **_: Any) -> None:
        seen["dynamodb items read"] += len(parsed.get("Items", []))

    for client in clients:
        client.meta.events.register("before-call.*.*", count)
        client.meta.events.register("after-call.dynamodb.Query", items)
    try:
        call()
    finally:
        for client in clients:
            client.meta.events.unregister("before-call.*.*", count)
            client.meta.events.unregister("after-call.dynamodb.Query", items)
    return dict(seen)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--history", type=int, default=50)
    parser.add_argument("--quick", action="store_true", help="7 reps, 20 earlier checkpoints")
    parser.add_argument("--moto", choices=["substrate", "mock"], default="substrate")
    args = parser.parse_args()
    if args.quick:
        args.reps, args.history = 7, 20
    fake_aws_env()

    import contextlib

    import boto3
    from moto import mock_aws

    from offprompt.adapters.dynamodb_checkpoints import DynamoDbCheckpointStore
    from offprompt.adapters.s3 import S3CheckpointBlobs
    from offprompt.services.checkpoints.context import Checkpoints
    from offprompt.services.checkpoints.get import get_checkpoint
    from offprompt.services.checkpoints.put import put_checkpoint
    from offprompt.services.checkpoints.requests import CheckpointPut, CheckpointRead, WritesPut
    from offprompt.services.checkpoints.writes import put_writes

    def blob(data: bytes) -> dict[str, str]:
        return {"type": "msgpack", "data": base64.b64encode(data).decode()}

    result: dict[str, Any] = {"reps": args.reps, "history": args.history, "moto": args.moto}
    with contextlib.ExitStack() as stack:
        if args.moto == "mock":
            stack.enter_context(mock_aws())
        else:
            import logging

            from offprompt_local.substrate import AtomicMotoServer

            logging.getLogger("werkzeug").setLevel(logging.ERROR)
            server = AtomicMotoServer()
            server.start()
            stack.callback(server.stop)
            host, port = server.get_host_and_port()
            os.environ["AWS_ENDPOINT_URL"] = f"http://{host}:{port}"
        ddb, s3 = boto3.client("dynamodb"), boto3.client("s3")
        create_resources(ddb, s3)
        ck = Checkpoints(DynamoDbCheckpointStore(TABLE, ddb), S3CheckpointBlobs(BUCKET, s3))
        counter = iter(range(10**9))

        def next_id() -> str:
            return f"1ef{next(counter):09d}-0000-6000-8000-000000000000"

        for name, size in SIZES.items():
            thread, raw_pk = f"ours-{name}", f"RAW#{name}"
            data = os.urandom(size)
            body = CheckpointPut.model_validate({"checkpoint": blob(os.urandom(200)), "metadata": {"step": 0}})
            writes = WritesPut.model_validate(
                {"task_id": "t", "writes": [{"idx": i, "channel": "c", "value": blob(b"v")} for i in range(2)]}
            )
            for _ in range(args.history):
                cid = next_id()
                put_checkpoint(ck, "bench", thread, cid, body)
                put_writes(ck, "bench", thread, cid, writes)
                item = {"pk": {"S": raw_pk}, "sk": {"S": cid}, "data": {"B": os.urandom(200)}}
                ddb.put_item(TableName=TABLE, Item=item)
            big = CheckpointPut.model_validate({"checkpoint": blob(data), "metadata": {"step": 1}})
            times: dict[str, list[float]] = {"ours_put": [], "raw_put": [], "ours_get": [], "raw_get": []}

            def raw_put(cid: str, data: bytes = data, raw_pk: str = raw_pk) -> None:
                item: dict[str, Any] = {"pk": {"S": raw_pk}, "sk": {"S": cid}}
                if len(data) > 350_000:
                    key = f"raw/{raw_pk}/{cid}"
                    s3.put_object(Bucket=BUCKET, Key=key, Body=data)
                    item["blob_key"] = {"S": key}
                else:
                    item["data"] = {"B": data}
                ddb.put_item(TableName=TABLE, Item=item)

            def raw_get(raw_pk: str = raw_pk) -> bytes:
                out = ddb.query(
                    TableName=TABLE, KeyConditionExpression="pk = :pk", ScanIndexForward=False, Limit=1,
                    ExpressionAttributeValues={":pk": {"S": raw_pk}}, ConsistentRead=True,
                )  # fmt: skip
                item = out["Items"][0]
                if "blob_key" in item:
                    return bytes(s3.get_object(Bucket=BUCKET, Key=item["blob_key"]["S"])["Body"].read())
                return bytes(item["data"]["B"])

            for _ in range(args.reps):
                cid = next_id()
                t = time.perf_counter()
                put_checkpoint(ck, "bench", thread, cid, big)
                times["ours_put"].append(time.perf_counter() - t)
                t = time.perf_counter()
                raw_put(cid)
                times["raw_put"].append(time.perf_counter() - t)
                t = time.perf_counter()
                got = get_checkpoint(ck, "bench", thread, CheckpointRead())
                times["ours_get"].append(time.perf_counter() - t)
                t = time.perf_counter()
                raw = raw_get()
                times["raw_get"].append(time.perf_counter() - t)
                assert base64.b64decode(got["checkpoint"]["data"]) == data == raw
            latest_calls = calls_of(
                [ddb, s3], lambda thread=thread: get_checkpoint(ck, "bench", thread, CheckpointRead())
            )
            medians = {k: round(median(v) * 1000, 2) for k, v in times.items()}
            result[name] = {
                **{f"{k}_median_ms": v for k, v in medians.items()},
                "put_over_raw": round(medians["ours_put"] / medians["raw_put"], 2),
                "get_over_raw": round(medians["ours_get"] / medians["raw_get"], 2),
                "latest_calls": latest_calls,
            }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
