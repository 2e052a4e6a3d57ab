"""Griptape 1.13 interop: its own TaskMemory.process_output and ours give the same answers, and artifacts
Griptape produced come back from our load byte-identical (real OpenSearch text storage, moto S3)."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from attrs import define
from griptape import artifacts as ga
from griptape.drivers.embedding.base_embedding_driver import BaseEmbeddingDriver
from griptape.drivers.vector.local_vector_store_driver import LocalVectorStoreDriver
from griptape.memory import TaskMemory
from griptape.memory.task.storage import BlobArtifactStorage, TextArtifactStorage
from tm_it_helpers import call, http_event


@define
class MockEmbeddingDriver(BaseEmbeddingDriver):
    model: str = "mock"

    def try_embed_chunk(self, chunk: str, **kwargs: Any) -> list[float]:
        return [0.0, 1.0]


class WebTool:
    name = "WebTool"

    def fetch(self) -> None: ...

    fetch.name = "fetch"  # type: ignore[attr-defined]


def griptape_memory() -> TaskMemory:
    return TaskMemory(
        artifact_storages={
            ga.TextArtifact: TextArtifactStorage(
                vector_store_driver=LocalVectorStoreDriver(embedding_driver=MockEmbeddingDriver())
            ),
            ga.BlobArtifact: BlobArtifactStorage(),
        }
    )


SUBTASK = SimpleNamespace(actions_to_json=lambda: "[]", structure=None, thought=None)


def cases() -> list[ga.BaseArtifact]:
    return [
        ga.TextArtifact("hello world", meta={"k": [1, 2.5]}),
        ga.TextArtifact("Ünïcødé 🎉 text"),
        ga.ListArtifact([ga.TextArtifact("a"), ga.TextArtifact("b")]),
        ga.BlobArtifact(b"\x00\x01binary"),
        ga.ImageArtifact(b"PNGDATA", format="png", width=2, height=3),
        ga.AudioArtifact(b"RIFF", format="wav"),
        ga.ListArtifact([ga.BlobArtifact(b"1"), ga.ImageArtifact(b"2", format="jpeg", width=1, height=1)]),
        ga.TextArtifact("   "),
        ga.ListArtifact([]),
        ga.InfoArtifact("info!"),
        ga.ErrorArtifact("boom"),
        ga.JsonArtifact({"a": 1}),
        ga.BooleanArtifact(True),
        ga.GenericArtifact({"x": 1}),
        ga.UrlArtifact("https://example.com"),
    ]


def post(h: SimpleNamespace, artifact_json: str) -> tuple[int, Any]:
    body = {"tool": "WebTool", "activity": "fetch", "artifact": json.loads(artifact_json)}
    status, response, _ = call(h.po, http_event("process_output_http.json", body=body))
    return status, response


@pytest.mark.parametrize("index", range(len(cases())))
def test_same_answer_as_griptape_and_loads_back_identical(handlers: SimpleNamespace, index: int) -> None:
    artifact = cases()[index]
    memory = griptape_memory()
    theirs = memory.process_output(WebTool().fetch, SUBTASK, artifact)
    status, ours = post(handlers, artifact.to_json())
    assert status == 200
    assert ours["type"] == theirs.type and ours["value"] == theirs.value
    if isinstance(theirs.value, str) and theirs.value.startswith("Output of"):
        assert ours["name"] == theirs.name == artifact.name
        # What Griptape's own storage loads back, our load returns byte-identically (as Griptape JSON).
        expected = [a.to_json() for a in memory.load_artifacts(artifact.name).value]
        event = http_event(
            "load_artifacts_http.json",
            path=f"/memories/TaskMemory/namespaces/{artifact.name}/artifacts",
            params={"memory_name": "TaskMemory", "namespace": artifact.name},
        )
        raw = handlers.la.lambda_handler(event, None)["body"]
        assert [json.dumps(i) for i in json.loads(raw)["value"]] == expected
        assert all(e in raw for e in expected)
        loaded = ga.BaseArtifact.from_json(raw)  # Griptape reads our ListArtifact
        assert [a.to_json() for a in loaded.value] == expected
    elif theirs.value != "tool output is empty":
        assert json.dumps(ours) == theirs.to_json()  # passed through unchanged


def test_conflict_matches_griptape(handlers: SimpleNamespace) -> None:
    memory = griptape_memory()
    text = ga.TextArtifact("t", name="ns")
    blob = ga.BlobArtifact(b"b", name="ns")
    memory.process_output(WebTool().fetch, SUBTASK, text)
    theirs = memory.process_output(WebTool().fetch, SUBTASK, blob)
    post(handlers, text.to_json())
    status, ours = post(handlers, blob.to_json())
    assert status == 409 and ours["artifact"]["type"] == theirs.type == "ErrorArtifact"
    assert ours["artifact"]["value"] == theirs.value
