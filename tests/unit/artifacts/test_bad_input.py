"""Bad input never escapes as anything but ArtifactError, and the message says where (ADR 0001, contract §10)."""

from __future__ import annotations

import json

import pytest

from offprompt.artifacts import BaseArtifact, BlobArtifact, ImageArtifact, ListArtifact, TextArtifact
from offprompt.errors import ArtifactError
from offprompt.memory.run import Run
from offprompt.prompt import Message, PromptStack

TEXT = {"type": "TextArtifact", "value": "x"}


def decode_error(payload, cls=BaseArtifact) -> str:
    """Decode payload (str/bytes → from_json, otherwise from_dict) and return the ArtifactError's message."""
    with pytest.raises(ArtifactError) as info:
        if isinstance(payload, str | bytes):
            cls.from_json(payload)
        else:
            cls.from_dict(payload)
    assert info.value.code == "invalid_artifact"
    return info.value.message


@pytest.mark.parametrize(
    "payload",
    ["", "{", '{"type": "TextArtifact", "value": "x"', "{'type': 'TextArtifact'}", "nul", b"\xff\xfe\x00", "[1,]"],
)
def test_malformed_json(payload):
    assert "not valid JSON" in decode_error(payload)


@pytest.mark.parametrize("payload", ["[]", "null", "5", '"TextArtifact"', "true", "[{}]"])
def test_non_object(payload):
    assert "must be a JSON object" in decode_error(payload)


@pytest.mark.parametrize("type_name", ["Nope", "textartifact", "BaseArtifact", "_StrArtifact", "BaseMediaArtifact", ""])
def test_unknown_type(type_name):
    assert "unknown artifact type" in decode_error({"type": type_name, "value": "x"})


def test_unknown_type_message_is_bounded():
    message = decode_error({"type": "X" * 100_000, "value": "x"})
    assert len(message) < 2_000


@pytest.mark.parametrize("type_value", [5, None, [], {}, True])
def test_missing_or_non_string_type_for_base_artifact(type_value):
    payload = {"value": "x"} if type_value is None else {"type": type_value, "value": "x"}
    message = decode_error(payload)
    assert '"type"' in message


def test_concrete_class_refuses_another_type():
    # ADR 0001: dispatch on type and require a subclass of the class asked for.
    assert "expected a TextArtifact" in decode_error({"type": "InfoArtifact", "value": "x"}, TextArtifact)
    assert "expected a BlobArtifact" in decode_error({"type": "TextArtifact", "value": "x"}, BlobArtifact)


@pytest.mark.parametrize(
    ("payload", "where"),
    [
        ({"type": "TextArtifact", "value": 5}, "TextArtifact.value"),
        ({"type": "TextArtifact", "value": None}, "TextArtifact.value"),
        ({"type": "TextArtifact"}, "TextArtifact.value"),
        ({"type": "InfoArtifact", "value": ["x"]}, "InfoArtifact.value"),
        ({"type": "ErrorArtifact", "value": {"a": 1}}, "ErrorArtifact.value"),
        ({"type": "UrlArtifact", "value": 1}, "UrlArtifact.value"),
        ({"type": "TextArtifact", "value": "x", "id": 5}, "TextArtifact.id"),
        ({"type": "TextArtifact", "value": "x", "id": None}, "TextArtifact.id"),
        ({"type": "TextArtifact", "value": "x", "name": 5}, "TextArtifact.name"),
        ({"type": "TextArtifact", "value": "x", "meta": []}, "TextArtifact.meta"),
        ({"type": "TextArtifact", "value": "x", "meta": "m"}, "TextArtifact.meta"),
        ({"type": "TextArtifact", "value": "x", "reference": "r"}, "TextArtifact.reference"),
        ({"type": "TextArtifact", "value": "x", "reference": {"title": 5}}, "TextArtifact.reference.title"),
        ({"type": "TextArtifact", "value": "x", "reference": {}}, "TextArtifact.reference.title"),
        ({"type": "TextArtifact", "value": "x", "reference": {"title": "t", "authors": "a"}}, "reference.authors"),
        ({"type": "BlobArtifact", "value": 5}, "BlobArtifact.value"),
        ({"type": "BlobArtifact", "value": ["AA=="]}, "BlobArtifact.value"),
        ({"type": "BooleanArtifact", "value": "yes"}, "BooleanArtifact.value"),
        ({"type": "BooleanArtifact", "value": 1}, "BooleanArtifact.value"),
        ({"type": "BooleanArtifact", "value": None}, "BooleanArtifact.value"),
        ({"type": "ImageArtifact", "value": "", "format": "png", "width": "1", "height": 1}, "ImageArtifact.width"),
        ({"type": "ImageArtifact", "value": "", "format": "png", "width": 1.5, "height": 1}, "ImageArtifact.width"),
        ({"type": "ImageArtifact", "value": "", "format": "png", "width": 1}, "ImageArtifact.height"),
        ({"type": "ImageArtifact", "value": "", "width": 1, "height": 1}, "ImageArtifact.format"),
        ({"type": "AudioArtifact", "value": "", "format": 3}, "AudioArtifact.format"),
        ({"type": "ListArtifact", "value": "x"}, "ListArtifact.value"),
        ({"type": "ListArtifact", "value": {"type": "TextArtifact"}}, "ListArtifact.value"),
        ({"type": "ListArtifact", "value": [5]}, "ListArtifact.value: [0]"),
        ({"type": "ListArtifact", "value": [TEXT, {"type": "TextArtifact", "value": 1}]}, "[1] TextArtifact.value"),
        ({"type": "ListArtifact", "value": [], "item_separator": 5}, "ListArtifact.item_separator"),
        ({"type": "ListArtifact", "value": [], "validate_uniform_types": "x"}, "validate_uniform_types"),
        ({"type": "ActionArtifact", "value": "x"}, "ActionArtifact.value"),
        ({"type": "ActionArtifact", "value": {"tag": "t"}}, "ActionArtifact.value.name"),
        ({"type": "ActionArtifact", "value": {"tag": "t", "name": "n", "input": []}}, "ActionArtifact.value.input"),
        ({"type": "ActionArtifact", "value": {"tag": "t", "name": "n", "type": "Other"}}, "ActionArtifact.value.type"),
    ],
)
def test_wrong_value_types_name_the_field(payload, where):
    assert where in decode_error(payload)


def test_uniform_list_with_mixed_items():
    payload = {
        "type": "ListArtifact",
        "value": [TEXT, {"type": "BlobArtifact", "value": ""}],
        "validate_uniform_types": True,
    }
    assert "not the same type" in decode_error(payload)


def test_nested_error_names_the_path():
    inner = {"type": "ListArtifact", "value": [TEXT, {"type": "BlobArtifact", "value": "!!"}]}
    message = decode_error({"type": "ListArtifact", "value": [TEXT, TEXT, inner]})
    assert message.startswith("ListArtifact.value: [2] ListArtifact.value: [1] BlobArtifact.value")


@pytest.mark.parametrize("value", ["!!!", "Zm9v YmFy", "Zm9vYmF", "-_-_", "Zm9v\n", "é", b"\xff"])
def test_wrong_base64(value):
    # ADR 0001: strict standard padded base64 (Griptape drops invalid characters silently).
    assert "BlobArtifact.value" in decode_error({"type": "BlobArtifact", "value": value})
    assert "ImageArtifact.value" in decode_error(
        {"type": "ImageArtifact", "value": value, "format": "png", "width": 1, "height": 1}
    )


@pytest.mark.parametrize("key", ["extra", "embedding", "dir_name", "Type", "VALUE", "ü😀"])
def test_unknown_extra_keys_are_named(key):
    # ADR 0001: Griptape's attrs raises TypeError; we raise ArtifactError naming the key.
    message = decode_error({**TEXT, key: 1})
    assert f"TextArtifact.{key}" in message


def test_unknown_keys_in_nested_objects():
    assert "reference.x" in decode_error({**TEXT, "reference": {"title": "t", "x": 1}})
    assert "value.bogus" in decode_error({"type": "ActionArtifact", "value": {"tag": "t", "name": "n", "bogus": None}})
    assert "[0] TextArtifact.bad" in decode_error({"type": "ListArtifact", "value": [{**TEXT, "bad": 1}]})


def test_ten_kb_ids_and_names_are_data_not_errors():
    # Griptape accepts any string id; so do we (limits on storage keys are enforced elsewhere).
    payload = {**TEXT, "id": "i" * 10_240, "name": "n" * 10_240}
    artifact = BaseArtifact.from_dict(payload)
    assert artifact.id == "i" * 10_240 and artifact.name == "n" * 10_240
    assert BaseArtifact.from_json(artifact.to_json()).to_json() == artifact.to_json()


@pytest.mark.parametrize(
    "name", ["../../etc/passwd", "..\\..\\x", "/abs", "a\x00b", "名前😀", "\u202eevil", "\ud800", "%2e%2e%2f", " "]
)
def test_hostile_names_round_trip_unchanged(name):
    artifact = BaseArtifact.from_dict({**TEXT, "name": name})
    assert artifact.name == name
    again = BaseArtifact.from_json(artifact.to_json())
    assert again.name == name
    assert artifact.to_json().isascii()


def nested_lists_json(depth: int) -> str:
    return '{"type": "ListArtifact", "value": [' * depth + json.dumps(TEXT) + "]}" * depth


def nested_lists_dict(depth: int) -> dict:
    data: dict = dict(TEXT)
    for _ in range(depth):
        data = {"type": "ListArtifact", "value": [data]}
    return data


def nested_dict(depth: int) -> dict:
    root: dict = {}
    node = root
    for _ in range(depth):
        node["a"] = {}
        node = node["a"]
    return root


def test_ten_thousand_nested_lists_json():
    decode_error(nested_lists_json(10_000))


def test_ten_thousand_nested_lists_dict():
    decode_error(nested_lists_dict(10_000))


def test_nesting_limit_is_32_lists():
    # ADR 0001: more than 32 nested lists → ArtifactError.
    assert BaseArtifact.from_json(nested_lists_json(32)).to_json()
    assert "nested deeper than 32" in decode_error(nested_lists_json(33))


@pytest.mark.parametrize("depth", [300, 900, 990, 10_000])
def test_deep_meta_json_is_refused_not_a_recursion_error(depth):
    # Before the fix, depths 300..990 loaded and then to_json() raised RecursionError.
    payload = '{"type": "TextArtifact", "value": "x", "meta": ' + '{"a": ' * depth + "1" + "}" * depth + "}"
    decode_error(payload)


@pytest.mark.parametrize("depth", [300, 990, 10_000])
def test_deep_json_and_generic_values_are_refused(depth):
    for kind in ("JsonArtifact", "GenericArtifact", "ModelArtifact"):
        decode_error('{{"type": "{}", "value": {}}}'.format(kind, "[" * depth + "]" * depth))
        decode_error({"type": kind, "value": nested_dict(depth)})


def test_deep_meta_as_python_dict_is_refused():
    assert "TextArtifact.meta.a.a" in decode_error({**TEXT, "meta": nested_dict(10_000)})


def test_moderately_nested_meta_still_loads():
    artifact = BaseArtifact.from_dict({**TEXT, "meta": nested_dict(100)})
    assert BaseArtifact.from_json(artifact.to_json()).to_json() == artifact.to_json()


def test_cyclic_python_meta_is_refused():
    meta: dict = {}
    meta["self"] = meta
    decode_error({**TEXT, "meta": meta})


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"])
def test_nan_and_infinity_are_refused(constant):
    # Not JSON (RFC 8259): json.dumps would write them back as bare NaN/Infinity.
    assert "JsonArtifact.value" in decode_error(f'{{"type": "JsonArtifact", "value": {constant}}}')
    assert "TextArtifact.meta.k" in decode_error(
        f'{{"type": "TextArtifact", "value": "x", "meta": {{"k": {constant}}}}}'
    )
    decode_error(f'{{"type": "GenericArtifact", "value": [1, {constant}]}}')
    decode_error(f'{{"type": "ActionArtifact", "value": {{"tag": "t", "name": "n", "input": {{"v": {constant}}}}}}}')
    decode_error({"type": "JsonArtifact", "value": float(constant.replace("1e999", "inf"))})


def test_huge_ints():
    assert "not valid JSON" in decode_error('{"type": "JsonArtifact", "value": %s}' % ("9" * 5_000))
    assert "integer too large" in decode_error({"type": "JsonArtifact", "value": 10**5_000})
    assert "integer too large" in decode_error({**TEXT, "meta": {"n": -(10**5_000)}})
    # Large but printable ints are data, as in Griptape.
    big = BaseArtifact.from_json('{"type": "GenericArtifact", "value": %d}' % 2**200)  # noqa: UP031
    assert big.value == 2**200 and json.loads(big.to_json())["value"] == 2**200


def test_image_dimensions_are_strict_ints_on_the_wire():
    for bad in (True, "2", 2.0, None):
        decode_error({"type": "ImageArtifact", "value": "", "format": "png", "width": bad, "height": 1})


def test_python_construction_errors_are_artifact_errors():
    with pytest.raises(ArtifactError, match=r"ImageArtifact\.width"):
        ImageArtifact(b"", format="png", width="wide", height=1)
    with pytest.raises(ArtifactError, match="not the same type"):
        ListArtifact([TextArtifact("a"), BlobArtifact(b"b")], validate_uniform_types=True)
    with pytest.raises(ArtifactError, match=r"ListArtifact\.value"):
        ListArtifact(["not an artifact"])


def test_non_serializable_meta_fails_with_artifact_error_on_dump():
    # Griptape raises TypeError for bytes in meta; we raise ArtifactError.
    with pytest.raises(ArtifactError, match="not JSON-serializable"):
        TextArtifact("x", meta={"b": b"bytes"}).to_json()


# ---- Message / PromptStack / Run -------------------------------------------------------------------------

TEXT_CONTENT = {"type": "TextMessageContent", "artifact": TEXT}


def message_error(payload) -> str:
    with pytest.raises(ArtifactError) as info:
        Message.from_dict(payload)
    return info.value.message


@pytest.mark.parametrize(
    ("payload", "where"),
    [
        ([], "message must be a JSON object"),
        ("m", "message must be a JSON object"),
        ({"role": "user"}, "Message.content"),
        ({"role": "user", "content": "hi"}, "Message.content"),
        ({"role": 5, "content": [TEXT_CONTENT]}, "Message.role"),
        ({"content": [TEXT_CONTENT]}, "Message.role"),
        ({"type": "Run", "role": "user", "content": []}, "expected a Message"),
        ({"role": "user", "content": [], "extra": 1}, "extra"),
        ({"role": "user", "content": [], "usage": []}, "Message.usage"),
        ({"role": "user", "content": [], "usage": "u"}, "Message.usage"),
        ({"role": "user", "content": [], "usage": {"input_tokens": "a"}}, "Message.usage.input_tokens"),
        ({"role": "user", "content": [], "usage": {"input_tokens": float("nan")}}, "Message.usage.input_tokens"),
        ({"role": "user", "content": [], "usage": {"output_tokens": float("inf")}}, "Message.usage.output_tokens"),
        ({"role": "user", "content": [], "usage": {"foo": 1}}, "Message.usage.foo"),
        ({"role": "user", "content": [5]}, "Message.content[0]"),
        ({"role": "user", "content": [TEXT_CONTENT, {"type": "X"}]}, "Message.content[1]"),
        ({"role": "user", "content": [{"type": 5}]}, "Message.content[0]"),
        ({"role": "user", "content": [{"type": ["unhashable"]}]}, "Message.content[0]"),
        ({"role": "user", "content": [{"type": {"a": 1}}]}, "Message.content[0]"),
        ({"role": "user", "content": [{"artifact": TEXT}]}, "Message.content[0]"),
        ({"role": "user", "content": [{"type": "TextMessageContent"}]}, "TextMessageContent.artifact"),
        ({"role": "user", "content": [{**TEXT_CONTENT, "x": 1}]}, "TextMessageContent: unexpected key(s) x"),
        (
            {"role": "user", "content": [{"type": "TextMessageContent", "artifact": {**TEXT, "value": 1}}]},
            "Message.content[0]: TextArtifact.value",
        ),
        ({"role": "user", "content": [{"type": "ImageMessageContent", "artifact": TEXT}]}, "ImageMessageContent"),
        ({"role": "user", "content": [{"type": "AudioMessageContent", "artifact": TEXT}]}, "AudioMessageContent"),
        ({"role": "user", "content": [{"type": "VideoMessageContent", "artifact": TEXT}]}, "VideoMessageContent"),
        ({"role": "user", "content": [{"type": "GenericMessageContent", "artifact": TEXT}]}, "GenericMessageContent"),
        ({"role": "user", "content": [{"type": "ActionCallMessageContent", "artifact": TEXT}]}, "ActionCallMessage"),
        ({"role": "user", "content": [{"type": "ActionResultMessageContent", "artifact": TEXT}]}, ".action"),
        (
            {"role": "u", "content": [{"type": "ActionResultMessageContent", "artifact": TEXT, "action": {"tag": 1}}]},
            "ActionResultMessageContent.action",
        ),
        (
            {
                "role": "u",
                "content": [
                    {
                        "type": "ActionResultMessageContent",
                        "artifact": TEXT,
                        "action": {"tag": "t", "name": "n", "input": nested_dict(10_000)},
                    }
                ],
            },
            "ActionResultMessageContent.action",
        ),
        ({"role": "u", "content": [{"type": "TextDeltaMessageContent", "text": 5}]}, "TextDeltaMessageContent"),
        ({"role": "u", "content": [{"type": "TextDeltaMessageContent", "text": "a", "x": 1}]}, "Message.content[0]"),
    ],
)
def test_message_decoding_errors(payload, where):
    assert where in message_error(payload)


@pytest.mark.parametrize(
    ("payload", "where"),
    [
        (5, "prompt stack"),
        ([], "prompt stack"),
        ({"type": "Message"}, "prompt stack"),
        ({"type": 5}, "prompt stack"),
        ({"messages": "m"}, "PromptStack.messages"),
        ({"messages": [{"role": "user", "content": [TEXT_CONTENT]}, 5]}, "PromptStack.messages[1]"),
        ({"messages": [{"role": "user", "content": [{"type": "Nope"}]}]}, "PromptStack.messages[0]: Message.content"),
        ({"messages": [], "extra": 1}, "extra"),
        ({"messages": [], "tools": []}, "tools"),
    ],
)
def test_prompt_stack_decoding_errors(payload, where):
    with pytest.raises(ArtifactError) as info:
        PromptStack.from_dict(payload)
    assert where in info.value.message


@pytest.mark.parametrize(
    ("payload", "where"),
    [
        (5, "run must be a JSON object"),
        ([], "run must be a JSON object"),
        ({"type": "Message", "input": TEXT, "output": TEXT}, "expected a Run"),
        ({"type": ["x"], "input": TEXT, "output": TEXT}, "expected a Run"),
        ({"output": TEXT}, "Run.input"),
        ({"input": TEXT}, "Run.output"),
        ({"id": 5, "input": TEXT, "output": TEXT}, "Run.id"),
        ({"meta": [], "input": TEXT, "output": TEXT}, "Run.meta"),
        ({"meta": {"a": float("nan")}, "input": TEXT, "output": TEXT}, "Run.meta.a"),
        ({"meta": nested_dict(10_000), "input": TEXT, "output": TEXT}, "Run.meta"),
        ({"input": {**TEXT, "value": 1}, "output": TEXT}, "Run.input: TextArtifact.value"),
        ({"input": TEXT, "output": 5}, "Run.output"),
        ({"input": TEXT, "output": {"value": "x"}}, "Run.output"),
        ({"input": TEXT, "output": nested_lists_dict(10_000)}, "Run.output"),
        ({"input": TEXT, "output": TEXT, "extra": 1}, "extra"),
    ],
)
def test_run_decoding_errors(payload, where):
    with pytest.raises(ArtifactError) as info:
        Run.from_dict(payload)
    assert where in info.value.message


@pytest.mark.parametrize(
    "text",
    [
        "{",
        "[]",
        b"\xff",
        "[" * 10_000 + "]" * 10_000,
        '{"meta": {"a": NaN}, "input": {"type": "TextArtifact", "value": "x"}, '
        '"output": {"type": "TextArtifact", "value": "x"}}',
    ],
)
def test_run_from_json_errors(text):
    with pytest.raises(ArtifactError):
        Run.from_json(text)
