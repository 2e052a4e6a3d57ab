"""Thread forks (issue 23, docs/adr/0037): the DynamoDB writes of a fork, and prompt-stack on a fork vs its parent.

1. Writes: fork a 10-run and a 10,000-run thread; count the DynamoDB write calls each fork makes (botocore
   `before-call` events on the service's client). The histories are built fast: the adapter's own run items, 25 per
   BatchWriteItem (a transaction per 32 runs is slow on moto past a few hundred).
2. prompt-stack: a parent of `--runs` runs (stored as add-run stores them, in bulk), a fork after its newest run,
   then the same `--tail` runs added to both through add-run; the same budget (about the newest `--keep` runs) on
   each, in a table of their own. Checks both stacks are equal, prints the medians, the fork/parent ratio (target
   <= 1.2x) and the Query calls each makes (the fork: one more, for its own runs).

    .venv/bin/python bench/bench_fork.py [--runs 1000] [--tail 10] [--keep 50] [--reps 15] [--big 10000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from _conv_common import BUCKET, TABLE, create_resources, fake_aws_env, median, offline_tiktoken, run_dicts

WRITES = {"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem"}


def bulk_thread(service: Any, ddb: Any, thread: str, n: int) -> None:
    """A thread of `n` small runs: one seq allocation, then the adapter's run items 25 per BatchWriteItem."""
    from offprompt.adapters.dynamodb_runs import _run_item
    from offprompt.adapters.layout import thread_pk
    from offprompt.ports import StoredRun

    service.runs.allocate_seq("bench", thread, "2026-01-01T00:00:00Z", count=n)
    pk = thread_pk("bench", thread)
    for start in range(1, n + 1, 25):
        puts = [
            {"PutRequest": {"Item": _run_item(pk, StoredRun(seq=s, run_id=f"b{s}", content_hash="h", size=20,
                                                            run_json=f'{{"type":"Run","id":"b{s}"}}'),
                                              "bench", thread, metered_bytes=0)}}
            for s in range(start, min(n, start + 24) + 1)
        ]  # fmt: skip
        ddb.batch_write_item(RequestItems={TABLE: puts})


def bulk_history(service: Any, ddb: Any, thread: str, data: list[dict[str, Any]]) -> None:
    """The runs of `data` as add-run would store them (JSON, token counts), 25 per BatchWriteItem: add-run's one
    transaction per run slows down on moto as the table grows (past a few hundred runs, seconds each)."""
    from offprompt.adapters.dynamodb_runs import _run_item
    from offprompt.adapters.layout import thread_pk
    from offprompt.memory.conversation import run_token_counts
    from offprompt.memory.run import Run
    from offprompt.ports import StoredRun

    stored = []
    for seq, d in enumerate(data, start=1):
        run = Run.from_dict(d)
        body = run.to_json()
        i, o = run_token_counts(run, service.tokenizer)
        stored.append(StoredRun(seq=seq, run_id=run.id, content_hash=str(seq), input_tokens=i, output_tokens=o,
                                size=len(body.encode()), created_at="2026-01-01T00:00:00Z", run_json=body))  # fmt: skip
    tokens = sum(r.input_tokens + r.output_tokens for r in stored)
    service.runs.allocate_seq("bench", thread, "2026-01-01T00:00:00Z", tokens=tokens, count=len(stored))
    pk = thread_pk("bench", thread)
    for start in range(0, len(stored), 25):
        puts = [
            {"PutRequest": {"Item": _run_item(pk, r, "bench", thread, metered_bytes=0)}}
            for r in stored[start : start + 25]
        ]
        ddb.batch_write_item(RequestItems={TABLE: puts})


def queries(ddb: Any, call: Any) -> int:
    """The DynamoDB Query calls `call()` makes."""
    seen: list[str] = []

    def count(model: Any, **_: Any) -> None:
        if model.name == "Query":
            seen.append(model.name)

    ddb.meta.events.register("before-call.dynamodb", count)
    try:
        call()
    finally:
        ddb.meta.events.unregister("before-call.dynamodb", count)
    return len(seen)


def fork_writes(service: Any, ddb: Any, parent: str) -> list[str]:
    from offprompt.services.conversation.fork import fork_thread
    from offprompt.services.conversation.requests import ForkRequest

    calls: list[str] = []

    def count(model: Any, **_: Any) -> None:
        if model.name in WRITES:
            calls.append(model.name)

    ddb.meta.events.register("before-call.dynamodb", count)
    try:
        fork_thread(service, "bench", parent, ForkRequest(thread_id=f"{parent}-fork"))
    finally:
        ddb.meta.events.unregister("before-call.dynamodb", count)
    return calls


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--tail", type=int, default=10)
    parser.add_argument("--keep", type=int, default=50)
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--big", type=int, default=10_000)
    parser.add_argument("--quick", action="store_true", help="200 runs, 9 reps (the 10,000-run fork stays)")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.reps = 200, 9
    fake_aws_env()
    offline_tiktoken()

    import boto3
    from moto import mock_aws

    from offprompt.adapters.dynamodb_runs import DynamoDbRunStore
    from offprompt.adapters.s3 import S3RunBodies
    from offprompt.adapters.tokenizer import TiktokenTokenizer
    from offprompt.memory.conversation import run_token_counts
    from offprompt.memory.run import Run
    from offprompt.services.conversation import ConversationService, PromptStackRequest
    from offprompt.services.conversation.fork import fork_thread
    from offprompt.services.conversation.requests import ForkRequest

    tokenizer = TiktokenTokenizer()
    with mock_aws():
        ddb, s3 = boto3.client("dynamodb"), boto3.client("s3")
        create_resources(ddb, s3)
        service = ConversationService(DynamoDbRunStore(TABLE, ddb), tokenizer, blobs=S3RunBodies(BUCKET, s3))

        t0 = time.perf_counter()
        bulk_thread(service, ddb, "small", 10)
        bulk_thread(service, ddb, "big", args.big)
        build_s = time.perf_counter() - t0
        print(f"built {args.big} + 10 runs in {build_s:.1f} s", file=sys.stderr, flush=True)
        small, big = fork_writes(service, ddb, "small"), fork_writes(service, ddb, "big")
        assert small == big, (small, big)

    # A table of its own for the prompt-stack part: a moto Query costs time with the table's size (DynamoDB's by
    # the items it reads), which would charge the fork's extra (small) Query for the 10,000-run thread above.
    with mock_aws():
        ddb, s3 = boto3.client("dynamodb"), boto3.client("s3")
        create_resources(ddb, s3)
        service = ConversationService(DynamoDbRunStore(TABLE, ddb), tokenizer, blobs=S3RunBodies(BUCKET, s3))

        data = run_dicts(args.runs + args.tail)
        history, tail = data[: args.runs], data[args.runs :]
        bulk_history(service, ddb, "parent", history)
        fork_thread(service, "bench", "parent", ForkRequest(thread_id="fork"))
        for d in tail:
            service.add_run("bench", "parent", d)
            service.add_run("bench", "fork", d)
        newest = [Run.from_dict(d) for d in data[-args.keep :]]
        budget = 20 + sum(sum(run_token_counts(r, tokenizer)) + 2 for r in newest)
        request = PromptStackRequest(system="You are a helpful assistant.", input="And now?", max_tokens=budget)
        stacks: dict[str, Any] = {}
        times: dict[str, list[float]] = {"parent": [], "fork": []}
        reads = {t: queries(ddb, lambda t=t: service.prompt_stack("bench", t, request)) for t in times}  # warm too
        for _ in range(args.reps):  # interleaved: both see the same machine load
            for thread in times:
                t = time.perf_counter()
                stacks[thread] = service.prompt_stack("bench", thread, request)
                times[thread].append(time.perf_counter() - t)
        texts = {k: [(m.role, m.to_text()) for m in v.messages] for k, v in stacks.items()}
        assert texts["parent"] == texts["fork"], "the fork's stack differs from its parent's"

    parent_ms, fork_ms = median(times["parent"]) * 1000, median(times["fork"]) * 1000
    result = {
        "fork_writes_10_runs": len(small),
        "fork_writes_big": len(big),
        "big_runs": args.big,
        "write_calls": small,
        "build_s": round(build_s, 1),  # the two bulk threads
        "runs": args.runs,
        "tail_runs": args.tail,
        "runs_returned": (len(texts["fork"]) - 2) // 2,
        "budget_tokens": budget,
        "parent_median_ms": round(parent_ms, 1),
        "fork_median_ms": round(fork_ms, 1),
        "fork_over_parent": round(fork_ms / parent_ms, 3),
        "parent_queries": reads["parent"],
        "fork_queries": reads["fork"],
        "reps": args.reps,
        "equal_results": True,
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
