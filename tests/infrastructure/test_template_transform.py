"""template.yaml transforms offline with aws-sam-translator, and the result deploys into moto CloudFormation.

`sam_transform()` does what `sam package` + CloudFormation's SAM transform do: code URIs become s3:// URIs
(the zips are uploaded to moto S3 when deploying), the state machine definition is inlined, and the managed
policies SAM attaches resolve from an offline map (the default loader would call IAM ListPolicies).

moto then creates the table, bucket, layer, roles, functions and state machine, but it drops some settings
(reference/local-infra.md §e). Each drop is asserted to still happen (so the compensation is still needed) and
compensated the way `deploy_to_moto()` documents, then the resources are checked against the template.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
from cfnlint.decode import decode
from samtranslator.translator.transform import transform

from offprompt_local.lambda_runner import zip_directory

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"
ARTIFACT_BUCKET = "offprompt-sam-artifacts"
MANAGED_POLICIES = {
    name: f"arn:aws:iam::aws:policy/{path}{name}"
    for name, path in {
        "AWSLambdaBasicExecutionRole": "service-role/",
        "AWSLambdaDynamoDBExecutionRole": "service-role/",
        "AWSXrayWriteOnlyAccess": "",
        "AWSXRayDaemonWriteAccess": "",
        "AWSLambdaRole": "service-role/",
    }.items()
}
# Parameters for deploying into moto: moto has no OpenSearch Serverless resources in CloudFormation, so the
# stack uses an "existing" endpoint; the serverless path is covered by the transform and IAM tests.
MOTO_PARAMETERS = {
    "AuthMode": "iam",
    "OpenSearchMode": "existing",
    "OpenSearchEndpoint": "http://127.0.0.1:9200",
    "OpenSearchDomainArn": "arn:aws:es:us-east-1:123456789012:domain/offprompt-test",
}


class _OfflinePolicies:
    def load(self) -> dict[str, str]:
        return dict(MANAGED_POLICIES)


def load_template() -> dict[str, Any]:
    parsed, matches = decode(str(TEMPLATE))
    assert parsed is not None, matches
    template: dict[str, Any] = json.loads(json.dumps(parsed, default=str))
    return template


def package(template: dict[str, Any], bucket: str = ARTIFACT_BUCKET) -> dict[str, Any]:
    """What `sam package` does to the URIs (the zips themselves are made by `upload_artifacts`)."""
    packaged = copy.deepcopy(template)
    globals_fn = packaged.get("Globals", {}).get("Function", {})
    if "CodeUri" in globals_fn:
        globals_fn["CodeUri"] = f"s3://{bucket}/functions.zip"
    for resource in packaged["Resources"].values():
        props = resource.get("Properties", {})
        if resource["Type"] == "AWS::Serverless::Function" and "CodeUri" in props:
            props["CodeUri"] = f"s3://{bucket}/{props['CodeUri'].strip('/').replace('/', '_')}.zip"
        elif resource["Type"] == "AWS::Serverless::LayerVersion":
            props["ContentUri"] = f"s3://{bucket}/layer.zip"
        elif resource["Type"] == "AWS::Serverless::StateMachine" and "DefinitionUri" in props:
            props["Definition"] = json.loads((ROOT / props.pop("DefinitionUri")).read_text())
    return packaged


def sam_transform(parameters: Mapping[str, str] | None = None) -> dict[str, Any]:
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    result: dict[str, Any] = transform(package(load_template()), dict(parameters or {}), _OfflinePolicies())
    return result


def upload_artifacts(s3: Any, bucket: str = ARTIFACT_BUCKET) -> None:
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="functions.zip", Body=zip_directory(ROOT / "functions"))
    # The layer as Lambda sees it: python/offprompt (its third-party dependencies come from the test venv).
    layer = zip_directory(ROOT / "layers" / "offprompt" / "offprompt", prefix="python/offprompt/")
    s3.put_object(Bucket=bucket, Key="layer.zip", Body=layer)


_NO_VALUE = object()


def condition_values(cfn: dict[str, Any], parameters: Mapping[str, str]) -> dict[str, bool]:
    """Evaluate the template's Conditions for these parameter values (defaults for the others)."""
    values = {k: str(v.get("Default", "")) for k, v in cfn.get("Parameters", {}).items()}
    values.update(parameters)
    results: dict[str, bool] = {}

    def evaluate(node: Any) -> Any:
        if isinstance(node, dict) and len(node) == 1:
            ((key, arg),) = node.items()
            if key == "Ref":
                return values[arg]
            if key == "Condition":
                return evaluate_condition(arg)
            if key == "Fn::Equals":
                return evaluate(arg[0]) == evaluate(arg[1])
            if key == "Fn::Not":
                return not evaluate(arg[0])
            if key == "Fn::And":
                return all(evaluate(a) for a in arg)
            if key == "Fn::Or":
                return any(evaluate(a) for a in arg)
        return node

    def evaluate_condition(name: str) -> bool:
        if name not in results:
            results[name] = bool(evaluate(cfn["Conditions"][name]))
        return results[name]

    for name in cfn.get("Conditions", {}):
        evaluate_condition(name)
    return results


def resolve_conditions(node: Any, conditions: Mapping[str, bool]) -> Any:
    """Replace every Fn::If by its branch and drop AWS::NoValue (moto keeps it as a null in lists)."""
    if isinstance(node, dict):
        if set(node) == {"Fn::If"}:
            name, true_branch, false_branch = node["Fn::If"]
            return resolve_conditions(true_branch if conditions[name] else false_branch, conditions)
        if node == {"Ref": "AWS::NoValue"}:
            return _NO_VALUE
        resolved = {k: resolve_conditions(v, conditions) for k, v in node.items()}
        return {k: v for k, v in resolved.items() if v is not _NO_VALUE}
    if isinstance(node, list):
        items = [resolve_conditions(v, conditions) for v in node]
        return [v for v in items if v is not _NO_VALUE]
    return node


@dataclass
class Deployed:
    stack: str
    outputs: dict[str, str]
    resources: dict[str, str]  # logical id -> physical id
    cfn: dict[str, Any]
    compensations: list[str]


def deploy_to_moto(stack: str = "offprompt", parameters: Mapping[str, str] = MOTO_PARAMETERS) -> Deployed:
    """Deploy the transformed template into moto and compensate for what moto drops (local-infra §e).

    Compensations (each one asserted to be needed before it is applied):
    1. function `Layers` are ignored → `update_function_configuration(Layers=[layer ARN])`;
    2. the layer version is created but its physical id (ARN) is empty → looked up with list_layers;
    3. the table's `TimeToLiveSpecification` is ignored → `update_time_to_live`;
    4. `AWS::ApiGatewayV2::*` (the HTTP API) is skipped → nothing to do locally (no data plane in moto);
    5. `AWS::NoValue` from an `Fn::If` inside a list reaches moto's IAM as a null policy and crashes it →
       conditions are resolved for the stack's parameters before create_stack (`resolve_conditions`);
    6. state machines land in the non-executing backend with `${...}` substitutions left literal → tests that
       execute the flow re-create it through the API with the substituted definition (test_state_machine.py).
    """
    session = boto3.session.Session(region_name="us-east-1")
    upload_artifacts(session.client("s3"))
    cfn = sam_transform(parameters)
    compensations: list[str] = ["resolved:Fn::If"]
    resolved = resolve_conditions(cfn, condition_values(cfn, parameters))
    resolved["Conditions"] = cfn.get("Conditions", {})
    cloudformation = session.client("cloudformation")
    cloudformation.create_stack(
        StackName=stack,
        TemplateBody=json.dumps(resolved),
        Parameters=[{"ParameterKey": k, "ParameterValue": v} for k, v in parameters.items()],
        Capabilities=["CAPABILITY_IAM", "CAPABILITY_AUTO_EXPAND"],
    )
    status = cloudformation.describe_stacks(StackName=stack)["Stacks"][0]
    assert status["StackStatus"] == "CREATE_COMPLETE", status
    resources = {
        r["LogicalResourceId"]: r["PhysicalResourceId"]
        for r in cloudformation.list_stack_resources(StackName=stack)["StackResourceSummaries"]
    }
    outputs = {o["OutputKey"]: o["OutputValue"] for o in status.get("Outputs", [])}

    aws_lambda = session.client("lambda")
    # SAM renames the layer to OffpromptLayer<content hash>; moto creates it but reports no physical id.
    layer_id = next(k for k, r in cfn["Resources"].items() if r["Type"] == "AWS::Lambda::LayerVersion")
    layer_arn = resources[layer_id]
    if not layer_arn:
        (layer,) = [x for x in aws_lambda.list_layers()["Layers"] if layer_id in x["LayerName"]]
        layer_arn = layer["LatestMatchingVersion"]["LayerVersionArn"]
        compensations.append("physical-id:OffpromptLayer")
    resources["OffpromptLayer"] = layer_arn
    for logical_id, resource in cfn["Resources"].items():
        if resource["Type"] != "AWS::Lambda::Function":
            continue
        name = resources[logical_id]
        if not aws_lambda.get_function_configuration(FunctionName=name).get("Layers"):
            aws_lambda.update_function_configuration(FunctionName=name, Layers=[layer_arn])
            compensations.append(f"layers:{logical_id}")

    dynamodb = session.client("dynamodb")
    table = resources["MemoryTable"]
    ttl = dynamodb.describe_time_to_live(TableName=table)["TimeToLiveDescription"]
    if ttl.get("TimeToLiveStatus") != "ENABLED":
        spec = cfn["Resources"]["MemoryTable"]["Properties"]["TimeToLiveSpecification"]
        dynamodb.update_time_to_live(
            TableName=table, TimeToLiveSpecification={"AttributeName": spec["AttributeName"], "Enabled": True}
        )
        compensations.append("ttl:MemoryTable")
    if "HttpApi" not in resources:
        compensations.append("skipped:HttpApi")
    return Deployed(stack, outputs, resources, cfn, compensations)


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
    } <= types
    assert len(_functions(cfn)) == 8  # seven endpoints/handlers + the example tool


def test_every_http_route_requires_the_configured_authorizer() -> None:
    cfn = sam_transform()
    body = cfn["Resources"]["HttpApi"]["Properties"]["Body"]
    for path, item in body["paths"].items():
        for method, operation in item.items():
            assert "x-amazon-apigateway-integration" in operation, (method, path)  # a function serves it
            assert operation["security"] == [{"Fn::If": ["UseIam", {"sigv4": []}, {"jwt": []}]}], (method, path)
    schemes = body["components"]["securitySchemes"]
    assert schemes["sigv4"]["x-amazon-apigateway-authtype"] == "awsSigv4"
    jwt = schemes["jwt"]["Fn::If"]
    assert jwt[0] == "UseJwt" and jwt[2] == {"Ref": "AWS::NoValue"}
    assert jwt[1]["x-amazon-apigateway-authorizer"]["jwtConfiguration"] == {
        "issuer": {"Ref": "JwtIssuer"},
        "audience": {"Ref": "JwtAudience"},
    }


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
    mappings = [r for r in cfn["Resources"].values() if r["Type"] == "AWS::Lambda::EventSourceMapping"]
    assert len(mappings) == 1
    props = mappings[0]["Properties"]
    assert props["FunctionName"] == {"Ref": "SummarizerFunction"}
    assert props["EventSourceArn"] == {"Fn::GetAtt": ["MemoryTable", "StreamArn"]}
    assert props["BisectBatchOnFunctionError"] is True
    assert props["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert 0 < props["MaximumRetryAttempts"] <= 5
    assert props["DestinationConfig"]["OnFailure"]["Destination"] == {
        "Fn::GetAtt": ["SummarizerDeadLetterQueue", "Arn"]
    }
    pattern = json.loads(props["FilterCriteria"]["Filters"][0]["Pattern"])
    assert pattern == {"eventName": ["INSERT"], "dynamodb": {"Keys": {"sk": {"S": [{"prefix": "RUN#"}]}}}}


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
    assert table["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"}
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
    functions = {k: v for k, v in template["Resources"].items() if v["Type"] == "AWS::Serverless::Function"}
    for logical_id, resource in functions.items():
        config = aws_lambda.get_function_configuration(FunctionName=resources[logical_id])
        assert config["Runtime"] == "python3.12", logical_id
        # moto ignores Architectures (asserted in test_moto_still_drops...): check what CloudFormation receives.
        assert deployed.cfn["Resources"][logical_id]["Properties"]["Architectures"] == ["arm64"], logical_id
        assert config["Handler"] == resource["Properties"]["Handler"], logical_id
        module = resource["Properties"]["Handler"].rsplit(".", 1)[0]
        assert (ROOT / "functions" / (module.replace(".", "/") + ".py")).is_file(), logical_id
        assert [x["Arn"] for x in config["Layers"]] == [resources["OffpromptLayer"]], logical_id
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
    functions = [k for k, r in deployed.cfn["Resources"].items() if r["Type"] == "AWS::Lambda::Function"]
    assert sorted(c for c in deployed.compensations if c.startswith("layers:")) == sorted(
        f"layers:{f}" for f in functions
    )
    assert "ttl:MemoryTable" in deployed.compensations
    assert "physical-id:OffpromptLayer" in deployed.compensations
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
