"""The local stack's template reader (`resources.load_template`, PyYAML with CloudFormation's short-form tags) reads
template.yaml exactly as cfn-lint's decoder does: every resource, output, condition and parameter, as JSON."""

from __future__ import annotations

import json

from cfnlint.decode import decode

from offprompt_local.resources import TEMPLATE, load_template


def test_the_template_reads_as_cfn_lint_reads_it() -> None:
    ours = load_template(TEMPLATE.read_text(encoding="utf-8"))
    theirs, matches = decode(str(TEMPLATE))
    assert theirs is not None, matches
    assert set(ours) == set(theirs)
    for section in theirs:
        assert json.dumps(ours[section], sort_keys=True, default=str) == json.dumps(
            theirs[section], sort_keys=True, default=str
        ), section


def test_short_forms_become_long_forms() -> None:
    text = """
Resources:
  A:
    Properties:
      Name: !Sub "${AWS::StackName}-x"
      Arn: !GetAtt Table.StreamArn
      Deep: !GetAtt [Table, Arn]
      Id: !Ref Table
      Maybe: !If [IsProd, !Ref Big, !Ref "AWS::NoValue"]
      Same: !Equals [!Ref Env, prod]
      Only: !Condition IsProd
      Joined: !Join [",", [a, b]]
"""
    props = load_template(text)["Resources"]["A"]["Properties"]
    assert props == {
        "Name": {"Fn::Sub": "${AWS::StackName}-x"},
        "Arn": {"Fn::GetAtt": ["Table", "StreamArn"]},
        "Deep": {"Fn::GetAtt": ["Table", "Arn"]},
        "Id": {"Ref": "Table"},
        "Maybe": {"Fn::If": ["IsProd", {"Ref": "Big"}, {"Ref": "AWS::NoValue"}]},
        "Same": {"Fn::Equals": [{"Ref": "Env"}, "prod"]},
        "Only": {"Condition": "IsProd"},
        "Joined": {"Fn::Join": [",", ["a", "b"]]},
    }
