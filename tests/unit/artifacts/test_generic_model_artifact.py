"""Ported from Griptape's tests/unit/artifacts/test_generic_artifact.py and test_model_artifact.py."""

import json

from griptape import artifacts as ga
from pydantic import BaseModel

from offprompt.artifacts import BaseArtifact, GenericArtifact, ModelArtifact


class Foo(BaseModel):
    value: str


def test_generic_to_text_is_python_str():
    assert GenericArtifact("foo").to_text() == "foo"
    assert GenericArtifact({"a": 1}).to_text() == "{'a': 1}" == ga.GenericArtifact({"a": 1}).to_text()


def test_generic_to_dict_and_from_dict():
    artifact = GenericArtifact({"a": [1]})
    assert artifact.to_dict()["value"] == {"a": [1]}
    again = BaseArtifact.from_dict(artifact.to_dict())
    assert isinstance(again, GenericArtifact) and not isinstance(again, ModelArtifact)
    assert again.value == {"a": [1]}


def test_model_to_text_and_dict():
    artifact = ModelArtifact(Foo(value="foo"))
    assert artifact.to_text() == '{"value":"foo"}'
    assert artifact.to_dict()["value"] == {"value": "foo"}


def test_model_from_dict_is_a_model_artifact_with_a_plain_dict():
    # ADR 0001: Griptape loads RootModel(dict); we load the dict. Dump and text are the same.
    artifact = ModelArtifact(Foo(value="foo"))
    again = BaseArtifact.from_dict(artifact.to_dict())
    assert isinstance(again, ModelArtifact)
    assert again.value == {"value": "foo"}
    assert again.to_text() == '{"value":"foo"}'
    assert again.to_json() == artifact.to_json()
    assert json.loads(ga.BaseArtifact.from_json(artifact.to_json()).to_text()) == {"value": "foo"}
