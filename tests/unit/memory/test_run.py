"""Run (contract §3.1): Griptape's JSON both ways."""

import json

import pytest
from griptape import artifacts as ga
from griptape.memory.structure import Run as GRun

from offprompt import artifacts as oa
from offprompt.memory.run import Run

RUN_JSON = (
    '{"type": "Run", "id": "run1", "meta": null, "input": {"type": "TextArtifact", "id": "in1", "reference": null, '
    '"meta": {}, "name": "in1", "value": "hi"}, "output": {"type": "TextArtifact", "id": "out1", "reference": null, '
    '"meta": {}, "name": "out1", "value": "hello"}}'
)


def test_contract_sample_round_trips_byte_identical():
    assert Run.from_json(RUN_JSON).to_json() == RUN_JSON
    assert GRun.from_json(RUN_JSON).to_json() == RUN_JSON


def test_built_run_matches_griptape():
    ours = Run(id="r", input=oa.TextArtifact("hi", id="i", name="i"), output=oa.TextArtifact("yo", id="o", name="o"))
    theirs = GRun(id="r", input=ga.TextArtifact("hi", id="i", name="i"), output=ga.TextArtifact("yo", id="o", name="o"))
    assert ours.to_json() == theirs.to_json()


def test_defaults():
    run = Run(input=oa.TextArtifact("a"), output=oa.TextArtifact("b"))
    assert len(run.id) == 32 and run.meta is None
    assert list(run.to_dict()) == ["type", "id", "meta", "input", "output"]


def test_griptape_run_with_meta_and_polymorphic_artifacts():
    theirs = GRun(
        meta={"is_react_prompt": False},
        input=ga.ListArtifact(
            [ga.TextArtifact("q"), ga.ImageArtifact(b"i", format="png", width=1, height=1, name="n")]
        ),
        output=ga.InfoArtifact("a", meta={"is_react_prompt": False}),
    )
    payload = theirs.to_json()
    ours = Run.from_json(payload)
    assert isinstance(ours.input, oa.ListArtifact) and isinstance(ours.output, oa.InfoArtifact)
    assert ours.meta == {"is_react_prompt": False}
    assert ours.to_json() == payload
    assert GRun.from_json(ours.to_json()).to_json() == payload


def test_type_is_optional_and_id_defaults():
    # Redis test data in Griptape omits type and id (contract §3.1).
    data = json.loads(RUN_JSON)
    del data["type"], data["id"]
    run = Run.from_dict(data)
    assert len(run.id) == 32
    assert run.input.value == "hi"
    assert GRun.from_dict(json.loads(RUN_JSON)).id == "run1"


def test_empty_id_is_kept_as_griptape_does():
    data = {**json.loads(RUN_JSON), "id": ""}
    assert Run.from_dict(data).id == "" == GRun.from_dict(data).id


def test_module_name_is_ignored():
    data = {**json.loads(RUN_JSON), "module_name": "griptape.memory.structure.run"}
    assert Run.from_dict(data).to_json() == RUN_JSON


@pytest.mark.parametrize("meta", [{"a": [1, {"b": None}]}, {}, {"ü": "😀"}])
def test_meta_round_trips(meta):
    data = {**json.loads(RUN_JSON), "meta": meta}
    payload = json.dumps(data)
    assert Run.from_json(payload).to_json() == payload == GRun.from_json(payload).to_json()
