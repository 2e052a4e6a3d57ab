"""The example flow (infra/statemachines/offprompt_tool_flow.asl.json) runs in moto's Step Functions interpreter
with the REAL handlers (offprompt_local.lambda_runner), moto DynamoDB/S3 and the real local OpenSearch.

Only references travel through the state: no state input/output in the history exceeds 256 KB. A large output
is loaded back as a presigned GET (download_url), a small one inline (at most the flow's `max_inline_bytes`).
The text index is created first, as a deployment does (the text store's own `ensure_index()`).
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import boto3
import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow
STATE_LIMIT = 256 * 1024
INFO = 'Output of "WebScraper.get_content" was stored in memory with memory_name "research" and artifact_namespace "{}"'


def _run(sfn: Any, machine: str, start: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    name = f"turn-{uuid.uuid4().hex}"  # also the recorded run's id ($$.Execution.Name)
    execution = sfn.start_execution(stateMachineArn=machine, name=name, input=json.dumps(start))["executionArn"]
    for _ in range(600):
        status = sfn.describe_execution(executionArn=execution)
        if status["status"] != "RUNNING":
            break
        time.sleep(0.5)
    assert status["status"] == "SUCCEEDED", status
    events = sfn.get_execution_history(executionArn=execution, maxResults=1000)["events"]
    for event in events:
        for details in event.values():
            if isinstance(details, dict):
                for key in ("input", "output"):
                    assert len(str(details.get(key, "")).encode()) <= STATE_LIMIT, (event["type"], key)
    return json.loads(status["output"]), events


def test_tool_flow_keeps_only_references_in_the_state(opensearch_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import moto
    from sam_support import MOTO_PARAMETERS, deploy_to_moto

    from offprompt_local.lambda_runner import installed

    index = f"offprompt-flow-{uuid.uuid4().hex[:12]}"
    params = {**MOTO_PARAMETERS, "OpenSearchEndpoint": opensearch_url, "OpenSearchIndex": index}
    monkeypatch.setenv("OFFPROMPT_OPENSEARCH_AUTH", "none")
    config = {"stepfunctions": {"execute_state_machine": True}, "lambda": {"use_docker": False}}
    with moto.mock_aws(config=config), installed() as runner:
        from offprompt.adapters.clients import reset_clients
        from offprompt.config import get_settings

        reset_clients()
        from offprompt.composition import account, conversation, task_memory

        for cached in (conversation.default_service, task_memory.default_service, task_memory.default_receipts):
            cached.cache_clear()  # services built by earlier tests hold clients bound to other endpoints
        account.default_account.cache_clear()
        runner.before_invoke.append(lambda fn: get_settings.cache_clear())
        deployed = deploy_to_moto(parameters=params)
        aws_lambda = boto3.client("lambda")
        for logical_id in ("AddRunFunction", "ProcessOutputFunction", "LoadArtifactsFunction", "MemoriesFunction"):
            env = aws_lambda.get_function_configuration(FunctionName=deployed.resources[logical_id])
            # Lambda environment values are strings; moto keeps a Number parameter's Ref as an int.
            variables = {k: str(v) for k, v in env["Environment"]["Variables"].items()}
            variables["OFFPROMPT_OPENSEARCH_AUTH"] = "none"
            aws_lambda.update_function_configuration(
                FunctionName=deployed.resources[logical_id], Environment={"Variables": variables}
            )
        # moto leaves ${...} literal and puts the stack's machine in the non-executing backend: re-create it.
        definition = (ROOT / "infra/statemachines/offprompt_tool_flow.asl.json").read_text()
        for name in ("ProcessOutput", "ExampleTool", "LoadArtifacts", "Memories", "AddRun"):
            arn = deployed.outputs[f"{name}FunctionArn"]
            definition = definition.replace("${" + f"{name}FunctionArn" + "}", arn)
        from offprompt.composition.task_memory import text_store_from_settings
        from offprompt.config import load_settings

        text_store_from_settings(load_settings(variables)).ensure_index()  # type: ignore[attr-defined]
        sfn = boto3.client("stepfunctions")
        machine = sfn.create_state_machine(
            name="flow", definition=definition, roleArn="arn:aws:iam::123456789012:role/sfn"
        )["stateMachineArn"]
        start = {
            "tenant": "acme", "memory_name": "research", "namespace": "page", "thread_id": "t1",
            "topic": "serverless", "question": "latency of measurement 12", "size_bytes": 5_500_000,
        }  # fmt: skip
        output, _ = _run(sfn, machine, start)
        assert output["reference"]["type"] == "InfoArtifact"
        assert output["reference"]["value"] == INFO.format("page")
        assert output["hits"], output  # the store asked for consistency=search: the next step finds the page
        assert set(output["loaded"]) == {"download_url", "expires_in", "size"}  # a reference, not the page
        assert output["loaded"]["size"] > 5_000_000
        assert output["run_seq"] == 1
        # StoreOutput passed the execution's name as its idempotency key: one completed receipt per execution.
        table = deployed.outputs["TableName"]
        from offprompt.adapters.layout import receipt_pk

        items = boto3.client("dynamodb").scan(TableName=table)["Items"]
        receipts = [i for i in items if i["pk"]["S"].startswith("RECEIPT#")]
        [execution] = [i["run_id"]["S"] for i in items if i["sk"]["S"].startswith("RUN#")]  # $$.Execution.Name
        key = f"{execution}/StoreOutput"
        assert [r["pk"]["S"] for r in receipts] == [receipt_pk(start["tenant"], start["memory_name"], key)]
        assert "result_json" in receipts[0]

        small = {**start, "namespace": "note", "size_bytes": 20_000}
        output, _ = _run(sfn, machine, small)
        assert output["reference"]["value"] == INFO.format("note")
        assert output["run_seq"] == 2
        artifacts = output["loaded"]["artifacts"]  # small enough to come back inline
        assert artifacts["type"] == "ListArtifact"
        assert len(artifacts["value"]) == 1 and len(artifacts["value"][0]["value"]) >= 20_000
