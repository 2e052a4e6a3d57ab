"""Ported from Griptape's tests/unit/common/test_prompt_stack.py (contract §2, §9), compared with Griptape itself."""

import json

import pytest
from griptape import artifacts as ga
from griptape.common import PromptStack as GPromptStack
from griptape.common import ToolAction as GToolAction

from offprompt import artifacts as oa
from offprompt.prompt import (
    ActionCallMessageContent,
    ActionResultMessageContent,
    AudioMessageContent,
    GenericMessageContent,
    ImageMessageContent,
    Message,
    PromptStack,
    TextMessageContent,
    VideoMessageContent,
)


def test_init():
    assert PromptStack().messages == []


@pytest.mark.parametrize("role", ["user", "assistant", "system", "custom"])
def test_add_message_str(role):
    stack = PromptStack()
    stack.add_message("foo", role)
    assert stack.messages[0].role == role
    assert isinstance(stack.messages[0].content[0], TextMessageContent)
    assert stack.messages[0].content[0].artifact.value == "foo"


def test_add_text_artifact_keeps_the_same_object():
    text = oa.TextArtifact("foo", meta={"m": 1})
    message = PromptStack().add_user_message(text)
    assert message.content[0].artifact is text


@pytest.mark.parametrize(
    ("artifact", "content_type"),
    [
        (oa.ImageArtifact(b"i", format="png", width=1, height=1), ImageMessageContent),
        (oa.ImageUrlArtifact("https://e.com/i.png"), ImageMessageContent),
        (oa.AudioArtifact(b"a", format="wav"), AudioMessageContent),
        (oa.VideoUrlArtifact("https://e.com/v.mp4"), VideoMessageContent),
        (oa.GenericArtifact({"g": 1}), GenericMessageContent),
        (oa.ModelArtifact({"m": 1}), GenericMessageContent),
        (oa.ActionArtifact(oa.ToolAction(tag="t", name="n", path="p")), ActionCallMessageContent),
    ],
)
def test_add_message_kinds_keep_the_artifact(artifact, content_type):
    message = PromptStack().add_assistant_message(artifact)
    assert isinstance(message.content[0], content_type)
    assert message.content[0].artifact is artifact


@pytest.mark.parametrize(
    "artifact",
    [
        oa.InfoArtifact("info"),
        oa.ErrorArtifact("err"),
        oa.JsonArtifact({"a": 1}),
        oa.BooleanArtifact(True),
        oa.BlobArtifact(b"blob"),
        oa.UrlArtifact("https://e.com"),
        oa.AudioUrlArtifact("https://e.com/a.wav"),
    ],
)
def test_other_kinds_become_a_new_text_artifact(artifact):
    message = PromptStack().add_user_message(artifact)
    content = message.content[0]
    assert isinstance(content, TextMessageContent)
    assert type(content.artifact) is oa.TextArtifact
    assert content.artifact.value == artifact.to_text()
    assert content.artifact.id != artifact.id


def test_action_with_output_becomes_action_result():
    output = oa.TextArtifact("2")
    action = oa.ToolAction(tag="t", name="Calc", path="add", output=output)
    message = PromptStack().add_user_message(oa.ActionArtifact(action))
    content = message.content[0]
    assert isinstance(content, ActionResultMessageContent)
    assert content.artifact is output
    assert content.action is action


def test_list_is_flattened_into_one_message():
    stack = PromptStack()
    stack.add_user_message(
        oa.ListArtifact(
            [
                oa.TextArtifact("a"),
                oa.ListArtifact([oa.ImageArtifact(b"i", format="png", width=1, height=1), oa.InfoArtifact("b")]),
            ]
        )
    )
    assert len(stack.messages) == 1
    kinds = [type(c) for c in stack.messages[0].content]
    assert kinds == [TextMessageContent, ImageMessageContent, TextMessageContent]


def test_role_helpers_and_filters():
    stack = PromptStack()
    stack.add_system_message("s")
    stack.add_user_message("u")
    stack.add_assistant_message("a")
    assert [m.role for m in stack.messages] == ["system", "user", "assistant"]
    assert [m.to_text() for m in stack.system_messages] == ["s"]
    assert [m.to_text() for m in stack.user_messages] == ["u"]
    assert [m.to_text() for m in stack.assistant_messages] == ["a"]


def test_from_artifact():
    stack = PromptStack.from_artifact(oa.TextArtifact("foo"))
    assert len(stack.messages) == 1 and stack.messages[0].is_user()


def build_both():
    """The same conversation built in Griptape and in ours, with fixed ids so the JSON can be compared."""
    ids = {"id": "fixed", "name": "fixed"}  # media get distinct names: Griptape renames name == id (ADR 0001)
    img = {"id": "img", "name": "i.png"}
    theirs, ours = GPromptStack(), PromptStack()
    theirs.add_system_message(ga.TextArtifact("sys", **ids))
    ours.add_system_message(oa.TextArtifact("sys", **ids))
    theirs.add_user_message(
        ga.ListArtifact(
            [
                ga.TextArtifact("look", **ids),
                ga.ImageArtifact(b"i", format="png", width=1, height=1, **img),
            ]
        )
    )
    ours.add_user_message(
        oa.ListArtifact(
            [
                oa.TextArtifact("look", **ids),
                oa.ImageArtifact(b"i", format="png", width=1, height=1, **img),
            ]
        )
    )
    theirs.add_assistant_message(ga.ActionArtifact(GToolAction(tag="c", name="Calc", path="p", input={"x": 1}), **ids))
    ours.add_assistant_message(oa.ActionArtifact(oa.ToolAction(tag="c", name="Calc", path="p", input={"x": 1}), **ids))
    theirs.add_user_message(
        ga.ActionArtifact(GToolAction(tag="c", name="Calc", path="p", output=ga.TextArtifact("2", **ids)), **ids)
    )
    ours.add_user_message(
        oa.ActionArtifact(oa.ToolAction(tag="c", name="Calc", path="p", output=oa.TextArtifact("2", **ids)), **ids)
    )
    theirs.add_assistant_message(ga.GenericArtifact({"g": 1}, **ids))
    ours.add_assistant_message(oa.GenericArtifact({"g": 1}, **ids))
    return theirs, ours


def test_same_stack_as_griptape():
    theirs, ours = build_both()
    assert json.dumps(ours.to_dict()) == theirs.to_json()


def test_round_trip_through_griptape():
    _, ours = build_both()
    payload = json.dumps(ours.to_dict())
    assert GPromptStack.from_json(payload).to_json() == payload
    assert json.dumps(PromptStack.from_dict(json.loads(payload)).to_dict()) == payload


def test_griptape_stack_json_loads():
    theirs, _ = build_both()
    ours = PromptStack.from_dict(json.loads(theirs.to_json()))
    assert json.dumps(ours.to_dict()) == theirs.to_json()
    assert [m.role for m in ours.messages] == [m.role for m in theirs.messages]


def test_minimal_stack_json():
    assert PromptStack.from_dict({"messages": []}).to_dict() == {"type": "PromptStack", "messages": []}
    assert PromptStack.from_dict({"type": "PromptStack"}).messages == []


def test_message_type_names():
    assert Message("x", role="user").content[0].to_dict()["type"] == "TextMessageContent"
