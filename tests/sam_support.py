"""Deploy-side helpers shared by the infrastructure tests and the state-machine test.

`sam_transform()` does what `sam package` + CloudFormation's SAM transform do: code URIs become s3:// URIs
(the zips are uploaded to moto S3 when deploying), the state machine definition is inlined, and the managed
policies SAM attaches resolve from an offline map (the default loader would call IAM ListPolicies).
`deploy_to_moto()` deploys the result into moto CloudFormation and compensates for what moto drops
(reference/local-infra.md §e).
"""

from __future__ import annotations

import copy
import functools
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
from cfnlint.decode import decode
from samtranslator.translator.transform import transform

from offprompt_local.lambda_runner import zip_directory

ROOT = Path(__file__).resolve().parents[1]
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


def load_template(path: Path = TEMPLATE) -> dict[str, Any]:
    """template.yaml (or another template, e.g. the one `sam build` writes) as plain JSON data."""
    parsed, matches = decode(str(path))
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
    """The transformed template for these parameters: a copy of the one transform per version of template.yaml (by
    mtime and size), parameters and region, as `resources.template_resource` keeps its parse (SAM's transform took
    ~7 s a call, and the IAM test file called it ~110 times: ADR 0061)."""
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    stat = TEMPLATE.stat()
    region = (os.environ.get("AWS_REGION"), os.environ["AWS_DEFAULT_REGION"])
    values = tuple(sorted((parameters or {}).items()))
    return copy.deepcopy(_transformed(stat.st_mtime_ns, stat.st_size, region, values))


@functools.lru_cache(maxsize=16)
def _transformed(
    mtime_ns: int, size: int, region: tuple[str | None, str], parameters: tuple[tuple[str, str], ...]
) -> dict[str, Any]:
    result: dict[str, Any] = transform(package(load_template()), dict(parameters), _OfflinePolicies())
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


ALIAS_SUFFIX = "Aliaslive"


def without_aliases(cfn: dict[str, Any]) -> dict[str, Any]:
    """`cfn` without AWS::Lambda::Version / Alias resources; a Ref to `<Function>Aliaslive` is `<Function>`'s ARN."""
    dropped = {k for k, r in cfn["Resources"].items() if r["Type"] in ("AWS::Lambda::Version", "AWS::Lambda::Alias")}
    assert any(k.endswith(ALIAS_SUFFIX) for k in dropped), "no alias left to compensate for: drop compensation 7"

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if set(node) == {"Ref"} and node["Ref"] in dropped:
                return {"Fn::GetAtt": [node["Ref"].removesuffix(ALIAS_SUFFIX), "Arn"]}  # an alias' Ref is an ARN
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    out = walk({k: v for k, v in cfn.items() if k != "Resources"})
    out["Resources"] = {k: walk(r) for k, r in cfn["Resources"].items() if k not in dropped}
    return dict(out)


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
    1. function `Layers` are ignored → `update_function_configuration(Layers=[the function's layer ARNs])`;
    2. the layer versions are created but their physical ids (ARNs) are empty → looked up with list_layers;
    3. the table's `TimeToLiveSpecification` is ignored → `update_time_to_live`;
    4. `AWS::ApiGatewayV2::*` (the HTTP API) is skipped → nothing to do locally (no data plane in moto);
    5. `AWS::NoValue` from an `Fn::If` inside a list reaches moto's IAM as a null policy and crashes it →
       conditions are resolved for the stack's parameters before create_stack (`resolve_conditions`);
    6. state machines land in the non-executing backend with `${...}` substitutions left literal → tests that
       execute the flow re-create it through the API with the substituted definition (test_state_machine.py);
    7. a Ref to a function's `live` alias (AutoPublishAlias, docs/adr/0040) reaches moto's Lambda permission and
       event source mapping without a function name (KeyError) → the versions and aliases are left out and those
       Refs become the function's ARN (`without_aliases`).
    """
    session = boto3.session.Session(region_name="us-east-1")
    upload_artifacts(session.client("s3"))
    cfn = sam_transform(parameters)
    compensations: list[str] = ["resolved:Fn::If"]
    resolved = without_aliases(resolve_conditions(cfn, condition_values(cfn, parameters)))
    compensations.append("unaliased:AutoPublishAlias")
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
    # SAM renames each layer to <logical id><content hash>; moto creates them but reports no physical id.
    template_layers = [
        k for k, r in load_template()["Resources"].items() if r["Type"] == "AWS::Serverless::LayerVersion"
    ]
    layer_arns: dict[str, str] = {}  # transformed logical id -> ARN
    for layer_id, resource in cfn["Resources"].items():
        if resource["Type"] != "AWS::Lambda::LayerVersion":
            continue
        template_id = max((t for t in template_layers if layer_id.startswith(t)), key=len)
        layer_arn = resources[layer_id]
        if not layer_arn:
            (layer,) = [x for x in aws_lambda.list_layers()["Layers"] if layer_id in x["LayerName"]]
            layer_arn = layer["LatestMatchingVersion"]["LayerVersionArn"]
            compensations.append(f"physical-id:{template_id}")
        layer_arns[layer_id] = resources[template_id] = layer_arn
    for logical_id, resource in cfn["Resources"].items():
        if resource["Type"] != "AWS::Lambda::Function":
            continue
        if logical_id not in resources:  # a function of another AuthMode (AuthorizerFunction: apikey only)
            assert resource.get("Condition"), logical_id
            continue
        name = resources[logical_id]
        if not aws_lambda.get_function_configuration(FunctionName=name).get("Layers"):
            arns = [layer_arns[ref["Ref"]] for ref in resource["Properties"]["Layers"]]
            aws_lambda.update_function_configuration(FunctionName=name, Layers=arns)
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
