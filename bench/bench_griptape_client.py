"""Griptape on offprompt, over HTTP: time to first prompt on a long thread, and PATCH cost vs thread length.

1. Time to first prompt (construct the memory + `add_to_prompt_stack` with autoprune, budget ≈ the newest
   `--keep` runs): Griptape's `LocalConversationMemoryDriver` (loads every run, then prunes client-side, one
   full count per dropped run) vs `OffpromptConversationMemory` (loads nothing; one prompt-stack request).
   Both select the same messages (checked). Griptape is measured up to `--griptape-max` runs: it grows
   quadratically and would take hours at 10,000.
2. Griptape Cloud driver PATCH (`/api/threads/{id}`) appending one run to a thread of n runs (no max_runs: the
   whole list is sent): DynamoDB calls per PATCH (the cost that matters), wall time and request body size, for
   n up to `--patch-max` (Griptape's body grows with n and passes Lambda's 6 MB limit near 3,800 runs of this size).

Everything runs in this process: the dev server (the real handlers, the real route table) on a free port over
moto in-process. Threads are seeded with batch writes of the items add-run writes (seeding 10,000 runs through
the API is slow on in-process moto). Wall times include moto, whose per-call cost grows with the partition size
(docs/benchmarks.md; a profile of one PATCH on a 1,000-run thread: 1.25 s of 2.0 s is moto's
transact_write_items deep-copying the table): compare the DynamoDB call counts for flatness.

    .venv/bin/python bench/bench_griptape_client.py [--runs 10000] [--keep 50] [--griptape-max 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from typing import Any

from _conv_common import TABLE, fake_aws_env, median, offline_tiktoken, run_dicts


def serve() -> Any:
    os.environ.update(OFFPROMPT_TABLE=TABLE, OFFPROMPT_TRUST_TENANT_HEADER="true", POWERTOOLS_METRICS_DISABLED="true")
    os.environ.update(OFFPROMPT_SUMMARIZE_MODE="off", POWERTOOLS_LOGGER_LOG_EVENT="false", LOG_LEVEL="WARNING")
    import boto3

    from offprompt_local import resources
    from offprompt_local.devserver import DevServer

    resources.create_table(boto3.client("dynamodb"), TABLE)
    server = DevServer("127.0.0.1", 0, log=lambda line: None)
    server.start()
    return server


def seed_thread(thread: str, data: list[dict[str, Any]], tenant: str = "local") -> None:
    """The items add-run would write for these runs (seq 1..n), with batch writes; then the thread's counter."""
    import hashlib

    from offprompt.adapters.clients import aws_client
    from offprompt.adapters.dynamodb_runs import DynamoDbRunStore, _key, _run_item, runid_sk, thread_pk
    from offprompt.adapters.tokenizer import TiktokenTokenizer
    from offprompt.memory.conversation import run_token_counts
    from offprompt.memory.run import Run
    from offprompt.ports import StoredRun

    store, tokenizer, pk = DynamoDbRunStore(TABLE), TiktokenTokenizer(), thread_pk(tenant, thread)
    items = []
    for seq, d in enumerate(data, start=1):
        run = Run.from_dict(d)
        text = run.to_json()
        digest = hashlib.sha256(text.encode()).hexdigest()
        i, o = run_token_counts(run, tokenizer)
        stored = StoredRun(seq, run.id, digest, i, o, len(text.encode()), "2026-01-01T00:00:00.000Z", text)
        items.append(_run_item(pk, stored, tenant, thread))
        items.append({**_key(pk, runid_sk(run.id)), "seq": {"N": str(seq)}, "hash": {"S": digest}})
    ddb = aws_client("dynamodb")
    for start in range(0, len(items), 25):
        ddb.batch_write_item(RequestItems={TABLE: [{"PutRequest": {"Item": it}} for it in items[start : start + 25]]})
    store.configure(tenant, thread, {}, "2026-01-01T00:00:00.000Z")
    ddb.update_item(
        TableName=TABLE,
        Key=_key(pk, "#THREAD"),
        UpdateExpression="SET next_seq = :n",
        ExpressionAttributeValues={":n": {"N": str(len(data))}},
    )


def gt_runs(data: list[dict[str, Any]]) -> list[Any]:
    from griptape.memory.structure import Run

    return [Run.from_dict(d) for d in data]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--keep", type=int, default=50)
    parser.add_argument("--griptape-max", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--patch-max", type=int, default=3000)
    args = parser.parse_args()
    fake_aws_env()
    offline_tiktoken()

    from griptape.common import PromptStack
    from griptape.drivers.memory.conversation.griptape_cloud import GriptapeCloudConversationMemoryDriver
    from griptape.drivers.memory.conversation.local import LocalConversationMemoryDriver
    from griptape.drivers.prompt.openai import OpenAiChatPromptDriver
    from griptape.memory.structure import ConversationMemory
    from griptape.tokenizers import OpenAiTokenizer
    from moto import mock_aws

    from offprompt.adapters.clients import aws_client, reset_clients
    from offprompt_client.griptape import OffpromptConversationMemory, OffpromptConversationMemoryDriver

    data = run_dicts(args.runs)
    sizes = sorted({s for s in (100, 1000, args.runs) if s <= args.runs})
    patch_sizes = sorted({s for s in (100, 1000, args.patch_max) if s <= min(args.runs, args.patch_max)})
    results: dict[str, Any] = {"runs": args.runs, "keep": args.keep}

    def base() -> Any:
        stack = PromptStack()
        stack.add_system_message("You are a helpful assistant.")
        stack.add_user_message("What did we decide about the budget?")
        return stack

    with mock_aws():
        reset_clients()
        server = serve()
        # Budget: the newest `keep` runs fit (cl100k_base, Griptape's OpenAiTokenizer for gpt-4).
        probe = OpenAiTokenizer(model="gpt-4")
        tail = ConversationMemory(autoload=False, runs=gt_runs(data[-args.keep :]))
        driver = OpenAiChatPromptDriver(model="gpt-4", api_key="unused", tokenizer=probe)
        budget = probe.count_tokens(driver.prompt_stack_to_string(tail.add_to_prompt_stack(driver, base(), 1))) + 1
        prompt_driver = OpenAiChatPromptDriver(
            model="gpt-4", api_key="unused", tokenizer=OpenAiTokenizer(model="gpt-4", max_input_tokens=budget)
        )

        first_prompt: dict[str, Any] = {}
        for n in sizes:
            thread = f"bench-{n}"
            t0 = time.perf_counter()
            seed_thread(thread, data[-n:])
            seeded = time.perf_counter() - t0

            ours_times, ours_stack = [], None
            for _ in range(args.reps):
                t0 = time.perf_counter()
                memory = OffpromptConversationMemory(
                    conversation_memory_driver=OffpromptConversationMemoryDriver(base_url=server.url, thread_id=thread)
                )
                ours_stack = memory.add_to_prompt_stack(prompt_driver, base(), 1)
                ours_times.append(time.perf_counter() - t0)
            entry: dict[str, Any] = {
                "seed_s": round(seeded, 2),
                "offprompt_ms": round(1000 * median(ours_times), 1),
                "messages": len(ours_stack.messages) if ours_stack else 0,
            }
            if n <= args.griptape_max:
                with tempfile.TemporaryDirectory() as tmp:
                    path = os.path.join(tmp, "memory.json")
                    with open(path, "w") as f:
                        json.dump({"runs": data[-n:], "metadata": {}}, f)
                    t0 = time.perf_counter()
                    memory_g = ConversationMemory(
                        conversation_memory_driver=LocalConversationMemoryDriver(persist_file=path)
                    )
                    theirs = memory_g.add_to_prompt_stack(prompt_driver, base(), 1)
                    entry["griptape_ms"] = round(1000 * (time.perf_counter() - t0), 1)
                assert ours_stack is not None
                same = [m.to_text() for m in ours_stack.messages] == [m.to_text() for m in theirs.messages]
                entry["same_messages"] = same
                entry["ratio"] = round(entry["griptape_ms"] / entry["offprompt_ms"], 1)
            first_prompt[str(n)] = entry
            print(f"first prompt, {n} runs: {entry}", flush=True)
        results["first_prompt"] = first_prompt

        # PATCH: the Griptape Cloud driver's store() after one more run, threads of n runs, no max_runs.
        patch: dict[str, Any] = {}
        calls: list[str] = []
        ddb = aws_client("dynamodb")
        ddb.meta.events.register("before-call.dynamodb", lambda model, **_: calls.append(model.name))
        for n in patch_sizes:
            if f"bench-{n}" not in {f"bench-{s}" for s in sizes}:
                seed_thread(f"bench-{n}", data[-n:])
            cloud = GriptapeCloudConversationMemoryDriver(base_url=server.url, api_key="local", thread_id=f"bench-{n}")
            runs = gt_runs(data[-n:])
            times, per_patch = [], []
            for rep in range(args.reps):
                extra = gt_runs(run_dicts(1, seed=1000 + rep))[0]
                extra.id = f"extra-{n}-{rep}"
                runs.append(extra)
                calls.clear()
                t0 = time.perf_counter()
                cloud.store(runs, {"k": rep})
                times.append(time.perf_counter() - t0)
                per_patch.append(len(calls))
            patch[str(n)] = {
                "patch_ms": round(1000 * median(times), 1),
                "dynamodb_calls": sorted(set(per_patch)),
                "body_kb": round(len(json.dumps([_message(r.to_dict()) for r in runs])) / 1024),
            }
            print(f"PATCH one more run, {n} runs: {patch[str(n)]}", flush=True)
        results["patch"] = patch
        server.stop()
    print(json.dumps(results, indent=2))


def _message(run: dict[str, Any]) -> dict[str, Any]:
    return {
        "input": json.dumps(run["input"]),
        "output": json.dumps(run["output"]),
        "metadata": {"run_id": run["id"]},
    }


if __name__ == "__main__":
    main()
