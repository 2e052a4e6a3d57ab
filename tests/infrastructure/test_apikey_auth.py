"""AuthMode=apikey: the authorizer's least privilege (derived from its code, as for every function) and how the
functions read the tenant in that mode."""

from __future__ import annotations

from sam_support import condition_values, resolve_conditions, sam_transform
from test_iam_least_privilege import code_graph

from offprompt.config import load_settings


def test_the_authorizer_code_makes_one_kind_of_call_a_get_item() -> None:
    """A key's GetItem; and the token secret, read once per environment (a token is checked by its signature)."""
    reach = code_graph().reach("authorizer.handler")
    assert reach.actions == {"dynamodb:GetItem", "secretsmanager:GetSecretValue"}
    assert reach.origins["dynamodb:GetItem"] == {"offprompt.adapters.dynamodb_account"}
    assert reach.origins["secretsmanager:GetSecretValue"] == {"offprompt.adapters.secrets"}


def test_the_authorizer_role_may_only_get_items_of_the_table() -> None:
    cfn = sam_transform({"AuthMode": "apikey"})
    resolved = resolve_conditions(cfn, condition_values(cfn, {"AuthMode": "apikey"}))
    role = resolved["Resources"]["AuthorizerFunctionRole"]["Properties"]
    statements = [s for p in role.get("Policies", []) for s in p["PolicyDocument"]["Statement"]]
    assert statements == [
        {
            "Sid": "ApiKeys",
            "Effect": "Allow",
            "Action": ["dynamodb:GetItem"],
            "Resource": {"Fn::GetAtt": ["MemoryTable", "Arn"]},
        },
        {
            "Sid": "TokenSecret",
            "Effect": "Allow",
            "Action": ["secretsmanager:GetSecretValue"],
            "Resource": {"Ref": "TokenSecret"},
        },
    ]
    managed = set(role.get("ManagedPolicyArns", []))
    assert managed <= {
        "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
        "arn:aws:iam::aws:policy/AWSXrayWriteOnlyAccess",
    }


def test_in_apikey_mode_the_tenant_is_the_authorizer_context() -> None:
    from api_common.caller import hosted_principal, http_tenant

    event = {
        "headers": {"x-offprompt-tenant": "mallory"},
        "requestContext": {
            "http": {"method": "GET"},
            "authorizer": {
                "lambda": {"tenant": "acme", "key_id": "0123456789abcdef", "plan": "pro", "rate_per_second": 100}
            },
        },
    }
    # even where the local tenant header is trusted, the authorizer's tenant wins
    assert http_tenant(event, load_settings({"OFFPROMPT_TRUST_TENANT_HEADER": "1"})) == "acme"
    principal = hosted_principal(event)
    assert principal is not None and principal.plan.name == "pro" and principal.plan.rate_per_second == 100
