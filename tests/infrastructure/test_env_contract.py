"""OFFPROMPT_* variables: what the code reads and what template.yaml sets are the same set."""

from __future__ import annotations

import pytest
from sam_support import load_template
from test_iam_least_privilege import code_graph

from offprompt.config import Settings

# Read by the code but deliberately never set by the template (local stack only).
LOCAL_ONLY = {"OFFPROMPT_TRUST_TENANT_HEADER", "OFFPROMPT_TOKEN_SECRET"}  # the token secret: its ARN deployed


def _read_by_code() -> set[str]:
    aliases = {f.alias for f in Settings.model_fields.values() if f.alias}
    graph = code_graph()
    literal = set()
    for module in (
        "add_run",
        "prompt_stack",
        "threads",
        "cloud_threads",
        "summarizer",
        "process_output",
        "load_artifacts",
        "memories",
    ):
        literal |= {n for n in graph.reach(f"{module}.handler").env_names if n != "OFFPROMPT_"}
    return aliases | literal


def _set_by_template() -> dict[str, set[str]]:
    template = load_template()
    shared = set(template["Globals"]["Function"]["Environment"]["Variables"])
    return {
        logical_id: shared | set(r["Properties"].get("Environment", {}).get("Variables", {}))
        for logical_id, r in template["Resources"].items()
        if r["Type"] == "AWS::Serverless::Function"
    }


def test_every_variable_the_code_reads_is_set_by_the_template() -> None:
    everywhere = set().union(*_set_by_template().values())
    missing = {n for n in _read_by_code() - everywhere if n.startswith("OFFPROMPT_")} - LOCAL_ONLY
    assert not missing, missing


def test_every_variable_the_template_sets_is_read_by_the_code() -> None:
    everywhere = {n for n in set().union(*_set_by_template().values()) if n.startswith("OFFPROMPT_")}
    assert everywhere <= _read_by_code()
    assert not everywhere & LOCAL_ONLY


@pytest.mark.parametrize("logical_id", sorted(_set_by_template()))
def test_required_settings_reached_by_a_function_are_set_for_it(logical_id: str) -> None:
    handler = load_template()["Resources"][logical_id]["Properties"]["Handler"].rsplit(".", 1)[0]
    reached = code_graph().reach(handler).setting_fields
    required = {f.alias for name, f in Settings.model_fields.items() if f.default is None and name in reached}
    assert required - LOCAL_ONLY <= _set_by_template()[logical_id]
