"""Ported from Griptape's tests/unit/artifacts/test_action_artifact.py and tests/unit/common/test_action.py."""

import json

import pytest
from griptape.common import ToolAction as GToolAction

from offprompt.artifacts import ActionArtifact, BaseArtifact, TextArtifact, ToolAction


def action():
    return ToolAction(tag="TestTag", name="TestName", path="TestPath", input={"foo": "bar"})


def test_to_text():
    assert ActionArtifact(action()).to_text() == json.dumps(action().to_dict())


def test_to_dict():
    assert ActionArtifact(action()).to_dict()["value"] == {
        "tag": "TestTag",
        "name": "TestName",
        "path": "TestPath",
        "input": {"foo": "bar"},
        "type": "ToolAction",
    }


def test_from_dict_and_json():
    artifact = ActionArtifact(action())
    for again in (BaseArtifact.from_dict(artifact.to_dict()), BaseArtifact.from_json(artifact.to_json())):
        assert isinstance(again, ActionArtifact)
        assert again.value.to_dict() == artifact.value.to_dict()
        assert again.value.output is None


def test_bool_and_len():
    assert bool(ActionArtifact(ToolAction(tag="", name="")))
    with pytest.raises(TypeError):
        len(ActionArtifact(action()))


def test_tool_action_str_and_native_names():
    ours = action()
    theirs = GToolAction(tag="TestTag", name="TestName", path="TestPath", input={"foo": "bar"})
    assert str(ours) == str(theirs)
    assert ours.to_native_tool_name() == theirs.to_native_tool_name() == "TestName_TestPath"
    assert ToolAction(tag="t", name="N").to_native_tool_name() == "N"


@pytest.mark.parametrize("native", ["Calc_add", "Calc", "Calc_add_more", "Calc_", "_x", ""])
def test_from_native_tool_name_matches_griptape(native):
    assert ToolAction.from_native_tool_name(native) == GToolAction.from_native_tool_name(native)


def test_output_is_not_serialized():
    act = ToolAction(tag="t", name="n", output=TextArtifact("result"))
    assert "output" not in act.to_dict()
    assert "output" not in ActionArtifact(act).to_json()
