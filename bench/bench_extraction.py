"""From a settled conversation's last run to its facts being readable (docs/adr/0051), with the scripted model.

In-process on moto (DynamoDB, S3) with the in-memory record index, the scripted OpenAI-compatible server of the tests
(real HTTP on 127.0.0.1, answering at once) and a strategy whose trigger is due at once (`after_runs` 1,
`idle_seconds` 0): per conversation, add-run, then the runner (as the queue's message would start it), then the
record read back. Prints the p50 / p95 of the runner's time (last run → readable, minus the trigger's wait, which is
SQS's delay deployed) and of the model's own time within it, and add-run's time (the path extraction never touches).

    PYTHONPATH=functions:layers/offprompt:infra/local:tests .venv/bin/python bench/bench_extraction.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "bench"), str(ROOT / "tests")]

from _conv_common import BUCKET, TABLE, create_resources, fake_aws_env, offline_tiktoken  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--conversations", type=int, default=50)
    parser.add_argument("--quick", action="store_true", help="10 conversations")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    count = 10 if args.quick else args.conversations
    fake_aws_env()
    offline_tiktoken()

    import os

    import boto3
    import extraction_support as support
    from moto import mock_aws

    from offprompt.adapters.extraction_models import OpenAIChatModel
    from offprompt.composition.conversation import default_service
    from offprompt.config import get_settings
    from offprompt.services.conversation.add_run import add_run
    from offprompt.services.extraction.requests import StrategyPut
    from offprompt.services.extraction.run import extract_thread
    from offprompt.services.extraction.strategies import put_strategy
    from offprompt.services.records.get import get_record
    from offprompt.services.records.requests import RecordRead

    support.TABLE, support.BUCKET = TABLE, BUCKET  # the bench's resources
    os.environ.update({"OFFPROMPT_TABLE": TABLE, "OFFPROMPT_BUCKET": BUCKET, "OFFPROMPT_SUMMARIZE_MODE": "off"})
    get_settings.cache_clear()

    def answer(request: dict[str, Any]) -> tuple[int, Any]:
        run_id = support.turns_of(request)[0][0]
        op = {"op": "add", "key": "home_city", "text": "Lives in Lisbon", "source_run_ids": [run_id]}
        return 200, support.completion(support.operations(op))

    model = support.ScriptedModel(answer)
    model_seconds: list[float] = []

    class Timed(OpenAIChatModel):
        def complete(self, request: Any) -> Any:
            started = time.perf_counter()
            try:
                return super().complete(request)
            finally:
                model_seconds.append(time.perf_counter() - started)

    runner: list[float] = []
    adds: list[float] = []
    try:
        with mock_aws():
            create_resources(boto3.client("dynamodb"), boto3.client("s3"))
            ext = support.extractions(lambda: Timed("scripted", model.base_url), time.time, support.Deferred())
            put_strategy(ext, "bench", "facts", StrategyPut(type="facts", namespace="threads/{thread_id}"))
            conv = default_service()
            for n in range(count):
                thread = f"conv-{n}"
                started = time.perf_counter()
                add_run(conv, "bench", thread, support.run_payload(f"r{n}", "I live in Lisbon"))
                adds.append(time.perf_counter() - started)
                started = time.perf_counter()
                extract_thread(ext, "bench", thread)
                get_record(ext.records, "bench", ("threads", thread), "home_city", RecordRead(refresh_ttl=False))
                runner.append(time.perf_counter() - started)
    finally:
        model.close()
    result = {
        "conversations": count,
        "last_run_to_readable_p50_ms": round(percentile(runner, 0.5) * 1000, 1),
        "last_run_to_readable_p95_ms": round(percentile(runner, 0.95) * 1000, 1),
        "model_p50_ms": round(percentile(model_seconds, 0.5) * 1000, 1),
        "without_model_p50_ms": round(
            statistics.median(r - m for r, m in zip(runner, model_seconds, strict=True)) * 1000, 1
        ),
        "add_run_p50_ms": round(percentile(adds, 0.5) * 1000, 1),
    }
    print(json.dumps(result) if args.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


if __name__ == "__main__":
    main()
