"""A hung dependency answers 503 `dependency_timeout` inside the caller's time, and commits nothing.

The OpenSearch node is frozen with SIGSTOP (a JVM that accepts connections and never answers: what a hung
domain looks like to the client), the function runs as Lambda runs it (tests/runtime), with a context that
has 5 s left. Before deadlines, the same request waited for opensearch-py's 30 s timeout and then a retry.
"""

from __future__ import annotations

import copy
import json
import os
import signal
import socket
import time
from pathlib import Path
from typing import Any

from lambda_runtime import Start

ROOT = Path(__file__).resolve().parents[2]
NS = "e59302f3225041b697b0efa5d1d93369"
FROZEN_NS = "frozen-namespace"
REMAINING_MS = 5_000


def event(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ROOT / "events" / name).read_text())
    return data


def output_event(namespace: str) -> dict[str, Any]:
    sample = copy.deepcopy(event("process_output_http.json"))
    body = json.loads(sample["body"])
    body["artifact"]["id"] = body["artifact"]["name"] = namespace
    sample["body"] = json.dumps(body)
    return sample


def namespaces(memories: Any) -> list[str]:
    status, listed, _ = memories.http(event("memories_list_namespaces_http.json"))
    assert status == 200, listed
    return [n["namespace"] for n in listed["namespaces"]]


def data_items(local_aws: dict[str, Any]) -> list[dict[str, Any]]:
    """The table's items but the audit log's (a refused or failed request is recorded there by design, ADR 0056)."""
    items = local_aws["dynamodb"].scan(TableName=local_aws["table"])["Items"]
    return [i for i in items if not i["pk"]["S"].startswith("AUDIT#")]


def test_a_frozen_opensearch_answers_503_within_the_budget_and_commits_nothing(
    start_on_freezable_opensearch: Start, freezable_opensearch: tuple[str, int], local_aws: dict[str, Any]
) -> None:
    _, pid = freezable_opensearch
    process_output = start_on_freezable_opensearch("ProcessOutputFunction")
    memories = start_on_freezable_opensearch("MemoriesFunction")
    # Warm: the index exists and the client holds a pooled connection to the node.
    status, body, _ = process_output.http(output_event(NS))
    assert status == 200, body
    search = event("memories_search_http.json")
    assert memories.http(search)[0] == 200
    items_before = data_items(local_aws)

    os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        status, body, _ = process_output.http(output_event(FROZEN_NS), remaining_ms=REMAINING_MS)
        elapsed = time.monotonic() - started
        assert status == 503 and body["code"] == "dependency_timeout", body
        assert elapsed < REMAINING_MS / 1000, elapsed  # answered while the caller still waits
        assert elapsed > 1.0, elapsed  # it did wait for OpenSearch: the budget, not an instant failure
        print(f"frozen OpenSearch: process-output answered 503 dependency_timeout after {elapsed:.2f} s")

        started = time.monotonic()
        status, body, _ = memories.http(search, remaining_ms=REMAINING_MS)
        assert status == 503 and body["code"] == "dependency_timeout", body
        assert time.monotonic() - started < REMAINING_MS / 1000

        # Direct invocations (Step Functions) raise it by class name.
        direct = copy.deepcopy(event("process_output_direct.json"))
        direct["artifact"]["id"] = direct["artifact"]["name"] = FROZEN_NS
        outcome = process_output.invoke_raw(direct, remaining_ms=REMAINING_MS)
        assert outcome.get("error", {}).get("type") == "DependencyTimeout", outcome
        assert outcome["elapsed_ms"] < REMAINING_MS

        # Nothing committed: no namespace record or batch; every earlier item unchanged. The only new item is
        # the namespace's position counter and generation, which the store reserves before writing text
        # (ADR 0006) and which no reader sees.
        assert namespaces(memories) == [NS]
        items_after = data_items(local_aws)
        assert [i for i in items_before if i not in items_after] == []
        assert [set(i) for i in items_after if i not in items_before] == [
            {"pk", "sk", "next_position", "generation", "tenant_dir"}
        ]
    finally:
        os.kill(pid, signal.SIGCONT)

    # Once OpenSearch answers again, the same request (the client's retry) succeeds.
    status, body, _ = process_output.http(output_event(FROZEN_NS), remaining_ms=REMAINING_MS)
    assert status == 200 and body["name"] == FROZEN_NS, body
    assert sorted(namespaces(memories)) == sorted([NS, FROZEN_NS])
    assert memories.http(search, remaining_ms=REMAINING_MS)[0] == 200


def test_a_hung_dynamodb_answers_503_within_the_budget(start_function: Start, local_aws: dict[str, Any]) -> None:
    """The same for botocore: an AWS endpoint that accepts connections and never answers."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    try:
        hung = f"http://127.0.0.1:{listener.getsockname()[1]}"
        add_run = start_function("AddRunFunction", extra_env={"AWS_ENDPOINT_URL": hung})
        started = time.monotonic()
        status, body, _ = add_run.http(event("add_run_http.json"), remaining_ms=REMAINING_MS)
        elapsed = time.monotonic() - started
        assert status == 503 and body["code"] == "dependency_timeout", body
        assert 1.0 < elapsed < REMAINING_MS / 1000, elapsed
        outcome = add_run.invoke_raw(event("add_run_direct.json"), remaining_ms=REMAINING_MS)
        assert outcome.get("error", {}).get("type") == "DependencyTimeout", outcome
    finally:
        listener.close()
    assert data_items(local_aws) == []
