"""Pure task-memory rules against Griptape 1.13 itself: dispatch, the tool.j2 line, actions JSON, meta entries."""

from __future__ import annotations

import json

import pytest
from griptape import artifacts as ga
from griptape.common import ToolAction as GToolAction
from griptape.memory.meta import ActionSubtaskMetaEntry as GMetaEntry
from griptape.tasks import ActionsSubtask

from offprompt.artifacts import (
    ActionArtifact,
    AudioArtifact,
    BaseArtifact,
    BlobArtifact,
    BooleanArtifact,
    ErrorArtifact,
    GenericArtifact,
    ImageArtifact,
    InfoArtifact,
    JsonArtifact,
    ListArtifact,
    TextArtifact,
    ToolAction,
    UrlArtifact,
)
from offprompt.memory import task
from offprompt.memory.meta import ActionSubtaskMetaEntry


def test_tool_line_is_griptapes_template_exactly() -> None:
    from griptape.utils import J2

    rendered = J2("memory/tool.j2").render(
        memory_name="TaskMemory", tool_name="WebTool", activity_name="fetch", artifact_namespace="ns 1"
    )
    assert task.tool_line("WebTool", "fetch", "TaskMemory", "ns 1") == rendered
    assert rendered == (
        'Output of "WebTool.fetch" was stored in memory with memory_name "TaskMemory" and artifact_namespace "ns 1"'
    )


def test_stored_answer_is_info_named_after_namespace() -> None:
    answer = task.stored_answer("T", "a", "M", "ns")
    assert (
        isinstance(answer, InfoArtifact) and answer.name == "ns" and answer.value == task.tool_line("T", "a", "M", "ns")
    )


@pytest.mark.parametrize(
    "artifact",
    [TextArtifact("   \n\t"), TextArtifact(""), ListArtifact(), BlobArtifact(b"")],
    ids=["whitespace", "empty-text", "empty-list", "empty-blob"],
)
def test_empty_outputs(artifact: BaseArtifact) -> None:
    decided = task.plan(artifact)
    assert isinstance(decided.answer, InfoArtifact) and decided.answer.value == "tool output is empty"


@pytest.mark.parametrize(
    "artifact",
    [
        InfoArtifact("info!"),
        ErrorArtifact("boom"),
        JsonArtifact({"a": 1}),
        BooleanArtifact(True),
        GenericArtifact({"x": 1}),
        UrlArtifact("https://example.com"),
        ActionArtifact(ToolAction(tag="t", name="n")),
        ListArtifact([InfoArtifact("a")]),
    ],
)
def test_kinds_without_storage_pass_through_unchanged(artifact: BaseArtifact) -> None:
    decided = task.plan(artifact)
    assert decided.answer is artifact


def test_dispatch_by_type_and_list_first_item() -> None:
    assert task.plan(TextArtifact("x")).kind is task.StorageKind.TEXT
    for blob in (
        BlobArtifact(b"x"),
        ImageArtifact(b"x", format="png", width=1, height=1),
        AudioArtifact(b"x", format="wav"),
    ):
        assert task.plan(blob).kind is task.StorageKind.BLOB
    decided = task.plan(ListArtifact([TextArtifact("a"), TextArtifact("b")], name="ns"))
    assert decided.kind is task.StorageKind.TEXT and decided.namespace == "ns" and len(decided.items) == 2
    assert (
        task.plan(ListArtifact([ImageArtifact(b"x", format="png", width=1, height=1), BlobArtifact(b"y")])).kind
        == "blob"
    )


@pytest.mark.parametrize(
    "items",
    [
        [TextArtifact("a"), BlobArtifact(b"b")],
        [BlobArtifact(b"a"), TextArtifact("b")],
        [TextArtifact("a"), InfoArtifact("i")],
    ],
)
def test_mixed_list_is_refused_whole(items: list[BaseArtifact]) -> None:
    with pytest.raises(task.MixedListError) as err:
        task.plan(ListArtifact(items))
    assert err.value.code == "mixed_list" and err.value.details["index"] == 1


def test_storage_for_matches_griptape_task_memory() -> None:
    from griptape.memory import TaskMemory
    from griptape.memory.task.storage import BlobArtifactStorage, TextArtifactStorage

    memory = TaskMemory()
    cases = [
        (ga.TextArtifact("x"), TextArtifact("x")),
        (ga.BlobArtifact(b"x"), BlobArtifact(b"x")),
        (ga.ImageArtifact(b"x", format="png", width=1, height=1), ImageArtifact(b"x", format="png", width=1, height=1)),
        (ga.InfoArtifact("x"), InfoArtifact("x")),
        (ga.JsonArtifact({"a": 1}), JsonArtifact({"a": 1})),
        (ga.ListArtifact([ga.BlobArtifact(b"x")]), ListArtifact([BlobArtifact(b"x")])),
        (ga.ListArtifact([]), ListArtifact()),
    ]
    for theirs, ours in cases:
        storage = memory.get_storage_for(theirs)
        expected = {TextArtifactStorage: "text", BlobArtifactStorage: "blob"}.get(type(storage))
        assert (task.storage_for(ours) or None) == expected, theirs


def test_actions_to_json_matches_griptape() -> None:
    g_actions = [
        GToolAction(tag="call_9", name="WebTool", path="fetch", input={"url": "ü"}),
        GToolAction(tag="call_10", name="Calc", path=None, input={}),
    ]
    subtask = ActionsSubtask(actions=g_actions)
    ours = [
        ToolAction(tag="call_9", name="WebTool", path="fetch", input={"url": "ü"}),
        ToolAction(tag="call_10", name="Calc"),
    ]
    assert task.actions_to_json(ours) == subtask.actions_to_json()
    assert task.actions_to_json([]) == "[]"


def test_meta_entry_matches_griptape_to_dict() -> None:
    theirs = GMetaEntry(thought="t", actions="[]", answer="a")
    ours = ActionSubtaskMetaEntry(thought="t", actions="[]", answer="a")
    assert ours.to_dict() == theirs.to_dict() and "type" not in ours.to_dict()
    assert ours.to_json() == json.dumps(theirs.to_dict())
    assert ActionSubtaskMetaEntry.from_dict(ours.to_dict()) == ours
    with pytest.raises(Exception, match="strings"):
        ActionSubtaskMetaEntry.from_dict({"actions": 1, "answer": "a"})
