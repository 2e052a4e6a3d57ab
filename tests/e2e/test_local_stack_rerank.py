"""The rerank setting through the local stack as a user runs it (docs/adr/0068): `OFFPROMPT_RERANK_MODEL_ID` and
botocore's `AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME` pointing the Bedrock adapter at a scripted Rerank API server. A
search's hits come in the scripted model's order; when the model fails, search still answers, in the fused order."""

from __future__ import annotations

import json
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from rerank_server import aws_error, rerank_server
from stack_process import StackProcess, call

TENANT = "rerank"
RUNS = [
    ("r1", "We booked the flight to Lisbon for June", "Great, Lisbon in June"),
    ("r2", "My sister lives in Porto", "Nice"),
    ("r3", "Which museums in Lisbon should we visit?", "The tile museum in Lisbon"),
]


def search(url: str) -> tuple[int, Any, dict[str, str]]:
    body = {"query": "Lisbon trip", "consistency": "search"}
    request = urllib.request.Request(
        url + "/threads/search",
        method="POST",
        data=json.dumps(body).encode(),
        headers={"X-Offprompt-Tenant": TENANT, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.status, json.loads(response.read()), dict(response.headers)


def by_length(request: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
    """A scripted model preferring the shortest text."""
    texts = [s["inlineDocumentSource"]["textDocument"]["text"] for s in request["sources"]]
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    return 200, {"results": [{"index": i, "relevanceScore": 1.0 / (1 + rank)} for rank, i in enumerate(order)]}, {}


def test_search_is_reordered_by_the_model_and_answers_when_it_fails(tmp_path: Path, opensearch_url: str) -> None:
    index = f"offprompt-rerank-{uuid.uuid4().hex[:12]}"
    with rerank_server() as model:
        model.answer = by_length
        env = {"OFFPROMPT_RERANK_MODEL_ID": "amazon.rerank-v1:0", "AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME": model.url}
        with StackProcess(tmp_path / "data", opensearch_url=opensearch_url, index=index, env=env) as stack:
            url = stack.wait_ready()
            for run_id, said, answered in RUNS:
                run = {
                    "id": run_id,
                    "input": {"type": "TextArtifact", "value": said},
                    "output": {"type": "TextArtifact", "value": answered},
                }
                status, body = call(url, "POST", "/threads/trip/runs", run, tenant=TENANT)
                assert status == 201, body

            status, body, headers = search(url)
            assert status == 200, body
            assert headers["X-Offprompt-Reranked"] == "true"
            hits = body["hits"]
            sent = [s["inlineDocumentSource"]["textDocument"]["text"] for s in model.bodies()[-1]["sources"]]
            assert [h["run"]["input"]["value"] for h in hits] == [t.split("\n")[0] for t in sorted(sent, key=len)]
            assert [h["rerank_score"] for h in hits] == sorted((h["rerank_score"] for h in hits), reverse=True)
            assert (
                model.bodies()[-1]["rerankingConfiguration"]["bedrockRerankingConfiguration"]["modelConfiguration"][
                    "modelArn"
                ]
                == "arn:aws:bedrock:us-east-1::foundation-model/amazon.rerank-v1:0"
            )

            model.answer = lambda _: aws_error(503, "ServiceUnavailableException")
            status, fallback, headers = search(url)
            assert status == 200, fallback
            assert headers["X-Offprompt-Reranked"] == "false"
            assert all("rerank_score" not in h for h in fallback["hits"])
            assert {h["run_id"] for h in fallback["hits"]} == {h["run_id"] for h in hits}
            assert [h["run_id"] for h in fallback["hits"]] != [h["run_id"] for h in hits]  # the model reordered
            assert [h["score"] for h in fallback["hits"]] == sorted(
                (h["score"] for h in fallback["hits"]), reverse=True
            )
            assert any("the rerank model failed" in line for line in stack.lines)
