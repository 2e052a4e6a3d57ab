"""prompt-stack over a 1,000-run thread: ours (service on moto) vs Griptape's ConversationMemory autoprune.

Same data, same tokenizer (cl100k_base; Griptape's OpenAiTokenizer("gpt-4") with max_input_tokens = budget),
budget chosen to keep the newest ~50 runs. Checks both results are equal, prints medians and the ratio.

    .venv/bin/python bench/bench_prompt_stack.py [--runs 1000] [--keep 50] [--reps 7] [--griptape-reps 3]
"""

from __future__ import annotations

import argparse
import json
import time

from _conv_common import BUCKET, TABLE, create_resources, fake_aws_env, median, offline_tiktoken, run_dicts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--keep", type=int, default=50)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--griptape-reps", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="200 runs, keep 50, 3 reps, Griptape once")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.keep, args.reps, args.griptape_reps = 200, 50, 3, 1
    fake_aws_env()
    offline_tiktoken()

    import boto3
    from griptape.artifacts import TextArtifact as GText
    from griptape.common import PromptStack as GStack
    from griptape.drivers.prompt.openai import OpenAiChatPromptDriver
    from griptape.memory.structure import ConversationMemory
    from griptape.memory.structure import Run as GRun
    from griptape.tokenizers import OpenAiTokenizer
    from moto import mock_aws

    from offprompt.adapters.dynamodb_runs import DynamoDbRunStore
    from offprompt.adapters.s3 import S3RunBodies
    from offprompt.adapters.tokenizer import TiktokenTokenizer
    from offprompt.memory.conversation import run_token_counts
    from offprompt.memory.run import Run
    from offprompt.services.conversation import ConversationService, PromptStackRequest

    data = run_dicts(args.runs)
    tokenizer = TiktokenTokenizer()
    system, user_input = "You are a helpful assistant.", "What did we decide about the budget?"
    # Budget: base + the newest `keep` runs (+ separators), so about `keep` runs fit.
    newest = [Run.from_dict(d) for d in data[-args.keep :]]
    budget = 20 + sum(sum(run_token_counts(r, tokenizer)) + 2 for r in newest)

    with mock_aws():
        ddb, s3 = boto3.client("dynamodb"), boto3.client("s3")
        create_resources(ddb, s3)
        service = ConversationService(DynamoDbRunStore(TABLE, ddb), tokenizer, blobs=S3RunBodies(BUCKET, s3))
        t0 = time.perf_counter()
        for d in data:
            service.add_run("bench", "thread", d)
        load_s = time.perf_counter() - t0
        request = PromptStackRequest(system=system, input=user_input, max_tokens=budget)
        service.prompt_stack("bench", "thread", request)  # warm (BPE load, clients)
        ours_times, ours_stack = [], None
        for _ in range(args.reps):
            t = time.perf_counter()
            ours_stack = service.prompt_stack("bench", "thread", request)
            ours_times.append(time.perf_counter() - t)

    memory = ConversationMemory(autoload=False)
    for d in data:
        memory.runs.append(GRun.from_dict(d))
    driver = OpenAiChatPromptDriver(
        model="gpt-4", api_key="unused", tokenizer=OpenAiTokenizer(model="gpt-4", max_input_tokens=budget)
    )
    g_times, g_stack = [], None
    for _ in range(args.griptape_reps):
        g_stack = GStack()
        g_stack.add_system_message(GText(system))
        g_stack.add_user_message(GText(user_input))
        t = time.perf_counter()
        memory.add_to_prompt_stack(driver, g_stack, index=1)
        g_times.append(time.perf_counter() - t)

    assert ours_stack is not None and g_stack is not None
    ours_texts = [(m.role, m.to_text()) for m in ours_stack.messages]
    g_texts = [(m.role, m.to_text()) for m in g_stack.messages]
    assert ours_texts == g_texts, "results differ"
    result = {
        "runs": args.runs,
        "budget_tokens": budget,
        "runs_returned": (len(ours_texts) - 2) // 2,
        "setup_add_runs_s": round(load_s, 2),
        "ours_median_ms": round(median(ours_times) * 1000, 1),
        "griptape_median_ms": round(median(g_times) * 1000, 1),
        "ours_reps": args.reps,
        "griptape_reps": args.griptape_reps,
        "speedup": round(median(g_times) / median(ours_times), 1),
        "equal_results": True,
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
