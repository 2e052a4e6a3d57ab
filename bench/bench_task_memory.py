"""Task memory: store + load through TaskMemoryService vs the raw minimum, with AWS / OpenSearch calls per op.

    PYTHONPATH=functions:layers/offprompt .venv/bin/python bench/bench_task_memory.py [--runs 3] [--sizes 1k,1m,50m]
        [--kinds blob,text] [--out bench-task-memory.json]

AWS is moto over HTTP (by default the local stack's substrate, `AtomicMotoServer` in memory; `--moto plain`:
moto's ThreadedMotoServer), so every call pays a real HTTP round trip; text uses the
real local OpenSearch node (started here, or OPENSEARCH_URL). Raw minimum:
- blobs: one boto3 `put_object` to store, one `get_object` to load;
- text:  opensearch-py `bulk` of the same token-bounded chunks (refresh=false) to store, one `mget` to load.
The service additionally reserves positions, commits a DynamoDB transaction (batch + record + meta entry),
and on load queries the committed batches (a blob namespace loaded by the reference its store returned: its objects'
GETs alone, ADR 0053); past 5 MB, a blob namespace answers with presigned GETs of its stored
objects (BlobDownloads) and a text one writes the ListArtifact JSON to S3; the client's GETs are counted in the
service's load time and calls.
Medians of --runs runs per cell, service and raw interleaved in the same process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import urllib.request
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for p in ("functions", "layers/offprompt", "infra/local"):
    if str(ROOT / p) not in sys.path:
        sys.path.insert(0, str(ROOT / p))

import boto3  # noqa: E402
import requests  # noqa: E402

from offprompt.adapters.clients import aws_client, reset_clients  # noqa: E402
from offprompt.adapters.dynamodb_namespaces import DynamoDbNamespaceStore  # noqa: E402
from offprompt.adapters.s3 import S3BlobStore  # noqa: E402
from offprompt.artifacts import BlobArtifact, TextArtifact  # noqa: E402
from offprompt.composition.task_memory import task_memory_service  # noqa: E402

SIZES = {"1k": 1024, "1m": 1024 * 1024, "50m": 50 * 1024 * 1024}
TABLE, BUCKET = "bench-table", "bench-bucket"


class Calls:
    """Counts AWS calls (botocore before-call hooks) and OpenSearch HTTP requests (transport wrapper)."""

    def __init__(self) -> None:
        self.counter: Counter[str] = Counter()

    def hook_boto(self, client: Any) -> None:
        def count(model: Any, **_: Any) -> None:
            self.counter[f"{model.service_model.service_name}.{model.name}"] += 1

        client.meta.events.register("before-call", count)

    def hook_opensearch(self, client: Any) -> None:
        original = client.transport.perform_request

        def perform(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
            self.counter[f"opensearch.{method} {url.split('?')[0].rsplit('/', 1)[-1] or '/'}"] += 1
            return original(method, url, *args, **kwargs)

        client.transport.perform_request = perform

    def take(self) -> dict[str, int]:
        out = dict(self.counter)
        self.counter.clear()
        return out


def make_text(size: int) -> str:
    unit = "Ünïcødé text with words, numbers 12345 and punctuation; paragraphs follow.\n\n"
    return (unit * (size // len(unit.encode()) + 1)).encode()[:size].decode("utf-8", "ignore")


def timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="1k,1m,50m")
    parser.add_argument("--kinds", default="blob,text")
    parser.add_argument("--out", default=None)
    parser.add_argument("--quick", action="store_true", help="1 run of 1k and 1m")
    parser.add_argument(
        "--moto",
        choices=["substrate", "plain"],
        default="substrate",
        help="substrate (default): the local stack's in-memory AtomicMotoServer, whose transactions save only the "
        "touched items; plain: moto's ThreadedMotoServer, whose TransactWriteItems deep-copies the whole table "
        "(grows with every item the bench writes, e.g. 14 -> 36 ms)",
    )
    args = parser.parse_args()
    if args.quick:
        args.runs, args.sizes = 1, "1k,1m"

    os.environ.update(
        AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1", AWS_REGION="us-east-1"
    )
    server: Any
    if args.moto == "plain":
        from moto.server import ThreadedMotoServer

        server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    else:
        import logging

        from offprompt_local.substrate import AtomicMotoServer

        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        server = AtomicMotoServer()  # in memory (no data_dir), as `make dev` runs it minus the journal
    server.start()
    host, port = server.get_host_and_port()
    os.environ["AWS_ENDPOINT_URL"] = f"http://{host}:{port}"
    reset_clients()
    from offprompt_local.resources import create_bucket, create_table

    create_table(aws_client("dynamodb"), TABLE)
    create_bucket(aws_client("s3"), BUCKET)

    calls = Calls()
    ddb, s3 = aws_client("dynamodb"), aws_client("s3")
    calls.hook_boto(ddb)
    calls.hook_boto(s3)
    raw_s3 = boto3.client("s3")
    calls.hook_boto(raw_s3)

    kinds = args.kinds.split(",")
    texts: Any = None
    os_client: Any = None
    node: Any = None
    index = "bench-task-memory"
    if "text" in kinds:
        try:
            from opensearchpy import OpenSearch

            from offprompt.adapters.bpe_tokenizer import BpeOpenAiTokenizer
            from offprompt.adapters.opensearch_text import OpenSearchTextStore
            from offprompt_local.opensearch import LocalOpenSearch, index_definition

            node = LocalOpenSearch()
            url = node.__enter__()
            os_client = OpenSearch(hosts=[url], timeout=300)
            os_client.indices.create(index=index, body=index_definition())
            calls.hook_opensearch(os_client)
            texts = OpenSearchTextStore(os_client, index, BpeOpenAiTokenizer())
        except ImportError as exc:
            print(f"text skipped: {exc}", file=sys.stderr)
            kinds = [k for k in kinds if k != "text"]

    svc = task_memory_service(DynamoDbNamespaceStore(TABLE, ddb), S3BlobStore(BUCKET, s3), texts, bucket=BUCKET)
    results: list[dict[str, Any]] = []
    try:
        for kind in kinds:
            for label in args.sizes.split(","):
                size = SIZES[label]
                cell: dict[str, list[Any]] = {k: [] for k in ("svc_store", "svc_load", "raw_store", "raw_load")}
                cell_calls: dict[str, dict[str, int]] = {}
                payload_text = make_text(size) if kind == "text" else None
                payload_blob = os.urandom(size) if kind == "blob" else None
                for run in range(args.runs):
                    ns = uuid.uuid4().hex
                    artifact = (
                        TextArtifact(payload_text, name=ns) if kind == "text" else BlobArtifact(payload_blob, name=ns)
                    )

                    # which side goes first alternates: a request right after a 1 MB write on the same
                    # emulator is slower, whichever side sends it
                    for side in ("service", "raw") if run % 2 == 0 else ("raw", "service"):
                        if side == "service":
                            calls.take()
                            t, stored = timed(
                                lambda: svc.process_output("bench", "M", tool="T", activity="a", artifact=artifact)  # noqa: B023
                            )
                            cell["svc_store"].append(t)
                            cell_calls["svc_store"] = calls.take()
                            # the reference the store returned (ADR 0053; None for text), kept for the load
                            ref = stored.ref

                            def svc_load() -> Any:
                                loaded = svc.load_artifacts("bench", "M", ns, ref=ref)  # noqa: B023
                                if loaded.blobs is not None:  # BlobDownloads: the client GETs each stored object
                                    return [
                                        urllib.request.urlopen(b.download_url, timeout=600).read() for b in loaded.blobs
                                    ]
                                if loaded.download_url:
                                    return requests.get(loaded.download_url, timeout=600).content
                                return loaded.body

                            t, _ = timed(svc_load)
                            cell["svc_load"].append(t)
                            cell_calls["svc_load"] = calls.take()
                        else:
                            calls.take()
                            if kind == "blob":
                                key = f"raw/{ns}"
                                t, _ = timed(lambda: raw_s3.put_object(Bucket=BUCKET, Key=key, Body=payload_blob))  # noqa: B023
                                cell["raw_store"].append(t)
                                cell_calls["raw_store"] = calls.take()
                                t, _ = timed(lambda: raw_s3.get_object(Bucket=BUCKET, Key=key)["Body"].read())  # noqa: B023
                                cell["raw_load"].append(t)
                                cell_calls["raw_load"] = calls.take()
                            else:
                                from offprompt.memory.chunking import chunk_text

                                tok = BpeOpenAiTokenizer()

                                def raw_store() -> list[str]:
                                    chunks = chunk_text(payload_text, tok, 512)  # type: ignore[arg-type] # noqa: B023
                                    ids = [f"raw-{ns}-{i}" for i in range(len(chunks))]  # noqa: B023
                                    lines: list[str] = []
                                    for doc_id, chunk in zip(ids, chunks, strict=True):
                                        lines.append(json.dumps({"index": {"_index": index, "_id": doc_id}}))
                                        lines.append(json.dumps({"text": chunk, "position": 0, "chunk": 0}))
                                    for i in range(0, len(lines), 2000):
                                        os_client.bulk(body="\n".join(lines[i : i + 2000]) + "\n")
                                    return ids

                                t, ids = timed(raw_store)
                                cell["raw_store"].append(t)
                                cell_calls["raw_store"] = calls.take()
                                t, _ = timed(lambda: os_client.mget(index=index, body={"ids": ids}))  # noqa: B023
                                cell["raw_load"].append(t)
                                cell_calls["raw_load"] = calls.take()
                row = {
                    "kind": kind,
                    "size": label,
                    **{k: round(statistics.median(v) * 1000, 1) for k, v in cell.items()},
                    "calls": cell_calls,
                }
                row["store_ratio"] = round(row["svc_store"] / row["raw_store"], 2)
                row["load_ratio"] = round(row["svc_load"] / row["raw_load"], 2)
                results.append(row)
                print(json.dumps(row), flush=True)
    finally:
        if node is not None:
            node.__exit__(None, None, None)
        server.stop()
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
