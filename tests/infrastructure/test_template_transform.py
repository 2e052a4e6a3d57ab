"""template.yaml transforms offline with aws-sam-translator, and the result deploys into moto CloudFormation.

`sam_transform()` does what `sam package` + CloudFormation's SAM transform do: code URIs become s3:// URIs
(the zips are uploaded to moto S3 when deploying), the state machine definition is inlined, and the managed
policies SAM attaches resolve from an offline map (the default loader would call IAM ListPolicies).

moto then creates the table, bucket, layer, roles, functions and state machine, but it drops some settings
(reference/local-infra.md §e). Each drop is asserted to still happen (so the compensation is still needed) and
compensated the way `deploy_to_moto()` documents, then the resources are checked against the template.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from sam_support import (
    MOTO_PARAMETERS,
    ROOT,
    Deployed,
    deploy_to_moto,
    load_template,
    sam_transform,
)

#: The functions that get the text layer (opensearch-py, requests) on top of the core layer: the task-memory
#: functions, the MCP endpoint (its task-memory tools) and the tenant export/erase reach OpenSearch, the example tool
#: PUTs with requests.
TEXT_LAYER_FUNCTIONS = {
    "ProcessOutputFunction",
    "RecordsFunction",
    "ExampleExtractorFunction",  # writes records, which index their text (OpenSearch)
    "ExtractionFunction",  # the same, and searches what a namespace holds (ADR 0051)
    "McpFunction",
    "LoadArtifactsFunction",
    "MemoriesFunction",
    "TenantDataFunction",
    "ExampleToolFunction",
    "ConversationIndexFunction",  # writes the conversation documents (docs/adr/0048)
    "ThreadsFunction",  # POST /threads/search asks the conversation index (docs/adr/0049)
    "PromptStackFunction",  # bpe-openai's BPE: its tokenizer loads in ~25 ms instead of ~100 (docs/adr/0069)
}


# ------------------------------------------------------------------------------------------------ tests
@pytest.fixture
def deployed(moto_aws: None) -> Iterator[Deployed]:
    yield deploy_to_moto()


def _functions(cfn: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {k: r for k, r in cfn["Resources"].items() if r["Type"] == "AWS::Lambda::Function"}


def test_transform_emits_the_expected_resource_types() -> None:
    cfn = sam_transform({"AuthMode": "jwt", "JwtIssuer": "https://issuer.example", "JwtAudience": "aud"})
    types = {r["Type"] for r in cfn["Resources"].values()}
    assert {
        "AWS::ApiGatewayV2::Api",
        "AWS::ApiGatewayV2::Stage",
        "AWS::Lambda::Function",
        "AWS::Lambda::LayerVersion",
        "AWS::Lambda::Permission",
        "AWS::Lambda::EventSourceMapping",
        "AWS::IAM::Role",
        "AWS::StepFunctions::StateMachine",
        "AWS::DynamoDB::Table",
        "AWS::S3::Bucket",
        "AWS::S3::BucketPolicy",
        "AWS::SQS::Queue",
        "AWS::OpenSearchServerless::Collection",
        "AWS::OpenSearchServerless::SecurityPolicy",
        "AWS::OpenSearchServerless::AccessPolicy",
        "AWS::Logs::LogGroup",
    } <= types
    # twelve endpoints/handlers (cloud_threads: issue 13; tenancy and tenant export/erase: issue 14; MCP: issue 21;
    # records: issue 22) + the example tool + the memory events' publisher and the example extractor (issue 22); the
    # API-key authorizer only with AuthMode=apikey (below)
    functions = _functions(cfn)
    # + the console's static files (issue 24), LangGraph checkpoints (issue 23), the conversation indexer (issue 31),
    # extraction strategies (issue 32)
    assert len(functions) == 20
    assert functions["AuthorizerFunction"]["Condition"] == "UseApiKey"


def test_every_http_route_requires_the_configured_authorizer() -> None:
    cfn = sam_transform()
    body = cfn["Resources"]["HttpApi"]["Properties"]["Body"]
    for path, item in body["paths"].items():
        for method, operation in item.items():
            assert "x-amazon-apigateway-integration" in operation, (method, path)  # a function serves it
            if path.startswith("/console"):  # the console's static files: no data, no credentials (ADR 0038)
                assert operation["security"] == [] and method == "get", (method, path)
                continue
            assert operation["security"] == [
                {"Fn::If": ["UseIam", {"sigv4": []}, {"Fn::If": ["UseApiKey", {"apikey": []}, {"jwt": []}]}]}
            ], (method, path)
    schemes = body["components"]["securitySchemes"]
    assert schemes["sigv4"]["x-amazon-apigateway-authtype"] == "awsSigv4"
    jwt = schemes["jwt"]["Fn::If"]
    assert jwt[0] == "UseJwt" and jwt[2] == {"Ref": "AWS::NoValue"}
    assert jwt[1]["x-amazon-apigateway-authorizer"]["jwtConfiguration"] == {
        "issuer": {"Ref": "JwtIssuer"},
        "audience": {"Ref": "JwtAudience"},
    }


def test_apikey_mode_is_a_cached_lambda_request_authorizer() -> None:
    """AuthMode=apikey: every route needs the Lambda REQUEST authorizer (payload 2.0, simple responses, identity
    `Authorization`, cached 300 s), API Gateway may invoke it, and jwt/iam stay the other choices."""
    template = load_template()
    assert template["Parameters"]["AuthMode"]["AllowedValues"] == ["jwt", "iam", "apikey"]
    cfn = sam_transform({"AuthMode": "apikey"})
    schemes = cfn["Resources"]["HttpApi"]["Properties"]["Body"]["components"]["securitySchemes"]
    condition, scheme, otherwise = schemes["apikey"]["Fn::If"]
    assert condition == "UseApiKey" and otherwise == {"Ref": "AWS::NoValue"}
    authorizer = scheme["x-amazon-apigateway-authorizer"]
    assert authorizer["type"] == "request"
    assert authorizer["identitySource"] == "$request.header.Authorization"
    assert authorizer["authorizerPayloadFormatVersion"] == "2.0"
    assert authorizer["enableSimpleResponses"] is True
    assert authorizer["authorizerResultTtlInSeconds"] == 300
    assert "${AuthorizerFunction.Arn}" in json.dumps(authorizer["authorizerUri"])
    function = cfn["Resources"]["AuthorizerFunction"]
    assert function["Properties"]["Handler"] == "authorizer.handler.lambda_handler"
    permission = cfn["Resources"]["AuthorizerInvokePermission"]
    assert permission["Condition"] == "UseApiKey"
    assert permission["Properties"]["Principal"] == "apigateway.amazonaws.com"
    assert permission["Properties"]["FunctionName"] == {"Fn::GetAtt": ["AuthorizerFunction", "Arn"]}
    assert "/authorizers/*" in json.dumps(permission["Properties"]["SourceArn"])
    assert cfn["Conditions"]["UseApiKey"] == {"Fn::Equals": [{"Ref": "AuthMode"}, "apikey"]}


def test_bucket_policy_denies_insecure_transport() -> None:
    statement = load_template()["Resources"]["BlobBucketPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert statement == [
        {
            "Sid": "DenyInsecureTransport",
            "Effect": "Deny",
            "Principal": "*",
            "Action": "s3:*",
            "Resource": [{"Fn::GetAtt": ["BlobBucket", "Arn"]}, {"Fn::Sub": "${BlobBucket.Arn}/*"}],
            "Condition": {"Bool": {"aws:SecureTransport": "false"}},
        }
    ]


def test_summarizer_stream_settings() -> None:
    cfn = sam_transform()
    targets = {
        r["Properties"]["FunctionName"]["Ref"]: r
        for r in cfn["Resources"].values()
        if r["Type"] == "AWS::Lambda::EventSourceMapping"
    }
    # each stream consumer invokes its function's `live` alias: the published version SnapStart applies to (0040)
    assert set(targets) == {
        "SummarizerFunctionAliaslive",
        "RecordsFunctionAliaslive",
        "EventsFunctionAliaslive",
        "ConversationIndexFunctionAliaslive",
        "ExtractionFunctionAliaslive",  # its queue, not the stream (test_extraction_queue_settings)
    }
    mappings = {name.removesuffix("Aliaslive"): r for name, r in targets.items()}
    # records: only REMOVEs by DynamoDB's TTL of record items (their S3 bodies and documents; ADR 0034)
    records = mappings["RecordsFunction"]["Properties"]
    assert records["EventSourceArn"] == {"Fn::GetAtt": ["MemoryTable", "StreamArn"]}
    assert records["FunctionResponseTypes"] == ["ReportBatchItemFailures"] and records["BisectBatchOnFunctionError"]
    (pattern,) = [json.loads(f["Pattern"]) for f in records["FilterCriteria"]["Filters"]]
    assert pattern["eventName"] == ["REMOVE"] and pattern["userIdentity"]["principalId"] == ["dynamodb.amazonaws.com"]
    assert pattern["dynamodb"]["Keys"]["pk"] == {"S": [{"prefix": "REC#"}]}
    props = mappings["SummarizerFunction"]["Properties"]
    assert props["EventSourceArn"] == {"Fn::GetAtt": ["MemoryTable", "StreamArn"]}
    assert props["BisectBatchOnFunctionError"] is True
    assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert 0 < props["MaximumRetryAttempts"] <= 5
    assert props["DestinationConfig"]["OnFailure"]["Destination"] == {
        "Fn::GetAtt": ["SummarizerDeadLetterQueue", "Arn"]
    }
    patterns = [json.loads(f["Pattern"]) for f in props["FilterCriteria"]["Filters"]]
    # What the patterns let through is checked against real items in test_summarizer_filter.py.
    assert [p["eventName"] for p in patterns] == [["INSERT"], ["REMOVE"]]  # runs added; runs TTL deleted
    assert patterns[1]["userIdentity"] == {"type": ["Service"], "principalId": ["dynamodb.amazonaws.com"]}


def test_extraction_queue_settings() -> None:
    """Extraction (docs/adr/0051): a rule on the memory-event bus sends run.added and items.appended to the queue
    (only that rule may send there), the function reads the queue reporting failures per message, a message that
    keeps failing ends in the dead-letter queue; the function may PutEvents on the stack's bus."""
    cfn = sam_transform()
    resources = cfn["Resources"]
    mapping = next(
        r["Properties"]
        for r in resources.values()
        if r["Type"] == "AWS::Lambda::EventSourceMapping"
        and r["Properties"]["FunctionName"] == {"Ref": "ExtractionFunctionAliaslive"}
    )
    assert mapping["EventSourceArn"] == {"Fn::GetAtt": ["ExtractionQueue", "Arn"]}
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    queue = resources["ExtractionQueue"]["Properties"]
    assert queue["RedrivePolicy"]["deadLetterTargetArn"] == {"Fn::GetAtt": ["ExtractionDeadLetterQueue", "Arn"]}
    assert queue["VisibilityTimeout"] >= 6 * resources["ExtractionFunction"]["Properties"]["Timeout"]
    rule = resources["ExtractionEventsRule"]["Properties"]
    assert rule["EventBusName"] == {"Fn::GetAtt": ["MemoryEventBus", "Name"]}
    assert rule["EventPattern"]["detail-type"] == ["run.added", "items.appended"]
    assert rule["Targets"] == [{"Id": "extraction-queue", "Arn": {"Fn::GetAtt": ["ExtractionQueue", "Arn"]}}]
    (statement,) = resources["ExtractionQueuePolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert statement["Condition"] == {"ArnEquals": {"aws:SourceArn": {"Fn::GetAtt": ["ExtractionEventsRule", "Arn"]}}}
    env = resources["ExtractionFunction"]["Properties"]["Environment"]["Variables"]
    assert env["OFFPROMPT_EXTRACTION_QUEUE_URL"] == {"Ref": "ExtractionQueue"}
    assert env["OFFPROMPT_EVENT_BUS"] == {"Fn::GetAtt": ["MemoryEventBus", "Name"]}


def test_http_api_access_log_and_the_async_extractors_dead_letter_queue() -> None:
    """checkov's findings that applied (issue 36, docs/deploy.md): the API's stage writes an access log holding no
    values (the route's template, never its path), kept AccessLogRetentionDays; the one function invoked asynchronously
    (the example extractor, by EventBridge) parks what still fails in its own encrypted queue; reserved concurrency
    is a parameter, none reserved by default."""
    cfn = sam_transform()
    resources = cfn["Resources"]
    stage = next(r["Properties"] for r in resources.values() if r["Type"] == "AWS::ApiGatewayV2::Stage")
    log = stage["AccessLogSettings"]
    assert log["DestinationArn"] == {"Fn::GetAtt": ["HttpApiAccessLogs", "Arn"]}
    fields = json.loads(log["Format"])
    assert fields["routeKey"] == "$context.routeKey" and fields["status"] == "$context.status"
    assert not [v for v in fields.values() if re.search(r"\$context\.(path|identity|requestOverride)|querystring", v)]
    group = resources["HttpApiAccessLogs"]
    assert group["Type"] == "AWS::Logs::LogGroup"
    assert group["Properties"]["RetentionInDays"] == {"Ref": "AccessLogRetentionDays"}
    extractor = resources["ExampleExtractorFunction"]["Properties"]
    assert extractor["DeadLetterConfig"] == {"TargetArn": {"Fn::GetAtt": ["ExampleExtractorDeadLetterQueue", "Arn"]}}
    queue = resources["ExampleExtractorDeadLetterQueue"]
    assert queue["Type"] == "AWS::SQS::Queue" and queue["Properties"]["SqsManagedSseEnabled"] is True
    queues = [r for r in resources.values() if r["Type"] == "AWS::SQS::Queue"]
    assert all(q["Properties"]["SqsManagedSseEnabled"] is True for q in queues)
    reserved = {k: r["Properties"].get("ReservedConcurrentExecutions") for k, r in _functions(cfn).items()}
    assert reserved.pop("SummarizerFunction") == 20
    assert set(map(json.dumps, reserved.values())) == {
        json.dumps({"Fn::If": ["HasReservedConcurrency", {"Ref": "ReservedConcurrency"}, {"Ref": "AWS::NoValue"}]})
    }
    assert load_template()["Parameters"]["ReservedConcurrency"]["Default"] == ""


def test_memory_events_stream_settings() -> None:
    """The memory events (docs/adr/0036): the stream's publisher reports failures per record, parks what it cannot
    publish in its own queue, may put events on the stack's bus only, and the bus is an output."""
    cfn = sam_transform()
    mapping = next(
        r["Properties"]
        for r in cfn["Resources"].values()
        if r["Type"] == "AWS::Lambda::EventSourceMapping"
        and r["Properties"]["FunctionName"] == {"Ref": "EventsFunctionAliaslive"}  # the `live` alias (0040)
    )
    assert mapping["EventSourceArn"] == {"Fn::GetAtt": ["MemoryTable", "StreamArn"]}
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert mapping["BisectBatchOnFunctionError"] is True
    assert mapping["DestinationConfig"]["OnFailure"]["Destination"] == {"Fn::GetAtt": ["EventsDeadLetterQueue", "Arn"]}
    patterns = [json.loads(f["Pattern"]) for f in mapping["FilterCriteria"]["Filters"]]
    assert [p["eventName"] for p in patterns] == [["INSERT"], ["INSERT", "MODIFY"], ["MODIFY"], ["MODIFY"], ["REMOVE"]]
    assert patterns[4]["userIdentity"] == {"type": ["Service"], "principalId": ["dynamodb.amazonaws.com"]}
    bus = cfn["Resources"]["MemoryEventBus"]
    assert bus["Type"] == "AWS::Events::EventBus"
    assert bus["Properties"]["Name"] == {"Fn::Sub": "${AWS::StackName}-memory-events"}
    env = cfn["Resources"]["EventsFunction"]["Properties"]["Environment"]["Variables"]
    assert env["OFFPROMPT_EVENT_BUS"] == {"Fn::GetAtt": ["MemoryEventBus", "Name"]}
    assert cfn["Outputs"]["MemoryEventBusArn"]["Value"] == {"Fn::GetAtt": ["MemoryEventBus", "Arn"]}


def test_conversation_index_stream_settings() -> None:
    """The conversation indexer (docs/adr/0048): every change of a run item (inserted, modified, removed by anyone),
    failures reported per record, what keeps failing parked in its own queue."""
    cfn = sam_transform()
    mapping = next(
        r["Properties"]
        for r in cfn["Resources"].values()
        if r["Type"] == "AWS::Lambda::EventSourceMapping"
        and r["Properties"]["FunctionName"] == {"Ref": "ConversationIndexFunctionAliaslive"}
    )
    assert mapping["EventSourceArn"] == {"Fn::GetAtt": ["MemoryTable", "StreamArn"]}
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"] and mapping["BisectBatchOnFunctionError"]
    assert mapping["DestinationConfig"]["OnFailure"]["Destination"] == {
        "Fn::GetAtt": ["ConversationIndexDeadLetterQueue", "Arn"]
    }
    (pattern,) = [json.loads(f["Pattern"]) for f in mapping["FilterCriteria"]["Filters"]]
    assert pattern == {
        "eventName": ["INSERT", "MODIFY", "REMOVE"],
        "dynamodb": {"Keys": {"sk": {"S": [{"prefix": "RUN#"}]}}},
    }


def test_stack_deploys_into_moto_with_the_template_settings(deployed: Deployed) -> None:
    session = boto3.session.Session(region_name="us-east-1")
    template = load_template()
    resources = deployed.resources

    # Table: keys, billing, stream, TTL (after compensation), exactly as template.yaml declares.
    table = session.client("dynamodb").describe_table(TableName=resources["MemoryTable"])["Table"]
    props = template["Resources"]["MemoryTable"]["Properties"]
    assert table["KeySchema"] == props["KeySchema"]
    assert sorted(table["AttributeDefinitions"], key=str) == sorted(props["AttributeDefinitions"], key=str)
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    ttl = session.client("dynamodb").describe_time_to_live(TableName=resources["MemoryTable"])
    assert ttl["TimeToLiveDescription"] == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires_at"}

    # Bucket: default encryption (moto drops the public access block and the bucket policy: asserted below,
    # and checked on the template itself by test_bucket_policy_denies_insecure_transport).
    s3 = session.client("s3")
    bucket = resources["BlobBucket"]
    rules = s3.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]["Rules"]
    assert rules[0]["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"] == "AES256"

    # Layer and functions: runtime, architecture, handler, layer, environment.
    aws_lambda = session.client("lambda")
    name, version = resources["OffpromptLayer"].rsplit(":", 2)[-2:]
    layer = aws_lambda.get_layer_version(LayerName=name, VersionNumber=int(version))
    assert layer["CompatibleRuntimes"] == ["python3.12"]
    functions = {
        k: v
        for k, v in template["Resources"].items()
        if v["Type"] == "AWS::Serverless::Function" and v.get("Condition") != "UseApiKey"  # deployed: AuthMode=iam
    }
    for logical_id, resource in functions.items():
        config = aws_lambda.get_function_configuration(FunctionName=resources[logical_id])
        assert config["Runtime"] == "python3.12", logical_id
        # moto ignores Architectures (asserted in test_moto_still_drops...): check what CloudFormation receives.
        assert deployed.cfn["Resources"][logical_id]["Properties"]["Architectures"] == ["arm64"], logical_id
        assert config["Handler"] == resource["Properties"]["Handler"], logical_id
        module = resource["Properties"]["Handler"].rsplit(".", 1)[0]
        assert (ROOT / "functions" / (module.replace(".", "/") + ".py")).is_file(), logical_id
        # The core layer for every function, the text add-on appended for the ones that reach OpenSearch or PUT
        # with requests (Globals' Layers come first, as SAM merges them; docs/adr/0027).
        expected_layers = ["OffpromptLayer"] + (["OffpromptTextLayer"] if logical_id in TEXT_LAYER_FUNCTIONS else [])
        assert [x["Arn"] for x in config["Layers"]] == [resources[x] for x in expected_layers], logical_id
        assert deployed.cfn["Resources"][logical_id]["Properties"]["TracingConfig"] == {"Mode": "Active"}
        env = config["Environment"]["Variables"]
        assert env["OFFPROMPT_TABLE"] == resources["MemoryTable"], logical_id
        assert env["OFFPROMPT_BUCKET"] == bucket, logical_id
        assert env["OFFPROMPT_OPENSEARCH_URL"] == MOTO_PARAMETERS["OpenSearchEndpoint"], logical_id
        assert env["OFFPROMPT_OPENSEARCH_AUTH"] == "sigv4-es", logical_id
        assert env["OFFPROMPT_SUMMARIZE_MODE"] == "async", logical_id
    summarizer = aws_lambda.get_function_configuration(FunctionName=resources["SummarizerFunction"])
    assert summarizer["Environment"]["Variables"]["OFFPROMPT_SUMMARY_MODEL_ID"] == "amazon.nova-micro-v1:0"

    # Outputs a client needs resolve to real names.
    assert deployed.outputs["TableName"] == resources["MemoryTable"]
    assert deployed.outputs["BucketName"] == bucket
    assert deployed.outputs["StateMachineArn"].startswith("arn:aws:states:")
    for logical_id in functions:
        assert deployed.outputs[f"{logical_id}Arn"].endswith(f":function:{resources[logical_id]}")


def test_moto_still_drops_what_we_compensate_for(deployed: Deployed) -> None:
    # If moto starts honouring these, the compensations in deploy_to_moto (and local-infra §e) can go.
    functions = [
        k
        for k, r in deployed.cfn["Resources"].items()
        if r["Type"] == "AWS::Lambda::Function" and k in deployed.resources
    ]
    assert sorted(c for c in deployed.compensations if c.startswith("layers:")) == sorted(
        f"layers:{f}" for f in functions
    )
    assert "ttl:MemoryTable" in deployed.compensations
    assert "physical-id:OffpromptLayer" in deployed.compensations
    assert "physical-id:OffpromptTextLayer" in deployed.compensations
    assert "skipped:HttpApi" in deployed.compensations
    config = boto3.client("lambda").get_function_configuration(FunctionName=deployed.resources["AddRunFunction"])
    assert config["Architectures"] == ["x86_64"]  # moto ignores Architectures: arm64 is checked on the template
    assert config["TracingConfig"]["Mode"] == "PassThrough"  # and TracingConfig
    s3 = boto3.client("s3")
    with pytest.raises(s3.exceptions.ClientError, match="NoSuchPublicAccessBlockConfiguration"):
        s3.get_public_access_block(Bucket=deployed.resources["BlobBucket"])
    with pytest.raises(s3.exceptions.ClientError, match="NoSuchBucketPolicy"):
        s3.get_bucket_policy(Bucket=deployed.resources["BlobBucket"])
    statements = deployed.cfn["Resources"]["ProcessOutputFunctionRole"]["Properties"]["Policies"]
    assert any(isinstance(p, dict) and "Fn::If" in p for p in statements)  # what resolve_conditions removes
    machine = deployed.resources["ToolFlowStateMachine"]
    definition = boto3.client("stepfunctions").describe_state_machine(stateMachineArn=machine)["definition"]
    assert "${ProcessOutputFunctionArn}" in definition  # DefinitionSubstitutions are not applied by moto


def test_the_operator_cli_reads_a_deployed_stacks_settings_and_backfills_it(
    deployed: Deployed, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`make deploy`'s last step: `offprompt-admin --stack <name> backfill-index --all` on the new stack's table."""
    from offprompt.composition import tenant_data
    from offprompt.config import get_settings
    from offprompt_admin import context
    from offprompt_admin.__main__ import main as admin

    for name in context.STACK_OUTPUTS.values():
        monkeypatch.delenv(name, raising=False)
    assert set(context.STACK_OUTPUTS) - {"OpenSearchAuth"} <= set(deployed.outputs)  # every output it reads
    get_settings.cache_clear()
    tenant_data.default_stores.cache_clear()
    assert admin(["--stack", deployed.stack, "backfill-index", "--all"]) == 0
    out = capsys.readouterr().out
    assert '"roots_indexed": 0' in out and '"tenants_marked": 0' in out  # a new table: no tenant to mark
    assert admin(["--stack", "no-such-stack", "backfill-index", "--all"]) == 2
