"""Ported from Griptape's Message tests (contract §2, §9)."""

import json

from griptape.common import Message as GMessage

from offprompt import artifacts as oa
from offprompt.prompt import ImageMessageContent, Message, TextMessageContent, Usage


def test_str_content_is_wrapped():
    message = Message("foo", role="user")
    assert isinstance(message.content[0], TextMessageContent)
    assert message.content[0].artifact.value == "foo"
    assert message.usage == Usage()


def test_roles():
    assert Message("x", role="user").is_user()
    assert Message("x", role="assistant").is_assistant()
    assert Message("x", role="system").is_system()
    assert (Message.USER_ROLE, Message.ASSISTANT_ROLE, Message.SYSTEM_ROLE) == ("user", "assistant", "system")


def test_to_text_concatenates_text_contents_only():
    image = ImageMessageContent(oa.ImageArtifact(b"i", format="png", width=1, height=1))
    message = Message(
        [TextMessageContent(oa.TextArtifact("a")), image, TextMessageContent(oa.TextArtifact("b"))], role="user"
    )
    assert message.to_text() == "ab" == str(message)
    assert not message.is_text()
    assert message.has_any_content_type(ImageMessageContent)
    assert not message.has_all_content_type(ImageMessageContent)
    assert message.get_content_type(ImageMessageContent) == [image]


def test_to_artifact_single_and_list_and_meta_mutation():
    text = oa.TextArtifact("a")
    single = Message([TextMessageContent(text)], role="user")
    assert single.to_artifact({"k": 1}) is text
    assert text.meta == {"k": 1}  # mutates, as in Griptape
    double = Message([TextMessageContent(oa.TextArtifact("a")), TextMessageContent(oa.TextArtifact("b"))], role="u")
    artifact = double.to_artifact()
    assert isinstance(artifact, oa.ListArtifact) and [a.value for a in artifact.value] == ["a", "b"]
    assert single.value == "a"


def test_usage_dumps_floats():
    message = Message("x", role="assistant", usage=Usage(input_tokens=5, output_tokens=7))
    assert message.to_dict()["usage"] == {"type": "Usage", "input_tokens": 5.0, "output_tokens": 7.0}
    assert json.dumps(message.to_dict()["usage"]) == '{"type": "Usage", "input_tokens": 5.0, "output_tokens": 7.0}'
    assert Usage(input_tokens=5, output_tokens=7).total_tokens == 12


def test_key_order_and_griptape_equality():
    ours = Message([TextMessageContent(oa.TextArtifact("hi", id="t", name="t"))], role="user")
    payload = json.dumps(ours.to_dict())
    assert list(ours.to_dict()) == ["type", "role", "usage", "content"]
    theirs = GMessage.from_json(payload)
    assert theirs.to_json() == payload
    assert Message.from_dict(json.loads(theirs.to_json())).to_dict() == ours.to_dict()


def test_griptape_message_with_usage_loads():
    payload = GMessage("x", role="assistant", usage=GMessage.Usage(input_tokens=3, output_tokens=4)).to_json()
    ours = Message.from_dict(json.loads(payload))
    assert ours.usage.input_tokens == 3 and ours.usage.output_tokens == 4
    assert json.dumps(ours.to_dict()) == payload


def test_minimal_message_loads():
    message = Message.from_dict({"role": "user", "content": []})
    assert message.to_dict()["usage"] == {"type": "Usage", "input_tokens": None, "output_tokens": None}
