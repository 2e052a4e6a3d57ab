"""Shared setup for the conversation-memory benchmarks: moto table/bucket, offline tiktoken for Griptape, data."""

from __future__ import annotations

import os
import random
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT / "functions", ROOT / "layers" / "offprompt", ROOT / "infra" / "local"):
    sys.path.insert(0, str(p))

TABLE = "offprompt-bench"
BUCKET = "offprompt-bench-bucket"
CL100K_SHA1 = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "memory",
    "agent",
    "token",
    "prompt",
    "budget",
    "serverless",
    "lambda",
    "table",
    "stream",
    "summary",
    "conversation",
    "history",
    "paris",
    "london",
    "rome",
    "user",
    "assistant",
    "question",
    "answer",
    "because",
    "therefore",
]


def fake_aws_env() -> None:
    for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL"):
        os.environ.pop(name, None)
    os.environ.update(
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_CONFIG_FILE="/dev/null",
        AWS_SHARED_CREDENTIALS_FILE="/dev/null",
    )


def offline_tiktoken() -> None:
    cache = Path(tempfile.mkdtemp(prefix="tiktoken-"))
    with resources.as_file(resources.files("tiktoken_ext").joinpath("data").joinpath("cl100k_base.tiktoken")) as f:
        shutil.copyfile(f, cache / CL100K_SHA1)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)


def create_resources(ddb: Any, s3: Any) -> None:
    ddb.create_table(
        TableName=TABLE,
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )
    s3.create_bucket(Bucket=BUCKET)


def run_dicts(n: int, seed: int = 7, lo: int = 50, hi: int = 300) -> list[dict[str, Any]]:
    """n Griptape Run dicts of roughly lo..hi tokens each (1 word ~ 1 token here)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        total = rng.randint(lo, hi)
        q = " ".join(rng.choice(WORDS) for _ in range(max(1, total // 3)))
        a = " ".join(rng.choice(WORDS) for _ in range(max(1, total - total // 3)))
        out.append(
            {
                "type": "Run",
                "id": f"run{i:05d}",
                "meta": None,
                "input": {
                    "type": "TextArtifact",
                    "id": f"in{i}",
                    "reference": None,
                    "meta": {},
                    "name": f"in{i}",
                    "value": q,
                },
                "output": {
                    "type": "TextArtifact",
                    "id": f"out{i}",
                    "reference": None,
                    "meta": {},
                    "name": f"out{i}",
                    "value": a,
                },
            }
        )
    return out


def median(xs: list[float]) -> float:
    s = sorted(xs)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2
