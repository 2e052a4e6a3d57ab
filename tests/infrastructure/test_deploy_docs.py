"""docs/deploy.md's lists of the functions that reach OpenSearch are derived from template.yaml (issue 33, friction 3:
the page named five while the template gave seven, so records answered 503 under fine-grained access control set up
as documented). The functions are those whose IAM policy grants `es:ESHttp*`; the page must name each one's role
wherever it lists them, with the right count, and the Serverless data access policy must name the same roles."""

from __future__ import annotations

import json
import re
from pathlib import Path

from sam_support import load_template

ROOT = Path(__file__).resolve().parents[2]
NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}


def opensearch_roles() -> set[str]:
    """`<Function>Role` of every function whose policies grant OpenSearch HTTP access."""
    resources = load_template()["Resources"]
    return {
        f"{name}Role"
        for name, resource in resources.items()
        if resource["Type"] == "AWS::Serverless::Function"
        and "es:ESHttpGet" in json.dumps(resource.get("Properties", {}).get("Policies", []))
    }


def deploy_md() -> str:
    return (ROOT / "docs" / "deploy.md").read_text()


def test_the_template_gives_some_functions_opensearch_and_the_serverless_policy_names_the_same_roles() -> None:
    roles = opensearch_roles()
    assert len(roles) >= 5
    policy = load_template()["Resources"]["OpenSearchDataAccessPolicy"]["Properties"]["Policy"]
    named = {v["Fn::GetAtt"][0] for v in policy["Fn::Sub"][1].values()}
    assert named == roles


def test_deploy_md_names_every_opensearch_function_role_with_the_right_count() -> None:
    roles = opensearch_roles()
    text = deploy_md()
    # each list: a paragraph naming function roles (one or more `<X>FunctionRole` in it)
    paragraphs = [p for p in re.split(r"\n\s*\n|\n\d+\. ", text) if re.search(r"\w+FunctionRole\b", p)]
    assert paragraphs
    for paragraph in paragraphs:
        assert set(re.findall(r"\b(\w+FunctionRole)\b", paragraph)) == roles, paragraph[:300]
    counts = re.findall(r"\bthe (\w+) (?:text )?function roles\b", text)
    assert counts, "the page states how many function roles reach OpenSearch"
    for word in counts:
        assert NUMBERS.get(word) == len(roles), (
            f'deploy.md says "the {word} ... function roles"; the template: {len(roles)}'
        )
